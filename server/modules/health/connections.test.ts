import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { startHttpServer, type HttpServer } from '../../../tests/fixtures/servers/http.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from '../../../tests/server/helpers.js';
import { parseConnectionRef } from '../../lib/connection-ref.js';
import { CHECK_TYPES } from '../../lib/checks/index.js';
import { InvalidSpecError } from '../../lib/checks/lib/result.js';
import { ConnectionResolver, takesConnection } from './connections.js';
import { executeCheck } from './runner.js';
import { KeyRefReadError, ValueFromResolver, type KeyRefReader } from '../../lib/value-from.js';

/**
 * connection:// references against the run's real PostgreSQL: rows inserted in `connections` are found by every form
 * of reference, merged under the check's own fields, cached for 10 s, and real http and postgres checks use them.
 */
const adminUrl = new URL(inject('adminUrl'));
const ROLE = `conn_${process.pid}_${randomBytes(3).toString('hex')}`;
// distinctive values: finding one in a stored result is never a coincidence
const PG_PASSWORD = `conn-pg-${randomBytes(8).toString('hex')}`;
const HTTP_PASSWORD = `conn-http-${randomBytes(8).toString('hex')}`;

let t: TestContext;
let server: HttpServer;

interface Row {
  name: string;
  namespace: string;
  type: string;
  url?: string | null;
  username?: string | null;
  password?: string | null;
  insecure_tls?: boolean;
  spec?: Record<string, unknown> | null;
  deleted?: boolean;
}

async function insert(r: Row): Promise<string> {
  const { rows } = await t.db.query<{ id: string }>(
    `INSERT INTO connections (name, namespace, type, url, username, password, insecure_tls, spec, deleted_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, CASE WHEN $9 THEN now() END) RETURNING id`,
    [r.name, r.namespace, r.type, r.url ?? null, r.username ?? null, r.password ?? null, r.insecure_tls ?? false,
      r.spec ?? null, r.deleted ?? false],
  );
  return rows[0].id;
}

/** The resolver over the test database, counting the queries it makes. */
function resolver(opts: { now?: () => number; maxEntries?: number; valueFrom?: ValueFromResolver; failNext?: number } = {}) {
  let fail = opts.failNext ?? 0;
  const counter = {
    queries: 0,
    query: ((text: string, values: unknown[]) => {
      counter.queries++;
      if (fail > 0) {
        fail--;
        return Promise.reject(new Error('connection terminated unexpectedly'));
      }
      return t.db.query(text, values);
    }) as pg.Pool['query'],
  };
  const r = new ConnectionResolver({ db: counter, now: opts.now, maxEntries: opts.maxEntries, valueFrom: opts.valueFrom });
  return { r, counter };
}

const errorOf = (p: Promise<unknown>) => p.then(() => { throw new Error('expected a rejection'); }, (e: unknown) => e as Error);

beforeAll(async () => {
  t = await createTestApp();
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`CREATE ROLE ${ROLE} LOGIN PASSWORD '${PG_PASSWORD}'`);
  await admin.end();
  // Basic auth required; the body repeats the password it was given, to show it is masked in what is stored
  server = await startHttpServer((req, res) => {
    const expected = `Basic ${Buffer.from(`svc:${HTTP_PASSWORD}`).toString('base64')}`;
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="x"' });
      return void res.end('who are you?');
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`hello svc, your password is ${HTTP_PASSWORD}, path ${req.url.pathname}`);
  });
  await insert({ name: 'api', namespace: 'team-a', type: 'http', url: `${server.url}/base`, username: 'svc', password: HTTP_PASSWORD });
  await insert({ name: 'api', namespace: 'team-b', type: 'http', url: 'http://team-b.invalid/' });
  await insert({ name: 'db1', namespace: 'team-a', type: 'postgres', url: 'postgres://a.invalid/db' });
  await insert({ name: 'db1', namespace: 'team-b', type: 'postgres', url: 'postgres://b.invalid/db' });
  await insert({ name: 'solo', namespace: 'team-c', type: 'Redis', url: 'redis://c.invalid:6379' });
  await insert({ name: 'gone', namespace: 'team-a', type: 'http', url: 'http://gone.invalid/', deleted: true });
  await insert({ name: 'creds-only', namespace: 'team-a', type: 'http', username: 'u', password: 'p-only' });
  await insert({ name: 'insecure', namespace: 'team-a', type: 'http', url: 'https://self-signed.invalid/', insecure_tls: true });
});

