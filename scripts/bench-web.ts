/**
 * npm run bench:web: the web side of issue 3's performance requirement.
 *
 * 1. Initial JavaScript for /health, from dist/web (built when missing): the entry of index.html, every chunk it
 *    imports statically (the modulepreloads), and the /health route chunk with its static imports, found through
 *    the Vite manifest. Each file is gzipped with node:zlib level 9; budget 250 kB.
 * 2. The DataTable with 10,000 rows, in Chromium: the real server on a loopback port (temp DATA_DIR, embedded
 *    PostgreSQL), signed in, on /__bench/table. First screen: from the page's mount mark to the first screen of rows
 *    painted (median of BENCH_LOADS loads, default 5). Scroll: the table body from top to bottom in BENCH_STEPS steps
 *    (default 100, a frame between steps) while a PerformanceObserver collects long tasks; frame times from rAF.
 *
 * `--bundle-only` stops after step 1. BENCH_SKIP_BUILD=1 never builds; BENCH_BUILD=1 always rebuilds; BENCH_DIST=<dir>
 * builds into (and measures, and has the bench server serve through WEB_DIR) another directory, so a bench can run
 * beside other builds and test runs on the same machine;
 * BENCH_CPU_PROFILE=<file> saves a V8 CPU profile of the scroll (build with `--minify false` for readable names). Next
 * to the long tasks, the scroll's main-thread CPU time (CDP ThreadTime), which the machine's load stretches less.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = process.env.BENCH_DIST ? resolve(process.env.BENCH_DIST) : join(ROOT, 'dist/web');
const MANIFEST = join(DIST, '.vite/manifest.json');
const BUDGET_KB = 250;
const FIRST_SCREEN_TARGET_MS = 300;
const LONG_TASK_TARGET_MS = 50;
const LOADS = Number(process.env.BENCH_LOADS ?? 5);
const STEPS = Number(process.env.BENCH_STEPS ?? 100);
const BENCH_PATH = '/__bench/table'; // web/src/app/routes/bench-table-page.tsx
const ROWS = 10_000;
const ADMIN = { email: 'bench-admin@bench.test', password: 'bench-admin-password-1' };
const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];

// ---------------------------------------------------------------------------------------------------------------
// formatting

const kb = (bytes: number) => (bytes / 1000).toFixed(1);
const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

function printTable(head: string[], rows: string[][], leftColumns = 1) {
  const table = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...table.map((r) => (r[i] ?? '').length)));
  for (const [i, r] of table.entries()) {
    console.log(r.map((cell, j) => (j < leftColumns ? cell.padEnd(widths[j]) : cell.padStart(widths[j]))).join('  ').trimEnd());
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}

function percentile(sorted: number[], p: number) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] : NaN;
}
const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 0.5);

// ---------------------------------------------------------------------------------------------------------------
// 1. the bundle

interface ManifestChunk {
  file: string;
  src?: string;
  name?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}
type Manifest = Record<string, ManifestChunk>;

function buildIfNeeded() {
  const missing = !existsSync(join(DIST, 'index.html')) || !existsSync(MANIFEST);
  if (process.env.BENCH_SKIP_BUILD === '1' && missing) throw new Error('dist/web or its manifest is missing and BENCH_SKIP_BUILD=1');
  if (!missing && process.env.BENCH_BUILD !== '1') return;
  console.log(`building the web bundle (vite build --config web/vite.config.ts --outDir ${DIST})…`);
  const vite = join(ROOT, 'node_modules/.bin/vite');
  const r = spawnSync(vite, ['build', '--config', 'web/vite.config.ts', '--outDir', DIST, '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`vite build failed (${r.status})`);
}

/**
 * The module the /health route lazily imports, read from the route table (`page: lazy(() => import('…'))` in the
 * entry whose path is `paths.health`), as a manifest key (`src/…`). Null while /health has no page of its own.
 */
