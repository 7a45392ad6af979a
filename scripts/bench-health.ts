/**
 * npm run bench:health: the health backend and page at scale, on loopback, bounded, in a temp dir.
 *
 * The server runs in a child process of its own (`--server`: the app, and for (b) the same HealthScheduler class,
 * wired to live updates as the app wires its own), so its RSS and event loop are the server's alone; this process
 * holds the embedded PostgreSQL's client for seeding, and drives the load (autocannon in further children) and
 * Chromium.
 *
 * (a) Summary over 10,000 checks: seeds 7 days of hourly rollups and the last hour of raw results (one a minute)
 *     with INSERT ... SELECT generate_series, then measures GET /api/canary/api/summary?window=1h and ?window=1d over
 *     HTTP with autocannon (plain and with Accept-Encoding: gzip, as browsers ask). Target p95 < 100 ms.
 *     BENCH_SECONDS (default 10) per run.
 * (c) The /health page over those 10,000 checks in Chromium (Debian's, headless, 1366x800), served by a second
 *     server child in MODE=check-runner: navigation to interactive (rows painted and no long task for 1 s), then
 *     Hide Passing, Group By, Tab By and Pivot By changes, each from the input event to the frame that shows the result.
 *     Medians of BENCH_PAGE_LOADS (default 5) loads after a warm-up. Targets < 1.5 s and < 100 ms.
 *     BENCH_DIST: the bundle to serve (default dist/web, built when missing); BENCH_SKIP_PAGE=1 skips (c).
 * (b) The runner: 5,000 HTTP checks a minute (500 canaries x 10 checks, interval 60 s) against a local HTTP target
 *     (a child process) for BENCH_RUNNER_SECONDS (default 120; the issue asks for 5 minutes: set 300). Reports the
 *     schedule lag p50/p99 (target p99 < 1 s), results lost (dispatched vs stored), the server's max RSS (target
 *     < 400 MB, with a heap/external breakdown) and the summary's p95 meanwhile (target < 50 ms).
 */
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { getHeapSpaceStatistics } from 'node:v8';
import pg from 'pg';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildApp } from '../server/app.js';
import { loadConfig } from '../server/config.js';
import { startEmbeddedPostgres } from '../server/db/embedded.js';
import { ensureAdmin } from '../server/modules/auth/bootstrap.js';
import { ChangeFeed } from '../server/modules/health/change-feed.js';
import { CACHED_WINDOWS, refreshSummaryCache } from '../server/modules/health/read-queries.js';
import { HealthScheduler } from '../server/modules/health/scheduler.js';
import { adminToken, fmt, loadGenerator, overHttp, percentile, summarise, type LoadSpec } from './lib/load.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RUNNER_SECONDS = Number(process.env.BENCH_RUNNER_SECONDS ?? 120);
const SEEDED_CHECKS = 10_000;
/** Hours of hourly rollups seeded (7 days; fewer only to try the bench out quickly). */
const ROLLUP_HOURS = Number(process.env.BENCH_ROLLUP_HOURS ?? 168);
const RUNNER_CANARIES = 500;
const CHECKS_PER_CANARY = 10;

/** Child process: the HTTP target the checks call (own event loop, so it does not weigh on the server's). */
async function target() {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"status":"ok"}');
  });
  server.keepAliveTimeout = 5_000;
  server.listen(0, '127.0.0.1', () => process.send!((server.address() as AddressInfo).port));
  process.on('disconnect', () => process.exit(0));
}

