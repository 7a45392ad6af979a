import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * Issue 11: a settings page hidden by its feature flag (`{feature}.disable = "true"`, parent features included) is
 * also refused by the server: writes to its tables through /api/db and the console's own write routes are 403
 * "<feature> is disabled"; reads go on (other pages read the same tables), and properties stay writable so the
 * feature can be enabled again.
 */
let t: TestContext;
let admin: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  admin = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
});
afterAll(async () => {
  await t?.close();
});

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const db = (method: Method, url: string, payload?: unknown, extra: Record<string, string> = {}) =>
  t.app.inject({ method, url: `/api/db/${url}`, headers: { ...admin, ...extra }, payload: payload as never });

/** Sets a flag the way the Feature Flags page does: through /api/db/properties as an admin. */
async function flag(name: string, value: 'true' | 'false') {
  const res = await db('POST', 'properties?on_conflict=name', { name, value }, { prefer: 'resolution=merge-duplicates' });
  expect(res.statusCode, res.body).toBeLessThan(300);
}
const topologies = async () => (await t.db.query(
  'SELECT name, spec FROM topologies WHERE deleted_at IS NULL ORDER BY name',
)).rows;

describe('settings feature flags refuse writes', () => {
  let id: string;

  it('a topology write under settings.topology.disable is 403 with the message, and nothing changes', async () => {
    const made = await db('POST', 'topologies?select=id', { name: 'kept', spec: { schedule: '@every 5m' } }, { prefer: 'return=representation' });
    expect(made.statusCode, made.body).toBe(201);
    id = made.json()[0].id;
    await flag('settings.topology.disable', 'true');
    const before = await topologies();

    const post = await db('POST', 'topologies', { name: 'refused', spec: { schedule: '@every 5m' } });
    expect(post.statusCode, post.body).toBe(403);
    expect(post.json().message).toBe('settings.topology is disabled');
    const patch = await db('PATCH', `topologies?id=eq.${id}`, { spec: { schedule: '@every 1h' } });
    expect(patch.statusCode).toBe(403);
    const softDelete = await db('PATCH', `topologies?id=eq.${id}`, { deleted_at: new Date().toISOString() });
    expect(softDelete.statusCode).toBe(403);
    const del = await db('DELETE', `topologies?id=eq.${id}`);
    expect(del.statusCode).toBe(403);
    expect(del.json().message).toBe('settings.topology is disabled');
    expect(await topologies()).toEqual(before);
  });

  it('reads still work while the feature is off', async () => {
    const read = await db('GET', `topologies?id=eq.${id}&select=name`);
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json()).toEqual([{ name: 'kept' }]);
  });

  it('other settings tables are not affected by settings.topology', async () => {
    const team = await db('POST', 'teams', { name: 'sre' });
    expect(team.statusCode, team.body).toBe(201);
  });

  it('re-enabled (through properties, which stay writable), the write works', async () => {
    await flag('settings.topology.disable', 'false');
    const post = await db('POST', 'topologies', { name: 'allowed', spec: { schedule: '@every 5m' } });
    expect(post.statusCode, post.body).toBe(201);
    expect((await topologies()).map((r) => r.name)).toEqual(['allowed', 'kept']);
  });

  it('the parent flag topology.disable also refuses (hierarchy)', async () => {
    await flag('topology.disable', 'true');
    const post = await db('POST', 'topologies', { name: 'parent-off', spec: { schedule: '@every 5m' } });
    expect(post.statusCode, post.body).toBe(403);
    expect(post.json().message).toBe('settings.topology is disabled');
    await flag('topology.disable', 'false');
    expect((await db('PATCH', `topologies?id=eq.${id}`, { spec: { schedule: '@every 1h' } })).statusCode).toBe(204);
  });

  it('teams and team_members are refused under settings.teams', async () => {
    const { rows: [team] } = await t.db.query<{ id: string }>("SELECT id FROM teams WHERE name = 'sre'");
    await flag('settings.teams.disable', 'true');
    const patch = await db('PATCH', `teams?id=eq.${team.id}`, { name: 'renamed' });
    expect(patch.statusCode).toBe(403);
    expect(patch.json().message).toBe('settings.teams is disabled');
    const member = await db('DELETE', `team_members?team_id=eq.${team.id}`);
    expect(member.statusCode).toBe(403);
    await flag('settings.teams.disable', 'false');
    expect((await db('PATCH', `teams?id=eq.${team.id}`, { name: 'renamed' })).statusCode).toBe(204);
  });

  it('a canary POST via /api/canary is refused under settings.health, and via /api/db too', async () => {
    await flag('settings.health.disable', 'true');
    const before = Number((await t.db.query('SELECT count(*) FROM canaries')).rows[0].count);
    const payload = { name: 'refused', namespace: 'default', spec: { schedule: '@every 5m', http: [{ name: 'h', url: 'http://127.0.0.1:1' }] } };
    const res = await t.app.inject({ method: 'POST', url: '/api/canary', headers: admin, payload });
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json().message).toBe('settings.health is disabled');
    expect((await db('POST', 'canaries', payload)).statusCode).toBe(403);
    expect(Number((await t.db.query('SELECT count(*) FROM canaries')).rows[0].count)).toBe(before);
    // the Health page still reads canaries
    expect((await db('GET', 'canaries?select=id')).statusCode).toBe(200);
    await flag('settings.health.disable', 'false');
    const ok = await t.app.inject({ method: 'POST', url: '/api/canary', headers: admin, payload });
    expect(ok.statusCode, ok.body).toBe(201);
  });

  it('a connection test is refused under settings.connections', async () => {
    await flag('settings.connections.disable', 'true');
    const unsaved = await t.app.inject({ method: 'POST', url: '/api/connection/test', headers: admin, payload: { type: 'http', url: 'http://127.0.0.1:1' } });
    expect(unsaved.statusCode, unsaved.body).toBe(403);
    expect(unsaved.json().message).toBe('settings.connections is disabled');
    const saved = await t.app.inject({ method: 'POST', url: '/api/connection/test/00000000-0000-0000-0000-000000000000', headers: admin });
    expect(saved.statusCode).toBe(403);
    const write = await db('POST', 'connections', { name: 'c', type: 'http', url: 'http://127.0.0.1:1' });
    expect(write.statusCode).toBe(403);
    expect(write.json().message).toBe('settings.connections is disabled');
    await flag('settings.connections.disable', 'false');
  });
});
