import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeaders, createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

// Reads through /api/db: vertical filtering, horizontal filters, ordering, paging, counts, HEAD and singular objects.

let t: TestContext;
let admin: Record<string, string>;
let viewer: Record<string, string>;
let adminId: string;

const get = (url: string, headers: Record<string, string> = admin) => t.app.inject({ method: 'GET', url: `/api/db/${url}`, headers });
const names = (res: { json(): unknown }) => (res.json() as { name: string }[]).map((r) => r.name);

beforeAll(async () => {
  t = await createTestApp();
  adminId = (await makePerson(t.db, { roles: ['admin'], first: 'Ada', last: 'Admin' })).id;
  admin = await bearerHeaders(t.db, adminId);
  viewer = await sessionHeaders(t.db, (await makePerson(t.db, { first: 'Vic', last: 'Viewer' })).id);
  await t.db.query(
    `INSERT INTO agents (name, description, properties, last_seen, created_by) VALUES
       ('alpha', 'first', '{"env":"prod","team":"a","tags":["x","y"]}', now() - interval '1 hour', $1),
       ('bravo', NULL, '{"env":"dev","team":"b"}', NULL, NULL),
       ('charlie', 'third, with comma', '{"env":"prod","team":"c"}', now() - interval '3 days', $1),
       ('delta', 'has a "quote"', NULL, now(), NULL)`,
    [adminId],
  );
});
afterAll(() => t.close());

describe('select', () => {
  it('returns chosen columns with aliases, casts and JSON paths', async () => {
    const res = await get('agents?select=name,about:description,cleanup::text,env:properties->>env,properties->team&name=eq.alpha');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual([{ name: 'alpha', about: 'first', cleanup: 'false', env: 'prod', team: 'a' }]);
  });

  it('expands * without hidden columns, and refuses to select them', async () => {
    await t.db.query(`INSERT INTO access_tokens (name, person_id, value) VALUES ('ci', $1, 'secret-hash')`, [adminId]);
    const rows = (await get('access_tokens?select=*')).json();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row).not.toHaveProperty('value');
    const res = await get('access_tokens?select=value');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: '42703', message: 'column access_tokens.value does not exist' });
    expect((await get('access_tokens?value=eq.secret-hash')).statusCode).toBe(400);
    expect((await get('access_tokens?order=value')).statusCode).toBe(400);
  });

  it('suggests a near column name for a typo', async () => {
    const res = await get('agents?select=nmae');
    expect(res.json()).toMatchObject({ code: '42703', hint: 'Perhaps you meant to reference the column "agents.name".' });
  });

  it('refuses casts outside the allowlist', async () => {
    const res = await get('agents?select=name::regclass');
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('42704');
  });
});