function healthRouteModule(manifest: Manifest): string | null {
  const file = join(ROOT, 'web/src/app/route-table.ts');
  const source = readFileSync(file, 'utf8');
  const start = source.search(/path:\s*paths\.health\s*,/);
  if (start < 0) throw new Error('no /health route (path: paths.health) in web/src/app/route-table.ts');
  // the route's object literal: from its opening brace to the matching closing one
  const open = source.lastIndexOf('{', start);
  let depth = 0;
  let end = open;
  for (; end < source.length; end++) {
    if (source[end] === '{') depth++;
    else if (source[end] === '}' && --depth === 0) break;
  }
  const spec = /import\(\s*['"]([^'"]+)['"]\s*\)/.exec(source.slice(open, end))?.[1];
  if (!spec) return null;
  const base = spec.startsWith('@contracts/') ? join(ROOT, 'server/contracts', spec.slice(11)) : resolve(dirname(file), spec);
  const key = posix.normalize(base.slice(join(ROOT, 'web').length + 1).split('\\').join('/'));
  for (const candidate of [key, `${key}.tsx`, `${key}.ts`, `${key}/index.tsx`, `${key}/index.ts`]) {
    if (manifest[candidate]) return candidate;
  }
  throw new Error(`the /health route imports ${spec}, which is not in the Vite manifest`);
}

/** Manifest keys reachable through static imports, in load order (depth first, the importer last). */
function staticClosure(manifest: Manifest, roots: string[]): string[] {
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const dep of manifest[key]?.imports ?? []) visit(dep);
  };
  roots.forEach(visit);
  return [...seen];
}

interface BundleRow {
  file: string;
  why: string;
  raw: number;
  gzip: number;
}

const gzipSize = (file: string) => gzipSync(readFileSync(join(DIST, file)), { level: 9 }).length;

function measureBundle() {
  const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as Manifest;
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  // what index.html loads is the truth: its module scripts (the entry, or the chunk the entry was merged into) and
  // its modulepreloads; the manifest then gives each one's static imports
  const scripts = [...html.matchAll(/<script[^>]+type="module"[^>]+src="\/([^"]+)"/g)].map((m) => m[1]);
  const preloads = [...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="\/([^"]+)"/g)].map((m) => m[1]);
  if (!scripts.length) throw new Error('index.html loads no module script');
  const keyOf = (file: string) => Object.keys(manifest).find((k) => manifest[k].file === file);
  const entryKeys = [...scripts, ...preloads].map((f) => {
    const key = keyOf(f);
    if (!key) throw new Error(`index.html loads ${f}, which is not in the Vite manifest`);
    return key;
  });
  const entryFile = scripts[scripts.length - 1];

  const routeKey = healthRouteModule(manifest);
  const entryClosure = staticClosure(manifest, entryKeys);
  const routeClosure = routeKey ? staticClosure(manifest, [routeKey]).filter((k) => !entryClosure.includes(k)) : [];
  const byFile = new Map<string, BundleRow>();
  const add = (file: string, why: string) => {
    if (!file.endsWith('.js') || byFile.has(file)) return;
    const raw = readFileSync(join(DIST, file)).length;
    byFile.set(file, { file, why, raw, gzip: gzipSize(file) });
  };
  for (const f of scripts) add(f, f === entryFile ? 'entry (index.html <script>)' : 'index.html <script>');
  for (const k of entryClosure) add(manifest[k].file, preloads.includes(manifest[k].file) ? 'modulepreload' : 'static import of the entry');
  for (const f of preloads) add(f, 'modulepreload');
  for (const k of routeClosure) add(manifest[k].file, k === routeKey ? '/health route chunk' : 'static import of the /health chunk');
  const rows = [...byFile.values()];
  const total = rows.reduce((n, r) => n + r.gzip, 0);
  const css = [...new Set([...entryClosure, ...routeClosure].flatMap((k) => manifest[k].css ?? []))];
  const cssGzip = css.reduce((n, f) => n + gzipSize(f), 0);

  // for context: what stays out of the initial load
  const initial = new Set(rows.map((r) => r.file));
  const lazy = Object.values(manifest)
    .filter((c) => c.file.endsWith('.js') && !initial.has(c.file) && (c.isDynamicEntry || c.name))
    .map((c) => ({ file: c.file, gzip: gzipSize(c.file) }))
    .sort((a, b) => b.gzip - a.gzip);

  return { rows, total, cssGzip, routeKey, lazy };
}

