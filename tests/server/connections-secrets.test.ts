import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { kubeKeyRefReader, ValueFromResolver } from '../../server/lib/value-from.js';
import { sendEmail } from '../../server/modules/incidents/mailer.js';
import { kindByKind } from '../../server/modules/kubernetes/kinds.js';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { startLoggedConsole, type LoggedConsole } from '../support/logged-console.js';
import { until } from '../support/poll.js';
import { makePerson, sessionHeaders } from './helpers.js';
import { connectLive, listen, type LiveClient } from './ws-client.js';

/**
 * Connection secrets against the Kubernetes API test server and the run's real PostgreSQL: a connection written by
 * the console with `secret://<name>/<key>` reaches a postgres check as the Secret's value (read from the
 * connection's namespace); a rotated Secret reaches the next run within VALUE_FROM_CACHE_SECONDS (1 s here); a
 * Connection CR's typed block maps onto the row and a console edit merge-patches the CR (409 when stale, 403 when
 * GitOps owns it); and no password reaches an /api/db response, a WebSocket event or a log line.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const adminUrl = new URL(inject('adminUrl'));
const ROLE = `cs_${process.pid}_${randomBytes(3).toString('hex')}`;
const PASSWORD_1 = `cs-one-${randomBytes(9).toString('hex')}`;
const PASSWORD_2 = `cs-two-${randomBytes(9).toString('hex')}`;
const STATIC = `cs-static-${randomBytes(9).toString('hex')}`;
const NS = 'apps';
const CONNECTION = kindByKind('Connection')!;

async function asAdmin(sql: string) {
  const c = new pg.Client({ connectionString: adminUrl.toString() });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

let kube: KubeApi;
let dir: string;
let t: LoggedConsole;
let headers: Record<string, string>;
let live: LiveClient;

const secret = (name: string, data: Record<string, string>, ns = NS) => kube.apply({
  apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns }, type: 'Opaque', stringData: data,
});
const db = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, extra: Record<string, string> = {}) =>
  t.app.inject({ method, url: `/api/db/${url}`, headers: { ...headers, ...extra }, payload: payload as never });
const REPR = { prefer: 'return=representation' };
const crOf = (ns: string, name: string) => kube.get(CONNECTION.group, CONNECTION.version, CONNECTION.plural, ns, name);
const rowOf = async (id: string) => (await t.db.query('SELECT * FROM connections WHERE id = $1', [id])).rows[0];
/** Every response body of this file, to look for secrets in. */
const bodies: string[] = [];

async function runNow(id: string) {
  const res = await t.app.inject({ method: 'POST', url: `/api/canary/run/check/${id}`, headers });
  bodies.push(res.body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { pass: boolean; invalid: boolean; error?: string };
}

beforeAll(async () => {
  await asAdmin(`CREATE ROLE ${ROLE} LOGIN PASSWORD '${PASSWORD_1}'`);
  kube = await startKubeApi({ crdsDir: join(root, 'crds') });
  dir = mkdtempSync(join(tmpdir(), 'conn-secrets-'));
  const kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
  kube.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  kube.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'monitoring' } });
  secret('db-auth', { password: PASSWORD_1 });
  // the same Secret name in the canary's namespace holds something else: the connection's namespace must win
  secret('db-auth', { password: 'not-this-one' }, 'monitoring');
  // console edits of CRs act as the caller's cluster identity, bound as the chart binds it
  kube.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'ops-console-admin' },
    rules: [{ apiGroups: [CONNECTION.group], resources: ['*'], verbs: ['*'] }],
  });
  kube.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'ops-console-admin' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'ops-console-admin' },
    subjects: [{ kind: 'Group', name: 'ops-console:admins', apiGroup: 'rbac.authorization.k8s.io' }, { kind: 'Group', name: 'ops-console:writers', apiGroup: 'rbac.authorization.k8s.io' }],
  });
  t = await startLoggedConsole({ KUBECONFIG: kubeconfig, POD_NAME: 'console-conn-secrets', POD_NAMESPACE: 'default', VALUE_FROM_CACHE_SECONDS: '1' });
  const admin = await makePerson(t.db, { roles: ['admin'] });
  headers = await sessionHeaders(t.db, admin.id);
  const wsUrl = await listen(t.app);
  live = await connectLive(wsUrl, { cookie: headers.cookie, origin: `http://${new URL(wsUrl).host}` });
});

