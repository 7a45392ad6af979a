import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';

// Hostile query strings: every one gets a 4xx with PostgREST's error shape, and request text never becomes SQL.

let t: TestContext;
let admin: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  const id = (await makePerson(t.db, { roles: ['admin'] })).id;
  admin = await bearerHeaders(t.db, id);
  await t.db.query(`INSERT INTO teams (name, created_by) VALUES ('sre', $1)`, [id]);
});
afterAll(() => t.close());

const get = (qs: string) => t.app.inject({ method: 'GET', url: `/api/db/teams?${qs}`, headers: admin });

describe('hostile input', () => {
  it.each([
    'select=,,,', 'select=(', 'select=id)', 'select=*,created_by(', 'select=id::text;drop table teams',
    `select=${'a('.repeat(50)}`, 'order=name.sideways', 'order=', 'or=(', 'or=((((', `or=${'('.repeat(500)}`,
    `or=(${'or('.repeat(40)}name.eq.x${')'.repeat(40)})`, 'and=(name.eq.1,)', 'name=eq', 'name=zz.1', 'name=in.(a',
    `name=in.(${Array(2000).fill('x').join(',')})`, 'name=eq.%00', '%00=eq.1', '=eq.1', 'limit=-1', 'limit=1e999',
    'offset=abc', 'select=id&select=(', 'name->=eq.1', 'name.=eq.1', '.name=eq.1', 'name=is.maybe',
    `select=${Array(400).fill('id').join(',')}`, 'name=fts(a;b).x', 'name=not.not.eq.1',
  ])('%s → 4xx JSON error', async (qs) => {
    const res = await get(qs);
    expect(res.statusCode, res.payload).toBeGreaterThanOrEqual(400);
    expect(res.statusCode, res.payload).toBeLessThan(500);
    expect(Object.keys(res.json()).sort()).toEqual(['code', 'details', 'hint', 'message']);
  });

  it('keeps quoted aliases and JSON keys as data, not SQL', async () => {
    const alias = 'x" FROM pg_user; --';
    const res = await get(`select=${encodeURIComponent(`"${alias.replace(/"/g, '\\"')}":name`)}`);
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.json()).toEqual([{ [alias]: 'sre' }]);
    const path = await get(`select=${encodeURIComponent(`spec->>"a'); DROP TABLE teams; --"`)}`);
    expect(path.statusCode, path.payload).toBe(200);
    expect(path.json()).toEqual([{ "a'); DROP TABLE teams; --": null }]);
    const filter = await get(`name=eq.${encodeURIComponent("sre' OR '1'='1")}`);
    expect(filter.json()).toEqual([]);
    expect((await t.db.query('SELECT count(*)::int AS n FROM teams')).rows[0].n).toBe(1);
  });
});
