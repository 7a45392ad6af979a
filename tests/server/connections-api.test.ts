import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSecretProperty } from '../../server/lib/connection-hydrate.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * Connections through /api/db as the reference UI calls them (list with created_by embedded, POST, PATCH ?id=eq.,
 * soft delete), the masking of secret-capable fields on every read path (`connections`, `connection_details`,
 * filters and order), `***` written back, the refusals of bad input, and GET /api/connection/{id}/usage.
 */
let t: TestContext;
let admin: { id: string; headers: Record<string, string> };
let other: { id: string; headers: Record<string, string> };
let editor: Record<string, string>;
let viewer: Record<string, string>;
// distinctive values: finding one in a response is never a coincidence
const PASSWORD = `pw-${randomBytes(8).toString('hex')}`;
const CERT = `cert-${randomBytes(8).toString('hex')}`;
const TOKEN = `tok-${randomBytes(8).toString('hex')}`;
const USERNAME = `user-${randomBytes(4).toString('hex')}`;

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const db = (method: Method, url: string, headers: Record<string, string>, payload?: unknown, extra: Record<string, string> = {}) =>
  t.app.inject({ method, url: `/api/db/${url}`, headers: { ...headers, ...extra }, payload: payload as never });
const stored = async (id: string) => (await t.db.query('SELECT * FROM connections WHERE id = $1', [id])).rows[0];
const REPR = { prefer: 'return=representation' };

beforeAll(async () => {
  t = await createTestApp();
  const a = await makePerson(t.db, { roles: ['admin'] });
  const o = await makePerson(t.db, { roles: ['admin'] });
  admin = { id: a.id, headers: await sessionHeaders(t.db, a.id) };
  other = { id: o.id, headers: await sessionHeaders(t.db, o.id) };
  editor = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['editor'] })).id);
  viewer = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['viewer'] })).id);
});
afterAll(async () => {
  await t?.close();
});

const pgBody = (name: string) => ({
  name, namespace: 'default', type: 'postgres', url: 'postgres://$(username):$(password)@db.internal:5432/app',
  username: USERNAME, password: PASSWORD, certificate: CERT, insecure_tls: false,
  properties: { sslmode: 'disable', apiToken: TOKEN, port: 5432, ref: 'secret://vault/token' }, created_by: admin.id, source: 'UI',
});