/** 100 canaries x 100 checks, never scheduled; 7 days of hourly and daily rollups, the last hour raw (1/min). */
async function seedHistory(db: pg.Pool) {
  await db.query(`INSERT INTO canaries (name, namespace, spec, source, labels)
    SELECT 'seeded-' || i, 'ns-' || (i % 10), '{}'::jsonb, 'bench', jsonb_build_object('team', 'team-' || (i % 7))
    FROM generate_series(1, ${SEEDED_CHECKS / 100}) i`);
  await db.query(`INSERT INTO checks (canary_id, type, name, namespace, labels, spec, status)
    SELECT ca.id, 'http', ca.name || '-check-' || j, ca.namespace, jsonb_build_object('tier', 'tier-' || (j % 3)),
           jsonb_build_object('name', ca.name || '-check-' || j, 'url', 'http://127.0.0.1:1/'),
           CASE WHEN j % 17 = 0 THEN 'unhealthy' ELSE 'healthy' END
    FROM canaries ca, generate_series(1, 100) j WHERE ca.source = 'bench'`);
  // hourly rollups: 60 results an hour, a few failures on some checks, one latency bucket per row
  await db.query(`INSERT INTO check_statuses_1h (check_id, created_at, duration, total, passed, failed, latency, last_pass, last_fail)
    SELECT c.id, h, 60 * d, 60, 60 - f, f, jsonb_build_object(latency_bucket(d)::text, jsonb_build_array(60, 60 * d)),
           h + interval '59 minutes', CASE WHEN f > 0 THEN h + interval '30 minutes' END
    FROM (SELECT id, 20 + (abs(hashtext(id::text)) % 400) AS d0 FROM checks WHERE spec ? 'url') c,
         generate_series(date_trunc('hour', now()) - make_interval(hours => ${ROLLUP_HOURS - 1}), date_trunc('hour', now()), interval '1 hour') h,
         LATERAL (SELECT c.d0 + (extract(hour FROM h)::int % 5) AS d, CASE WHEN abs(hashtext(c.id::text || h::text)) % 23 = 0 THEN 3 ELSE 0 END AS f) x`);
  await db.query(`INSERT INTO check_statuses_1d (check_id, created_at, duration, total, passed, failed, latency, last_pass, last_fail)
    SELECT check_id, date_trunc('day', created_at, 'UTC'), sum(duration), sum(total), sum(passed), sum(failed), latency_merge(latency),
           max(last_pass), max(last_fail)
    FROM check_statuses_1h GROUP BY 1, 2`);
  await db.query(`INSERT INTO check_statuses (check_id, time, duration, status, invalid, message)
    SELECT c.id, date_trunc('minute', now()) - make_interval(mins => m), c.d0 + m % 7, (m + c.k) % 29 <> 0, false, 'ok'
    FROM (SELECT id, 20 + (abs(hashtext(id::text)) % 400) AS d0, abs(hashtext(id::text)) % 29 AS k FROM checks WHERE spec ? 'url') c,
         generate_series(0, 59) m`);
  await db.query(`INSERT INTO checks_unlogged (check_id, canary_id, status, last_runtime, last_duration, last_message)
    SELECT id, canary_id, status, date_trunc('minute', now()), 42, 'ok' FROM checks`);
  await db.query('ANALYZE');
}

/** 500 canaries x 10 HTTP checks on the target, every 60 s. */
async function seedRunnerCanaries(db: pg.Pool, url: string) {
  await db.query(`INSERT INTO canaries (name, namespace, spec, source)
    SELECT 'runner-' || i, 'runner', jsonb_build_object('interval', 60, 'http', '[]'::jsonb), 'bench'
    FROM generate_series(1, ${RUNNER_CANARIES}) i`);
  await db.query(`INSERT INTO checks (canary_id, type, name, namespace, spec)
    SELECT ca.id, 'http', ca.name || '-' || j, 'runner', jsonb_build_object('name', ca.name || '-' || j, 'url', $1::text, 'timeout', '10s')
    FROM canaries ca, generate_series(1, ${CHECKS_PER_CANARY}) j WHERE ca.namespace = 'runner'`, [url]);
}

function table(head: string[], rows: string[][]) {
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  for (const [i, r] of all.entries()) {
    console.log(r.map((cell, j) => (j === 0 ? cell.padEnd(widths[j]) : cell.padStart(widths[j]))).join('  '));
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}

const MB = (n: number) => fmt(n / 1024 / 1024, 0);
const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 0.5);
/** median, min, max as text */
const spread = (xs: number[]) => [fmt(median(xs), 0), fmt(Math.min(...xs), 0), fmt(Math.max(...xs), 0)];
const ROOT = resolve(import.meta.dirname, '..');
const DIST = process.env.BENCH_DIST ? resolve(process.env.BENCH_DIST) : join(ROOT, 'dist/web');
const PAGE_LOADS = Number(process.env.BENCH_PAGE_LOADS ?? 5);
const ADMIN = { email: 'bench-admin@bench.test', password: 'bench-admin-password-1' };
const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];

// ---------------------------------------------------------------------------------------------------------------
// Server-side time of the summary, from the app's own histogram (Fastify's elapsedTime: request in to response
// written), so what the load generator costs on this shared machine is left out.

interface Histogram { buckets: Map<number, number>; sum: number; count: number }

