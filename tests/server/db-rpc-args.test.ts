import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';

// /api/db/rpc/<fn> with an argument PostgreSQL cannot read as its declared type: a 400 naming the argument
// (issue 12: "Bad search or RPC parameters: 400 naming them, never 500"), with PostgreSQL's own message as details.

let t: TestContext;
let admin: Record<string, string>;
const id = '00000000-0000-4000-8000-000000000001';

const get = (url: string) => t.app.inject({ method: 'GET', url: `/api/db/${url}`, headers: admin });
const post = (url: string, payload: unknown) =>
  t.app.inject({ method: 'POST', url: `/api/db/rpc/${url}`, headers: { ...admin, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });

beforeAll(async () => {
  t = await createTestApp();
  admin = await bearerHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
});
afterAll(() => t.close());

describe('an RPC argument of the wrong type', () => {
  it.each([
    ['rpc/related_configs_recursive?config_id=nope', 'config_id', 'nope', 'uuid', '22P02'],
    [`rpc/related_configs_recursive?config_id=${id}&max_depth=abc`, 'max_depth', 'abc', 'integer', '22P02'],
    [`rpc/related_configs_recursive?config_id=${id}&max_depth=100000000000`, 'max_depth', '100000000000', 'integer', '22003'],
    [`rpc/related_configs_recursive?config_id=${id}&include_deleted_configs=maybe`, 'include_deleted_configs', 'maybe', 'boolean', '22P02'],
    ['rpc/get_parents_by_location?config_id=bad', 'config_id', 'bad', 'uuid', '22P02'],
    ['rpc/config_analysis_filter_options?p_config_id=bad', 'p_config_id', 'bad', 'uuid', '22P02'],
  ])('GET %s is a 400 naming %s', async (url, arg, value, type, code) => {
    const res = await get(url);
    expect(res.statusCode, res.payload).toBe(400);
    expect(res.json()).toMatchObject({ code, message: `invalid ${arg}: ${value} is not a valid ${type}` });
    expect(res.json().details).toMatch(type);
  });

  it('in a POST body names the argument too, showing the value as JSON', async () => {
    const res = await post('related_configs_recursive', { config_id: id, max_depth: 1e12 });
    expect(res.statusCode, res.payload).toBe(400);
    expect(res.json()).toMatchObject({ code: '22003', message: 'invalid max_depth: 1000000000000 is not a valid integer' });
  });

  it('names the first bad argument in declared order when two are bad', async () => {
    const res = await get('rpc/related_configs_recursive?max_depth=abc&config_id=nope');
    expect(res.json().message).toBe('invalid config_id: nope is not a valid uuid');
  });

  it('clips a long value', async () => {
    const res = await get(`rpc/get_parents_by_location?config_id=${'x'.repeat(500)}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(`invalid config_id: ${'x'.repeat(100)}… is not a valid uuid`);
  });

  it('leaves valid arguments alone, and a bad filter value keeps PostgreSQL’s message as PostgREST answers it', async () => {
    expect((await get(`rpc/related_configs_recursive?config_id=${id}&max_depth=2&include_deleted_configs=true`)).json()).toEqual([]);
    const res = await get(`rpc/related_configs_recursive?config_id=${id}&id=eq.nope`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: '22P02', message: 'invalid input syntax for type uuid: "nope"' });
  });
});

describe('a column filter of the wrong type', () => {
  it('answers as PostgREST does: 400 with PostgreSQL’s message', async () => {
    const res = await get('configs?id=eq.nope');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: '22P02', message: 'invalid input syntax for type uuid: "nope"', details: null, hint: null });
  });
});
