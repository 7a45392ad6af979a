import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';

// /api/db/rpc/<fn>: registered functions with named arguments (0003_db_api.sql).

let t: TestContext;
let admin: Record<string, string>;
let ada: string;
let bob: string;
let team: string;

const get = (url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/api/db/rpc/${url}`, headers: { ...admin, ...headers } });
const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: `/api/db/rpc/${url}`, headers: { ...admin, 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload) });

beforeAll(async () => {
  t = await createTestApp();
  ada = (await makePerson(t.db, { roles: ['admin'], first: 'Ada', last: 'Lovelace', email: 'ada@example.test' })).id;
  bob = (await makePerson(t.db, { first: 'Bob', last: 'Builder', email: 'bob@example.test' })).id;
  await makePerson(t.db, { first: 'Carla', last: 'Percent%', email: 'carla@example.test' });
  admin = await bearerHeaders(t.db, ada);
  team = (await t.db.query(`INSERT INTO teams (name, created_by) VALUES ('sre', $1) RETURNING id`, [ada])).rows[0].id;
  await t.db.query(`UPDATE people SET team_id = $1 WHERE id = $2`, [team, bob]);
  await t.db.query(`INSERT INTO team_members (team_id, person_id) VALUES ($1, $2), ($1, $3)`, [team, ada, bob]);
});
afterAll(() => t.close());

describe('set-returning functions', () => {
  it('take GET arguments and accept select, filters, order, limit, embeds and counts', async () => {
    const res = await get('search_people?query=B&select=name,team:team_id(name)&order=name.desc&limit=1', { prefer: 'count=exact' });
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.json()).toEqual([{ name: 'Bob Builder', team: { name: 'sre' } }]);
    expect(res.headers['content-range']).toBe('0-0/1');
    const filtered = await get('search_people?query=e&select=name&email=like.*ada*');
    expect(filtered.json()).toEqual([{ name: 'Ada Lovelace' }]);
  });

  it('take POST arguments as a JSON object, with defaults for omitted ones', async () => {
    const res = await post('search_people?select=name&order=name', { query: 'EXAMPLE', max_results: 2 });
    expect(res.json()).toEqual([{ name: 'Ada Lovelace' }, { name: 'Bob Builder' }]);
    const all = await post('search_people?select=name', { query: '%' });
    expect(all.json()).toEqual([{ name: 'Carla Percent%' }]);
  });

  it('return rows of a registered relation (person_teams → teams)', async () => {
    const res = await get(`person_teams?person_id=${bob}&select=name,created_by(name)`);
    expect(res.json()).toEqual([{ name: 'sre', created_by: { name: 'Ada Lovelace' } }]);
  });
});

describe('scalar functions', () => {
  it('return a JSON scalar', async () => {
    const res = await get(`team_member_count?team_id=${team}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toBe(2);
    expect((await post('team_member_count', { team_id: team })).json()).toBe(2);
  });
});

describe('errors', () => {
  it.each([
    ['nope', 404, 'PGRST202'],
    ['search_people?nope=eq.1&query=x', 400, '42703'],
    ['search_people', 404, 'PGRST202'],
    ['team_member_count?team_id=not-a-uuid', 400, '22P02'],
    ['search_people?query=x&max_results=lots', 400, '22P02'],
    ['search_people?query=x&select=nope', 400, '42703'],
    ['search_people?query=x%00', 400, 'PGRST100'],
  ])('GET %s → %i %s', async (url, status, code) => {
    const res = await get(url);
    expect(res.statusCode, res.payload).toBe(status);
    expect(res.json().code).toBe(code);
  });

  it('refuses non-object bodies and other verbs', async () => {
    expect((await post('search_people', ['x'])).json().code).toBe('PGRST102');
    const unknownArg = await post('search_people', { query: 'x', nope: 1 });
    expect(unknownArg.statusCode).toBe(404);
    expect(unknownArg.json().code).toBe('PGRST202');
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      const res = await t.app.inject({ method, url: '/api/db/rpc/search_people', headers: admin });
      expect(res.statusCode).toBe(405);
      expect(res.json().code).toBe('PGRST101');
    }
  });
});
