/**
 * npm run bench:topology-graph: the topology graph view (issue 13 "Beyond the reference": 2,000 nodes pan smoothly)
 * on the real page in Debian chromium.
 *
 * Seeds a fresh embedded PostgreSQL with one topology of 2,021 components: a root over 20 zones, each over 5 services,
 * each over 19 pods (every group at most 20, so nothing is folded and all 2,021 are drawn), every tenth pod with own
 * health unhealthy (the roll-up colours its service and zone). Serves the built web (dist/web, built when missing;
 * BENCH_BUILD=1 rebuilds, BENCH_DIST=<dir> serves another directory, as bench:web), signs in, opens
 * /topology/{root}?view=graph, and per run prints: the worker's layout time (dagre on the leaf-packed boxes),
 * navigation → the first nodes painted, and the frame times while dragging the view across the pane for 2 s of
 * pointer moves (one move per frame), with the long tasks (> 50 ms) seen meanwhile; then Fit view (the whole graph:
 * below zoom 0.3 a graph this big is drawn as one overview canvas, `data-view="overview"`), the time until the drawn
 * nodes settle, and the same pan. BENCH_RUNS (default 3). BENCH_TRACE=<dir> writes a Chromium trace and a CPU profile
 * of run 1's whole-graph pan there (main-thread CPU by phase: layerize, hit test, paint, script).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { chromium } from 'playwright-core';
import { buildApp } from '../server/app.js';
import { loadConfig } from '../server/config.js';
import { startEmbeddedPostgres } from '../server/db/embedded.js';
import { migrate } from '../server/db/migrate.js';
import { ensureAdmin } from '../server/modules/auth/bootstrap.js';
import { fmt, percentile } from './lib/load.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = process.env.BENCH_DIST ? resolve(process.env.BENCH_DIST) : join(ROOT, 'dist/web');
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SHAPE = { zones: 20, services: 5, pods: 19 };
const ADMIN = { email: 'bench-topo-graph@bench.test', password: 'bench-topo-graph-password-1' };
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function buildIfNeeded() {
  if (existsSync(join(DIST, 'index.html')) && process.env.BENCH_BUILD !== '1') return;
  console.log(`building the web bundle into ${DIST}…`);
  const r = spawnSync(join(ROOT, 'node_modules/.bin/vite'), ['build', '--config', 'web/vite.config.ts', '--outDir', DIST, '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`vite build failed (${r.status})`);
}

/** One statement per level (the roll-up runs once per statement); returns the root's id and the component count. */
async function seed(db: pg.Pool): Promise<{ root: string; count: number }> {
  const topology = crypto.randomUUID();
  const root = crypto.randomUUID();
  await db.query(`INSERT INTO topologies (id, name, namespace, spec) VALUES ($1, 'bench-graph', 'default', '{"schedule":"@never"}')`, [topology]);
  const level = async (rows: { id: string; parent: string | null; name: string; type: string; health: string | null }[]) => {
    await db.query(
      `INSERT INTO components (id, topology_id, external_id, parent_id, name, type, health)
       SELECT id, $1, name, parent, name, type, health FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[]) AS t(id, parent, name, type, health)`,
      [topology, rows.map((r) => r.id), rows.map((r) => r.parent), rows.map((r) => r.name), rows.map((r) => r.type), rows.map((r) => r.health)],
    );
    return rows;
  };
  await level([{ id: root, parent: null, name: 'bench', type: 'Topology', health: null }]);
  const zones = await level(Array.from({ length: SHAPE.zones }, (_, z) => ({ id: crypto.randomUUID(), parent: root, name: `zone-${z}`, type: 'Zone', health: null })));
  const services = await level(zones.flatMap((z) => Array.from({ length: SHAPE.services }, (_, s) => ({ id: crypto.randomUUID(), parent: z.id, name: `${z.name}-svc-${s}`, type: 'Service', health: null }))));
  const pods = await level(services.flatMap((s) => Array.from({ length: SHAPE.pods }, (_, p) => ({ id: crypto.randomUUID(), parent: s.id, name: `${s.name}-pod-${p}`, type: 'Pod', health: p % 10 === 3 ? 'unhealthy' : 'healthy' }))));
  return { root, count: 1 + zones.length + services.length + pods.length };
}

interface Run {
  nodes: number; layoutMs: number; paintMs: number; inDom: number; frames: number[]; longTasks: number[];
  /** The same pan after Fit view (every node drawn, names unreadable): nodes in the DOM, frames, long tasks. */
  whole: { inDom: number; view: string; fitMs: number; fitLong: number[]; frames: number[]; longTasks: number[] };
}