async function summaryHistogram(base: string): Promise<Histogram> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const h: Histogram = { buckets: new Map(), sum: 0, count: 0 };
  for (const line of text.split('\n')) {
    if (!line.startsWith('http_request_duration_seconds') || !line.includes('route="/api/canary/api/summary"') || !line.includes('method="GET"')) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    const le = /le="([^"]+)"/.exec(line)?.[1];
    if (line.startsWith('http_request_duration_seconds_bucket') && le) {
      const k = le === '+Inf' ? Infinity : Number(le);
      h.buckets.set(k, (h.buckets.get(k) ?? 0) + value);
    } else if (line.startsWith('http_request_duration_seconds_sum')) h.sum += value;
    else if (line.startsWith('http_request_duration_seconds_count')) h.count += value;
  }
  return h;
}

/** Mean and the histogram bucket holding p95 of the requests between two scrapes, as text. */
function serverSide(before: Histogram, after: Histogram): string {
  const n = after.count - before.count;
  if (!n) return '-';
  const mean = ((after.sum - before.sum) / n) * 1000;
  const les = [...after.buckets.keys()].sort((a, b) => a - b);
  const p95 = les.find((le) => after.buckets.get(le)! - (before.buckets.get(le) ?? 0) >= 0.95 * n) ?? Infinity;
  return `${fmt(mean, 1)} / <= ${Number.isFinite(p95) ? fmt(p95 * 1000, 0) : 'inf'}`;
}

// ---------------------------------------------------------------------------------------------------------------
// The server child

type ServerRequest = { id: number; cmd: 'start-scheduler' | 'stop-scheduler' | 'stats' };
interface MemoryFigures {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  /** V8 heap spaces over 1 MB, used bytes */
  spaces: Record<string, number>;
}
interface ServerStats {
  scheduler: ReturnType<HealthScheduler['stats']> | null;
  memory: MemoryFigures;
  rssMax: number;
}

function memoryNow(): MemoryFigures {
  const m = process.memoryUsage();
  const spaces = Object.fromEntries(getHeapSpaceStatistics().filter((s) => s.space_used_size > 1 << 20).map((s) => [s.space_name, s.space_used_size]));
  return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers, spaces };
}

/**
 * Child process: the app on loopback (MODE from BENCH_MODE), answering the parent's commands over IPC. The
 * scheduler of (b) is the app's own class, its results feeding live updates (and so the ready summary) as
 * server/modules/health/routes.ts wires them.
 */
async function server() {
  const config = loadConfig({
    DATABASE_URL: process.env.BENCH_DATABASE_URL!, DEMO_DATA: 'false', LOG_LEVEL: 'silent', MODE: process.env.BENCH_MODE ?? 'agent',
    DB_POOL_MAX: '20', WEB_DIR: DIST, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, LOGIN_RATE_LIMIT: '1000',
  });
  const app = await buildApp(config, { logger: false });
  await ensureAdmin(app.db, config, () => undefined);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const log = { info() {}, debug() {}, warn: (o: object, m: string) => console.warn(m, o), error: (o: object, m: string) => console.error(m, o) };
  let scheduler: HealthScheduler | null = null;
  let feed: ChangeFeed | null = null;
  let rssMax = process.memoryUsage().rss;
  setInterval(() => (rssMax = Math.max(rssMax, process.memoryUsage().rss)), 250).unref();
  process.on('message', async (m: ServerRequest) => {
    if (m.cmd === 'start-scheduler') {
      feed = new ChangeFeed((change) => app.events.publish(change));
      scheduler = new HealthScheduler(app.db, {
        log, retentionEveryMs: 0, onResults: (ids) => feed!.add(['checks', 'check_statuses', 'check_summary'], ids),
      });
      rssMax = process.memoryUsage().rss;
      await scheduler.start();
    } else if (m.cmd === 'stop-scheduler') {
      await scheduler?.stop();
      feed?.flush();
    }
    const stats: ServerStats = { scheduler: scheduler?.stats() ?? null, memory: memoryNow(), rssMax };
    process.send!({ id: m.id, stats });
  });
  process.on('disconnect', () => {
    void (async () => {
      await scheduler?.stop();
      await app.close();
      process.exit(0);
    })();
  });
  process.send!({ port: (app.server.address() as AddressInfo).port });
}

interface ServerChild {
  base: string;
  call(cmd: ServerRequest['cmd']): Promise<ServerStats>;
  stop(): Promise<void>;
}

