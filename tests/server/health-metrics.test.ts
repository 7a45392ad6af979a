import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/poll.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';
import { sample } from '../support/prom-text.js';

// A check's custom metrics[] through the real app: canary API, Run Now, webhook push, the scheduler, GET /metrics.
// The target is an HTTP server this file starts on 127.0.0.1.

let target: http.Server;
let url: string;

beforeAll(async () => {
  target = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ queue: 7, version: '2.4.1' }));
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/status`;
});
afterAll(() => new Promise<void>((r) => target.close(() => r())));

describe('check metrics[] in console mode (Run Now, webhook, edits, delete)', () => {
  let t: TestContext;
  let admin: Record<string, string>;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
  });
  afterAll(() => t.close());

  const metricsText = async () => (await t.app.inject('/metrics')).body;
  // no schedule: only Run Now produces results here
  const spec = (metrics: unknown[]) => ({ http: [{ name: 'status-page', url, metrics }] });
  const latency = [{ name: 'e2e_latency_ms', type: 'gauge', value: 'duration', labels: [{ name: 'target', value: 'local' }] }];

  it('exports a gauge after Run Now, with its labels and the run\'s duration', async () => {
    const created = await t.app.inject({
      method: 'POST', url: '/api/canary', headers: admin,
      payload: {
        name: 'metrics-canary', spec: spec([
          ...latency,
          { name: 'e2e_queue_depth', type: 'gauge', value: 'json.queue', labels: [{ name: 'version', valueExpr: 'json.version' }, { name: 'check', valueExpr: 'check.name' }] },
          { name: 'e2e_ok_total', type: 'counter', value: 'code == 200' },
        ]),
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { id: canaryId, checks } = created.json() as { id: string; checks: Array<{ id: string }> };
    expect(await metricsText()).not.toContain('e2e_latency_ms');

    const run = await t.app.inject({ method: 'POST', url: `/api/canary/run/check/${checks[0].id}`, headers: admin });
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json()).toMatchObject({ pass: true });
    let text = await metricsText();
    expect(text).toMatch(/^# TYPE e2e_latency_ms gauge$/m);
    expect(sample(text, 'e2e_latency_ms', { target: 'local' })).toBe(run.json().duration);
    expect(sample(text, 'e2e_queue_depth', { version: '2.4.1', check: 'status-page' })).toBe(7);
    expect(sample(text, 'e2e_ok_total')).toBe(1);

    await t.app.inject({ method: 'POST', url: `/api/canary/run/check/${checks[0].id}`, headers: admin });
    text = await metricsText();
    expect(sample(text, 'e2e_ok_total')).toBe(2);

    // the spec changes: the old series go without waiting for a run, the new ones come with the next run
    const edited = await t.app.inject({
      method: 'PUT', url: `/api/canary/${canaryId}`, headers: admin,
      payload: { name: 'metrics-canary', spec: spec([{ name: 'e2e_code', type: 'gauge', value: 'code', labels: [{ name: 'target', value: 'local' }] }]) },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    text = await until(async () => {
      const body = await metricsText();
      return !body.includes('e2e_latency_ms') && body;
    }, 'the old metrics to be removed after the edit', 20_000);
    expect(text).not.toContain('e2e_queue_depth');
    expect(text).not.toContain('e2e_ok_total');
    await t.app.inject({ method: 'POST', url: `/api/canary/run/check/${checks[0].id}`, headers: admin });
    expect(sample(await metricsText(), 'e2e_code', { target: 'local' })).toBe(200);

    // deleted: gone, and the name is unregistered
    const del = await t.app.inject({ method: 'DELETE', url: `/api/canary/${canaryId}`, headers: admin });
    expect(del.statusCode).toBe(200);
    await until(async () => !(await metricsText()).includes('e2e_code'), 'the metrics of the deleted canary to be removed', 20_000);
  });

  it('evaluates metrics over a pushed webhook result', async () => {
    const created = await t.app.inject({
      method: 'POST', url: '/api/canary', headers: admin,
      payload: {
        name: 'metrics-webhook', spec: {
          webhook: [{
            name: 'backup-hook', token: { value: 'tok' },
            metrics: [{ name: 'e2e_backup_bytes', type: 'gauge', value: 'json.bytes', labels: [{ name: 'job', valueExpr: 'json.job' }] }],
          }],
        },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const checkId = (created.json() as { checks: Array<{ id: string }> }).checks[0].id;
    const pushed = await t.app.inject({ method: 'POST', url: `/api/canary/webhook/${checkId}?token=tok`, payload: { bytes: 123456, job: 'nightly' } });
    expect(pushed.statusCode, pushed.body).toBe(200);
    expect(sample(await metricsText(), 'e2e_backup_bytes', { job: 'nightly' })).toBe(123456);
  });

  it('refuses a bad metric name or bad CEL with 400 naming the path, and stores nothing', async () => {
    const count = async () => (await t.db.query('SELECT count(*)::int AS n FROM canaries')).rows[0].n as number;
    const before = await count();
    const cases: Array<[unknown[], string]> = [
      [[{ name: 'e2e-latency', type: 'gauge', value: 'duration' }], 'spec.http.0.metrics.0.name'],
      [[{ name: 'http_requests_total', type: 'counter', value: '1' }], 'spec.http.0.metrics.0.name'],
      [[{ name: 'e2e_latency_ms', type: 'gauge', value: 'duration >' }], 'spec.http.0.metrics.0.value'],
      [[{ name: 'e2e_latency_ms', type: 'gauge', value: 'duration', labels: [{ name: 'x', valueExpr: 'code ==' }] }], 'spec.http.0.metrics.0.labels.0.valueExpr'],
    ];
    for (const [metrics, path] of cases) {
      const res = await t.app.inject({ method: 'POST', url: '/api/canary', headers: admin, payload: { name: 'refused', spec: spec(metrics) } });
      expect(res.statusCode, path).toBe(400);
      expect(Object.keys(res.json().details), path).toContain(path);
      expect(res.json().error).toContain(path);
    }
    expect(await count()).toBe(before);
  });
});

describe('check metrics[] in check-runner mode (the scheduler)', () => {
  let t: TestContext;
  let admin: Record<string, string>;
  beforeAll(async () => {
    t = await createTestApp({ MODE: 'check-runner' });
    admin = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
  });
  afterAll(() => t.close());

  it('exports the metrics of scheduled runs', async () => {
    const created = await t.app.inject({
      method: 'POST', url: '/api/canary', headers: admin,
      payload: {
        name: 'scheduled-metrics', spec: {
          schedule: '@every 1s',
          http: [{ name: 'status-page', url, metrics: [{ name: 'e2e_scheduled_queue', type: 'gauge', value: 'json.queue', labels: [{ name: 'target', value: 'local' }] }] }],
        },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const text = await until(async () => {
      const body = (await t.app.inject('/metrics')).body;
      return sample(body, 'e2e_scheduled_queue', { target: 'local' }) !== undefined && body;
    }, 'a scheduled run to export the metric', 20_000);
    expect(sample(text, 'e2e_scheduled_queue', { target: 'local' })).toBe(7);
  });
});
