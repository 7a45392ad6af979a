import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearerHeaders, createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

// Writes through /api/db: inserts, bulk inserts, upserts, updates and deletes, their Prefer options, and that every
// refused or failed write leaves the database as it was.

let t: TestContext;
let admin: Record<string, string>;
let viewer: Record<string, string>;
let adminId: string;

const json = { 'content-type': 'application/json' };
const send = (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method, url: `/api/db/${url}`, headers: { ...admin, ...json, ...headers },
    payload: payload === undefined ? undefined : typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
const snapshot = async () => (await t.db.query(
  `SELECT (SELECT coalesce(json_agg(t ORDER BY t.name), '[]') FROM teams t)::text AS teams,
          (SELECT coalesce(json_agg(p ORDER BY p.name), '[]') FROM properties p)::text AS properties,
          (SELECT coalesce(json_agg(m ORDER BY m.team_id, m.person_id), '[]') FROM team_members m)::text AS members,
          (SELECT coalesce(json_agg(a ORDER BY a.id), '[]') FROM access_tokens a)::text AS tokens`)).rows[0];
const teamId = async (name: string) => (await t.db.query('SELECT id FROM teams WHERE name = $1', [name])).rows[0]?.id as string | undefined;

beforeAll(async () => {
  t = await createTestApp();
  adminId = (await makePerson(t.db, { roles: ['admin'], first: 'Ada', last: 'Admin' })).id;
  admin = await bearerHeaders(t.db, adminId);
  viewer = await sessionHeaders(t.db, (await makePerson(t.db, {})).id);
});
beforeEach(async () => {
  await t.db.query('DELETE FROM team_members; DELETE FROM teams; DELETE FROM properties');
});
afterAll(() => t.close());

describe('POST', () => {
  it('inserts one object: 201, empty body, Content-Range */*', async () => {
    const res = await send('POST', 'teams', { name: 'sre', created_by: adminId });
    expect(res.statusCode, res.payload).toBe(201);
    expect(res.payload).toBe('');
    expect(res.headers['content-range']).toBe('*/*');
    expect(await teamId('sre')).toBeDefined();
  });

  it('inserts an array and returns the representation shaped by select, embeds included', async () => {
    const res = await send('POST', 'teams?select=name,icon,created_by(name)', [
      { name: 'a', icon: 'x', created_by: adminId }, { name: 'b', icon: null, created_by: adminId },
    ], { prefer: 'return=representation' });
    expect(res.statusCode).toBe(201);
    expect(res.headers['preference-applied']).toBe('return=representation');
    expect(res.json()).toEqual([
      { name: 'a', icon: 'x', created_by: { name: 'Ada Admin' } },
      { name: 'b', icon: null, created_by: { name: 'Ada Admin' } },
    ]);
  });

  it('returns a Location with return=headers-only', async () => {
    const res = await send('POST', 'properties', { name: 'a b', value: '1' }, { prefer: 'return=headers-only' });
    expect(res.statusCode).toBe(201);
    expect(res.headers.location).toBe('/properties?name=eq.a%20b');
    expect(res.payload).toBe('');
  });

  it('returns a single object with the singular Accept header', async () => {
    const res = await send('POST', 'properties?select=name,value', { name: 'one', value: '1' }, { accept: 'application/vnd.pgrst.object+json' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ name: 'one', value: '1' });
  });

  it('restricts inserted keys with columns=', async () => {
    const res = await send('POST', 'teams?columns=name,created_by', [
      { name: 'c1', created_by: adminId, icon: 'ignored' }, { name: 'c2', created_by: adminId },
    ]);
    expect(res.statusCode, res.payload).toBe(201);
    expect((await t.db.query(`SELECT icon FROM teams WHERE name = 'c1'`)).rows[0].icon).toBeNull();
  });

  it.each([
    ['non-uniform keys', 'teams', [{ name: 'a', created_by: 'x' }, { name: 'b' }], 400, 'PGRST102'],
    ['invalid JSON', 'teams', '{"name":', 400, 'PGRST102'],
    ['a scalar body', 'teams', '"x"', 400, 'PGRST102'],
    ['an array of scalars', 'teams', '[1,2]', 400, 'PGRST102'],
    ['an unknown column', 'teams', { name: 'a', nope: 1 }, 400, 'PGRST204'],
    ['a hidden column', 'access_tokens', { value: 'x' }, 405, 'PGRST117'],
    ['a read-only column', 'teams', { name: 'a', created_by: null, created_at: '2020-01-01' }, 400, 'PGRST204'],
    ['an unknown columns= entry', 'teams?columns=name,nope', { name: 'a' }, 400, 'PGRST204'],
    ['an invalid uuid', 'teams', { name: 'a', created_by: 'not-a-uuid' }, 400, '22P02'],
    ['a missing NOT NULL', 'teams', { icon: 'a' }, 400, '23502'],
    ['a dangling foreign key', 'teams', { name: 'a', created_by: '00000000-0000-0000-0000-00000000beef' }, 409, '23503'],
    ['a NUL byte', 'properties', { name: 'a', value: 'x\u0000y' }, 400, 'PGRST102'],
    ['a bulk insert whose last row fails', 'properties', [{ name: 'ok1', value: '1' }, { name: 'ok2', value: null }], 400, '23502'],
    ['a write on a read-only view', 'agents_summary', { name: 'x' }, 405, 'PGRST117'],
    ['limit on a write', 'properties?limit=1', { name: 'x', value: 'y' }, 400, 'PGRST109'],
  ])('refuses %s and changes nothing', async (_what, url, payload, status, code) => {
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('keep', 'me')`);
    const before = await snapshot();
    const res = await send('POST', url, payload);
    expect(res.statusCode, res.payload).toBe(status);
    expect(res.json()).toMatchObject({ code, message: expect.any(String) });
    expect(Object.keys(res.json()).sort()).toEqual(['code', 'details', 'hint', 'message']);
    expect(await snapshot()).toEqual(before);
  });

  it('answers 409 23505 for a duplicate key', async () => {
    await send('POST', 'properties', { name: 'dup', value: '1' });
    const res = await send('POST', 'properties', { name: 'dup', value: '2' });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('23505');
  });

  it('refuses other content types with 415 PGRST107', async () => {
    const res = await send('POST', 'properties', 'name=x', { 'content-type': 'text/csv' });
    expect(res.statusCode).toBe(415);
    expect(res.json().code).toBe('PGRST107');
  });

  it('checks write permission (403 for a viewer, nothing changed)', async () => {
    const before = await snapshot();
    const res = await t.app.inject({ method: 'POST', url: '/api/db/properties', headers: { ...viewer, ...json }, payload: { name: 'v', value: '1' } });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('42501');
    expect(await snapshot()).toEqual(before);
  });

  it('rolls back with Prefer: tx=rollback', async () => {
    const res = await send('POST', 'properties?select=name', { name: 'tmp', value: '1' }, { prefer: 'return=representation, tx=rollback' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual([{ name: 'tmp' }]);
    expect(res.headers['preference-applied']).toBe('return=representation, tx=rollback');
    expect((await t.db.query(`SELECT 1 FROM properties WHERE name = 'tmp'`)).rowCount).toBe(0);
  });
});

describe('upsert', () => {
  it('merges duplicates on the primary key: 201 when inserting, 200 when only updating', async () => {
    const first = await send('POST', 'properties', [{ name: 'a', value: '1' }], { prefer: 'resolution=merge-duplicates' });
    expect(first.statusCode).toBe(201);
    expect(first.headers['preference-applied']).toBe('resolution=merge-duplicates');
    const again = await send('POST', 'properties?select=name,value', [{ name: 'a', value: '2' }],
      { prefer: 'resolution=merge-duplicates, return=representation' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual([{ name: 'a', value: '2' }]);
    const mixed = await send('POST', 'properties', [{ name: 'a', value: '3' }, { name: 'b', value: '1' }], { prefer: 'resolution=merge-duplicates' });
    expect(mixed.statusCode).toBe(201);
    expect((await t.db.query(`SELECT name, value FROM properties ORDER BY name`)).rows).toEqual([{ name: 'a', value: '3' }, { name: 'b', value: '1' }]);
  });

  it('ignores duplicates with resolution=ignore-duplicates', async () => {
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('a', 'old')`);
    const res = await send('POST', 'properties', [{ name: 'a', value: 'new' }, { name: 'b', value: 'new' }], { prefer: 'resolution=ignore-duplicates' });
    expect(res.statusCode).toBe(201);
    expect((await t.db.query(`SELECT name, value FROM properties ORDER BY name`)).rows).toEqual([{ name: 'a', value: 'old' }, { name: 'b', value: 'new' }]);
  });

  it('upserts team_members on_conflict=team_id,person_id and refuses non-unique targets', async () => {
    await send('POST', 'teams', { name: 'sre', created_by: adminId });
    const team = await teamId('sre');
    const row = { team_id: team, person_id: adminId, source: 'UI' };
    expect((await send('POST', 'team_members?on_conflict=team_id,person_id', row, { prefer: 'resolution=merge-duplicates' })).statusCode).toBe(201);
    const res = await send('POST', 'team_members?on_conflict=person_id,team_id', { ...row, source: 'CRD' }, { prefer: 'resolution=merge-duplicates' });
    expect(res.statusCode).toBe(200);
    expect((await t.db.query('SELECT source FROM team_members')).rows).toEqual([{ source: 'CRD' }]);
    const bad = await send('POST', 'team_members?on_conflict=source', row, { prefer: 'resolution=merge-duplicates' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('42P10');
    const plain = await send('POST', 'team_members', row);
    expect(plain.statusCode).toBe(409);
  });
});

describe('PATCH', () => {
  beforeEach(async () => {
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('a', '1'), ('b', '2'), ('c', '3')`);
  });

  it('updates the filtered rows: 204 minimal, 200 with representation', async () => {
    const res = await send('PATCH', 'properties?name=eq.a', { value: 'x' });
    expect(res.statusCode).toBe(204);
    expect(res.headers['content-range']).toBe('0-0/*');
    const rep = await send('PATCH', 'properties?name=in.(b,c)&select=name,value', { value: 'y' }, { prefer: 'return=representation' });
    expect(rep.statusCode).toBe(200);
    expect(rep.json()).toEqual(expect.arrayContaining([{ name: 'b', value: 'y' }, { name: 'c', value: 'y' }]));
    expect((await t.db.query('SELECT name, value FROM properties ORDER BY name')).rows.map((r) => r.value)).toEqual(['x', 'y', 'y']);
  });

  it.each([
    ['no filter', 'properties', { value: 'z' }, 400, '21000'],
    ['only a limit', 'properties?limit=1', { value: 'z' }, 400, 'PGRST109'],
    ['an array body', 'properties?name=eq.a', [{ value: 'z' }], 400, 'PGRST102'],
    ['an empty object', 'properties?name=eq.a', {}, 400, 'PGRST102'],
    ['a read-only column', 'properties?name=eq.a', { created_at: '2020-01-01' }, 400, 'PGRST204'],
    ['a NOT NULL violation', 'properties?name=in.(a,b)', { value: null }, 400, '23502'],
    ['a bad filter value', 'teams?id=eq.nope', { icon: 'x' }, 400, '22P02'],
    ['an immutable column', 'teams?name=eq.sre', { id: '00000000-0000-0000-0000-000000000001' }, 400, 'PGRST204'],
    ['a singular request matching several rows', 'properties?name=in.(a,b)', { value: 'z' }, 406, 'PGRST116'],
  ])('refuses %s and changes nothing', async (_what, url, payload, status, code) => {
    const before = await snapshot();
    const headers: Record<string, string> = code === 'PGRST116' ? { accept: 'application/vnd.pgrst.object+json' } : {};
    const res = await send('PATCH', url, payload, headers);
    expect(res.statusCode, res.payload).toBe(status);
    expect(res.json().code).toBe(code);
    expect(await snapshot()).toEqual(before);
  });
});

describe('DELETE', () => {
  beforeEach(async () => {
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('a', '1'), ('b', '2'), ('c', '3')`);
  });

  it('deletes the filtered rows (also with a JSON content type and no body)', async () => {
    const res = await send('DELETE', 'properties?name=in.(a,b)');
    expect(res.statusCode).toBe(204);
    expect((await t.db.query('SELECT name FROM properties')).rows).toEqual([{ name: 'c' }]);
    const rep = await send('DELETE', 'properties?name=eq.c&select=name', undefined, { prefer: 'return=representation' });
    expect(rep.statusCode).toBe(200);
    expect(rep.json()).toEqual([{ name: 'c' }]);
  });

  it('refuses a DELETE without filters', async () => {
    const res = await send('DELETE', 'properties');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: '21000', message: 'DELETE requires a WHERE clause' });
    expect((await t.db.query('SELECT count(*)::int AS n FROM properties')).rows[0].n).toBe(3);
  });

  it('allows only delete on access tokens', async () => {
    await t.db.query(`INSERT INTO access_tokens (name, person_id, value) VALUES ('old', $1, 'h')`, [adminId]);
    expect((await send('PATCH', 'access_tokens?name=eq.old', { name: 'new' })).statusCode).toBe(405);
    const res = await send('DELETE', 'access_tokens?name=eq.old&select=name', undefined, { prefer: 'return=representation' });
    expect(res.json()).toEqual([{ name: 'old' }]);
  });

  it('refuses PUT with 405', async () => {
    const res = await t.app.inject({ method: 'PUT', url: '/api/db/properties?name=eq.a', headers: { ...admin, ...json }, payload: '{}' });
    expect(res.statusCode).toBe(405);
  });
});