afterAll(async () => {
  await server?.close();
  await t?.close();
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`DROP ROLE IF EXISTS ${ROLE}`);
  await admin.end();
});

describe('parseConnectionRef', () => {
  it('reads both forms, with or without the scheme, and refuses empty or extra segments', () => {
    expect(parseConnectionRef('connection://ns/name')).toEqual({ namespace: 'ns', name: 'name' });
    expect(parseConnectionRef(' connection://name ')).toEqual({ namespace: null, name: 'name' });
    expect(parseConnectionRef('ns/name')).toEqual({ namespace: 'ns', name: 'name' });
    for (const bad of ['connection://', 'connection://ns/', 'connection:///name', 'connection://a/b/c']) {
      expect(parseConnectionRef(bad), bad).toBeNull();
    }
  });
});

describe('which check types take a connection', () => {
  it('every type whose schema has a url accepts `connection` too, and keeps it', () => {
    const declares = (type: string, field: string) => field in ((CHECK_TYPES[type].schema as { shape?: object }).shape ?? {});
    const withUrl = Object.keys(CHECK_TYPES).filter((k) => declares(k, 'url'));
    const taking = Object.keys(CHECK_TYPES).filter(takesConnection);
    expect(withUrl.sort()).toEqual(['alertmanager', 'elasticsearch', 'http', 'mysql', 'opensearch', 'postgres', 'prometheus', 'redis']);
    expect(taking.sort()).toEqual(withUrl);
    for (const type of taking) {
      const parsed = CHECK_TYPES[type].schema.safeParse({ connection: 'connection://ns/name' });
      expect(parsed.success, type).toBe(true);
      expect((parsed.data as { connection?: string }).connection, type).toBe('connection://ns/name');
    }
  });
});