// plain JavaScript text: tsx would wrap a TypeScript callback's named functions in a `__name` the page lacks
const WAIT_DRAWN = `(async () => {
  const frame = () => new Promise((ok) => requestAnimationFrame(ok));
  let graph;
  while (!(graph = document.querySelector('[data-testid="topology-graph"]')) || !graph.querySelector('.react-flow__node')) await frame();
  await frame();
  const nav = performance.getEntriesByType('navigation')[0];
  return { nodes: Number(graph.dataset.nodes), layoutMs: Number(graph.dataset.layoutMs), paintMs: performance.now() - (nav ? nav.startTime : 0),
    inDom: graph.querySelectorAll('.react-flow__node').length };
})()`;
const START_FRAMES = `(() => {
  window.__frames = []; window.__long = []; let last = performance.now(); window.__recording = true;
  const tick = (t) => { window.__frames.push(t - last); last = t; if (window.__recording) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration); }).observe({ type: 'longtask' });
})()`;
// after the Fit view click: until the nodes in the DOM stop changing for 10 frames; the time from the click (the whole
// graph mounted and measured)
const FIT_SETTLED = `(async () => {
  const t0 = performance.now();
  const frame = () => new Promise((ok) => requestAnimationFrame(ok));
  const count = () => document.querySelectorAll('[data-testid="topology-graph"] .react-flow__node').length;
  let last = -1, same = 0, settledAt = t0;
  while (same < 10) { await frame(); const n = count(); if (n === last) same++; else { last = n; same = 0; settledAt = performance.now(); } }
  return { ms: settledAt - t0, inDom: last, view: document.querySelector('[data-testid="topology-graph"]').dataset.view };
})()`;
const STOP_FRAMES = `(() => { window.__recording = false; return { frames: window.__frames.slice(1), longTasks: window.__long }; })()`;