describe('CRUD as the reference UI calls it', () => {
  it('POST, list with created_by embedded, PATCH keeping *** and created_by, lookups by id and name, soft delete', async () => {
    const created = await db('POST', 'connections?select=id', admin.headers, pgBody('orders-db'), REPR);
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json()[0].id as string;
    expect(await stored(id)).toMatchObject({ username: USERNAME, password: PASSWORD, certificate: CERT, created_by: admin.id, source: 'UI' });

    const list = await db('GET', 'connections?select=*,created_by(id,name,avatar,email)&deleted_at=is.null&limit=100', admin.headers);
    expect(list.statusCode).toBe(200);
    const row = list.json().find((r: { id: string }) => r.id === id);
    expect(row).toMatchObject({
      name: 'orders-db', namespace: 'default', type: 'postgres', url: 'postgres://$(username):$(password)@db.internal:5432/app',
      username: '***', password: '***', certificate: '***', insecure_tls: false,
      properties: { sslmode: 'disable', apiToken: '***', port: 5432, ref: 'secret://vault/token' },
      created_by: { id: admin.id, name: expect.any(String) },
    });
    expect(row).not.toHaveProperty('spec');
    expect(list.body).not.toContain(PASSWORD);
    expect(list.body).not.toContain(TOKEN);

    // the form sends what it read back: *** keeps every stored secret; created_by of another person changes nothing
    const edit = await db('PATCH', `connections?id=eq.${id}&select=url,username,password`, other.headers,
      {
        name: row.name, namespace: row.namespace, type: row.type, username: row.username, password: row.password, certificate: row.certificate,
        insecure_tls: row.insecure_tls, properties: row.properties, source: row.source, created_by: other.id,
        url: 'postgres://$(username):$(password)@db2.internal:5432/app',
      },
      REPR);
    expect(edit.statusCode, edit.body).toBe(200);
    expect(edit.json()).toEqual([{ url: 'postgres://$(username):$(password)@db2.internal:5432/app', username: '***', password: '***' }]);
    expect(await stored(id)).toMatchObject({
      username: USERNAME, password: PASSWORD, certificate: CERT, created_by: admin.id,
      properties: { sslmode: 'disable', apiToken: TOKEN, port: 5432, ref: 'secret://vault/token' },
    });

    // a reference replaces a static secret, and is shown as written
    await db('PATCH', `connections?id=eq.${id}`, admin.headers, { password: 'secret://orders/password', username: 'configmap://orders/user' });
    const byName = await db('GET', 'connections?select=username,password,certificate&name=eq.orders-db&namespace=eq.default', admin.headers);
    expect(byName.json()).toEqual([{ username: 'configmap://orders/user', password: 'secret://orders/password', certificate: '***' }]);
    const byId = await db('GET', `connection_details?select=name,category,password&id=eq.${id}`, admin.headers);
    expect(byId.json()).toEqual([{ name: 'orders-db', category: 'postgres', password: 'secret://orders/password' }]);

    const del = await db('PATCH', `connections?id=eq.${id}`, admin.headers, { deleted_at: 'now()' });
    expect(del.statusCode).toBe(204);
    expect((await stored(id)).deleted_at).not.toBeNull();
    expect((await db('GET', `connection_details?id=eq.${id}`, admin.headers)).json()).toEqual([]);
  });

  it('roles: viewers do not read connections, editors read but do not write, another person as created_by only from an admin', async () => {
    expect((await db('GET', 'connections', viewer)).statusCode).toBe(403);
    expect((await db('GET', 'connection_details', viewer)).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: '/api/connection/x/usage', headers: viewer })).statusCode).toBe(403);
    expect((await db('GET', 'connections', editor)).statusCode).toBe(200);
    expect((await db('POST', 'connections', editor, pgBody('by-editor'))).statusCode).toBe(403);
    const other2 = await db('POST', 'connections?select=created_by', other.headers, { ...pgBody('for-admin'), created_by: admin.id }, REPR);
    expect(other2.statusCode, other2.body).toBe(201);
    expect(other2.json()).toEqual([{ created_by: admin.id }]);
  });
});