describe('finding the connection', () => {
  it('connection://<namespace>/<name> takes that namespace, whatever the canary\'s', async () => {
    const { r } = resolver();
    const out = await r.resolve('http', { name: 'c', connection: 'connection://team-a/api' }, 'elsewhere');
    expect(out.spec).toEqual({ name: 'c', url: `${server.url}/base`, username: 'svc', password: HTTP_PASSWORD, tlsConfig: { insecureSkipVerify: false } });
    expect(out.secrets).toContain(HTTP_PASSWORD);
    expect((await r.resolve('http', { connection: 'connection://team-b/api' }, 'team-a')).spec.url).toBe('http://team-b.invalid/');
  });

  it('connection://<name> means the canary\'s namespace', async () => {
    const { r } = resolver();
    expect((await r.resolve('http', { connection: 'connection://api' }, 'team-b')).spec.url).toBe('http://team-b.invalid/');
    expect((await r.resolve('http', { connection: 'connection://api' }, 'team-a')).spec.url).toBe(`${server.url}/base`);
    const err = await errorOf(r.resolve('http', { connection: 'connection://api' }, 'team-z'));
    expect(err).toBeInstanceOf(InvalidSpecError);
    expect(err.message).toBe('connection connection://api not found (looked for team-z/api)');
  });

  it('connection://<type>/<name>: the one in the canary\'s namespace, else the only one anywhere (type case-insensitive)', async () => {
    const { r } = resolver();
    expect((await r.resolve('postgres', { connection: 'connection://postgres/db1' }, 'team-b')).spec.url).toBe('postgres://b.invalid/db');
    expect((await r.resolve('postgres', { connection: 'connection://POSTGRES/db1' }, 'team-a')).spec.url).toBe('postgres://a.invalid/db');
    expect((await r.resolve('redis', { connection: 'connection://redis/solo' }, 'team-z')).spec.url).toBe('redis://c.invalid:6379');
    const err = await errorOf(r.resolve('postgres', { connection: 'connection://postgres/db1' }, 'team-z'));
    expect(err).toBeInstanceOf(InvalidSpecError);
    expect(err.message).toMatch(/^connection connection:\/\/postgres\/db1 is ambiguous: 2 connections of type postgres are named db1 \(team-a, team-b\)/);
  });

  it('a connection in a namespace called like the type wins over the type fallback', async () => {
    const id = await insert({ name: 'solo', namespace: 'redis', type: 'redis', url: 'redis://ns.invalid:6379' });
    try {
      const { r } = resolver();
      expect((await r.resolve('redis', { connection: 'connection://redis/solo' }, 'team-z')).spec.url).toBe('redis://ns.invalid:6379');
    } finally {
      await t.db.query('DELETE FROM connections WHERE id = $1', [id]);
    }
  });

  it('deleted rows never count; a reference that matches nothing is invalid and named', async () => {
    const { r } = resolver();
    for (const ref of ['connection://team-a/gone', 'connection://http/gone', 'connection://gone']) {
      const err = await errorOf(r.resolve('http', { connection: ref }, 'team-a'));
      expect(err, ref).toBeInstanceOf(InvalidSpecError);
      expect(err.message, ref).toMatch(new RegExp(`^connection ${ref} not found`));
    }
    expect((await errorOf(r.resolve('http', { connection: 'connection://team-x/nothing' }, 'team-a'))).message)
      .toBe('connection connection://team-x/nothing not found');
    expect((await errorOf(r.resolve('http', { connection: 'connection://a/b/c' }, 'team-a'))).message)
      .toBe('connection connection://a/b/c is not a valid reference (expected connection://<namespace>/<name>)');
  });

  it('a database error is a plain error (a failed run), and is not remembered', async () => {
    const { r, counter } = resolver({ failNext: 1 });
    const err = await errorOf(r.resolve('http', { connection: 'connection://team-a/api' }, 'x'));
    expect(err).not.toBeInstanceOf(InvalidSpecError);
    expect(err.message).toMatch(/connection terminated/);
    expect((await r.resolve('http', { connection: 'connection://team-a/api' }, 'x')).spec.url).toBe(`${server.url}/base`);
    expect(counter.queries).toBe(2);
  });

  it('leaves alone a spec without a connection:// reference, and types that take none', async () => {
    const { r, counter } = resolver();
    const plain = { url: 'http://x', connection: 'http://plain.example/' };
    expect((await r.resolve('http', plain, 'ns')).spec).toBe(plain);
    const tcp = { endpoint: 'x:1', connection: 'connection://team-a/api' };
    expect((await r.resolve('tcp', tcp, 'ns')).spec).toBe(tcp);
    expect(counter.queries).toBe(0);
  });
});