describe('filters', () => {
  it.each([
    ['name=eq.alpha', ['alpha']],
    ['name=neq.alpha&name=neq.bravo', ['charlie', 'delta']],
    ['name=gt.bravo', ['charlie', 'delta']],
    ['name=gte.bravo&name=lte.charlie', ['bravo', 'charlie']],
    ['name=lt.bravo', ['alpha']],
    ['name=like.*ar*', ['charlie']],
    ['name=ilike.*LT*', ['delta']],
    ['name=match.^[ab]', ['alpha', 'bravo']],
    ['name=imatch.^[AB]', ['alpha', 'bravo']],
    ['name=in.(alpha,delta,"x,y")', ['alpha', 'delta']],
    ['description=in.("third, with comma","has a \\"quote\\"")', ['charlie', 'delta']],
    ['name=not.in.(alpha,delta)', ['bravo', 'charlie']],
    ['description=is.null', ['bravo']],
    ['description=not.is.null', ['alpha', 'charlie', 'delta']],
    ['cleanup=is.false&name=eq.alpha', ['alpha']],
    ['description=isdistinct.first', ['bravo', 'charlie', 'delta']],
    ['properties->>env=eq.prod', ['alpha', 'charlie']],
    ['properties=cs.{"env":"dev"}', ['bravo']],
    ['properties->tags=cs.["x"]', ['alpha']],
    ['description=fts.third', ['charlie']],
    ['description=fts(english).thirds', ['charlie']],
    ['description=wfts(simple).third comma', ['charlie']],
    ['description=plfts.quote', ['delta']],
    ['name=not.like.*a*', []],
    ['or=(name.eq.alpha,name.eq.delta)', ['alpha', 'delta']],
    ['or=(name.eq.alpha,and(properties->>env.eq.prod,description.like.*comma))', ['alpha', 'charlie']],
    ['not.or=(name.eq.alpha,name.eq.delta)', ['bravo', 'charlie']],
    ['and=(name.gte.b,not.or(name.eq.charlie,name.eq.delta))', ['bravo']],
    ['or=(description.in.("third, with comma",first))', ['alpha', 'charlie']],
    ['last_seen=gt.2020-01-01T00:00:00Z&last_seen=lt.2999-01-01T00:00:00Z', ['alpha', 'charlie', 'delta']],
    ['last_seen.filter=>now-1d', ['alpha', 'delta']],
    ['last_seen.filter=now-1d', ['charlie']],
    ['name.filter=alpha,bravo', ['alpha', 'bravo']],
    ['name.filter=!alpha,!bravo', ['charlie', 'delta']],
    ['name.filter=*lph*,delta', ['alpha', 'delta']],
  ])('%s', async (qs, expected) => {
    const res = await get(`agents?select=name&${qs}&name=neq.local&order=name`);
    expect(res.statusCode, res.payload).toBe(200);
    expect(names(res)).toEqual(expected);
  });

  it('filters arrays with cs, cd and ov on a view', async () => {
    const p = await makePerson(t.db, { roles: ['editor', 'viewer'] });
    const ids = (q: string) => get(`people_roles?select=id&id=eq.${p.id}&${q}`).then((r) => r.json().length);
    expect(await ids('roles=cs.{editor}')).toBe(1);
    expect(await ids('roles=cd.{admin,editor,viewer}')).toBe(1);
    expect(await ids('roles=cd.{editor}')).toBe(0);
    expect(await ids('roles=ov.{admin,viewer}')).toBe(1);
    expect(await ids('roles=ov.{admin}')).toBe(0);
  });

  it('turns bad values into 400s from PostgreSQL, not 500s', async () => {
    for (const [qs, code] of [['id=eq.not-a-uuid', '22P02'], ['created_at=gt.notadate', '22007'], ['name=match.(', '2201B'],
      ['cleanup=eq.maybe', '22P02'], ['name=fts(klingon).x', '42704'], ['name=cs.{a}', '42883'], ['name->>x=eq.1', '42883']]) {
      const res = await get(`agents?${qs}`);
      expect(res.statusCode, qs).toBe(400);
      expect(res.json().code, qs).toBe(code);
    }
  });
});

describe('order', () => {
  it('orders by columns, directions, nulls placement and JSON paths', async () => {
    expect(names(await get('agents?select=name&name=neq.local&order=name.desc'))).toEqual(['delta', 'charlie', 'bravo', 'alpha']);
    expect(names(await get('agents?select=name&name=neq.local&order=description.asc.nullsfirst,name'))).toEqual(['bravo', 'alpha', 'delta', 'charlie']);
    expect(names(await get('agents?select=name&name=neq.local&order=last_seen.desc.nullslast'))).toEqual(['delta', 'alpha', 'charlie', 'bravo']);
    expect(names(await get('agents?select=name&name=neq.local&order=properties->>team.desc.nullslast'))).toEqual(['charlie', 'bravo', 'alpha', 'delta']);
  });
});

