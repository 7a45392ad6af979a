import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HealthScheduler } from '../../server/modules/health/scheduler.js';
import { bearerHeaders, createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

// MODE=agent: no scheduler in the app, so results come only from the pushes under test.
let t: TestContext;
let admin: Record<string, string>;
let viewer: Record<string, string>;
let editorToken: Record<string, string>;
let scheduler: HealthScheduler | undefined;
const quiet = { info() {}, warn() {}, error() {}, debug() {} };

beforeAll(async () => {
  t = await createTestApp({ MODE: 'agent' });
  admin = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
  viewer = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['viewer'] })).id);
  editorToken = await bearerHeaders(t.db, (await makePerson(t.db, { roles: ['editor'] })).id);
});
afterEach(async () => {
  await scheduler?.stop();
  scheduler = undefined;
});
afterAll(async () => {
  await t.close();
});

let seq = 0;
async function webhookCanary(check: Record<string, unknown>) {
  const name = `hooks-${++seq}`;
  const res = await t.app.inject({
    method: 'POST', url: '/api/canary', headers: admin,
    payload: { name, spec: { schedule: '@every 1s', webhook: [{ name: `${name}-hook`, ...check }] } },
  });
  expect(res.statusCode, res.body).toBe(201);
  const c = res.json() as { id: string; checks: Array<{ id: string; name: string }> };
  return { canaryId: c.id, checkId: c.checks[0].id, checkName: c.checks[0].name };
}

const history = async (checkId: string) => {
  const res = await t.app.inject({ method: 'GET', url: `/api/canary/api/history?check=${checkId}&start=1h`, headers: viewer });
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json() as { totalEntries: number; data: Array<{ status: boolean; message: string | null; error: string | null }> };
  return { total: body.totalEntries, checks: body.data };
};

const summaryOf = async (checkId: string) => {
  const res = await t.app.inject({ method: 'GET', url: `/api/canary/api/summary?checkID=${checkId}`, headers: viewer });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { checks_summary: Array<{ id: string; status: string; uptime: { passed: number; failed: number } }> })
    .checks_summary.find((c) => c.id === checkId);
};

describe('POST /api/canary/webhook/:id', () => {
  it('refuses a missing or wrong token with 401 and stores nothing', async () => {
    const { checkId } = await webhookCanary({ token: { value: 's3cret' } });
    for (const url of [`/api/canary/webhook/${checkId}`, `/api/canary/webhook/${checkId}?token=nope`]) {
      const res = await t.app.inject({ method: 'POST', url, payload: { ok: true } });
      expect(res.statusCode, res.body).toBe(401);
      expect(res.json()).toMatchObject({ error: expect.any(String) });
    }
    const wrongHeader = await t.app.inject({
      method: 'POST', url: `/api/canary/webhook/${checkId}`, headers: { 'webhook-token': 'nope' }, payload: {},
    });
    expect(wrongHeader.statusCode).toBe(401);
    expect((await history(checkId)).total).toBe(0);
  });

  it('a token from a Secret with no cluster to read it from: 503 with a clear message, nothing stored', async () => {
    // (tests/kube/connections.test.ts reads one from a real Secret: right token 200, wrong 401, missing Secret 503)
    const { checkId } = await webhookCanary({ token: { valueFrom: { secretKeyRef: { name: 'hook', key: 'token' } } } });
    const res = await t.app.inject({ method: 'POST', url: `/api/canary/webhook/${checkId}?token=anything`, payload: {} });
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json()).toMatchObject({ message: "the webhook check's token could not be read; try again later" });
    expect((await history(checkId)).total).toBe(0);
  });

  it('stores a JSON push (token in the query) through test/display; visible in history and the summary', async () => {
    const { checkId } = await webhookCanary({
      token: 's3cret', test: { expr: 'json.healthy == true' }, display: { expr: '"version " + json.version' },
    });
    const ok = await t.app.inject({
      method: 'POST', url: `/api/canary/webhook/${checkId}?token=s3cret`, payload: { healthy: true, version: '1.2' },
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ id: checkId, status: 'healthy', pass: true, message: 'version 1.2' });

    const bad = await t.app.inject({
      method: 'POST', url: `/api/canary/webhook/${checkId}`, headers: { 'Webhook-Token': 's3cret' },
      payload: { healthy: false, version: '1.3' },
    });
    expect(bad.json()).toMatchObject({ status: 'unhealthy', pass: false, error: 'test failed: json.healthy == true' });

    const h = await history(checkId);
    expect(h.total).toBe(2);
    expect(h.checks.map((c) => c.status).sort()).toEqual([false, true]);
    const s = await summaryOf(checkId);
    expect(s).toMatchObject({ status: 'unhealthy', uptime: { passed: 1, failed: 1 } });
    // the token header is never stored
    const { rows } = await t.db.query(`SELECT details FROM check_statuses WHERE check_id = $1 AND status = false`, [checkId]);
    expect(rows[0].details.headers['webhook-token']).toBe('***');
  });

  it('accepts a text body and finds the check by name when it has no token', async () => {
    const { checkId, checkName } = await webhookCanary({ test: { expr: 'content.contains("up")' } });
    const res = await t.app.inject({
      method: 'POST', url: `/api/canary/webhook/${checkName}`, headers: { 'content-type': 'application/x-custom' }, payload: 'all up',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: checkId, pass: true });
    const plain = await t.app.inject({
      method: 'POST', url: `/api/canary/webhook/${checkId}`, headers: { 'content-type': 'text/plain' }, payload: 'down',
    });
    expect(plain.json()).toMatchObject({ pass: false });
  });

  it('404s an unknown or non-webhook check and refuses a body over 1 MiB', async () => {
    const missing = await t.app.inject({ method: 'POST', url: `/api/canary/webhook/${randomUUID()}`, payload: {} });
    expect(missing.statusCode).toBe(404);
    const { checkId } = await webhookCanary({});
    const big = await t.app.inject({
      method: 'POST', url: `/api/canary/webhook/${checkId}`, headers: { 'content-type': 'text/plain' },
      payload: 'x'.repeat(1024 * 1024 + 10),
    });
    expect(big.statusCode).toBe(413);
    expect((await history(checkId)).total).toBe(0);
  });

  it('the scheduler never runs webhook checks', async () => {
    const { canaryId, checkId } = await webhookCanary({});
    scheduler = new HealthScheduler(t.db, { log: quiet, tickMs: 50, reloadMs: 200, retentionEveryMs: 0, summaryCache: false });
    await scheduler.start();
    await new Promise((r) => setTimeout(r, 1_500));
    expect(scheduler.nextRunOf(canaryId)).toBeNull();
    expect((await history(checkId)).total).toBe(0);
  });
});

