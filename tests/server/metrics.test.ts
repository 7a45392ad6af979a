import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { createTestApp, type TestContext } from './helpers.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** The value of one sample line, e.g. `http_requests_total{method="GET",route="/healthz",status_code="200"}`. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inside = line.slice(name.length + 1, line.indexOf('}')).split(',');
    if (want.every((w) => inside.includes(w))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('GET /metrics', () => {
  it('serves Prometheus text without signing in', async () => {
    const res = await t.app.inject('/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.body).toMatch(/^# HELP http_requests_total /m);
    expect(res.body).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(res.body).toMatch(/^nodejs_heap_size_used_bytes \d/m);
  });

  it('counts requests and observes latency per route pattern and status', async () => {
    for (let i = 0; i < 3; i++) await t.app.inject('/healthz');
    await t.app.inject('/api/about');
    const text = (await t.app.inject('/metrics')).body;
    expect(sample(text, 'http_requests_total', { method: 'GET', route: '/healthz', status_code: '200' })).toBe(3);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: '/api/about', status_code: '200' })).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count', { route: '/healthz', status_code: '200' })).toBe(3);
    expect(sample(text, 'http_request_duration_seconds_bucket', { route: '/healthz', le: '+Inf' })).toBe(3);
  });

  it('labels unmatched URLs as one "unmatched" route, never the raw path', async () => {
    await t.app.inject('/api/no-such-thing/8f14e45f');
    await t.app.inject('/wp-login.php?x=1');
    const text = (await t.app.inject('/metrics')).body;
    expect(sample(text, 'http_requests_total', { route: 'unmatched', status_code: '404' })).toBeGreaterThanOrEqual(2);
    expect(text).not.toContain('8f14e45f');
    expect(text).not.toContain('wp-login');
  });

  it('reports the database pool', async () => {
    await Promise.all([1, 2, 3].map(() => t.app.db.query('SELECT pg_sleep(0.01)')));
    const text = (await t.app.inject('/metrics')).body;
    expect(Number(/^db_pool_connections (\d+)/m.exec(text)?.[1])).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^db_pool_idle_connections \d+/m);
    expect(text).toMatch(/^db_pool_waiting_clients 0/m);
  });

  it('keeps one registry per app: a parameterised route is labelled by its pattern, counts do not leak', async () => {
    const other = await buildApp(t.config, { logger: false });
    other.get('/things/:id', async (req) => ({ id: (req.params as { id: string }).id }));
    await other.ready();
    try {
      await other.inject('/things/first-id');
      await other.inject('/things/second-id');
      const text = (await other.inject('/metrics')).body;
      expect(sample(text, 'http_requests_total', { route: '/things/:id', status_code: '200' })).toBe(2);
      expect(text).not.toContain('first-id');
      expect(sample(text, 'http_requests_total', { route: '/healthz' })).toBeUndefined();
    } finally {
      await other.close();
    }
  });
});