function printBundle(b: ReturnType<typeof measureBundle>) {
  console.log(`\nInitial JavaScript for /health (${DIST}, gzip -9 per file)`);
  console.log(b.routeKey ? `/health route module: ${b.routeKey}` : '/health has no page of its own yet: it renders the "Not available" page from the entry');
  printTable(
    ['file', 'loaded as', 'raw kB', 'gzip kB'],
    [
      ...b.rows.map((r) => [r.file, r.why, kb(r.raw), kb(r.gzip)]),
      ['total', `${b.rows.length} files`, kb(b.rows.reduce((n, r) => n + r.raw, 0)), kb(b.total)],
    ],
    2,
  );
  const ok = b.total <= BUDGET_KB * 1000;
  console.log(`total ${kb(b.total)} kB gzip vs budget ${BUDGET_KB} kB: ${ok ? 'OK' : 'OVER'} (margin ${kb(BUDGET_KB * 1000 - b.total)} kB); CSS ${kb(b.cssGzip)} kB gzip`);
  console.log(`largest lazy chunks: ${b.lazy.slice(0, 6).map((c) => `${c.file} ${kb(c.gzip)} kB`).join(', ')}`);
  return ok;
}

// ---------------------------------------------------------------------------------------------------------------
// 2. the server and the browser

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as import('node:net').AddressInfo;
      srv.close(() => ok(port));
    });
  });
}

interface RunningServer {
  base: string;
  stop: () => Promise<void>;
}

