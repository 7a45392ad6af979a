import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kindByKind } from '../../server/modules/kubernetes/kinds.js';
import { startHttpServer, type HttpServer } from '../fixtures/servers/http.js';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { makePerson, sessionHeaders } from '../server/helpers.js';
import { startLoggedConsole, type LoggedConsole } from '../support/logged-console.js';
import { until } from '../support/poll.js';

/**
 * Against the Kubernetes API test server and the run's real PostgreSQL: a `Connection` CR whose password comes from a
 * Secret (valueFrom) is reconciled into `connections`, and a Canary CR's http check naming it with
 * `connection://<namespace>/<name>` signs in with that password (read from the Connection's namespace, not the
 * canary's); a webhook check whose token is a Secret takes the right token, refuses a wrong one, and refuses clearly
 * when the Secret is missing. No Secret value reaches the stored results, the tables, the API or the logs.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
// distinctive values, so finding one anywhere is never a coincidence
const API_PASSWORD = `conn-api-${randomBytes(9).toString('hex')}`;
const HOOK_TOKEN = `conn-hook-${randomBytes(9).toString('hex')}`;
const LEAK = /conn-(api|hook)-[0-9a-f]{18}/;
const CONN_NS = 'shared-connections';
const NS = 'monitoring';

let kube: KubeApi;
let dir: string;
let t: LoggedConsole;
let server: HttpServer;
let headers: Record<string, string>;
const CANARY = kindByKind('Canary')!;
const CONNECTION = kindByKind('Connection')!;

const secret = (namespace: string, name: string, data: Record<string, string>) => kube.apply({
  apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, type: 'Opaque', stringData: data,
});

const checkId = (canaryName: string, checkName: string) => t.checkId(NS, canaryName, checkName);

beforeAll(async () => {
  // the API being checked: Basic auth, and a body that repeats the password (to show it is masked)
  server = await startHttpServer((req, res) => {
    if (req.headers.authorization !== `Basic ${Buffer.from(`svc:${API_PASSWORD}`).toString('base64')}`) {
      res.writeHead(401);
      return void res.end('no');
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`welcome svc (${API_PASSWORD})`);
  });
  kube = await startKubeApi({ crdsDir: join(root, 'crds') });
  dir = mkdtempSync(join(tmpdir(), 'kube-connections-'));
  const kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
  for (const name of [NS, CONN_NS]) kube.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  // the password lives in the Connection's namespace only: the canary's has no such Secret
  secret(CONN_NS, 'api-auth', { password: API_PASSWORD });
  secret(NS, 'hook-auth', { token: HOOK_TOKEN });
  t = await startLoggedConsole({ KUBECONFIG: kubeconfig, POD_NAME: 'console-connections-test', POD_NAMESPACE: 'default' });
  const admin = await makePerson(t.db, { roles: ['admin'] });
  headers = await sessionHeaders(t.db, admin.id);
});

afterAll(async () => {
  await t?.close();
  await kube?.stop();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('connection:// with a Connection CR whose password is a Secret', () => {
  it('the CR is reconciled into connections, and an http check naming it signs in with the Secret\'s password', async () => {
    kube.apply({
      apiVersion: `${CONNECTION.group}/v1`, kind: 'Connection', metadata: { name: 'internal-api', namespace: CONN_NS },
      spec: {
        type: 'http', url: { value: `${server.url}/status` }, username: { value: 'svc' },
        password: { valueFrom: { secretKeyRef: { name: 'api-auth', key: 'password' } } },
      },
    });
    const row = await until(async () => (await t.db.query(
      'SELECT url, username, password FROM connections WHERE name = $1 AND namespace = $2 AND deleted_at IS NULL', ['internal-api', CONN_NS],
    )).rows[0], 'the Connection row');
    // the column holds the reference's label for a valueFrom, never the value
    expect(row).toEqual({ url: `${server.url}/status`, username: 'svc', password: 'secret://api-auth/password' });

    kube.apply({
      apiVersion: `${CANARY.group}/v1`, kind: 'Canary', metadata: { name: 'via-connection', namespace: NS },
      spec: {
        schedule: '@every 1s',
        http: [{ name: 'api', connection: `connection://${CONN_NS}/internal-api`, display: { expr: 'content' } }],
      },
    });
    const id = await checkId('via-connection', 'api');
    const scheduled = await until(async () => (await t.db.query(
      'SELECT status, invalid, error, message FROM check_statuses WHERE check_id = $1 ORDER BY time DESC LIMIT 1', [id],
    )).rows[0], 'a scheduled result');
    expect(scheduled).toEqual({ status: true, invalid: false, error: null, message: 'welcome svc (***)' });
    expect(server.requests.length).toBeGreaterThan(0);
    expect(server.requests.every((r) => r.url.pathname === '/status')).toBe(true);

    const now = await t.app.inject({ method: 'POST', url: `/api/canary/run/check/${id}`, headers });
    expect(now.statusCode, now.body).toBe(200);
    expect(now.json()).toMatchObject({ pass: true, invalid: false, message: 'welcome svc (***)' });
  });

  it('a Connection whose Secret is missing makes the check invalid, naming it', async () => {
    kube.apply({
      apiVersion: `${CONNECTION.group}/v1`, kind: 'Connection', metadata: { name: 'no-secret', namespace: CONN_NS },
      spec: { type: 'http', url: { value: `${server.url}/` }, password: { valueFrom: { secretKeyRef: { name: 'absent', key: 'password' } } } },
    });
    await until(async () => (await t.db.query("SELECT 1 FROM connections WHERE name = 'no-secret' AND deleted_at IS NULL")).rowCount, 'the row');
    kube.apply({
      apiVersion: `${CANARY.group}/v1`, kind: 'Canary', metadata: { name: 'broken-connection', namespace: NS },
      spec: { schedule: '@every 1h', http: [{ name: 'api', connection: `connection://${CONN_NS}/no-secret` }] },
    });
    const id = await checkId('broken-connection', 'api');
    const r = await t.app.inject({ method: 'POST', url: `/api/canary/run/check/${id}`, headers });
    expect(r.json()).toMatchObject({
      pass: false, invalid: true, error: `connection connection://${CONN_NS}/no-secret: password: secret ${CONN_NS}/absent not found`,
    });
  });
});

describe('a webhook check whose token is a Secret', () => {
  async function webhookCheck(name: string, token: unknown): Promise<string> {
    const created = await t.app.inject({
      method: 'POST', url: '/api/canary', headers,
      payload: { name, namespace: NS, spec: { schedule: '@every 1h', webhook: [{ name: `${name}-hook`, token }] } },
    });
    expect(created.statusCode, created.body).toBe(201);
    return (created.json() as { checks: Array<{ id: string }> }).checks[0].id;
  }

  it('takes the right token (query or header), refuses a wrong one with 401', async () => {
    const id = await webhookCheck('hooked', { valueFrom: { secretKeyRef: { name: 'hook-auth', key: 'token' } } });
    const right = await t.app.inject({ method: 'POST', url: `/api/canary/webhook/${id}?token=${HOOK_TOKEN}`, payload: { ok: true } });
    expect(right.statusCode, right.body).toBe(200);
    expect(right.json()).toMatchObject({ id, status: 'healthy', pass: true });
    const header = await t.app.inject({ method: 'POST', url: `/api/canary/webhook/${id}`, headers: { 'webhook-token': HOOK_TOKEN }, payload: {} });
    expect(header.statusCode, header.body).toBe(200);
    for (const bad of [`?token=${HOOK_TOKEN}x`, '?token=', '']) {
      const wrong = await t.app.inject({ method: 'POST', url: `/api/canary/webhook/${id}${bad}`, payload: {} });
      expect(wrong.statusCode, bad).toBe(401);
      expect(wrong.json()).toMatchObject({ message: 'invalid webhook token' });
    }
    const { rows } = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM check_statuses WHERE check_id = $1', [id]);
    expect(rows[0].n).toBe(2);
  });

  it('refuses with 503 and a clear message when the Secret is missing, logging the reason without a value', async () => {
    const id = await webhookCheck('orphan', { valueFrom: { secretKeyRef: { name: 'no-such-secret', key: 'token' } } });
    const r = await t.app.inject({ method: 'POST', url: `/api/canary/webhook/${id}?token=${HOOK_TOKEN}`, payload: {} });
    expect(r.statusCode, r.body).toBe(503);
    expect(r.json()).toMatchObject({ message: "the webhook check's token could not be read; try again later" });
    // the public answer does not name the Secret; the log does
    expect(r.body).not.toContain('no-such-secret');
    expect(t.logs.join('')).toContain(`token: secret ${NS}/no-such-secret not found`);
    const { rows } = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM check_statuses WHERE check_id = $1', [id]);
    expect(rows[0].n).toBe(0);
  });
});

describe('no Secret value leaves the run', () => {
  it('not in the logs, the tables, or the API answers', async () => {
    expect(t.logs.join('')).toContain('kubernetes: watching custom resources');
    expect(t.logs.join('')).not.toMatch(LEAK);
    // the webhook requests are logged, their ?token= is not
    expect(t.logs.join('')).toContain('/api/canary/webhook/');
    expect(t.logs.join('')).toContain('?token=[redacted]');
    for (const table of ['check_statuses', 'checks', 'canaries', 'connections', 'job_history']) {
      const { rows } = await t.db.query(`SELECT count(*)::int AS n FROM ${table} t WHERE t::text ~ 'conn-(api|hook)-[0-9a-f]{18}'`);
      expect(rows[0].n, table).toBe(0);
    }
    const id = await checkId('via-connection', 'api');
    for (const url of [`/api/canary/api/check/${id}`, '/api/canary/api/summary', `/api/db/check_statuses?check_id=eq.${id}`]) {
      const res = await t.app.inject({ method: 'GET', url, headers });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).not.toMatch(LEAK);
    }
  });
});
