import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/poll.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * The settings resources as the reference UI writes them, through /api/db: a canary posted there is the same canary
 * /api/canary makes (spec validated by path, checks reconciled, run by the scheduler), a PATCH is its edit and
 * PATCH {deleted_at} its delete; created_by is the acting person unless an admin names another.
 */
let t: TestContext;
let editor: { id: string; headers: Record<string, string> };
let admin: { id: string; headers: Record<string, string> };
let viewer: Record<string, string>;
let port: number;
let server: net.Server;

beforeAll(async () => {
  // console mode: this app runs its scheduler, so a canary posted through /api/db runs
  t = await createTestApp({ MODE: 'console' });
  const e = await makePerson(t.db, { roles: ['editor'] });
  const a = await makePerson(t.db, { roles: ['admin'] });
  editor = { id: e.id, headers: await sessionHeaders(t.db, e.id) };
  admin = { id: a.id, headers: await sessionHeaders(t.db, a.id) };
  viewer = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['viewer'] })).id);
  server = net.createServer((s) => s.end());
  port = await new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));
});
afterAll(async () => {
  await t?.close();
  await new Promise((r) => server?.close(r));
});

type Method = 'POST' | 'PATCH' | 'DELETE';
const db = (method: Method, url: string, headers: Record<string, string>, payload?: unknown, extra: Record<string, string> = {}) =>
  t.app.inject({ method, url: `/api/db/${url}`, headers: { ...headers, ...extra }, payload: payload as never });

const live = async (canaryId: string) => (await t.db.query(
  'SELECT type, name FROM checks WHERE canary_id = $1 AND deleted_at IS NULL ORDER BY name', [canaryId],
)).rows;
const count = async (table: string) => Number((await t.db.query(`SELECT count(*) FROM ${table}`)).rows[0].count);