async function startServerChild(databaseUrl: string, mode: string): Promise<ServerChild> {
  const child: ChildProcess = fork(process.argv[1], ['--server'], {
    stdio: 'inherit', env: { ...process.env, BENCH_DATABASE_URL: databaseUrl, BENCH_MODE: mode },
  });
  const port = await new Promise<number>((ok, fail) => {
    child.once('exit', (code) => fail(new Error(`the server child exited with ${code}`)));
    child.once('message', (m) => ok((m as { port: number }).port));
  });
  let next = 0;
  const waiting = new Map<number, (s: ServerStats) => void>();
  child.on('message', (m: { id?: number; stats?: ServerStats }) => {
    if (m.id !== undefined) waiting.get(m.id)?.(m.stats!);
  });
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  return {
    base: `http://127.0.0.1:${port}`,
    call: (cmd) => new Promise((ok) => {
      const id = next++;
      waiting.set(id, ok);
      child.send({ id, cmd });
    }),
    async stop() {
      if (child.connected) child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// (c) the page

/** Installed before the page's own scripts: long tasks, buffered from the start. */
const LONG_TASKS = `(() => {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, end: e.startTime + e.duration });
  }).observe({ type: 'longtask', buffered: true });
})()`;

/**
 * In the page: runs `action` and resolves with the ms from just before it to the first animation frame in which
 * `done` holds (the frame that paints the change), plus the long tasks meanwhile.
 */
const MEASURE = `window.__measure = (action, done) => new Promise((resolve) => {
  const before = window.__longTasks.length;
  const t0 = performance.now();
  action();
  const step = () => {
    const t = performance.now() - t0;
    if (done() || t > 20000) {
      const tasks = window.__longTasks.slice(before).map((x) => x.end - x.start);
      resolve({ ms: done() ? t : -1, longTasks: tasks.length, longest: tasks.length ? Math.max(...tasks) : 0 });
    } else requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
})`;

interface Change { ms: number; longTasks: number; longest: number; /** main-thread CPU ms (CDP ThreadTime) */ cpu: number }

/**
 * The page's main-thread CPU time so far, ms (CDP Performance ThreadTime): with other work loading this machine's
 * two cores, wall times stretch; this figure does not.
 */
let threadTime: () => Promise<number> = async () => NaN;

async function loadHealth(page: Page, base: string) {
  await page.goto(`${base}/health`, { waitUntil: 'commit' });
  // rows: the failing checks (Hide Passing is on by default), grouped by canary name
  // (strings, not functions: tsx's helpers do not exist in the page)
  await page.waitForFunction(`document.querySelectorAll('table[aria-label="Health checks"] tbody tr[data-index]').length > 5`, undefined, { timeout: 60_000, polling: 'raf' });
  const rowsAt = await page.evaluate<number>('performance.now()');
  // interactive: rows shown and then 1 s without a long task
  const tti = await page.evaluate<number>(`new Promise((ok) => {
    const check = () => {
      const last = window.__longTasks.at(-1)?.end ?? 0;
      if (performance.now() - last >= 1000) ok(last);
      else setTimeout(check, 100);
    };
    check();
  })`);
  const summary = await page.evaluate<{ start: number; end: number; bytes: number; decoded: number } | null>(`(() => {
    const e = performance.getEntriesByType('resource').find((r) => r.name.includes('/api/canary/api/summary'));
    return e ? { start: e.startTime, end: e.responseEnd, bytes: e.transferSize, decoded: e.decodedBodySize } : null;
  })()`);
  const longTasks = await page.evaluate<number[]>('window.__longTasks.map((t) => t.end - t.start)');
  return { rowsAt, interactive: Math.max(rowsAt, tti), summary, longTasks };
}

const allTabIs = (n: number) => `(() => [...document.querySelectorAll('[role=tab]')].some((t) => t.textContent === 'All (${n})'))`;

async function measureChange(page: Page, action: string, done: string): Promise<Change> {
  const cpu0 = await threadTime();
  const c = await page.evaluate<Omit<Change, 'cpu'>>(`window.__measure(() => (${action})(), ${done})`);
  return { ...c, cpu: (await threadTime()) - cpu0 };
}

async function choose(page: Page, combobox: string, option: string, done: string): Promise<Change> {
  await page.getByRole('combobox', { name: combobox }).click();
  await page.getByRole('option', { name: option, exact: true }).waitFor();
  return measureChange(page, `() => [...document.querySelectorAll('[role=option]')].find((o) => o.textContent.trim() === ${JSON.stringify(option)}).click()`, done);
}

async function measurePage(base: string, total: number) {
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    // bypassCSP: the page's CSP (script-src 'self') would refuse the bench's own probes (waitForFunction with a string)
    const context = await browser.newContext({ viewport: { width: 1366, height: 800 }, bypassCSP: true });
    await context.addInitScript(LONG_TASKS);
    await context.addInitScript(MEASURE);
    const login = await context.request.post(`${base}/api/auth/login`, { data: { username: ADMIN.email, password: ADMIN.password } });
    if (login.status() !== 200) throw new Error(`sign-in answered ${login.status()}: ${await login.text()}`);
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    const perf = await context.newCDPSession(page);
    await perf.send('Performance.enable', { timeDomain: 'threadTicks' });
    threadTime = async () => ((await perf.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ThreadTime')?.value ?? NaN) * 1000;
    page.on('pageerror', (err) => console.warn(`page error: ${err.message}`));
    await loadHealth(page, base); // warm-up: chunks cached and compiled, as on a second visit
    const loads = [];
    const changes: Record<string, Change[]> = {
      hideOff: [], hideOn: [], groupType: [], groupName: [], tabTeam: [], tabNamespace: [], pivotTier: [], pivotUptime: [], pivotNone: [],
    };
    // BENCH_CPU_PROFILE=file.cpuprofile records the last round of changes in a V8 profile (Chrome DevTools opens it)
    const profilePath = process.env.BENCH_CPU_PROFILE;
    const cdp = profilePath ? await context.newCDPSession(page) : undefined;
    for (let i = 0; i < PAGE_LOADS; i++) {
      loads.push(await loadHealth(page, base));
      if (cdp && i === PAGE_LOADS - 1) {
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
        await cdp.send('Profiler.start');
      }
      // what Hide Passing shows: failing now or in the window
      const shown = await page.evaluate<string>(`[...document.querySelectorAll('[role=tab]')].find((t) => t.textContent.startsWith('All (')).textContent.slice(5, -1)`);
      const hide = `() => document.querySelector('[role=switch]').click()`;
      changes.hideOff.push(await measureChange(page, hide, allTabIs(total)));
      changes.hideOn.push(await measureChange(page, hide, allTabIs(Number(shown))));
      const firstRowHas = (text: string) => `(() => document.querySelector('table[aria-label="Health checks"] tbody tr[data-index="0"]')?.textContent.startsWith(${JSON.stringify(text)}))`;
      changes.groupType.push(await choose(page, 'Group By', 'Type', firstRowHas('http')));
      changes.groupName.push(await choose(page, 'Group By', 'Group Name', firstRowHas('seeded-')));
      const tabStarts = (text: string) => `(() => [...document.querySelectorAll('[role=tab]')].some((t) => t.textContent.startsWith(${JSON.stringify(text)})))`;
      changes.tabTeam.push(await choose(page, 'Tab By', 'team', tabStarts('team-0 (')));
      changes.tabNamespace.push(await choose(page, 'Tab By', 'Namespace', tabStarts('ns-0 (')));
      // the pivot (check name x label value), its Uptime cells, and back to the table
      const pivot = `document.querySelector('table[aria-label="Health checks by tier"]')`;
      changes.pivotTier.push(await choose(page, 'Pivot By', 'Label: tier', `(() => ${pivot}?.querySelectorAll('tbody th[scope=row]').length > 5)`));
      changes.pivotUptime.push(await choose(page, 'Cell', 'Uptime', `(() => !!${pivot}?.querySelector('button[aria-label$="uptime"]'))`));
      changes.pivotNone.push(await choose(page, 'Pivot By', 'None', `(() => !!document.querySelector('table[aria-label="Health checks"] tbody tr[data-index]'))`));
    }
    if (cdp && profilePath) {
      const { profile } = await cdp.send('Profiler.stop');
      writeFileSync(profilePath, JSON.stringify(profile));
      console.log(`CPU profile of the changes written to ${profilePath}`);
    }
    return { loads, changes };
  } finally {
    await browser?.close();
  }
}

function buildWebIfMissing() {
  if (existsSync(join(DIST, 'index.html'))) return;
  console.log(`building the web bundle into ${DIST}…`);
  const r = spawnSync(join(ROOT, 'node_modules/.bin/vite'), ['build', '--config', 'web/vite.config.ts', '--outDir', DIST, '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`vite build failed (${r.status})`);
}

// ---------------------------------------------------------------------------------------------------------------

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'console-bench-health-'));
  const quiet = { info() {}, warn: (m: string) => console.warn(m), debug() {} };
  const pgdb = await startEmbeddedPostgres(dir, 0, quiet);
  const db = new pg.Pool({ connectionString: pgdb.url, max: 4 });
  const loadAtStart = loadavg();
  let srv: ServerChild | undefined;
  const targetProc = fork(process.argv[1], ['--target'], { stdio: 'inherit' });
  try {
    // the schema: the first server child migrates
    srv = await startServerChild(pgdb.url, 'agent');
    const version = (await db.query('SHOW server_version')).rows[0].server_version;
    const auth = { authorization: `Bearer ${await adminToken(db)}` };

    // (a) -------------------------------------------------------------------------------------------------------
    let t0 = performance.now();
    await seedHistory(db);
    const counts = (await db.query(`SELECT (SELECT count(*) FROM checks)::int AS checks, (SELECT count(*) FROM check_statuses)::int AS raw,
      (SELECT count(*) FROM check_statuses_1h)::int AS hourly, (SELECT count(*) FROM check_statuses_1d)::int AS daily,
      (SELECT count(*) FROM checks WHERE status = 'unhealthy')::int AS unhealthy`)).rows[0];
    console.log(`seeded ${counts.checks} checks, ${counts.raw} raw results, ${counts.hourly} hourly and ${counts.daily} daily rollups in ${fmt((performance.now() - t0) / 1000)} s`);
    // the precomputed windows, as the scheduler keeps them (1h every minute, 1d every five): refreshed before each run
    t0 = performance.now();
    for (const w of CACHED_WINDOWS) await refreshSummaryCache(db, w.windowMs);
    console.log(`summary windows precomputed in ${fmt((performance.now() - t0) / 1000)} s`);
    // the seeding happened behind the server's back (straight SQL): a fresh server sees it as a new one would
    await srv.stop();
    srv = await startServerChild(pgdb.url, 'agent');
    const probe = await fetch(`${srv.base}/api/canary/api/summary?window=1h`, { headers: auth });
    const probeText = await probe.text();
    const probeBody = JSON.parse(probeText) as { duration: number; checks_summary: unknown[] };
    if (probe.status !== 200 || probeBody.checks_summary.length !== SEEDED_CHECKS) {
      throw new Error(`summary answered ${probe.status} with ${probeBody.checks_summary?.length} checks`);
    }
    const gz = await fetch(`${srv.base}/api/canary/api/summary?window=1h`, { headers: { ...auth, 'accept-encoding': 'gzip' } });
    const gzBytes = Number(gz.headers.get('content-length') ?? 0);
    await gz.arrayBuffer();
    const firstBuild = `the first request built the 1h answer in ${probeBody.duration} ms (SQL and JSON text)`;
    const bytes = Buffer.byteLength(probeText);
    const oneCheckPaths = (await db.query<{ id: string }>('SELECT id FROM checks ORDER BY random() LIMIT 200')).rows
      .map((r) => `/api/canary/api/summary?window=1h&checkID=${r.id}`);
    const gzip = { ...auth, 'accept-encoding': 'gzip' };
    const specs: Array<[string, LoadSpec]> = [
      ['summary window=1h (10,000 checks)', { url: srv.base, headers: auth, paths: ['/api/canary/api/summary?window=1h'], connections: 4, duration: SECONDS }],
      ['summary window=1h, gzip', { url: srv.base, headers: gzip, paths: ['/api/canary/api/summary?window=1h'], connections: 4, duration: SECONDS }],
      ['summary window=1d (10,000 checks)', { url: srv.base, headers: auth, paths: ['/api/canary/api/summary?window=1d'], connections: 4, duration: SECONDS }],
      ['summary window=1d, gzip', { url: srv.base, headers: gzip, paths: ['/api/canary/api/summary?window=1d'], connections: 4, duration: SECONDS }],
      ['summary window=1h, one check', { url: srv.base, headers: auth, connections: 4, duration: SECONDS, paths: oneCheckPaths }],
    ];
    // warm-up: every whole-fleet answer built once (the first request of each builds it: that figure is printed)
    for (const [, spec] of specs.slice(0, 4)) await overHttp({ ...spec, duration: 1 });
    const rowsA: string[][] = [];
    const figuresA: Record<string, ReturnType<typeof summarise>> = {};
    for (const [name, spec] of specs) {
      const before = await summaryHistogram(srv.base);
      const s = summarise(await overHttp(spec));
      const server = serverSide(before, await summaryHistogram(srv.base));
      figuresA[name] = s;
      rowsA.push([name, String(spec.connections), String(s.n), fmt(s.rps), fmt(s.p50, 2), fmt(s.p95, 2), fmt(s.p99, 2), String(s.failures), server]);
    }
    const memA = (await srv.call('stats')).memory;
    console.log(`load average (1/5/15 min) at start ${loadAtStart.map((x) => fmt(x, 2)).join(' / ')}`);
    console.log(`\nHealth benchmark: PostgreSQL ${version} (embedded), Node ${process.version}, ${cpus().length} CPUs, loopback`);
    console.log(`\n(a) summary over HTTP, ${SECONDS} s per run; the 1h answer is ${fmt(bytes / 1024 / 1024, 2)} MB of JSON, ${fmt(gzBytes / 1024 / 1024, 2)} MB gzip (target p95 < 100 ms)\n`);
    console.log(`${firstBuild}; server RSS after (a) ${MB(memA.rss)} MB\n`);
    console.log('server side: the app\'s own histogram of GET /api/canary/api/summary (mean, and the bucket holding p95)\n');
    table(['scenario', 'conns', 'requests', 'req/s', 'p50 ms', 'p95 ms', 'p99 ms', 'failed', 'server mean / p95 ms'], rowsA);

    // (c) -------------------------------------------------------------------------------------------------------
    let pageFigures: Awaited<ReturnType<typeof measurePage>> | null = null;
    if (process.env.BENCH_SKIP_PAGE !== '1') {
      buildWebIfMissing();
      const web = await startServerChild(pgdb.url, 'check-runner');
      try {
        pageFigures = await measurePage(web.base, SEEDED_CHECKS);
      } finally {
        await web.stop();
      }
    }
    if (pageFigures) {
      const { loads, changes } = pageFigures;
      console.log(`\n(c) /health in Chromium, 10,000 checks (those failing now or in the window shown by default), median of ${loads.length} loads after a warm-up\n`);
      const sum = loads.map((l) => l.summary).filter((x) => x !== null);
      table(['measure', 'median', 'min', 'max', 'target'], [
        ['navigation -> interactive ms', ...spread(loads.map((l) => l.interactive)), '< 1500'],
        ['navigation -> rows shown ms', ...spread(loads.map((l) => l.rowsAt)), ''],
        ['summary request start / end ms', `${fmt(median(sum.map((x) => x.start)), 0)} / ${fmt(median(sum.map((x) => x.end)), 0)}`, '', '', ''],
        ['summary transfer / decoded kB', `${fmt(median(sum.map((x) => x.bytes)) / 1024, 0)} / ${fmt(median(sum.map((x) => x.decoded)) / 1024, 0)}`, '', '', ''],
        ['long tasks during a load (longest ms)', `${median(loads.map((l) => l.longTasks.length))} (${fmt(median(loads.map((l) => Math.max(0, ...l.longTasks))), 0)})`, '', '', ''],
        ...Object.entries({
          'Hide Passing off (all 10,000)': changes.hideOff, 'Hide Passing on': changes.hideOn, 'Group By Type': changes.groupType,
          'Group By Group Name': changes.groupName, 'Tab By team (label)': changes.tabTeam, 'Tab By Namespace': changes.tabNamespace,
          'Pivot By tier (label)': changes.pivotTier, 'pivot Cell Uptime': changes.pivotUptime, 'Pivot By None (the table again)': changes.pivotNone,
        }).map(([name, xs]) => [
          `${name} ms (CPU ms; long tasks, longest ms)`,
          `${fmt(median(xs.map((x) => x.ms)), 0)} (${fmt(median(xs.map((x) => x.cpu)), 0)}; ${median(xs.map((x) => x.longTasks))}, ${fmt(median(xs.map((x) => x.longest)), 0)})`,
          fmt(Math.min(...xs.map((x) => x.ms)), 0), fmt(Math.max(...xs.map((x) => x.ms)), 0), '< 100',
        ]),
      ]);
    }

    // the page figures are wall times on a shared machine: say how busy it was when they were taken
    if (pageFigures) console.log(`\nload average (1/5/15 min) after (c) ${loadavg().map((x) => fmt(x, 2)).join(' / ')}`);
    if (process.env.BENCH_SKIP_RUNNER === '1') return;
    // (b) -------------------------------------------------------------------------------------------------------
    const port = await new Promise<number>((ok) => targetProc.once('message', (m) => ok(m as number)));
    await seedRunnerCanaries(db, `http://127.0.0.1:${port}/ok`);
    const benchStart = new Date();
    const atStart = await srv.call('start-scheduler');
    const ranFrom = performance.now();
    console.log(`runner: ${RUNNER_CANARIES * CHECKS_PER_CANARY} HTTP checks every 60 s for ${RUNNER_SECONDS} s; summary measured meanwhile`);
    const base = srv.base;
    const beforeB = await summaryHistogram(base);
    const during = overHttp({
      url: base, headers: auth, paths: ['/api/canary/api/summary?window=1h'], connections: 1, duration: Math.max(5, RUNNER_SECONDS - 5),
    });
    // the server's memory every 30 s (RSS and its parts), to see what grows
    const samples: ServerStats[] = [];
    const sampler = setInterval(() => void srv!.call('stats').then((s) => samples.push(s)), 30_000);
    await new Promise((r) => setTimeout(r, RUNNER_SECONDS * 1000));
    clearInterval(sampler);
    const duringFigures = summarise(await during);
    const duringServer = serverSide(beforeB, await summaryHistogram(base));
    const end = await srv.call('stop-scheduler');
    const ranSeconds = (performance.now() - ranFrom) / 1000;
    const stats = end.scheduler!;
    const stored = (await db.query<{ n: number; failed: number }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE NOT s.status)::int AS failed
       FROM check_statuses s JOIN checks c ON c.id = s.check_id WHERE c.namespace = 'runner' AND s.time >= $1`, [benchStart],
    )).rows[0];
    const scheduledRate = (RUNNER_CANARIES * CHECKS_PER_CANARY) / 60;
    const loadAtEnd = loadavg();

    console.log(`\nload average (1/5/15 min) at the end ${loadAtEnd.map((x) => fmt(x, 2)).join(' / ')}`);
    console.log(`\n(b) runner, ${RUNNER_SECONDS} s (BENCH_RUNNER_SECONDS; the issue's figure is 300 s)\n`);
    const mem = (m: MemoryFigures) => `rss ${MB(m.rss)}, heap ${MB(m.heapUsed)}/${MB(m.heapTotal)}, external ${MB(m.external)} (buffers ${MB(m.arrayBuffers)})`;
    table(['measure', 'value', 'target'], [
      ['checks scheduled per minute', String(RUNNER_CANARIES * CHECKS_PER_CANARY), '5000'],
      ['canary runs / checks dispatched', `${stats.runs} / ${stats.checks}`, ''],
      ['scheduler ran (s)', fmt(ranSeconds, 1), ''],
      ['expected by the schedule (about rate x time)', fmt(scheduledRate * ranSeconds, 0), ''],
      ['results stored (failed)', `${stored.n} (${stored.failed})`, ''],
      ['results lost (dispatched - stored)', String(stats.checks - stored.n), '0'],
      ['runs skipped (previous still running)', String(stats.skipped), '0'],
      ['schedule lag p50 / p99 / max ms', `${stats.lagP50} / ${stats.lagP99} / ${stats.lagMax}`, 'p99 < 1000'],
      ['server RSS at start / max MB', `${MB(atStart.memory.rss)} / ${MB(end.rssMax)}`, '< 400'],
      ['summary 1h (all 15,000 checks) meanwhile p50 / p95 / p99 ms', `${fmt(duringFigures.p50, 2)} / ${fmt(duringFigures.p95, 2)} / ${fmt(duringFigures.p99, 2)}`, 'p95 < 50'],
      ['summary requests meanwhile (failed)', `${duringFigures.n} (${duringFigures.failures})`, ''],
      ['  server side: mean / p95 bucket ms', duringServer, ''],
    ]);
    console.log('\nserver memory (MB):');
    console.log(`  start of (b): ${mem(atStart.memory)}`);
    for (const [i, s] of samples.entries()) console.log(`  ${(i + 1) * 30} s: ${mem(s.memory)}`);
    console.log(`  end: ${mem(end.memory)}; V8 spaces ${Object.entries(end.memory.spaces).map(([k, v]) => `${k} ${MB(v)}`).join(', ')}`);
    const failed = Object.values(figuresA).some((s) => s.failures > 0) || duringFigures.failures > 0 || stats.checks !== stored.n;
    if (failed) process.exitCode = 1;
  } finally {
    await srv?.stop();
    targetProc.disconnect();
    targetProc.kill();
    await db.end();
    await pgdb.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--load')) await loadGenerator();
else if (process.argv.includes('--target')) await target();
else if (process.argv.includes('--server')) await server();
else await main();
