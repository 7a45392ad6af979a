import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../server/contracts/rbac.js';
import { recordResult } from '../../server/modules/health/queries.js';
import { refreshSummaryCache, summaryRows } from '../../server/modules/health/read-queries.js';
import { CheckSummary, SummaryResponse } from '../../server/contracts/health.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

// MODE=agent: no scheduler in this app, so only what a test does produces results.
let t: TestContext;
let admin: Record<string, string>;
let viewer: Record<string, string>;
let dir: string;

beforeAll(async () => {
  t = await createTestApp({ MODE: 'agent' });
  admin = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
  viewer = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['viewer'] })).id);
  dir = await mkdtemp(join(tmpdir(), 'health-api-'));
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

const inject = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, headers = admin, payload?: unknown) =>
  t.app.inject({ method, url, headers, payload: payload as never });

let seq = 0;
async function createCanary(spec: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const res = await inject('POST', '/api/canary', admin, { name: `canary-${++seq}`, spec, ...extra });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; checks: Array<{ id: string; type: string; name: string }>; spec: Record<string, unknown> };
}

const counts = async () => (await t.db.query(
  `SELECT (SELECT count(*) FROM canaries)::int AS canaries, (SELECT count(*) FROM checks)::int AS checks,
          (SELECT count(*) FROM checks WHERE deleted_at IS NULL)::int AS live`,
)).rows[0];