/** The real server (tsx server/main.ts) on a fresh temp DATA_DIR, as tests/e2e/web-server.mjs starts it. */
async function startServer(): Promise<RunningServer> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'console-bench-web-'));
  const child: ChildProcess = spawn(join(ROOT, 'node_modules/.bin/tsx'), ['server/main.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      DEMO_DATA: 'false',
      LOG_LEVEL: 'warn',
      LOGIN_RATE_LIMIT: '1000',
      PUBLIC_URL: base,
      WEB_DIR: DIST,
    },
  });
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM'); // the server stops its embedded PostgreSQL on SIGTERM
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} while starting`);
      if (Date.now() > deadline) throw new Error('the server did not become ready within 120 s');
      const ready = await fetch(`${base}/readyz`).then((r) => r.ok, () => false);
      if (ready) break;
      await new Promise((r) => setTimeout(r, 250));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { base, stop };
}

interface LoadFigures {
  /** page mount mark → a screenful of rows in the DOM */
  mountToRows: number;
  /** page mount mark → first screen of rows painted */
  mountToPaint: number;
  /** navigation start → first screen of rows painted (includes loading the app, the session and the chunk) */
  navToPaint: number;
  rowsInDom: number;
}

// The in-page code is plain JavaScript text: tsx (esbuild keepNames) would wrap named functions of a TypeScript
// callback in a `__name` helper that does not exist in the page.
const TABLE = `document.querySelector('table[aria-label="Benchmark checks"]')`;

const READ_LOAD = `(() => {
  const mark = (name) => performance.getEntriesByName(name, 'mark')[0].startTime;
  return {
    mountToRows: mark('bench-table:rows') - mark('bench-table:mount'),
    mountToPaint: mark('bench-table:painted') - mark('bench-table:mount'),
    navToPaint: mark('bench-table:painted'),
    rowsInDom: ${TABLE}.querySelectorAll('tbody tr[data-index]').length,
  };
})()`;

/** One load of the bench page; the page sets the marks (web/src/app/routes/bench-table-page.tsx). */
async function loadOnce(page: Page, base: string): Promise<LoadFigures> {
  await page.goto(`${base}${BENCH_PATH}`, { waitUntil: 'load' });
  await page.waitForFunction(() => performance.getEntriesByName('bench-table:painted', 'mark').length > 0, undefined, {
    timeout: 30_000,
  });
  return page.evaluate<LoadFigures>(READ_LOAD);
}

interface ScrollFigures {
  steps: number;
  /** steps whose next frame still showed rows that do not cover the viewport */
  blank: number;
  scrolledPx: number;
  seconds: number;
  longTasks: number[];
  frames: number[];
  lastRowIndex: number;
}

/** Scrolls the table body top to bottom in `steps` steps, a frame apart, collecting long tasks and frame times. */
const SCROLL = (steps: number) => `(async () => {
  const steps = ${steps};
  const table = ${TABLE};
  const scroller = table && table.parentElement;
  if (!scroller) throw new Error('no bench table');
  const frame = () => new Promise((ok) => requestAnimationFrame(ok));
  scroller.scrollTop = 0;
  await frame();
  await frame();
  const longTasks = [];
  const t0 = performance.now();
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.startTime >= t0) longTasks.push(e.duration);
  });
  observer.observe({ type: 'longtask', buffered: true });
  const frames = [];
  let last = await frame();
  const max = scroller.scrollHeight - scroller.clientHeight;
  // a step is "blank" when, at the next frame, the rows in the DOM do not cover the viewport (a deferred window)
  const rowPx = 35;
  let blank = 0;
  const covered = () => {
    const rows = table.querySelectorAll('tbody tr[data-index]');
    if (!rows.length) return false;
    const first = Number(rows[0].getAttribute('data-index'));
    const lastIndex = Number(rows[rows.length - 1].getAttribute('data-index'));
    const top = Math.floor(scroller.scrollTop / rowPx);
    const bottom = Math.min(${ROWS} - 1, Math.floor((scroller.scrollTop + scroller.clientHeight - 36) / rowPx));
    return first <= top && lastIndex >= bottom;
  };
  for (let i = 1; i <= steps; i++) {
    scroller.scrollTop = Math.round((max * i) / steps);
    const now = await frame();
    if (!covered()) blank++;
    frames.push(now - last);
    last = now;
  }
  // let the last step's work land, then collect
  for (let i = 0; i < 3; i++) {
    const now = await frame();
    frames.push(now - last);
    last = now;
  }
  await new Promise((ok) => setTimeout(ok, 100));
  for (const e of observer.takeRecords()) if (e.startTime >= t0) longTasks.push(e.duration);
  observer.disconnect();
  const rows = table.querySelectorAll('tbody tr[data-index]');
  const lastRow = rows[rows.length - 1];
  return {
    steps,
    blank,
    scrolledPx: scroller.scrollTop,
    seconds: (performance.now() - t0) / 1000,
    longTasks,
    frames,
    lastRowIndex: Number(lastRow ? lastRow.getAttribute('data-index') : -1),
  };
})()`;

async function scrollOnce(page: Page, steps: number): Promise<ScrollFigures> {
  return page.evaluate<ScrollFigures>(SCROLL(steps));
}

async function measureTable(base: string) {
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: { width: 1366, height: 800 } });
    // the browser context's request client shares its cookie jar: this signs the page in
    const login = await context.request.post(`${base}/api/auth/login`, { data: { username: ADMIN.email, password: ADMIN.password } });
    if (login.status() !== 200) throw new Error(`sign-in answered ${login.status()}: ${await login.text()}`);
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    page.on('pageerror', (err) => console.warn(`page error: ${err.message}`));

    // warm-up: caches the chunks and compiles the code once, as a user's second visit would
    await loadOnce(page, base);
    const loads: LoadFigures[] = [];
    for (let i = 0; i < LOADS; i++) loads.push(await loadOnce(page, base));
    // scroll on the last load; a warm-up pass first would hide the first-visit cost of rows, so measure the first
    // BENCH_CPU_PROFILE=file.cpuprofile records the scroll in a V8 profile (open it in Chrome's DevTools)
    const profilePath = process.env.BENCH_CPU_PROFILE;
    const cdp = await context.newCDPSession(page);
    // the renderer main thread's CPU time (CDP Performance ThreadTime): on this shared 2-core machine wall times
    // and long tasks stretch with the load; the work the scroll costs does not
    await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
    const threadTime = async () => ((await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ThreadTime')?.value ?? NaN) * 1000;
    if (profilePath) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
    }
    const cpu0 = await threadTime();
    const scroll = await scrollOnce(page, STEPS);
    const scrollCpu = (await threadTime()) - cpu0;
    if (profilePath) {
      const { profile } = await cdp.send('Profiler.stop');
      writeFileSync(profilePath, JSON.stringify(profile));
      console.log(`CPU profile of the scroll written to ${profilePath}`);
    }

    // what the browser really fetched as JavaScript for /health (cross-check for the static figure)
    await page.goto(`${base}/health`, { waitUntil: 'networkidle' });
    const fetched = await page.evaluate<string[]>(
      `performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname).filter((p) => p.endsWith('.js'))`,
    );
    return { loads, scroll: { ...scroll, cpu: scrollCpu }, fetched: fetched.map((p) => p.replace(/^\//, '')), chrome: browser.version() };
  } finally {
    await browser?.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------

async function main() {
  buildIfNeeded();
  const bundle = measureBundle();
  let ok = printBundle(bundle);
  if (process.argv.includes('--bundle-only')) {
    if (!ok) process.exitCode = 1;
    return;
  }

  const loadBefore = loadavg()[0];
  const server = await startServer();
  let result: Awaited<ReturnType<typeof measureTable>>;
  try {
    result = await measureTable(server.base);
  } finally {
    await server.stop();
  }
  const { loads, scroll, fetched, chrome } = result;

  const fetchedGzip = fetched.reduce((n, f) => n + (existsSync(join(DIST, f)) ? gzipSize(f) : 0), 0);
  const staticFiles = new Set(bundle.rows.map((r) => r.file));
  const extra = fetched.filter((f) => !staticFiles.has(f));
  console.log(
    `browser cross-check: /health fetched ${fetched.length} JS files, ${kb(fetchedGzip)} kB gzip` +
      (extra.length ? ` (beyond the static set: ${extra.join(', ')})` : ' (the same files as the static set)'),
  );

  console.log(`\nDataTable, ${ROWS.toLocaleString('en')} rows (${BENCH_PATH}), Chromium ${chrome} headless, Node ${process.version}, ${cpus().length} CPUs`);
  console.log(`load average (1 min) before / after: ${fmt(loadBefore, 2)} / ${fmt(loadavg()[0], 2)}`);
  const mounts = loads.map((l) => l.mountToPaint);
  const navs = loads.map((l) => l.navToPaint);
  const sortedFrames = [...scroll.frames].sort((a, b) => a - b);
  const longMax = scroll.longTasks.length ? Math.max(...scroll.longTasks) : 0;
  const firstOk = median(mounts) < FIRST_SCREEN_TARGET_MS;
  const scrollOk = longMax <= LONG_TASK_TARGET_MS;
  printTable(
    ['measure', 'value', 'target', 'result'],
    [
      [`first screen, mount → rows painted (median of ${LOADS})`, `${fmt(median(mounts))} ms`, `< ${FIRST_SCREEN_TARGET_MS} ms`, firstOk ? 'OK' : 'MISS'],
      ['  mount → a screenful of rows in the DOM (median)', `${fmt(median(loads.map((l) => l.mountToRows)))} ms`, '', ''],
      ['  each load', mounts.map((m) => fmt(m, 0)).join(' / '), '', ''],
      [`navigation start → rows painted (median of ${LOADS})`, `${fmt(median(navs))} ms`, '', ''],
      ['rows in the DOM on the first screen', String(loads.at(-1)?.rowsInDom ?? '-'), '', ''],
      [`scroll, ${scroll.steps} steps over ${Math.round(scroll.scrolledPx).toLocaleString('en')} px`, `${fmt(scroll.seconds, 2)} s`, '', ''],
      ['  main-thread CPU during the scroll (per step)', `${fmt(scroll.cpu, 0)} ms (${fmt(scroll.cpu / scroll.steps)} ms)`, '', ''],
      ['long tasks while scrolling', String(scroll.longTasks.length), '0 over 50 ms', scrollOk ? 'OK' : 'MISS'],
      ['longest task while scrolling', scroll.longTasks.length ? `${fmt(longMax)} ms` : '-', `≤ ${LONG_TASK_TARGET_MS} ms`, scrollOk ? 'OK' : 'MISS'],
      ['steps whose next frame was not yet filled with rows', `${scroll.blank} of ${scroll.steps}`, '', ''],
      ['frame time p50 / p95 / max', `${fmt(percentile(sortedFrames, 0.5))} / ${fmt(percentile(sortedFrames, 0.95))} / ${fmt(sortedFrames.at(-1) ?? NaN)} ms`, '', ''],
      ['last row reached', `${scroll.lastRowIndex + 1} of ${ROWS}`, String(ROWS), scroll.lastRowIndex + 1 === ROWS ? 'OK' : 'MISS'],
    ],
  );
  ok = ok && firstOk && scrollOk && scroll.lastRowIndex + 1 === ROWS;
  if (!ok) process.exitCode = 1;
}

await main();