describe('merging into the check', () => {
  it('inline fields win: url (endpoint, addr), username, password; the connection fills the rest', async () => {
    const { r } = resolver();
    const ref = 'connection://team-a/api';
    const own = await r.resolve('http', { connection: ref, url: 'http://mine/', username: 'me' }, 'x');
    expect(own.spec).toMatchObject({ url: 'http://mine/', username: 'me', password: HTTP_PASSWORD });
    expect(own.spec).not.toHaveProperty('connection');
    // an EnvVar counts as set, even one still to be read from a Secret; an empty one does not
    const env = await r.resolve('http', { connection: ref, password: { valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }, username: { value: '' } }, 'x');
    expect(env.spec).toMatchObject({ url: `${server.url}/base`, username: 'svc', password: { valueFrom: { secretKeyRef: { name: 's', key: 'k' } } } });
    const endpoint = await r.resolve('http', { connection: ref, endpoint: 'http://ep/' }, 'x');
    expect(endpoint.spec.url).toBeUndefined();
    expect(endpoint.spec).toMatchObject({ endpoint: 'http://ep/', username: 'svc' });
    const redis = await r.resolve('redis', { connection: 'connection://team-c/solo', addr: 'localhost:6379' }, 'x');
    expect(redis.spec).toEqual({ addr: 'localhost:6379' });
    // no url in the connection: fine when the check has its own, invalid when it needs one
    const creds = await r.resolve('http', { connection: 'connection://team-a/creds-only', url: 'http://mine/' }, 'x');
    expect(creds.spec).toMatchObject({ url: 'http://mine/', username: 'u', password: 'p-only' });
    const none = await errorOf(r.resolve('http', { connection: 'connection://team-a/creds-only' }, 'x'));
    expect(none).toBeInstanceOf(InvalidSpecError);
    expect(none.message).toBe('connection connection://team-a/creds-only has no url');
  });

  it('http takes insecure_tls as tlsConfig.insecureSkipVerify unless the check sets it; other types never', async () => {
    const { r } = resolver();
    const ref = 'connection://team-a/insecure';
    expect((await r.resolve('http', { connection: ref }, 'x')).spec.tlsConfig).toEqual({ insecureSkipVerify: true });
    expect((await r.resolve('http', { connection: ref, tlsConfig: { ca: 'PEM' } }, 'x')).spec.tlsConfig).toEqual({ ca: 'PEM', insecureSkipVerify: true });
    expect((await r.resolve('http', { connection: ref, tlsConfig: { insecureSkipVerify: false } }, 'x')).spec.tlsConfig).toEqual({ insecureSkipVerify: false });
    expect((await r.resolve('prometheus', { connection: ref }, 'x')).spec).toEqual({ url: 'https://self-signed.invalid/' });
  });

  it('valueFrom in a connection\'s spec is read from the connection\'s namespace and masked', async () => {
    const reads: string[] = [];
    const reader: KeyRefReader = async (kind, ns, name) => {
      reads.push(`${kind}/${ns}/${name}`);
      if (name !== 'api-auth') throw new KeyRefReadError('not found', 404);
      return { user: 'from-secret-user', pass: 'from-secret-pass' };
    };
    await insert({
      name: 'secret-backed', namespace: 'vault', type: 'http', url: 'http://sb.invalid/',
      // the columns hold only the reference's label for a valueFrom (as the CR store writes them)
      username: 'secret://api-auth/user', password: 'secret://api-auth/pass',
      spec: {
        url: 'http://sb.invalid/',
        username: { valueFrom: { secretKeyRef: { name: 'api-auth', key: 'user' } } },
        password: { valueFrom: { secretKeyRef: { name: 'api-auth', key: 'pass' } } },
      },
    });
    await insert({
      name: 'broken', namespace: 'vault', type: 'http', url: 'http://b.invalid/', password: 'secret://missing/pass',
      spec: { password: { valueFrom: { secretKeyRef: { name: 'missing', key: 'pass' } } } },
    });
    const { r } = resolver({ valueFrom: new ValueFromResolver({ reader }) });
    const out = await r.resolve('http', { connection: 'connection://vault/secret-backed' }, 'canary-ns');
    expect(out.spec).toMatchObject({ url: 'http://sb.invalid/', username: 'from-secret-user', password: 'from-secret-pass' });
    expect(out.secrets).toEqual(expect.arrayContaining(['from-secret-user', 'from-secret-pass']));
    expect(reads).toEqual(['secret/vault/api-auth']);
    const err = await errorOf(r.resolve('http', { connection: 'connection://vault/broken' }, 'canary-ns'));
    expect(err).toBeInstanceOf(InvalidSpecError);
    expect(err.message).toBe('connection connection://vault/broken: password: secret vault/missing not found');
    // without a cluster, a Secret-backed connection is refused with the reason
    const { r: noCluster } = resolver();
    expect((await errorOf(noCluster.resolve('http', { connection: 'connection://vault/secret-backed' }, 'x'))).message)
      .toBe('connection connection://vault/secret-backed: username: valueFrom needs a Kubernetes cluster connection');
  });
});