describe('canaries through /api/db', () => {
  it('POST as the reference UI sends it: 201, checks reconciled, created_by the caller, and the scheduler runs it', async () => {
    const res = await db('POST', 'canaries?select=id,name,namespace,source,created_by,labels', editor.headers, {
      name: 'db-tcp', namespace: 'default', labels: { team: 'sre' }, source: 'UI',
      spec: { schedule: '@every 1s', tcp: [{ name: 'open-port', endpoint: `127.0.0.1:${port}` }] },
    }, { prefer: 'return=representation' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers['content-range']).toBe('*/*');
    const [row] = res.json();
    expect(row).toEqual({ id: expect.any(String), name: 'db-tcp', namespace: 'default', source: 'UI', created_by: editor.id, labels: { team: 'sre' } });
    expect(await live(row.id)).toEqual([{ type: 'tcp', name: 'open-port' }]);
    const status = await until(async () => (await t.db.query(
      'SELECT s.status FROM check_statuses s JOIN checks c ON c.id = s.check_id WHERE c.canary_id = $1 LIMIT 1', [row.id],
    )).rows[0], 'a scheduled result of the posted canary');
    expect(status.status).toBe(true);
  });

  it('a bad spec is a 400 naming the path, and nothing is stored', async () => {
    const before = [await count('canaries'), await count('checks')];
    const res = await db('POST', 'canaries', editor.headers, { name: 'bad', spec: { schedule: '@every 1m', tcp: [{ name: 'x' }] } });
    expect(res.statusCode, res.body).toBe(400);
    expect(JSON.stringify(res.json().details)).toMatch(/spec\.tcp\.0\.endpoint|tcp\.0/);
    // a bulk POST checks every row before creating any: the good first row is not stored either
    const bulk = await db('POST', 'canaries', editor.headers, [
      { name: 'fine', spec: { tcp: [{ name: 'p', endpoint: `127.0.0.1:${port}` }] } }, { name: 'broken', spec: { tcp: [{ name: 'p' }] } },
    ]);
    expect(bulk.statusCode).toBe(400);
    expect([await count('canaries'), await count('checks')]).toEqual(before);
  });

  it('refuses a source other than UI, unknown columns, and callers without write', async () => {
    const spec = { tcp: [{ name: 'p', endpoint: `127.0.0.1:${port}` }] };
    const crd = await db('POST', 'canaries', editor.headers, { name: 'claims-crd', source: 'KubernetesCRD', spec });
    expect(crd.statusCode).toBe(400);
    expect(crd.json().message).toMatch(/source/);
    const unknown = await db('POST', 'canaries', editor.headers, { name: 'x', spec, is_pushed: true });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().code).toBe('PGRST204');
    const denied = await db('POST', 'canaries', viewer, { name: 'x', spec });
    expect(denied.statusCode).toBe(403);
    const rollback = await db('POST', 'canaries', editor.headers, { name: 'x', spec }, { prefer: 'tx=rollback' });
    expect(rollback.statusCode).toBe(400);
    expect(await t.db.query("SELECT 1 FROM canaries WHERE name IN ('claims-crd', 'x')")).toMatchObject({ rowCount: 0 });
    // columns= picks the body's columns, as PostgREST: the others are not read at all
    const picked = await db('POST', 'canaries?columns=name,spec&select=name,source', editor.headers, { name: 'picked', spec, source: 'KubernetesCRD' },
      { prefer: 'return=representation' });
    expect(picked.statusCode, picked.body).toBe(201);
    expect(picked.json()).toEqual([{ name: 'picked', source: 'UI' }]);
  });

  it('created_by naming another person: 403 for an editor, kept for an admin', async () => {
    const spec = { tcp: [{ name: 'p', endpoint: `127.0.0.1:${port}` }] };
    const other = await db('POST', 'canaries', editor.headers, { name: 'someone-elses', spec, created_by: admin.id });
    expect(other.statusCode).toBe(403);
    const self = await db('POST', 'canaries', editor.headers, { name: 'mine', spec, created_by: editor.id });
    expect(self.statusCode, self.body).toBe(201);
    const byAdmin = await db('POST', 'canaries?select=created_by', admin.headers, { name: 'for-editor', spec, created_by: editor.id },
      { prefer: 'return=representation', accept: 'application/vnd.pgrst.object+json' });
    expect(byAdmin.statusCode, byAdmin.body).toBe(201);
    expect(byAdmin.json()).toEqual({ created_by: editor.id });
  });

  it('PATCH ?id=eq. edits through the health service; PATCH {deleted_at} soft-deletes the canary and its checks', async () => {
    const made = await db('POST', 'canaries', editor.headers, { name: 'to-edit', spec: { tcp: [{ name: 'a', endpoint: `127.0.0.1:${port}` }] } },
      { prefer: 'return=headers-only' });
    expect(made.statusCode).toBe(201);
    const id = /id=eq\.(.+)$/.exec(String(made.headers.location))![1];

    const edit = await db('PATCH', `canaries?id=eq.${id}&select=name,labels`, editor.headers, {
      labels: { tier: 'gold' }, source: 'UI', created_by: editor.id,
      spec: { tcp: [{ name: 'b', endpoint: `127.0.0.1:${port}` }], http: [{ name: 'c', url: `http://127.0.0.1:${port}/` }] },
    }, { prefer: 'return=representation' });
    expect(edit.statusCode, edit.body).toBe(200);
    expect(edit.headers['content-range']).toBe('0-0/*');
    expect(edit.json()).toEqual([{ name: 'to-edit', labels: { tier: 'gold' } }]);
    expect(await live(id)).toEqual([{ type: 'tcp', name: 'b' }, { type: 'http', name: 'c' }].sort((x, y) => x.name.localeCompare(y.name)));

    const bad = await db('PATCH', `canaries?id=eq.${id}`, editor.headers, { spec: { tcp: [{ name: 'b' }] } });
    expect(bad.statusCode).toBe(400);
    expect(await live(id)).toHaveLength(2);

    const del = await db('PATCH', `canaries?id=eq.${id}`, editor.headers, { deleted_at: new Date().toISOString() });
    expect(del.statusCode, del.body).toBe(204);
    const { rows } = await t.db.query('SELECT deleted_at FROM canaries WHERE id = $1', [id]);
    expect(rows[0].deleted_at).not.toBeNull();
    expect(await live(id)).toEqual([]);
    expect((await t.app.inject({ method: 'GET', url: `/api/canary/${id}`, headers: editor.headers })).statusCode).toBe(404);
  });

  it('DELETE ?id=eq. soft-deletes; writes without a filter are refused', async () => {
    const made = await db('POST', 'canaries?select=id', editor.headers, { name: 'to-delete', spec: { tcp: [{ name: 'a', endpoint: `127.0.0.1:${port}` }] } },
      { prefer: 'return=representation' });
    const [{ id }] = made.json();
    expect((await db('PATCH', 'canaries', editor.headers, { labels: {} })).statusCode).toBe(400);
    expect((await db('DELETE', 'canaries', editor.headers)).statusCode).toBe(400);
    const bounded = await db('DELETE', `canaries?id=eq.${id}`, editor.headers, undefined, { prefer: 'handling=strict, max-affected=0' });
    expect(bounded.statusCode).toBe(400);
    expect(bounded.json().code).toBe('PGRST124');
    expect((await t.db.query('SELECT deleted_at FROM canaries WHERE id = $1', [id])).rows[0].deleted_at).toBeNull();
    const del = await db('DELETE', `canaries?id=eq.${id}`, editor.headers);
    expect(del.statusCode, del.body).toBe(204);
    expect((await t.db.query('SELECT deleted_at FROM canaries WHERE id = $1', [id])).rows[0].deleted_at).not.toBeNull();
  });

  it('/api/canary and /api/db/canaries are one canary: a UI-made canary edited at one door shows at the other', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/canary', headers: editor.headers, payload: { name: 'both-doors', spec: { tcp: [{ name: 'a', endpoint: `127.0.0.1:${port}` }] } } });
    const id = res.json().id;
    const edit = await db('PATCH', `canaries?id=eq.${id}`, editor.headers, { spec: { tcp: [{ name: 'z', endpoint: `127.0.0.1:${port}` }] } });
    expect(edit.statusCode).toBe(204);
    const read = await t.app.inject({ method: 'GET', url: `/api/canary/${id}`, headers: editor.headers });
    expect(read.json().checks.map((c: { name: string }) => c.name)).toEqual(['z']);
  });
});