describe('canary create, update, delete', () => {
  it('creates a canary with one checks row per spec check, severity from the spec', async () => {
    const c = await createCanary({
      schedule: '@every 5m', severity: 'high',
      http: [{ name: 'web', url: 'http://127.0.0.1:1/' }], tcp: [{ name: 'port', endpoint: '127.0.0.1:1', severity: 'low' }],
    }, { labels: { team: 'sre' } });
    expect(c.checks.map((x) => `${x.type}/${x.name}`)).toEqual(['http/web', 'tcp/port']);
    const { rows } = await t.db.query('SELECT name, severity, namespace, spec FROM checks WHERE canary_id = $1 ORDER BY name', [c.id]);
    expect(rows).toEqual([
      { name: 'port', severity: 'low', namespace: 'default', spec: { name: 'port', endpoint: '127.0.0.1:1', severity: 'low' } },
      { name: 'web', severity: 'high', namespace: 'default', spec: { name: 'web', url: 'http://127.0.0.1:1/' } },
    ]);
    const read = await inject('GET', `/api/canary/${c.id}`, viewer);
    expect(read.json()).toMatchObject({ id: c.id, labels: { team: 'sre' }, source: 'UI' });
  });

  it('accepts the Canary resource shape', async () => {
    const res = await inject('POST', '/api/canary', admin, {
      apiVersion: 'canaries.flanksource.com/v1', kind: 'Canary', metadata: { name: 'from-yaml', namespace: 'ops' },
      spec: { interval: 60, tcp: [{ name: 'p', endpoint: '127.0.0.1:1' }] },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ name: 'from-yaml', namespace: 'ops' });
  });

  it('refuses an invalid spec with 400 and the reason, and changes nothing', async () => {
    const c = await createCanary({ schedule: '@every 1m', http: [{ name: 'web', url: 'http://127.0.0.1:1/' }] });
    const before = await counts();
    const bad = [
      [{ schedule: 'every minute', http: [{ name: 'web', url: 'http://127.0.0.1:1/' }] }, 'spec.schedule'],
      [{ schedule: '@every 1m', ldapp: [{ name: 'x' }] }, 'spec.ldapp'],
      [{ schedule: '@every 1m', http: [{ name: 'web', url: 'http://x', display: { expr: '1 +' } }] }, 'spec.http.0.display.expr'],
    ] as const;
    for (const [spec, path] of bad) {
      const created = await inject('POST', '/api/canary', admin, { name: 'refused', spec });
      expect(created.statusCode).toBe(400);
      expect(created.json().error).toContain('invalid canary spec');
      expect(Object.keys(created.json().details)).toContain(path);
      const updated = await inject('PUT', `/api/canary/${c.id}`, admin, { name: 'renamed', spec });
      expect(updated.statusCode).toBe(400);
    }
    expect(await counts()).toEqual(before);
    const { rows } = await t.db.query('SELECT name, spec FROM canaries WHERE id = $1', [c.id]);
    expect(rows[0].spec).toEqual({ schedule: '@every 1m', http: [{ name: 'web', url: 'http://127.0.0.1:1/' }] });
    expect(rows[0].name).toBe(`canary-${seq}`);
    expect((await inject('POST', '/api/canary', admin, { name: 'Bad Name!', spec: {} })).statusCode).toBe(400);
  });

  it('reconciles checks on update: removed ones are soft-deleted, re-added ones come back with their id', async () => {
    const c = await createCanary({ schedule: '@every 1m', tcp: [{ name: 'a', endpoint: '127.0.0.1:1' }, { name: 'b', endpoint: '127.0.0.1:2' }] });
    const b = c.checks.find((x) => x.name === 'b')!;
    const patched = await inject('PATCH', `/api/canary/${c.id}`, admin, { spec: { schedule: '@every 1m', tcp: [{ name: 'a', endpoint: '127.0.0.1:1' }] } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().checks.map((x: { name: string }) => x.name)).toEqual(['a']);
    expect((await t.db.query('SELECT deleted_at IS NOT NULL AS gone FROM checks WHERE id = $1', [b.id])).rows[0].gone).toBe(true);
    const back = await inject('PUT', `/api/canary/${c.id}`, admin, {
      name: `canary-${seq}`, spec: { schedule: '@every 2m', tcp: [{ name: 'a', endpoint: '127.0.0.1:1' }, { name: 'b', endpoint: '127.0.0.1:3' }] },
    });
    expect(back.json().checks.find((x: { name: string }) => x.name === 'b').id).toBe(b.id);
  });

  it('soft-deletes a canary and its checks', async () => {
    const c = await createCanary({ schedule: '@every 1m', tcp: [{ name: 'a', endpoint: '127.0.0.1:1' }] });
    expect((await inject('DELETE', `/api/canary/${c.id}`)).statusCode).toBe(200);
    const { rows } = await t.db.query(
      'SELECT (SELECT deleted_at IS NOT NULL FROM canaries WHERE id = $1) AS canary, bool_and(deleted_at IS NOT NULL) AS checks FROM checks WHERE canary_id = $1', [c.id],
    );
    expect(rows[0]).toEqual({ canary: true, checks: true });
    expect((await inject('GET', `/api/canary/${c.id}`)).statusCode).toBe(404);
    expect((await inject('DELETE', `/api/canary/${c.id}`)).statusCode).toBe(404);
  });

  it('needs write on canaries', async () => {
    const res = await inject('POST', '/api/canary', viewer, { name: 'nope', spec: { tcp: [{ name: 'a', endpoint: '127.0.0.1:1' }] } });
    expect(res.statusCode).toBe(403);
  });
});

describe('run now', () => {
  let checkId: string;
  let flag: string;
  beforeAll(async () => {
    flag = join(dir, 'healthy');
    await writeFile(flag, '');
    const c = await createCanary({ exec: [{ name: 'flag', script: `test -f ${flag}` }] });
    checkId = c.checks[0].id;
  });

  it.each<[Role, number]>([['admin', 200], ['editor', 200], ['responder', 200], ['commander', 200], ['viewer', 403]])(
    '%s gets %i', async (role, status) => {
      const h = await sessionHeaders(t.db, (await makePerson(t.db, { roles: [role] })).id);
      const res = await inject('POST', `/api/canary/run/check/${checkId}`, h);
      expect(res.statusCode).toBe(status);
      if (status === 200) expect(res.json()).toMatchObject({ id: checkId, name: 'flag', pass: true, status: 'healthy' });
    },
  );

  it('answers 404 for an unknown check', async () => {
    const res = await inject('POST', '/api/canary/run/check/00000000-0000-0000-0000-00000000abcd');
    expect(res.statusCode).toBe(404);
  });

  it('moves last_transition_time only when the status changes', async () => {
    const run = async () => (await inject('POST', `/api/canary/run/check/${checkId}`)).json();
    const state = async () => (await t.db.query('SELECT status, last_transition_time FROM checks WHERE id = $1', [checkId])).rows[0];
    await run();
    const first = await state();
    expect(first.status).toBe('healthy');
    expect(await run()).toMatchObject({ status: 'healthy', transitioned: false });
    expect((await state()).last_transition_time).toEqual(first.last_transition_time);
    await rm(flag);
    expect(await run()).toMatchObject({ pass: false, status: 'unhealthy', transitioned: true, error: 'exit code 1' });
    const second = await state();
    expect(second.last_transition_time.getTime()).toBeGreaterThan(first.last_transition_time.getTime());
    await run();
    expect((await state()).last_transition_time).toEqual(second.last_transition_time);
    const latest = (await t.db.query('SELECT status, last_error FROM checks_unlogged WHERE check_id = $1', [checkId])).rows[0];
    expect(latest).toEqual({ status: 'unhealthy', last_error: 'exit code 1' });
  });
});

describe('summary, history and graph', () => {
  let checkId: string;
  let otherId: string;
  const now = Date.now();
  beforeAll(async () => {
    const c = await createCanary({ tcp: [{ name: 'arranged', endpoint: '127.0.0.1:1' }, { name: 'other', endpoint: '127.0.0.1:2' }] }, { labels: { tier: 'gold' } });
    checkId = c.checks.find((x) => x.name === 'arranged')!.id;
    otherId = c.checks.find((x) => x.name === 'other')!.id;
    // 100 results in the last 40 minutes: 95 x 10 ms, 2 x 100 ms, 2 x 500 ms, 1 x 2000 ms; 4 of them failed.
    const durations = [...Array(95).fill(10), 100, 100, 500, 500, 2000];
    for (let i = 0; i < durations.length; i++) {
      await recordResult(t.db, {
        checkId, canaryId: c.id, time: new Date(now - 40 * 60_000 + i * 20_000), duration: durations[i], pass: i % 25 !== 0,
        invalid: false, message: `run ${i}`, error: i % 25 === 0 ? 'refused' : null, details: null, severity: null, nextRuntime: null,
      });
    }
    // three days ago: outside 1h, inside 7d
    for (let i = 0; i < 10; i++) {
      await recordResult(t.db, {
        checkId, canaryId: c.id, time: new Date(now - 3 * 86_400_000 + i * 1000), duration: 4000, pass: false,
        invalid: false, message: null, error: 'old', details: null, severity: null, nextRuntime: null,
      });
    }
  });

  it('counts uptime and computes p95/p97/p99 over the window from the rollups', async () => {
    const res = await inject('GET', `/api/canary/api/summary?checkID=${checkId}`, viewer);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ runnerName: 'local', window: '1h' });
    expect(body.checks_summary).toHaveLength(1);
    expect(body.checks_summary[0]).toMatchObject({
      id: checkId, name: 'arranged', type: 'tcp', labels: { tier: 'gold' }, status: 'unhealthy',
      uptime: { passed: 96, failed: 4 }, latency: { p95: 10, p97: 100, p99: 500 },
    });
    const week = (await inject('POST', '/api/canary/api/summary', viewer, { checkId, timeRange: '7d' })).json();
    expect(week.checks_summary[0]).toMatchObject({ uptime: { passed: 96, failed: 14 }, latency: { p99: 4000 } });
  });

  it('filters by labels and lists every live check otherwise', async () => {
    const gold = (await inject('GET', '/api/canary/api/summary?labels=tier=gold', viewer)).json();
    expect(gold.checks_summary.map((c: { id: string }) => c.id).sort()).toEqual([checkId, otherId].sort());
    const all = (await inject('GET', '/api/canary/api/summary', viewer)).json();
    expect(all.checks_summary.length).toBeGreaterThan(2);
    const other = all.checks_summary.find((c: { id: string }) => c.id === otherId);
    expect(other).toMatchObject({ uptime: { passed: 0, failed: 0 }, latency: { rolling1h: 0 } });
    expect(other.latency).not.toHaveProperty('p95'); // no runs: no percentile, left out as the reference does
    expect((await inject('GET', '/api/canary/api/summary?window=forever', viewer)).statusCode).toBe(400);
  });

  it('sends PostgreSQL\'s JSON text in the CheckSummary shape, leaving out optional fields that are null (omitempty)', async () => {
    const res = await inject('GET', '/api/canary/api/summary', viewer);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['duration', 'runnerName', 'window', 'checks_summary']);
    expect(SummaryResponse.safeParse(body).success).toBe(true);
    const rows = await summaryRows(t.db, { since: new Date(Date.now() - 3_600_000) });
    expect(body.checks_summary).toHaveLength(rows.length);
    const always = ['id', 'canary_id', 'canary_name', 'canary_namespace', 'agent_id', 'name', 'type', 'labels', 'uptime', 'latency',
      'namespace', 'status', 'created_at', 'updated_at'];
    const optional = ['description', 'icon', 'severity', 'owner', 'last_transition_time', 'last_runtime', 'next_runtime', 'deleted_at', 'silenced_at'];
    let omitted = 0;
    for (const c of body.checks_summary) {
      for (const k of always) expect(c).toHaveProperty(k);
      expect(Object.keys(c).every((k) => always.includes(k) || optional.includes(k))).toBe(true);
      const r = rows.find((x) => x.id === c.id)! as unknown as Record<string, unknown>;
      for (const k of optional) {
        // a null optional field is absent, a present one is never null
        expect(c[k] ?? null, k).toEqual(r[k]);
        if (k in c) expect(c[k]).not.toBeNull();
        else omitted++;
      }
      expect(c).toMatchObject({
        canary_name: r.canary_name, labels: r.labels, status: r.status, created_at: r.created_at, namespace: r.namespace,
        uptime: { passed: r.passed, failed: r.failed }, latency: { rolling1h: 0 },
      });
      expect(c.uptime.last_pass ?? null).toEqual(r.last_pass);
      expect(c.latency.p95 ?? null).toEqual(r.p95);
      expect(c.latency.avg ?? null).toEqual(r.avg);
      expect(Object.values(c.uptime).concat(Object.values(c.latency))).not.toContain(null);
    }
    expect(omitted).toBeGreaterThan(0);
    const posted = await inject('POST', '/api/canary/api/summary', viewer, { checkID: checkId });
    expect(posted.headers['content-type']).toMatch(/^application\/json/);
    expect(posted.json().checks_summary.map((c: { id: string }) => c.id)).toEqual([checkId]);
    expect((await inject('GET', '/api/canary/api/summary?labels=tier=nothing', viewer)).json().checks_summary).toEqual([]);
  });

  it('serves the same numbers from the precomputed window stats the scheduler refreshes', async () => {
    await t.db.query(`INSERT INTO check_summary_cache_state VALUES (3600000, now() - interval '1 hour')
                      ON CONFLICT (window_ms) DO UPDATE SET refreshed_at = EXCLUDED.refreshed_at`);
    await t.db.query('DELETE FROM check_summary_cache');
    const stale = (await inject('GET', '/api/canary/api/summary?labels=tier=gold', viewer)).json();
    expect(stale.checks_summary.find((c: { id: string }) => c.id === checkId).uptime).toMatchObject({ passed: 96, failed: 4 });
    await refreshSummaryCache(t.db, 3_600_000);
    const cached = (await inject('GET', '/api/canary/api/summary?labels=tier=gold&sortBy=-name', viewer)).json();
    expect(cached.checks_summary.map((c: { name: string }) => c.name)).toEqual(['other', 'arranged']);
    expect(cached.checks_summary[1]).toMatchObject({ uptime: { passed: 96, failed: 4 }, latency: { p95: 10, p97: 100, p99: 500 } });
    // served from the cache, not recomputed: a value only the cache has shows up
    const changed = await t.db.query('UPDATE check_summary_cache SET passed = 7 WHERE check_id = $1', [checkId]);
    expect(changed.rowCount).toBe(1);
    const again = (await inject('GET', '/api/canary/api/summary?labels=tier=gold', viewer)).json();
    expect(again.checks_summary.find((c: { id: string }) => c.id === checkId).uptime.passed).toBe(7);
 
    // a check that first ran after the refresh (no precomputed row) gets its numbers computed, not "no runs"
    await t.db.query('DELETE FROM check_summary_cache WHERE check_id = $1', [checkId]);
    const fresh = (await inject('GET', '/api/canary/api/summary?labels=tier=gold', viewer)).json();
    expect(fresh.checks_summary.find((c: { id: string }) => c.id === checkId)).toMatchObject({
      uptime: { passed: 96, failed: 4 }, latency: { p95: 10, p97: 100, p99: 500 },
    });
  });

  it('pages history newest first with status and duration filters', async () => {
    const page1 = (await inject('GET', `/api/canary/api/history?check=${checkId}&start=1h&pageSize=30`, viewer)).json();
    expect(page1.totalEntries).toBe(100);
    expect(page1.data).toHaveLength(30);
    expect(page1.data[0]).toMatchObject({ message: 'run 99', duration: 2000, status: true });
    const page4 = (await inject('GET', `/api/canary/api/history?check=${checkId}&start=1h&pageSize=30&page=4`, viewer)).json();
    expect(page4.data).toHaveLength(10);
    const failed = (await inject('GET', `/api/canary/api/history?check=${checkId}&start=1h&status=0`, viewer)).json();
    expect(failed.totalEntries).toBe(4);
    expect(failed.data.every((e: { status: boolean; error: string }) => !e.status && e.error === 'refused')).toBe(true);
    const slow = (await inject('GET', `/api/canary/api/history?check=${checkId}&start=7d&duration=500`, viewer)).json();
    expect(slow.totalEntries).toBe(13);
    expect((await inject('GET', `/api/canary/api/history?check=not-a-uuid`, viewer)).statusCode).toBe(400);
  });

  it('pages history over an absolute range (start and end as instants), as the drawer asks for a From/To', async () => {
    const iso = (ms: number) => new Date(ms).toISOString();
    // results i = 0..99 lie at now - 40 min + i * 20 s: from -40 min to -30 min holds i = 0..30
    const q = (start: string, end: string) => `/api/canary/api/history?check=${checkId}&start=${encodeURIComponent(start)}&end=${encodeURIComponent(end)}`;
    const tenMinutes = (await inject('GET', q(iso(now - 40 * 60_000), iso(now - 30 * 60_000)), viewer)).json();
    expect(tenMinutes.totalEntries).toBe(31);
    expect(tenMinutes.data[0]).toMatchObject({ message: 'run 30' });
    const days = (await inject('GET', q(iso(now - 4 * 86_400_000), iso(now - 2 * 86_400_000)), viewer)).json();
    expect(days.totalEntries).toBe(10);
    expect(days.data.every((e: { error: string }) => e.error === 'old')).toBe(true);
    const backwards = await inject('GET', q(iso(now - 1000), iso(now - 60_000)), viewer);
    expect(backwards.statusCode).toBe(400);
    expect((await inject('GET', `/api/canary/api/history?check=${checkId}&start=yesterday`, viewer)).statusCode).toBe(400);
  });

  it('buckets the graph by range, with exact percentiles over it', async () => {
    const hour = (await inject('GET', `/api/canary/api/graph?check=${checkId}&since=1h`, viewer)).json();
    expect(hour.bucketSeconds).toBe(60);
    expect(hour.uptime).toEqual({ passed: 96, failed: 4 });
    expect(hour.latency).toMatchObject({ p95: 10, p97: 100, p99: 500 });
    expect(hour.status.reduce((n: number, b: { passed: number; failed: number }) => n + b.passed + b.failed, 0)).toBe(100);
    expect(hour.status.length).toBeGreaterThanOrEqual(34);
    expect(new Date(hour.status[0].time).getTime() % 60_000).toBe(0);
    const week = (await inject('GET', `/api/canary/api/graph?check=${checkId}&since=7d`, viewer)).json();
    expect(week.bucketSeconds).toBe(3600);
    expect(week.uptime).toEqual({ passed: 96, failed: 14 });
    expect((await inject('GET', `/api/canary/api/graph?check=${checkId}&since=1d`, viewer)).json().bucketSeconds).toBe(900);
    expect((await inject('GET', `/api/canary/api/graph?check=${checkId}&since=30d`, viewer)).json().bucketSeconds).toBe(14400);
  });

  it('returns a check with its spec, canary and last result', async () => {
    const res = await inject('GET', `/api/canary/api/check/${checkId}`, viewer);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: checkId, spec: { name: 'arranged', endpoint: '127.0.0.1:1' }, canary: { name: expect.stringMatching(/^canary-/) },
      last_status: { duration: 2000, message: 'run 99' },
    });
    expect((await inject('GET', '/api/canary/api/check/00000000-0000-0000-0000-00000000abcd', viewer)).statusCode).toBe(404);
  });

  it('exposes the health relations read-only through /api/db', async () => {
    const summary = await inject('GET', `/api/db/check_summary?id=eq.${checkId}&select=id,uptime,latency,canary_name`, viewer);
    expect(summary.statusCode).toBe(200);
    expect(summary.json()[0]).toMatchObject({ id: checkId, uptime: { passed: 96, failed: 4 }, latency: { p95: 10, p99: 500 } });
    const canaries = await inject('GET', '/api/db/canaries_with_status?select=name,checks_count&limit=1', viewer);
    expect(canaries.statusCode).toBe(200);
    const names = await inject('GET', `/api/db/check_names?id=eq.${checkId}`, viewer);
    expect(names.json()).toEqual([{ id: checkId, canary_id: expect.any(String), type: 'tcp', name: 'arranged', status: 'unhealthy' }]);
    expect((await inject('GET', '/api/db/checks_labels_keys', viewer)).statusCode).toBe(200);
    const write = await inject('PATCH', `/api/db/checks?id=eq.${checkId}`, admin, { name: 'renamed' });
    expect(write.statusCode).toBeGreaterThanOrEqual(400);
    const agents = await inject('GET', '/api/db/agents_summary?id=eq.00000000-0000-0000-0000-000000000000&select=checks_count', admin);
    expect(agents.json()[0].checks_count).toBeGreaterThan(0);
  });
});