afterAll(async () => {
  live?.close();
  await t?.close();
  await kube?.stop();
  await asAdmin(`DROP ROLE IF EXISTS ${ROLE}`).catch(() => undefined);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('secret:// in a console-written connection', () => {
  let checkId: string;

  it('reaches a postgres check as the Secret value of the connection\'s namespace', async () => {
    const conn = await db('POST', 'connections?select=id,password', {
      name: 'orders-db', namespace: NS, type: 'postgres',
      url: `postgres://$(username):$(password)@${adminUrl.host}/postgres?sslmode=disable`,
      username: ROLE, password: 'secret://db-auth/password', insecure_tls: false, properties: {}, source: 'UI',
    }, REPR);
    bodies.push(conn.body);
    expect(conn.statusCode, conn.body).toBe(201);
    expect(conn.json()[0].password).toBe('secret://db-auth/password');

    const canary = await t.app.inject({
      method: 'POST', url: '/api/db/canaries?select=id', headers: { ...headers, ...REPR }, payload: {
        name: 'orders', namespace: 'monitoring', source: 'UI',
        spec: { schedule: '@every 1h', postgres: [{ name: 'login', connection: `connection://${NS}/orders-db`, query: 'SELECT current_user AS who', test: { expr: `rows[0].who == '${ROLE}'` } }] },
      },
    });
    expect(canary.statusCode, canary.body).toBe(201);
    checkId = await t.checkId('monitoring', 'orders', 'login');
    const r = await runNow(checkId);
    expect(r.error ?? null).toBeNull();
    expect(r).toMatchObject({ pass: true, invalid: false });
  });

  it('a rotated Secret reaches the next run within VALUE_FROM_CACHE_SECONDS', async () => {
    await asAdmin(`ALTER ROLE ${ROLE} PASSWORD '${PASSWORD_2}'`);
    const failed = await until(async () => {
      const r = await runNow(checkId);
      return r.pass ? undefined : r;
    }, 'a failing run with the old password');
    expect(failed.error).toMatch(/password authentication failed/);
    secret('db-auth', { password: PASSWORD_2 });
    // nothing else changes: the next runs read the Secret again once its cache entry (1 s) has expired
    await until(async () => (await runNow(checkId)).pass || undefined, 'a passing run with the rotated password');
  });

  it('a reference to a missing key makes the check invalid, naming it and never a value', async () => {
    await db('PATCH', `connections?id=eq.${(await t.db.query("SELECT id FROM connections WHERE name = 'orders-db'")).rows[0].id}`, { password: 'secret://db-auth/nope' });
    const r = await until(async () => {
      const x = await runNow(checkId);
      return x.invalid ? x : undefined;
    }, 'an invalid run (the connection row cache is 10 s)');
    expect(r.error).toBe('connection connection://apps/orders-db: password: key "nope" not found in secret apps/db-auth');
  });
});

describe('the incidents mailer', () => {
  it('signs in to SMTP with a secret:// password read from the connection\'s namespace; a failure never carries it', async () => {
    const SMTP_PASSWORD = `cs-smtp-${randomBytes(9).toString('hex')}`;
    const received: string[] = [];
    const smtp = new SMTPServer({
      secure: false, disabledCommands: ['STARTTLS'], allowInsecureAuth: true, logger: false,
      onAuth(auth, _s, cb) {
        if (auth.username === 'mailer' && auth.password === SMTP_PASSWORD) cb(null, { user: auth.username });
        else cb(new Error('Invalid username or password'));
      },
      onData(stream, _s, cb) {
        stream.on('data', () => undefined);
        stream.on('end', () => { received.push('mail'); cb(); });
      },
    });
    await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
    try {
      const port = (smtp.server.address() as AddressInfo).port;
      secret('smtp-auth', { password: SMTP_PASSWORD });
      const kc = new KubeConfig();
      kc.loadFromFile(join(dir, 'kubeconfig'));
      const valueFrom = new ValueFromResolver({ reader: kubeKeyRefReader(kc), ttlMs: 0 });
      const row = {
        id: 'x', name: 'mail', namespace: NS, type: 'email', url: `smtp://127.0.0.1:${port}`, username: 'mailer',
        password: 'secret://smtp-auth/password', insecure_tls: true, properties: { from: 'console@example.test' },
      };
      const mail = { to: 'ops@example.test', subject: 's', body: 'b', incidentDisplayId: 'INC-1', incidentTitle: 't', incidentUrl: 'https://x.test/i' };
      expect(await sendEmail(row, mail, { valueFrom })).toMatch(/@/);
      expect(received).toEqual(['mail']);
      // the server refuses the password: the error says so without the value (which SMTP AUTH PLAIN sends base64'd)
      secret('smtp-auth', { password: `${SMTP_PASSWORD}-wrong` });
      const err = await sendEmail(row, mail, { valueFrom }).then(() => null, (e: Error) => e);
      expect(err?.message).toMatch(/Invalid login|Invalid username or password/);
      expect(err?.message).not.toContain(SMTP_PASSWORD);
      // without a cluster the reference is refused, never sent as the password
      await expect(sendEmail(row, mail)).rejects.toThrow(/connection apps\/mail: password: valueFrom needs a Kubernetes cluster connection/);
    } finally {
      await new Promise<void>((r) => smtp.close(() => r()));
    }
  });
});

describe('Connection custom resources', () => {
  it('a typed block maps onto the row; a console edit merge-patches the CR where its author wrote it; a stale one is 409', async () => {
    const applied = kube.apply({
      apiVersion: `${CONNECTION.group}/${CONNECTION.version}`, kind: 'Connection', metadata: { name: 'cr-pg', namespace: NS },
      spec: {
        postgres: {
          url: { value: `postgres://${adminUrl.host}/postgres` },
          username: { value: ROLE },
          password: { valueFrom: { secretKeyRef: { name: 'db-auth', key: 'password' } } },
          database: { value: 'postgres' },
        },
      },
    });
    const id = applied.metadata.uid!;
    await until(async () => (await rowOf(id))?.source === 'KubernetesCRD', 'the Connection reconciled');
    expect(await rowOf(id)).toMatchObject({
      type: 'postgres', url: `postgres://${adminUrl.host}/postgres`, username: ROLE, password: 'secret://db-auth/password',
      properties: { database: 'postgres' },
    });
    const shown = await db('GET', `connections?select=type,username,password&id=eq.${id}`);
    expect(shown.json()).toEqual([{ type: 'postgres', username: '***', password: 'secret://db-auth/password' }]);

    // the leader's status write (Ready) changes the CR's resourceVersion: edit the version the user would see after it
    const ready = await until(async () => {
      const now = crOf(NS, 'cr-pg') as { status?: { status?: string }; metadata: { resourceVersion?: string } } | undefined;
      return now?.status?.status === 'Ready' ? now : undefined;
    }, 'the Connection status written');
    const res = await db('PATCH', `connections?id=eq.${id}&select=id,source`, {
      url: `postgres://${adminUrl.host}/template1`, password: 'secret://db-auth/other', username: '***', resource_version: ready.metadata.resourceVersion,
    }, REPR);
    bodies.push(res.body);
    expect(res.statusCode, res.body).toBe(200);
    const cr = crOf(NS, 'cr-pg')!;
    expect(cr.spec).toEqual({
      postgres: {
        url: { value: `postgres://${adminUrl.host}/template1` },
        username: { value: ROLE },
        password: { valueFrom: { secretKeyRef: { name: 'db-auth', key: 'other' } } },
        database: { value: 'postgres' },
      },
    });
    await until(async () => ((await rowOf(id)).url as string).endsWith('/template1') || undefined, 'the row updated by the informer');

    const stale = await db('PATCH', `connections?id=eq.${id}`, { url: 'postgres://x/y', resource_version: applied.metadata.resourceVersion });
    expect(stale.statusCode, stale.body).toBe(409);
    expect(crOf(NS, 'cr-pg')!.spec).toEqual(cr.spec);
  });

  it('a GitOps-owned Connection is read-only: 403, the CR untouched', async () => {
    const flux = kube.apply({
      apiVersion: `${CONNECTION.group}/${CONNECTION.version}`, kind: 'Connection',
      metadata: { name: 'gitops-conn', namespace: NS, labels: { 'kustomize.toolkit.fluxcd.io/name': 'apps', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' } },
      spec: { type: 'http', url: { value: 'https://example.test' } },
    });
    const id = flux.metadata.uid!;
    await until(async () => (await t.db.query('SELECT managed_by FROM kubernetes_objects WHERE uid = $1', [id])).rows[0]?.managed_by, 'its GitOps owner');
    await until(async () => (await rowOf(id))?.source === 'KubernetesCRD', 'the Connection reconciled');
    const patch = await db('PATCH', `connections?id=eq.${id}`, { url: 'https://other.test' });
    expect(patch.statusCode).toBe(403);
    expect(patch.json().message).toMatch(/^Linked to Flux kustomization flux-system\/apps/);
    expect(crOf(NS, 'gitops-conn')!.spec).toEqual({ type: 'http', url: { value: 'https://example.test' } });
  });
});

describe('no secret leaves the server', () => {
  it('a static password is in no /api/db response, WebSocket event or log line', async () => {
    const made = await db('POST', 'connections?select=*', {
      name: 'static-one', namespace: NS, type: 'http', url: `https://u:${STATIC}@web.test/`, username: 'u', password: STATIC,
      certificate: STATIC, properties: { token: STATIC, note: 'x' },
    }, REPR);
    expect(made.statusCode, made.body).toBe(201);
    const id = made.json()[0].id;
    bodies.push(made.body);
    const edit = await db('PATCH', `connections?id=eq.${id}&select=*`, { password: '***', properties: { token: '***', note: 'y' } }, REPR);
    bodies.push(edit.body);
    expect((await rowOf(id)).password).toBe(STATIC);
    expect((await rowOf(id)).properties).toEqual({ token: STATIC, note: 'y' });
    for (const q of ['connections?select=*', 'connection_details?select=*', 'connections?select=*,created_by(*)&password=eq.***', 'connections?select=properties->token']) {
      bodies.push((await db('GET', q)).body);
    }
    const dup = await db('POST', 'connections', { name: 'static-one', namespace: NS, type: 'http', password: STATIC });
    expect(dup.statusCode).toBe(409);
    bodies.push(dup.body);
    const bad = await db('POST', 'connections', { name: 'bad-url', namespace: NS, type: 'http', url: `::${STATIC}`, password: STATIC });
    expect(bad.statusCode).toBe(400);
    bodies.push(bad.body);
    await live.next((m) => m.type === 'change' && m.relation === 'connections' && (m.ids ?? []).includes(id));

    for (const secretValue of [STATIC, PASSWORD_1, PASSWORD_2]) {
      expect(bodies.filter((b) => b.includes(secretValue))).toEqual([]);
      expect(live.messages.filter((m) => JSON.stringify(m).includes(secretValue))).toEqual([]);
      expect(t.logs.filter((l) => l.includes(secretValue))).toEqual([]);
    }
    expect(t.logs.length).toBeGreaterThan(0);
    expect(live.messages.some((m) => m.type === 'change' && m.relation === 'connections')).toBe(true);
  });
});