describe('masking on every read path', () => {
  it('empty reads empty, a url password reads ***, and filters and order work on what is shown, never on the secret', async () => {
    const res = await db('POST', 'connections?select=id', admin.headers, {
      name: 'web-mask', type: 'http', url: `https://bob:${PASSWORD}@web.internal/x`, username: '', password: PASSWORD,
    }, REPR);
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json()[0].id;
    const shown = await db('GET', `connections?select=url,username,password,certificate&id=eq.${id}`, admin.headers);
    expect(shown.json()).toEqual([{ url: 'https://bob:***@web.internal/x', username: '', password: '***', certificate: null }]);

    // a filter on the value finds nothing (it sees ***), one on *** finds the row
    for (const q of [`password=eq.${PASSWORD}`, `password=like.${PASSWORD.slice(0, 6)}*`, `url=ilike.*${PASSWORD}*`, `or=(password.eq.${PASSWORD})`]) {
      const r = await db('GET', `connections?select=id&id=eq.${id}&${q}`, admin.headers);
      expect(r.statusCode, q).toBe(200);
      expect(r.json(), q).toEqual([]);
    }
    expect((await db('GET', `connections?select=id&id=eq.${id}&password=eq.***`, admin.headers)).json()).toEqual([{ id }]);
    // the url as shown, written back, keeps the stored one; a new password replaces it
    await db('PATCH', `connections?id=eq.${id}`, admin.headers, { url: 'https://bob:***@web.internal/x' });
    expect((await stored(id)).url).toBe(`https://bob:${PASSWORD}@web.internal/x`);
    await db('PATCH', `connections?id=eq.${id}`, admin.headers, { url: 'https://bob:$(password)@web.internal/x' });
    expect((await stored(id)).url).toBe('https://bob:$(password)@web.internal/x');
    const ordered = await db('GET', 'connections?select=password&order=password.desc', admin.headers);
    expect(ordered.statusCode).toBe(200);
    expect(ordered.body).not.toContain(PASSWORD);
    // csv and JSON paths into properties are masked too
    const csv = await db('GET', 'connections?select=password,url', admin.headers, undefined, { accept: 'text/csv' });
    expect(csv.body).not.toContain(PASSWORD);
    const spec = await db('GET', 'connections?select=spec', admin.headers);
    expect(spec.statusCode).toBe(400);
  });

  it('the SQL and the hydrator agree on which properties are secrets', async () => {
    const keys = ['password', 'apiToken', 'secretKey', 'accessKey', 'webhookUrl', 'privateKey', 'region', 'port', 'host', 'bucket', 'channel'];
    const { rows } = await t.db.query<{ k: string; secret: boolean }>(
      'SELECT k, connection_secret_property(k) AS secret FROM unnest($1::text[]) k', [keys],
    );
    expect(Object.fromEntries(rows.map((r) => [r.k, r.secret]))).toEqual(Object.fromEntries(keys.map((k) => [k, isSecretProperty(k)])));
    expect(rows.filter((r) => r.secret).map((r) => r.k)).toEqual(['password', 'apiToken', 'secretKey', 'accessKey', 'webhookUrl', 'privateKey']);
  });
});

describe('bad input: a 4xx naming the field, nothing changed', () => {
  it.each([
    ['unknown type', { type: 'carrier-pigeon' }, 400, 'type'],
    ['no type', { type: undefined }, 400, 'type'],
    ['*** on create', { password: '***' }, 400, 'password'],
    ['*** in a secret property on create', { properties: { apiToken: '***' } }, 400, 'properties.apiToken'],
    ['a secret reference without a key', { password: 'secret://foo' }, 400, 'password'],
    ['a secret reference without a name', { username: 'secret:///k' }, 400, 'username'],
    ['a configmap reference without a key in properties', { properties: { token: 'configmap://cm/' } }, 400, 'properties.token'],
    ['a malformed url', { type: 'http', url: 'not a url' }, 400, 'url'],
    ['an http url without a host', { type: 'http', url: 'http://' }, 400, 'url'],
    ['a url with *** as its password on create', { type: 'http', url: 'https://u:***@h.test' }, 400, 'url'],
    ['labels not an object', { labels: ['a'] }, 400, 'labels'],
    ['properties not an object', { properties: 'x' }, 400, 'properties'],
  ])('%s', async (_what, change, status, field) => {
    const before = Number((await t.db.query('SELECT count(*) FROM connections')).rows[0].count);
    const res = await db('POST', 'connections', admin.headers, { ...pgBody(`bad-${randomBytes(3).toString('hex')}`), ...change });
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json().details).toHaveProperty([field]);
    expect(res.body).not.toContain(PASSWORD);
    expect(Number((await t.db.query('SELECT count(*) FROM connections')).rows[0].count)).toBe(before);
  });

  it('a duplicate name in a namespace is a 409 with a message; the same name in another namespace is fine', async () => {
    expect((await db('POST', 'connections', admin.headers, pgBody('dup'))).statusCode).toBe(201);
    const dup = await db('POST', 'connections', admin.headers, pgBody('dup'));
    expect(dup.statusCode).toBe(409);
    expect(dup.json().message).toBe('the name dup is already taken in namespace default');
    expect((await db('POST', 'connections', admin.headers, { ...pgBody('dup'), namespace: 'other' })).statusCode).toBe(201);
    const renamed = await db('POST', 'connections?select=id', admin.headers, pgBody('dup-2'), REPR);
    const rename = await db('PATCH', `connections?id=eq.${renamed.json()[0].id}`, admin.headers, { name: 'dup' });
    expect(rename.statusCode).toBe(409);
  });

  it('a PATCH: a bad reference or url is refused and the stored row is unchanged', async () => {
    const id = (await db('POST', 'connections?select=id', admin.headers, pgBody('patch-bad'), REPR)).json()[0].id;
    const before = await stored(id);
    for (const [body, field] of [[{ password: 'secret://only-name' }, 'password'], [{ type: 'nope' }, 'type'], [{ type: 'http', url: '::' }, 'url']] as const) {
      const res = await db('PATCH', `connections?id=eq.${id}`, admin.headers, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().details).toHaveProperty([field]);
    }
    expect(await stored(id)).toEqual(before);
  });
});

