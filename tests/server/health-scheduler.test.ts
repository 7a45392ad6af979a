import net, { type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HealthScheduler } from '../../server/modules/health/scheduler.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

// MODE=agent keeps the app's own scheduler off; each test runs one of its own with short timings.
let t: TestContext;
let admin: Record<string, string>;
let hangPort: number;
let openPort: number;
const servers: net.Server[] = [];
const sockets = new Set<net.Socket>();
let scheduler: HealthScheduler | undefined;

const quiet = { info() {}, warn() {}, error() {}, debug() {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits for a condition (a generous deadline: what is asserted is the outcome, never how long it took). */
async function until(what: string, ok: () => Promise<boolean> | boolean, deadlineMs = 15_000) {
  const end = Date.now() + deadlineMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`gave up waiting: ${what}`);
    await sleep(50);
  }
}

beforeAll(async () => {
  t = await createTestApp({ MODE: 'agent' });
  admin = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
  const listen = (s: net.Server) => new Promise<number>((r) => s.listen(0, '127.0.0.1', () => r((s.address() as AddressInfo).port)));
  const hang = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
  });
  const open = net.createServer((s) => s.end());
  servers.push(hang, open);
  hangPort = await listen(hang);
  openPort = await listen(open);
});
afterEach(async () => {
  await scheduler?.stop();
  scheduler = undefined;
  await t.db.query('UPDATE canaries SET deleted_at = now() WHERE deleted_at IS NULL');
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await t.close();
});