describe('the row cache', () => {
  let now = 1_000_000;
  beforeEach(() => {
    now = 1_000_000;
  });

  it('one query per reference per 10 s, shared while in flight; a change is seen once it expires', async () => {
    const id = await insert({ name: 'cached', namespace: 'team-a', type: 'http', url: 'http://v1.invalid/' });
    const { r, counter } = resolver({ now: () => now });
    const ref = { connection: 'connection://team-a/cached' };
    const first = await Promise.all(Array.from({ length: 50 }, () => r.resolve('http', ref, 'x')));
    expect(first.every((o) => o.spec.url === 'http://v1.invalid/')).toBe(true);
    expect(counter.queries).toBe(1);
    await t.db.query("UPDATE connections SET url = 'http://v2.invalid/' WHERE id = $1", [id]);
    now += 9_999;
    expect((await r.resolve('http', ref, 'x')).spec.url).toBe('http://v1.invalid/');
    expect(counter.queries).toBe(1);
    now += 2;
    expect((await r.resolve('http', ref, 'x')).spec.url).toBe('http://v2.invalid/');
    expect(counter.queries).toBe(2);
  });

  it('remembers "not found" for the same time, so a new connection is seen within 10 s', async () => {
    const { r, counter } = resolver({ now: () => now });
    const ref = { connection: 'connection://team-a/later' };
    await expect(r.resolve('http', ref, 'x')).rejects.toThrow('connection connection://team-a/later not found');
    await insert({ name: 'later', namespace: 'team-a', type: 'http', url: 'http://later.invalid/' });
    await expect(r.resolve('http', ref, 'x')).rejects.toThrow(InvalidSpecError);
    expect(counter.queries).toBe(1);
    now += 10_001;
    expect((await r.resolve('http', ref, 'x')).spec.url).toBe('http://later.invalid/');
  });

  it('keeps at most maxEntries references, dropping the oldest', async () => {
    const { r, counter } = resolver({ now: () => now, maxEntries: 2 });
    const run = (ref: string) => r.resolve('http', { connection: ref, url: 'http://own/' }, 'team-a');
    await run('connection://team-a/api');
    await run('connection://team-b/api');
    await run('connection://api');
    expect(counter.queries).toBe(3);
    await run('connection://api'); // still cached
    expect(counter.queries).toBe(3);
    await run('connection://team-a/api'); // the oldest was dropped
    expect(counter.queries).toBe(4);
  });
});