describe('POST /api/canary/api/push', () => {
  it('creates the canary and check by name + namespace, stores the status, 201', async () => {
    const res = await t.app.inject({
      method: 'POST', url: '/api/canary/api/push', headers: editorToken,
      payload: { name: 'backup-job', namespace: 'ops', type: 'exec', status: true, duration: 1234, message: 'done', labels: { app: 'backup' } },
    });
    expect(res.statusCode, res.body).toBe(201);
    const out = res.json() as { id: string; canary_id: string; status: string };
    expect(out.status).toBe('healthy');
    const { rows } = await t.db.query(
      `SELECT ca.name, ca.namespace, ca.source, ca.is_pushed, ch.type, ch.labels FROM checks ch JOIN canaries ca ON ca.id = ch.canary_id WHERE ch.id = $1`,
      [out.id],
    );
    expect(rows[0]).toEqual({ name: 'backup-job', namespace: 'ops', source: 'push', is_pushed: true, type: 'exec', labels: { app: 'backup' } });

    const again = await t.app.inject({
      method: 'POST', url: '/api/canary/api/push', headers: editorToken,
      payload: { name: 'backup-job', namespace: 'ops', type: 'exec', status: false, error: 'disk full', time: new Date(Date.now() - 1000).toISOString() },
    });
    expect(again.statusCode).toBe(201);
    expect(again.json()).toMatchObject({ id: out.id, canary_id: out.canary_id, status: 'unhealthy', transitioned: true });
    expect((await history(out.id)).total).toBe(2);
    expect(await summaryOf(out.id)).toMatchObject({ uptime: { passed: 1, failed: 1 } });
    // by id
    const byId = await t.app.inject({ method: 'POST', url: '/api/canary/api/push', headers: editorToken, payload: { id: out.id, status: true } });
    expect(byId.statusCode).toBe(201);
    expect((await history(out.id)).total).toBe(3);
  });

  it('needs write on canaries, a status and a name or id', async () => {
    const asViewer = await t.app.inject({ method: 'POST', url: '/api/canary/api/push', headers: viewer, payload: { name: 'x', status: true } });
    expect(asViewer.statusCode).toBe(403);
    const anon = await t.app.inject({ method: 'POST', url: '/api/canary/api/push', payload: { name: 'x', status: true } });
    expect(anon.statusCode).toBe(401);
    for (const payload of [{ status: true }, { name: 'x' }, { name: 'x', status: 'yes' }, { id: 'not-a-uuid', status: true }]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/canary/api/push', headers: editorToken, payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
    }
    const unknown = await t.app.inject({
      method: 'POST', url: '/api/canary/api/push', headers: editorToken, payload: { id: '6f1c1e0a-3b7e-4c1a-9d3e-2b8f4a1c0bee', status: true },
    });
    expect(unknown.statusCode).toBe(404);
  });
});