async function createCanary(name: string, spec: Record<string, unknown>) {
  const res = await t.app.inject({ method: 'POST', url: '/api/canary', headers: admin, payload: { name, spec } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; checks: Array<{ id: string }> };
}

const runsOf = async (canaryId: string) => (await t.db.query(
  `SELECT time_start, time_end, status FROM job_history WHERE resource_id = $1 AND name = 'Canary' ORDER BY time_start`, [canaryId],
)).rows;

const resultsOf = async (checkId: string) => (await t.db.query(
  'SELECT time, status, error, duration FROM check_statuses WHERE check_id = $1 ORDER BY time', [checkId],
)).rows;

function start(opts: Partial<ConstructorParameters<typeof HealthScheduler>[1]> = {}) {
  scheduler = new HealthScheduler(t.db, { log: quiet, tickMs: 50, reloadMs: 200, retentionEveryMs: 0, ...opts });
  return scheduler.start().then(() => scheduler!);
}

describe('health scheduler', () => {
  it('runs canaries on @every, records results, latest state and a job history row per run', async () => {
    const c = await createCanary('tcp-every', { schedule: '@every 1s', tcp: [{ name: 'open', endpoint: `127.0.0.1:${openPort}` }] });
    const s = await start();
    await sleep(2_600);
    const results = await resultsOf(c.checks[0].id);
    // one run on load, then two or three on the schedule
    expect(results.length).toBeGreaterThanOrEqual(3);
    expect(results.length).toBeLessThanOrEqual(4);
    expect(results.every((r) => r.status === true)).toBe(true);
    expect((await runsOf(c.id)).every((r) => r.status === 'SUCCESS')).toBe(true);
    const latest = await t.db.query('SELECT status, next_runtime FROM checks_unlogged WHERE check_id = $1', [c.checks[0].id]);
    expect(latest.rows[0].status).toBe('healthy');
    expect(latest.rows[0].next_runtime.getTime()).toBeGreaterThan(Date.now() - 1_000);
    expect(s.stats().lagP99).toBeLessThan(500);
  });

  it('never runs one check twice at once: an occurrence due while it runs is skipped', async () => {
    // a check's timeout is capped at its interval, so on a real clock it has nearly always ended by its next
    // occurrence; the scheduler's clock is moved on past that occurrence while the first run is still going
    const c = await createCanary('slow-exec', { schedule: '@every 10s', exec: [{ name: 'sleepy', script: 'sleep 1.5', timeout: 9 }] });
    let offset = 0;
    const s = await start({ now: () => Date.now() + offset });
    await until('the first run starts', () => s.stats().runs >= 1);
    offset += 25_000;
    await until('an occurrence is skipped', () => s.stats().skipped > 0);
    expect(s.stats().runs).toBe(1);
    await until('the first run is recorded', async () => (await runsOf(c.id)).length >= 1);
    offset += 10_000;
    await until('the schedule resumes after it', async () => (await runsOf(c.id)).length >= 2);
    await s.stop();
    const runs = await runsOf(c.id);
    for (let i = 1; i < runs.length; i++) expect(runs[i].time_start.getTime()).toBeGreaterThanOrEqual(runs[i - 1].time_end.getTime());
  });

  it('enforces the timeout of a hanging target without delaying other canaries', async () => {
    const hung = await createCanary('hung', {
      schedule: '@every 1s', http: [{ name: 'hangs', url: `http://127.0.0.1:${hangPort}/`, timeout: '1500ms' }],
    });
    const fast = await createCanary('fast', { schedule: '@every 1s', tcp: [{ name: 'quick', endpoint: `127.0.0.1:${openPort}` }] });
    // one main-lane slot: the hung check is moved to the slow lane after 100 ms, so the fast one still gets through
    const s = await start({ concurrency: 1, slowAfterMs: 100 });
    await sleep(3_600);
    await s.stop();
    const quick = await resultsOf(fast.checks[0].id);
    expect(quick.length).toBeGreaterThanOrEqual(3);
    const gaps = quick.slice(1).map((r, i) => r.time.getTime() - quick[i].time.getTime());
    // no occurrence lost to the hung canary: the longest gap is the first run on load followed by a regular occurrence
    // within half an interval, which is left out (so up to 1.5 intervals), never two intervals
    expect(Math.max(...gaps)).toBeLessThan(2_000);
    const hangs = await resultsOf(hung.checks[0].id);
    expect(hangs.length).toBeGreaterThanOrEqual(1);
    expect(hangs[0]).toMatchObject({ status: false, error: 'timed out after 1000 ms' });
  });

  it('picks up created, edited and deleted canaries within its reload period', async () => {
    const s = await start();
    const c = await createCanary('late', { schedule: '@every 1s', tcp: [{ name: 'p', endpoint: `127.0.0.1:${openPort}` }] });
    await sleep(1_600);
    expect((await resultsOf(c.checks[0].id)).length).toBeGreaterThanOrEqual(1);
    expect(s.nextRunOf(c.id)).not.toBeNull();
    const edit = await t.app.inject({
      method: 'PATCH', url: `/api/canary/${c.id}`, headers: admin, payload: { spec: { schedule: '@every 1h', tcp: [{ name: 'p', endpoint: `127.0.0.1:${openPort}` }] } },
    });
    expect(edit.statusCode).toBe(200);
    await sleep(500);
    expect(s.nextRunOf(c.id)! - Date.now()).toBeGreaterThan(2_000);
    await t.app.inject({ method: 'DELETE', url: `/api/canary/${c.id}`, headers: admin });
    await sleep(500);
    expect(s.nextRunOf(c.id)).toBeNull();
  });

  it('keeps running when a stored canary has a schedule that no longer parses, and says why', async () => {
    const good = await createCanary('good', { schedule: '@every 1s', tcp: [{ name: 'p', endpoint: `127.0.0.1:${openPort}` }] });
    const bad = await createCanary('bad', { schedule: '@every 1s', tcp: [{ name: 'p', endpoint: `127.0.0.1:${openPort}` }] });
    // written around the API, as an older version or a direct edit might have
    await t.db.query(`UPDATE canaries SET spec = spec || '{"schedule": "@every banana"}' WHERE id = $1`, [bad.id]);
    const s = await start();
    await sleep(1_600);
    expect(s.nextRunOf(bad.id)).toBeNull();
    expect((await resultsOf(good.checks[0].id)).length).toBeGreaterThanOrEqual(1);
    const runs = await t.db.query(`SELECT status, details FROM job_history WHERE resource_id = $1`, [bad.id]);
    expect(runs.rows).toEqual([{ status: 'FAILED', details: { error: expect.stringContaining('invalid duration "banana"') } }]);
  });

  it('runs a canary once as soon as it is loaded, and again after a change, without waiting for its schedule', async () => {
    const c = await createCanary('every-5m', { schedule: '@every 5m', tcp: [{ name: 'p', endpoint: `127.0.0.1:${openPort}` }] });
    const s = await start();
    await until('a first run', async () => (await runsOf(c.id)).length > 0);
    expect(await resultsOf(c.checks[0].id)).toMatchObject([{ status: true }]);
    expect((await runsOf(c.id)).map((r) => r.status)).toEqual(['SUCCESS']);
    // then on its schedule: the next run is a regular one, no sooner than a minute after the first run (an
    // occurrence closer than that is left out) and at most one interval after that
    const next = s.nextRunOf(c.id)!;
    const firstAt = (await resultsOf(c.checks[0].id))[0].time.getTime();
    expect(next).toBeGreaterThanOrEqual(firstAt + 60_000 - 1_000);
    expect(next).toBeLessThanOrEqual(Date.now() + 6 * 60_000);
    // an edit (a CR update goes through the same writer) runs it again
    const edit = await t.app.inject({
      method: 'PATCH', url: `/api/canary/${c.id}`, headers: admin,
      payload: { spec: { schedule: '@every 5m', tcp: [{ name: 'p', endpoint: `127.0.0.1:${openPort}`, description: 'edited' }] } },
    });
    expect(edit.statusCode, edit.body).toBe(200);
    await s.reload();
    await until('a run after the edit', async () => (await runsOf(c.id)).length === 2);
    // a reload that finds nothing changed does not run it again
    await s.reload();
    await sleep(300);
    expect((await runsOf(c.id)).length).toBe(2);
  });

  it('spreads the first runs of many checks over a window that grows with their number', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) {
      ids.push((await createCanary(`fleet-${i}`, { schedule: '@every 1h', tcp: [{ name: 'p', endpoint: `127.0.0.1:${openPort}` }] })).id);
    }
    // no ticks: only the plan is looked at. One main-lane slot: 8 first runs a second, so 24 checks over 3 s
    const before = Date.now();
    const narrow = await start({ concurrency: 1, tickMs: 3_600_000 });
    const planned = ids.map((id) => narrow.nextRunOf(id)! - before);
    expect(Math.min(...planned)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...planned)).toBeLessThan(3_000 + 1_000);
    expect(Math.max(...planned) - Math.min(...planned)).toBeGreaterThan(1_000);
    await narrow.stop();
    // 64 slots: 24 checks are run at once
    const wide = await start({ concurrency: 64, tickMs: 3_600_000 });
    const at = ids.map((id) => wide.nextRunOf(id)!);
    expect(Math.max(...at) - Math.min(...at)).toBeLessThan(100);
  });

  it('ends a hanging http request at its thresholdMillis, so the canary keeps its schedule', async () => {
    const c = await createCanary('threshold', {
      schedule: '@every 1s',
      http: [{ name: 'hangs', url: `http://127.0.0.1:${hangPort}/`, thresholdMillis: 300 }],
      tcp: [{ name: 'sibling', endpoint: `127.0.0.1:${openPort}` }],
    });
    const s = await start();
    await until('four runs', () => s.stats().runs >= 4);
    await s.stop();
    const stats = s.stats();
    // every occurrence ran both checks: none was skipped for a check still running
    expect(stats.skipped).toBe(0);
    const ids = await t.db.query<{ id: string; name: string }>('SELECT id, name FROM checks WHERE canary_id = $1', [c.id]);
    const byName = Object.fromEntries(ids.rows.map((r) => [r.name, r.id]));
    expect((await resultsOf(byName.sibling)).length).toBe(stats.runs);
    const hung = await resultsOf(byName.hangs);
    expect(hung.length).toBe(stats.runs);
    expect(hung[0]).toMatchObject({ status: false, error: 'timed out after 300 ms (thresholdMillis)' });
  });

  it('a check still running when its canary is due again skips that occurrence; its siblings run on schedule', async () => {
    // no thresholdMillis: the hanging request runs until the check's timeout, the canary's 3 s interval
    const c = await createCanary('sibling-hang', {
      schedule: '@every 3s',
      http: [{ name: 'hangs', url: `http://127.0.0.1:${hangPort}/` }],
      tcp: [{ name: 'sibling', endpoint: `127.0.0.1:${openPort}` }],
    });
    const ids = await t.db.query<{ id: string; name: string }>('SELECT id, name FROM checks WHERE canary_id = $1', [c.id]);
    const byName = Object.fromEntries(ids.rows.map((r) => [r.name, r.id]));
    // the scheduler's clock is moved by hand from one occurrence to the next; the checks run in real time
    let now = Date.now();
    const s = await start({ now: () => now });
    now = s.nextRunOf(c.id)!;
    await until('the first run of the sibling', async () => (await resultsOf(byName.sibling)).length === 1);
    // the canary is due twice while the hanging request waits out its timeout
    for (const n of [2, 3]) {
      now = s.nextRunOf(c.id)!;
      await until(`sibling run ${n}`, async () => (await resultsOf(byName.sibling)).length === n);
    }
    expect(s.stats()).toMatchObject({ runs: 3, skipped: 2 });
    await until('the hanging check to time out', async () => (await resultsOf(byName.hangs)).length === 1);
    expect(await resultsOf(byName.hangs)).toMatchObject([{ status: false, error: 'timed out after 3000 ms' }]);
    // once it is done, it runs again with its sibling at the next occurrence
    now = s.nextRunOf(c.id)!;
    await until('the fourth run', async () => (await resultsOf(byName.sibling)).length === 4);
    expect(s.stats()).toMatchObject({ runs: 4, skipped: 2 });
  });
});