describe('paging and counts', () => {
  const page = (qs: string, headers: Record<string, string> = {}) =>
    get(`agents?select=name&name=neq.local&order=name&${qs}`, { ...admin, ...headers });

  it('applies limit and offset with Content-Range but no total by default', async () => {
    const res = await page('limit=2&offset=1');
    expect(res.statusCode).toBe(200);
    expect(names(res)).toEqual(['bravo', 'charlie']);
    expect(res.headers['content-range']).toBe('1-2/*');
  });

  it('answers 206 with the total when a count is asked for and the page is partial', async () => {
    const res = await page('limit=2', { prefer: 'count=exact' });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe('0-1/4');
    expect(res.headers['preference-applied']).toBe('count=exact');
    const all = await page('', { prefer: 'count=planned' });
    expect(all.statusCode).toBe(200);
    expect(all.headers['content-range']).toBe('0-3/4');
  });

  it('reports */total for an empty page and 416 past the end', async () => {
    const empty = await get('agents?name=eq.nobody', { ...admin, prefer: 'count=exact' });
    expect(empty.statusCode).toBe(200);
    expect(empty.headers['content-range']).toBe('*/0');
    expect(empty.json()).toEqual([]);
    const past = await page('offset=10', { prefer: 'count=exact' });
    expect(past.statusCode).toBe(416);
    expect(past.json()).toMatchObject({ code: 'PGRST103' });
  });

  it('honours Range headers, alone and with limit', async () => {
    const res = await page('', { 'range-unit': 'items', range: '1-2' });
    expect(names(res)).toEqual(['bravo', 'charlie']);
    expect(res.headers['content-range']).toBe('1-2/*');
    expect(names(await page('', { range: '2-' }))).toEqual(['charlie', 'delta']);
    // limit/offset and Range intersect: [0,1] ∩ [1,3] = [1,1]
    expect(names(await page('limit=2', { range: '1-3' }))).toEqual(['bravo']);
    const bad = await page('', { range: '3-1' });
    expect(bad.statusCode).toBe(416);
    expect(bad.json().code).toBe('PGRST103');
  });

  it('caps every response at 2000 rows and rejects absurd limits', async () => {
    await t.db.query(`INSERT INTO properties (name, value) SELECT 'bulk.' || g, 'v' FROM generate_series(1, 2100) g`);
    const res = await get('properties?select=name&limit=100000', { ...admin, prefer: 'count=exact' });
    expect(res.statusCode).toBe(206);
    expect(res.json()).toHaveLength(2000);
    expect(res.headers['content-range']).toBe('0-1999/2100');
    for (const qs of ['limit=-1', 'limit=1e999', 'offset=abc', 'limit=99999999999999999999']) {
      const r = await get(`properties?${qs}`);
      expect(r.statusCode, qs).toBe(400);
      expect(r.json().code).toBe('PGRST100');
    }
  });

  it('answers HEAD with the headers only', async () => {
    const res = await t.app.inject({ method: 'HEAD', url: '/api/db/agents?name=neq.local&limit=1', headers: { ...admin, prefer: 'count=exact' } });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe('0-0/4');
    expect(res.payload).toBe('');
  });
});

describe('singular objects', () => {
  const object = { accept: 'application/vnd.pgrst.object+json' };
  it('returns one object, and 406 for zero or several rows', async () => {
    const one = await get('agents?select=name&name=eq.alpha', { ...admin, ...object });
    expect(one.statusCode).toBe(200);
    expect(one.headers['content-type']).toMatch(/^application\/vnd\.pgrst\.object\+json/);
    expect(one.json()).toEqual({ name: 'alpha' });
    for (const qs of ['name=eq.nobody', 'name=neq.alpha']) {
      const res = await get(`agents?${qs}`, { ...admin, ...object });
      expect(res.statusCode).toBe(406);
      expect(res.json().code).toBe('PGRST116');
    }
  });
});

describe('access', () => {
  it('requires a principal', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/db/teams' });
    expect(res.statusCode).toBe(401);
  });

  it('checks read permission on the relation', async () => {
    const res = await get('people_roles', viewer);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: '42501' });
    expect((await get('teams', viewer)).statusCode).toBe(200);
  });

  it('answers 404 PGRST205 for relations outside the registry', async () => {
    // sessions are readable (your own rows, without token_hash); flows, one-time codes and second-factor secrets never
    for (const rel of ['auth_flows', 'auth_one_time_codes', 'auth_totp', 'auth_lookup_secrets', 'auth_webauthn_credentials', 'courier_messages', 'identity_credentials', 'person_roles', 'schema_migrations', 'demo_data_sets', 'pg_user']) {
      const res = await get(rel);
      expect(res.statusCode, rel).toBe(404);
      expect(res.json(), rel).toMatchObject({ code: 'PGRST205', details: null, hint: null });
    }
  });
});