describe('created_by on generic tables (teams)', () => {
  it('an editor posts a team without created_by: it is the editor', async () => {
    const res = await db('POST', 'teams?select=name,created_by', editor.headers, { name: 'sre', spec: {} }, { prefer: 'return=representation' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual([{ name: 'sre', created_by: editor.id }]);
  });

  it('naming another person is for admins only', async () => {
    const refused = await db('POST', 'teams', editor.headers, { name: 'ops', created_by: admin.id });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toMatch(/created_by/);
    expect(await t.db.query("SELECT 1 FROM teams WHERE name = 'ops'")).toMatchObject({ rowCount: 0 });
    const byAdmin = await db('POST', 'teams?select=created_by', admin.headers, { name: 'ops', created_by: editor.id }, { prefer: 'return=representation' });
    expect(byAdmin.statusCode, byAdmin.body).toBe(201);
    expect(byAdmin.json()).toEqual([{ created_by: editor.id }]);
    // bulk: every row stamped; a PATCH re-sending oneself is fine, naming another is not
    const bulk = await db('POST', 'teams?select=created_by', editor.headers, [{ name: 'a1' }, { name: 'a2' }], { prefer: 'return=representation' });
    expect(bulk.json()).toEqual([{ created_by: editor.id }, { created_by: editor.id }]);
    expect((await db('PATCH', 'teams?name=eq.a1', editor.headers, { created_by: editor.id, icon: 'x' })).statusCode).toBe(204);
    expect((await db('PATCH', 'teams?name=eq.a1', editor.headers, { created_by: admin.id })).statusCode).toBe(403);
  });
});

describe('topologies, config_scrapers and connections through /api/db (the kinds registry writer)', () => {
  it('a topology: 201 with source UI, created_by and the schedule from its spec; a bad spec is a 400 by path', async () => {
    const res = await db('POST', 'topologies?select=name,namespace,source,created_by,schedule,labels', editor.headers, {
      name: 'cluster', namespace: 'default', labels: { app: 'x' }, source: 'UI',
      spec: { schedule: '@every 5m', components: [{ name: 'api', type: 'service' }] },
    }, { prefer: 'return=representation' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual([{ name: 'cluster', namespace: 'default', source: 'UI', created_by: editor.id, schedule: '@every 5m', labels: { app: 'x' } }]);
    const before = await count('topologies');
    const bad = await db('POST', 'topologies', editor.headers, { name: 'bad', spec: { components: 'nope' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details).toHaveProperty(['spec.components']);
    const noSpec = await db('POST', 'topologies', editor.headers, { name: 'bad' });
    expect(noSpec.statusCode).toBe(400);
    expect(await count('topologies')).toBe(before);
  });

  it('a topology edited and soft-deleted by PATCH; a row of another source is a 409', async () => {
    const made = await db('POST', 'topologies?select=id', editor.headers, { name: 'edit-me', spec: { schedule: '@every 5m' } }, { prefer: 'return=representation' });
    const [{ id }] = made.json();
    const edit = await db('PATCH', `topologies?id=eq.${id}&select=schedule,spec`, editor.headers, { spec: { schedule: '@every 1h' }, created_by: editor.id },
      { prefer: 'return=representation' });
    expect(edit.statusCode, edit.body).toBe(200);
    expect(edit.json()).toEqual([{ schedule: '@every 1h', spec: { schedule: '@every 1h' } }]);
    expect((await db('PATCH', `topologies?id=eq.${id}`, editor.headers, { spec: { components: 1 } })).statusCode).toBe(400);
    const del = await db('PATCH', `topologies?id=eq.${id}`, editor.headers, { deleted_at: new Date().toISOString() });
    expect(del.statusCode, del.body).toBe(204);
    expect((await t.db.query('SELECT deleted_at FROM topologies WHERE id = $1', [id])).rows[0].deleted_at).not.toBeNull();

    const { rows } = await t.db.query(`INSERT INTO topologies (name, spec, source) VALUES ('pushed', '{}', 'push') RETURNING id`);
    const other = await db('PATCH', `topologies?id=eq.${rows[0].id}`, editor.headers, { spec: { schedule: '@every 1m' } });
    expect(other.statusCode).toBe(409);
    expect(other.json().message).toMatch(/push/);
    expect((await db('DELETE', `topologies?id=eq.${rows[0].id}`, editor.headers)).statusCode).toBe(409);
  });

  it('a config scraper: 201, and its spec judged by the ScrapeConfig schema', async () => {
    const res = await db('POST', 'config_scrapers?select=name,source,created_by', editor.headers, { name: 'k8s', source: 'UI', spec: { kubernetes: [{ clusterName: 'x' }] } },
      { prefer: 'return=representation' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual([{ name: 'k8s', source: 'UI', created_by: editor.id }]);
    const bad = await db('POST', 'config_scrapers', editor.headers, { name: 'k8s-bad', spec: { kubernetes: 'all of it' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details).toHaveProperty(['spec.kubernetes']);
  });

  it('a connection: admins only, a static secret written and read back as ***, spec never returned', async () => {
    const body = { name: 'web', namespace: 'default', type: 'http', url: 'https://example.test', username: 'u', properties: { region: 'eu' } };
    expect((await db('POST', 'connections', editor.headers, body)).statusCode).toBe(403);
    const res = await db('POST', 'connections?select=*', admin.headers, body, { prefer: 'return=representation' });
    expect(res.statusCode, res.body).toBe(201);
    const [row] = res.json();
    expect(row).toMatchObject({ ...body, username: '***', password: null, source: 'UI', created_by: admin.id });
    expect(row).not.toHaveProperty('spec');
    const secret = await db('POST', 'connections?select=password', admin.headers, { ...body, name: 'web2', password: 'hunter2' },
      { prefer: 'return=representation' });
    expect(secret.statusCode).toBe(201);
    expect(secret.json()).toEqual([{ password: '***' }]);
    const bad = await db('POST', 'connections', admin.headers, { ...body, name: 'web3', properties: ['region'] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details).toHaveProperty('properties');
    const noType = await db('POST', 'connections', admin.headers, { name: 'web4' });
    expect(noType.statusCode).toBe(400);
    const edit = await db('PATCH', `connections?id=eq.${row.id}&select=url`, admin.headers, { url: 'https://other.test', created_by: admin.id },
      { prefer: 'return=representation' });
    expect(edit.json()).toEqual([{ url: 'https://other.test' }]);
  });
});