describe('GET /api/connection/{id}/usage', () => {
  it('lists the checks, notifications, playbooks and scrapers that name the connection, by any form of reference', async () => {
    const id = (await db('POST', 'connections?select=id', admin.headers, { name: 'used', namespace: 'team-a', type: 'postgres', url: 'postgres://h/db' }, REPR)).json()[0].id;
    const q = (sql: string, params: unknown[]) => t.db.query(sql, params);
    const canary = (await q(`INSERT INTO canaries (name, namespace, spec) VALUES ('c', 'team-a', '{}') RETURNING id`, [])).rows[0].id;
    const check = async (name: string, ns: string, conn: string) => (await q(
      'INSERT INTO checks (canary_id, type, name, namespace, spec) VALUES ($1, $2, $3, $4, $5) RETURNING id',
      [canary, 'postgres', name, ns, { query: 'select 1', connection: conn }],
    )).rows[0].id;
    const full = await check('full', 'team-a', 'connection://team-a/used');
    const bare = await check('bare', 'team-a', 'connection://used');
    await check('bare-elsewhere', 'team-b', 'connection://used');
    const typed = await check('typed', 'team-b', 'connection://postgres/used');
    await check('other', 'team-a', 'connection://team-a/unused');
    const notification = (await q(
      `INSERT INTO notifications (name, namespace, events, spec) VALUES ('n', 'team-a', '{check.failed}', $1) RETURNING id`,
      [{ to: { connection: 'connection://team-a/used' } }],
    )).rows[0].id;
    const playbook = (await q(
      `INSERT INTO playbooks (name, namespace, spec) VALUES ('p', 'x', $1) RETURNING id`,
      [{ actions: [{ name: 'q', sql: { connection: `${id}`, query: 'select 1' } }] }],
    )).rows[0].id;
    const scraper = (await q(
      `INSERT INTO config_scrapers (name, namespace, spec) VALUES ('s', 'team-a', $1) RETURNING id`,
      [{ sql: [{ connection: 'connection://team-a/used', query: 'select 1' }] }],
    )).rows[0].id;
    await q(`INSERT INTO config_scrapers (name, namespace, spec, deleted_at) VALUES ('gone', 'team-a', $1, now())`, [{ sql: [{ connection: 'connection://team-a/used' }] }]);

    const res = await t.app.inject({ method: 'GET', url: `/api/connection/${id}/usage`, headers: editor });
    expect(res.statusCode, res.body).toBe(200);
    const usage = res.json();
    expect(usage.checks.map((c: { id: string }) => c.id).sort()).toEqual([full, bare, typed].sort());
    expect(usage.checks[0]).toEqual({ id: expect.any(String), name: expect.any(String), canary_id: canary });
    expect(usage.notifications).toEqual([{ id: notification, name: 'n', namespace: 'team-a' }]);
    expect(usage.playbooks).toEqual([{ id: playbook, name: 'p', namespace: 'x' }]);
    expect(usage.scrapers).toEqual([{ id: scraper, name: 's', namespace: 'team-a' }]);

    const missing = await t.app.inject({ method: 'GET', url: '/api/connection/00000000-0000-0000-0000-000000000009/usage', headers: editor });
    expect(missing.statusCode).toBe(404);
  });
});