describe('checks that run with a connection', () => {
  it('an http check gets its url and Basic credentials from the connection; the password is masked in the result', async () => {
    const { r } = resolver();
    const check = {
      id: 'c1', canaryId: 'k1', type: 'http', name: 'api', namespace: 'team-a',
      spec: { name: 'api', connection: 'connection://api', display: { expr: 'content' } },
    };
    const ok = await executeCheck(check, { connections: r });
    expect(ok.error).toBeUndefined();
    expect(ok).toMatchObject({ pass: true, invalid: false, message: 'hello svc, your password is ***, path /base' });
    // the same check in another namespace names team-b's connection, whose server does not exist
    const other = await executeCheck({ ...check, namespace: 'team-z' }, { connections: r });
    expect(other).toMatchObject({ pass: false, invalid: true, error: 'connection connection://api not found (looked for team-z/api)' });
    // no resolver: the reference is reported, not guessed at
    expect(await executeCheck(check)).toMatchObject({ pass: false, invalid: true, error: 'connection connection://api: no database to read connections from' });
  });

  it('the results a transform makes from the response are masked too', async () => {
    const { r } = resolver();
    const out = await executeCheck({
      id: 'c1', canaryId: 'k1', type: 'http', name: 'api', namespace: 'team-a',
      spec: { name: 'api', connection: 'connection://api', transform: { expr: "[{'name': 'echo', 'message': content, 'detail': {'body': content}}]" } },
    }, { connections: r });
    expect(out.transformed).toMatchObject([{ name: 'echo', message: 'hello svc, your password is ***, path /base', detail: { body: 'hello svc, your password is ***, path /base' } }]);
  });

  it('a plain-URL connection still works without any resolver', async () => {
    const r = await executeCheck({
      id: 'c2', canaryId: 'k1', type: 'http', name: 'plain',
      spec: { name: 'plain', connection: `${server.url}/`, responseCodes: [401] },
    });
    expect(r.error).toBeUndefined();
    expect(r.pass).toBe(true);
  });

  it('through the API: a canary\'s http check with connection:// runs now, and no password is stored', async () => {
    const admin = await makePerson(t.db, { roles: ['admin'] });
    const headers = await sessionHeaders(t.db, admin.id);
    const created = await t.app.inject({
      method: 'POST', url: '/api/canary', headers,
      payload: {
        name: 'with-connection', namespace: 'team-a',
        spec: { schedule: '@every 1h', http: [{ name: 'via-connection', connection: 'connection://team-a/api', display: { expr: 'content' } }] },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const checkId = (created.json() as { checks: Array<{ id: string }> }).checks[0].id;
    const run = await t.app.inject({ method: 'POST', url: `/api/canary/run/check/${checkId}`, headers });
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json()).toMatchObject({ pass: true, invalid: false, message: 'hello svc, your password is ***, path /base' });
    const { rows } = await t.db.query('SELECT s::text AS row FROM check_statuses s WHERE check_id = $1', [checkId]);
    // Run Now's result, and the canary's first run on create when the scheduler got to it first
    expect(rows.length).toBeGreaterThanOrEqual(1);
    for (const r of rows) expect(r.row).not.toContain(HTTP_PASSWORD);
    // a wrong password in the connection fails the run: the credentials really came from it
    await t.db.query("UPDATE connections SET password = 'wrong' WHERE name = 'api' AND namespace = 'team-a'");
    const later = new ConnectionResolver({ db: t.db });
    const failed = await executeCheck({ id: checkId, canaryId: 'k', type: 'http', name: 'x', namespace: 'team-a', spec: { name: 'x', connection: 'connection://team-a/api' } }, { connections: later });
    expect(failed).toMatchObject({ pass: false, invalid: false, error: 'response code 401 not in 200-299' });
    await t.db.query('UPDATE connections SET password = $1 WHERE name = $2 AND namespace = $3', [HTTP_PASSWORD, 'api', 'team-a']);
  });

  it('a postgres check whose connection points at the test database logs in with the connection\'s credentials', async () => {
    const dbUrl = new URL(t.config.DATABASE_URL!);
    const url = `postgres://${dbUrl.host}${dbUrl.pathname}?sslmode=disable`;
    await insert({ name: 'self', namespace: 'dbs', type: 'postgres', url, username: ROLE, password: PG_PASSWORD });
    const { r } = resolver();
    const check = {
      id: 'c3', canaryId: 'k1', type: 'postgres', name: 'self', namespace: 'dbs',
      spec: {
        name: 'self', connection: 'connection://dbs/self', query: 'SELECT current_database() AS db, current_user AS who',
        test: { expr: `rows[0].who == '${ROLE}' && rows[0].db == '${dbUrl.pathname.slice(1)}'` },
      },
    };
    const ok = await executeCheck(check, { connections: r });
    expect(ok.error).toBeUndefined();
    expect(ok).toMatchObject({ pass: true, invalid: false });
    expect(JSON.stringify(ok)).not.toContain(PG_PASSWORD);
    // the check's own (wrong) password wins over the connection's
    const own = await executeCheck({ ...check, spec: { ...check.spec, password: 'not-it' } }, { connections: r });
    expect(own).toMatchObject({ pass: false, invalid: false });
    expect(own.error).toMatch(/password authentication failed/);
  });
});