async function main() {
  buildIfNeeded();
  const dir = await mkdtemp(join(tmpdir(), 'bench-topology-graph-'));
  const embedded = await startEmbeddedPostgres(dir, 0, { info() {}, warn() {}, debug() {} });
  const db = new pg.Pool({ connectionString: embedded.url, max: 2 });
  let browser: import('playwright-core').Browser | undefined;
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  try {
    await migrate(db);
    const { root, count } = await seed(db);
    const config = loadConfig({
      DATABASE_URL: embedded.url, DATA_DIR: join(dir, 'data'), DEMO_DATA: 'false', LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1', WEB_DIR: DIST,
      ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, LOGIN_RATE_LIMIT: '1000',
    });
    app = await buildApp(config, { logger: false });
    await ensureAdmin(app.db, config, () => {});
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;

    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    const login = await context.request.post(`${base}/api/auth/login`, { data: { username: ADMIN.email, password: ADMIN.password } });
    if (login.status() !== 200) throw new Error(`sign-in answered ${login.status()}`);
    const page = await context.newPage();
    page.setDefaultTimeout(120_000);
    page.on('pageerror', (err) => console.warn(`page error: ${err.message}`));

    const loadBefore = loadavg()[0];
    const runs: Run[] = [];
    for (let run = 1; run <= RUNS; run++) {
      await page.goto(`${base}/topology/${root}?view=graph`);
      const drawn = await page.evaluate<Omit<Run, 'frames' | 'longTasks'>>(WAIT_DRAWN);
      // zoom in to where nodes are readable, then drag the view around the pane: the user's pan
      const pane = await page.locator('[data-testid="topology-graph"] .react-flow__pane').boundingBox();
      if (!pane) throw new Error('no graph pane');
      const [cx, cy] = [pane.x + pane.width / 2, pane.y + pane.height / 2];
      await page.mouse.move(cx, cy);
      for (let i = 0; i < 6; i++) await page.mouse.wheel(0, -200);
      await page.waitForTimeout(300);
      await page.evaluate(START_FRAMES);
      await page.mouse.down();
      for (let i = 0; i < 120; i++) {
        const a = (i / 120) * 2 * Math.PI;
        await page.mouse.move(cx + Math.cos(a) * pane.width * 0.35, cy + Math.sin(a) * pane.height * 0.35);
      }
      await page.mouse.up();
      const { frames, longTasks } = await page.evaluate<{ frames: number[]; longTasks: number[] }>(STOP_FRAMES);
      // the whole graph: Fit view (the page opens a big graph on its top levels), then the same pan
      await page.evaluate(START_FRAMES);
      await page.locator('[data-testid="topology-graph"] .react-flow__controls-fitview').click();
      const fit = await page.evaluate<{ ms: number; inDom: number; view: string }>(FIT_SETTLED);
      const fitLong = (await page.evaluate<{ longTasks: number[] }>(STOP_FRAMES)).longTasks;
      const inDomWhole = fit.inDom;
      const trace = process.env.BENCH_TRACE && run === 1 ? join(process.env.BENCH_TRACE, 'topology-graph-whole-pan.json') : undefined;
      if (trace) {
        mkdirSync(process.env.BENCH_TRACE!, { recursive: true });
        await browser.startTracing(page, { path: trace, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink', 'cc', 'viz', 'v8.execute'] });
      }
      const cdp = trace ? await page.context().newCDPSession(page) : undefined;
      if (cdp) {
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
        await cdp.send('Profiler.start');
      }
      await page.evaluate(START_FRAMES);
      await page.mouse.move(cx, cy);
      await page.mouse.down();
      for (let i = 0; i < 120; i++) {
        const a = (i / 120) * 2 * Math.PI;
        await page.mouse.move(cx + Math.cos(a) * pane.width * 0.35, cy + Math.sin(a) * pane.height * 0.35);
      }
      await page.mouse.up();
      const whole = await page.evaluate<{ frames: number[]; longTasks: number[] }>(STOP_FRAMES);
      if (cdp) {
        const { profile } = await cdp.send('Profiler.stop');
        writeFileSync(join(process.env.BENCH_TRACE!, 'topology-graph-whole-pan.cpuprofile'), JSON.stringify(profile));
        await cdp.detach();
      }
      if (trace) await browser.stopTracing();
      runs.push({ ...drawn, frames, longTasks, whole: { inDom: inDomWhole, view: fit.view, fitMs: fit.ms, fitLong, ...whole } });
    }
    if (process.env.BENCH_SCREENSHOT) {
      mkdirSync(process.env.BENCH_SCREENSHOT, { recursive: true });
      await page.screenshot({ path: join(process.env.BENCH_SCREENSHOT, 'topology-graph.png') });
    }

    console.log(`\nTopology graph, ${count} components (${DIST}), Chromium ${browser.version()} headless, Node ${process.version}, ${cpus().length} CPUs`);
    console.log(`load average (1 min) before / after: ${fmt(loadBefore, 2)} / ${fmt(loadavg()[0], 2)}`);
    console.log('\n| run | nodes | worker layout ms | navigation → first paint ms | nodes in the DOM | pan frames | frame ms p50 / p95 / max | long tasks (> 50 ms) |\n|---|---|---|---|---|---|---|---|');
    runs.forEach((r, i) => {
      const f = [...r.frames].sort((a, b) => a - b);
      console.log(`| ${i + 1} | ${r.nodes} | ${fmt(r.layoutMs, 0)} | ${fmt(r.paintMs, 0)} | ${r.inDom} | ${f.length} | ${fmt(percentile(f, 0.5), 1)} / ${fmt(percentile(f, 0.95), 1)} / ${fmt(f.at(-1) ?? 0, 1)} | ${r.longTasks.length}${r.longTasks.length ? ` (max ${fmt(Math.max(...r.longTasks), 0)} ms)` : ''} |`);
    });
    console.log('\nAfter Fit view (the whole graph drawn), the same pan:\n\n| run | Fit view: settled ms, longest task | drawn as | nodes in the DOM | pan frames | frame ms p50 / p95 / max | long tasks (> 50 ms) |\n|---|---|---|---|---|---|---|');
    runs.forEach((r, i) => {
      const f = [...r.whole.frames].sort((a, b) => a - b);
      console.log(`| ${i + 1} | ${fmt(r.whole.fitMs, 0)}, ${r.whole.fitLong.length ? `${fmt(Math.max(...r.whole.fitLong), 0)} ms` : 'none > 50 ms'} | ${r.whole.view} | ${r.whole.inDom} | ${f.length} | ${fmt(percentile(f, 0.5), 1)} / ${fmt(percentile(f, 0.95), 1)} / ${fmt(f.at(-1) ?? 0, 1)} | ${r.whole.longTasks.length}${r.whole.longTasks.length ? ` (max ${fmt(Math.max(...r.whole.longTasks), 0)} ms)` : ''} |`);
    });
  } finally {
    await browser?.close();
    await app?.close();
    await db.end();
    await embedded.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
