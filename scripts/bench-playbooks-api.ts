/**
 * npm run bench:playbooks (its second step): the run screens' reads at 100,000 runs and 300,000 actions (issue 14
 * "Performance": the runs-list query with count=exact and the run detail, p95 < 100 ms), and a printed line reaching
 * a /api/ws watcher.
 *
 * Seeds a fresh embedded PostgreSQL (or DATABASE_URL) with 50 playbooks, 2,000 checks, 100,000 finished runs over 60
 * days (every 10th a child run) and 3 actions each, serves the real app on a loopback port and measures with
 * autocannon in a child process (scripts/lib/load.ts): the reference UI's runs list as it sends it (URLSearchParams,
 * five embeds, Prefer count=exact; a page of 50 at random offsets of the first 20 pages, then with a status filter and
 * a 7-day window, then by playbook), the run detail (GET /api/playbook/run/{id}/status, the UI's run query with its
 * embeds, and rpc/get_playbook_run_actions) for random runs. Then a live line: a watcher on /api/ws, 100 lines
 * written through the engine's log writer (100 ms batches) 30 ms apart: write → receipt p50/p95. BENCH_SECONDS
 * (default 10) per run; BENCH_CONNECTIONS (default 4). Prints a table; no assertions.
 */
import { cpus, loadavg } from 'node:os';
import WebSocket from 'ws';
import { buildApp } from '../server/app.js';
import { loadConfig } from '../server/config.js';
import { SecretMasker } from '../server/lib/secret-mask.js';
import { ActionLogWriter } from '../server/modules/playbooks/log-writer.js';
import { adminToken, benchDatabase, fmt, loadGenerator, overHttp, percentile, summarise, type LoadSpec } from './lib/load.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const RUNS = 100_000;
const ACTIONS_PER_RUN = 3;
const PAGE = 50;
const TARGET_MS = 100;

async function seed(db: import('pg').Pool) {
  await db.query(`INSERT INTO playbooks (name, title, category, spec, source)
    SELECT 'bench-' || i, 'Bench ' || i, 'Bench', jsonb_build_object('title', 'Bench ' || i,
      'actions', jsonb_build_array(jsonb_build_object('name', 'a', 'exec', jsonb_build_object('script', 'echo a')),
                                   jsonb_build_object('name', 'b', 'exec', jsonb_build_object('script', 'echo b')),
                                   jsonb_build_object('name', 'c', 'exec', jsonb_build_object('script', 'echo c')))), 'UI'
    FROM generate_series(1, 50) i`);
  await db.query(`INSERT INTO canaries (name, spec, source) VALUES ('bench', '{}', 'UI')`);
  await db.query(`INSERT INTO checks (canary_id, type, name, status)
    SELECT (SELECT id FROM canaries WHERE name = 'bench'), 'http', 'check-' || i, 'healthy' FROM generate_series(1, 2000) i`);
  const statuses = `(ARRAY['completed','completed','completed','failed','cancelled','timed_out','completed','failed'])`;
  await db.query(`WITH p AS (SELECT array_agg(id ORDER BY name) AS ids FROM playbooks),
                       c AS (SELECT array_agg(id ORDER BY name) AS ids FROM checks),
                       who AS (SELECT id FROM people WHERE name = 'System')
    INSERT INTO playbook_runs (playbook_id, spec, status, created_at, start_time, end_time, scheduled_time, created_by, check_id, parameters)
    SELECT p.ids[1 + i % 50], '{"actions":[{"name":"a"},{"name":"b"},{"name":"c"}]}'::jsonb, ${statuses}[1 + i % 8],
           now() - make_interval(secs => i * 51.84), now() - make_interval(secs => i * 51.84 - 1),
           now() - make_interval(secs => i * 51.84 - 9), now() - make_interval(secs => i * 51.84), who.id,
           CASE WHEN i % 3 = 0 THEN c.ids[1 + i % 2000] END, jsonb_build_object('n', i::text)
      FROM p, c, who, generate_series(1, ${RUNS}) i`);
  // every 10th run gets a child (a retry) from the run before it
  await db.query(`WITH r AS (SELECT id, row_number() OVER (ORDER BY created_at) AS n FROM playbook_runs)
    UPDATE playbook_runs x SET parent_id = prev.id FROM r cur JOIN r prev ON prev.n = cur.n - 1
     WHERE x.id = cur.id AND cur.n % 10 = 0`);
  await db.query(`INSERT INTO playbook_run_actions (name, status, playbook_run_id, start_time, end_time, scheduled_time, result)
    SELECT (ARRAY['a','b','c'])[k], 'completed', r.id, r.start_time + make_interval(secs => k), r.start_time + make_interval(secs => k + 1),
           r.start_time + make_interval(secs => k), jsonb_build_object('stdout', 'out ' || k, 'exitCode', 0)
      FROM playbook_runs r, generate_series(1, ${ACTIONS_PER_RUN}) k`);
  await db.query('VACUUM ANALYZE playbook_runs, playbook_run_actions, playbooks, checks');
}

const LIST_SELECT = ['*', 'created_by(id,name,avatar)', 'playbooks(id,name,title,spec,icon)', 'component:components(id,name,icon)',
  'check:checks(id,name,icon)', 'config:config_items(id,name,type,config_class)'].join(',');
const DETAIL_SELECT = ['*', 'created_by(id,name,email,avatar)', 'playbooks(id,name,title,spec)', 'component:components(id,name,icon)',
  'config:config_items(id,name,type,config_class)', 'check:checks(id,name,icon)',
  'playbook_approvals(*, person_id(id,name,email,avatar), team_id(*))'].join(',');

/** The reference UI's runs-list URL (getPlaybookRuns), built the way it builds it. */
function listPath(offset: number, extra: { status?: string; playbook?: string; days?: number } = {}) {
  const p = new URLSearchParams();
  if (extra.status) p.append('status', `eq.${extra.status}`);
  p.append('parent_id', 'is.null');
  p.append('limit', String(PAGE));
  p.append('offset', String(offset));
  p.append('order', 'created_at.desc');
  if (extra.days) {
    const ends = new Date().toISOString();
    const starts = new Date(Date.now() - extra.days * 86_400_000).toISOString();
    p.append('or', `(and(start_time.gte.${starts},start_time.lte.${ends}),and(created_at.gte.${starts},created_at.lte.${ends}))`);
  }
  if (extra.playbook) p.append('playbook_id', `eq.${extra.playbook}`);
  p.append('select', LIST_SELECT);
  return `/api/db/playbook_runs?${p.toString()}`;
}

/** A watcher on /api/ws: write → receipt of `n` lines written `gapMs` apart through the engine's log writer. */
async function liveLatency(app: Awaited<ReturnType<typeof buildApp>>, base: string, token: string, runId: string, actionId: string, n: number, gapMs: number) {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/api/ws`, { headers: { authorization: `Bearer ${token}` } });
  const sent = new Map<number, number>();
  const latencies: number[] = [];
  let done: () => void = () => undefined;
  const all = new Promise<void>((ok) => (done = ok));
  await new Promise<void>((ok, fail) => {
    ws.on('error', fail);
    ws.on('message', (data) => {
      const m = JSON.parse(String(data));
      if (m.type === 'ready') ws.send(JSON.stringify({ type: 'watch', run_id: runId }));
      if (m.type === 'watching') ok();
      if (m.type === 'log') {
        const i = Number(/^line (\d+)/.exec(m.text)?.[1]);
        const t0 = sent.get(i);
        if (t0 !== undefined) latencies.push(performance.now() - t0);
        if (latencies.length === n) done();
      }
    });
  });
  const writer = new ActionLogWriter(app.db, runId, actionId, new SecretMasker());
  for (let i = 0; i < n; i++) {
    sent.set(i, performance.now());
    writer.write('stdout', `line ${i}\n`);
    await new Promise((r) => setTimeout(r, gapMs));
  }
  await writer.close();
  await Promise.race([all, new Promise((r) => setTimeout(r, 10_000))]);
  ws.terminate();
  return latencies.sort((a, b) => a - b);
}

/** BENCH_EXPLAIN=1 (or `only`: then stop): the plans of the runs list's count and page (what /api/db builds, written out) after seeding. */
async function explainLists(db: import('pg').Pool, playbook: string) {
  const week = `(start_time >= now() - interval '7 days' AND start_time <= now()) OR (created_at >= now() - interval '7 days' AND created_at <= now())`;
  const queries: [string, string][] = [
    ['count, all', 'SELECT count(*) FROM playbook_runs r WHERE r.parent_id IS NULL'],
    ['page, all (offset 500)', 'SELECT r.* FROM playbook_runs r WHERE r.parent_id IS NULL ORDER BY r.created_at DESC LIMIT 50 OFFSET 500'],
    ['count, failed + 7 days', `SELECT count(*) FROM playbook_runs r WHERE r.status = 'failed' AND r.parent_id IS NULL AND (${week})`],
    ['count, one playbook', `SELECT count(*) FROM playbook_runs r WHERE r.parent_id IS NULL AND r.playbook_id = '${playbook}'`],
    ['count, 7 days', `SELECT count(*) FROM playbook_runs r WHERE r.parent_id IS NULL AND (${week})`],
  ];
  for (const [name, sql] of queries) {
    const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`);
    console.log(`\n-- ${name}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`);
  }
}

async function main() {
  const database = await benchDatabase('console-bench-playbooks-api');
  const config = loadConfig({ DATABASE_URL: database.url, DEMO_DATA: 'false', LOG_LEVEL: 'silent', MODE: 'console', DB_POOL_MAX: '20', PLAYBOOK_ENGINE: 'off' });
  const app = await buildApp(config, { logger: false });
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as import('node:net').AddressInfo;
    const base = `http://127.0.0.1:${port}`;
    let t0 = performance.now();
    await seed(app.db);
    const seedSeconds = (performance.now() - t0) / 1000;
    const token = await adminToken(app.db);
    const auth = { authorization: `Bearer ${token}` };
    const runs = (await app.db.query<{ id: string }>('SELECT id FROM playbook_runs ORDER BY random() LIMIT 1000')).rows.map((r) => r.id);
    const playbooks = (await app.db.query<{ id: string }>('SELECT id FROM playbooks')).rows.map((r) => r.id);
    const version = (await app.db.query('SHOW server_version')).rows[0].server_version;
    const offsets = Array.from({ length: 20 }, (_, i) => i * PAGE);

    // the answers are what the UI expects, or the timings mean nothing
    const probe = await fetch(`${base}${listPath(0)}`, { headers: { ...auth, prefer: 'count=exact' } });
    const range = probe.headers.get('content-range');
    if (probe.status !== 206 || !range?.endsWith(`/${RUNS - RUNS / 10}`)) throw new Error(`runs list answered ${probe.status} ${range}: ${(await probe.text()).slice(0, 300)}`);
    const status = await fetch(`${base}/api/playbook/run/${runs[0]}/status`, { headers: auth });
    if (status.status !== 200 || (await status.json()).actions.length !== ACTIONS_PER_RUN) throw new Error(`status answered ${status.status}`);

    const spec = (paths: string[], headers: Record<string, string> = auth): LoadSpec => ({ url: base, headers, paths, connections: CONNECTIONS, duration: SECONDS });
    const counted = { ...auth, prefer: 'count=exact' };
    const scenarios: [string, LoadSpec][] = [
      ['runs list, page of 50, count=exact', spec(offsets.map((o) => listPath(o)), counted)],
      ['runs list, status + 7-day window, count=exact', spec(offsets.slice(0, 5).map((o) => listPath(o, { status: 'failed', days: 7 })), counted)],
      ['runs list, one playbook, count=exact', spec(playbooks.map((p) => listPath(0, { playbook: p })), counted)],
      ['run detail: GET /api/playbook/run/{id}/status', spec(runs.map((r) => `/api/playbook/run/${r}/status`))],
      ['run detail: the UI\'s run query (7 embeds)', spec(runs.map((r) => `/api/db/playbook_runs?id=eq.${r}&select=${encodeURIComponent(DETAIL_SELECT)}`))],
      ['run detail: rpc/get_playbook_run_actions', spec(runs.map((r) => `/api/db/rpc/get_playbook_run_actions?run_id=${r}`))],
    ];
    console.log(`seeded ${RUNS} runs, ${RUNS * ACTIONS_PER_RUN} actions in ${fmt(seedSeconds)} s; warming up`);
    if (process.env.BENCH_EXPLAIN) await explainLists(app.db, playbooks[0]);
    if (process.env.BENCH_EXPLAIN === 'only') return;
    for (const [, s] of scenarios) await overHttp({ ...s, duration: 2 });
    t0 = performance.now();
    const rows: [string, ReturnType<typeof summarise>][] = [];
    for (const [name, s] of scenarios) rows.push([name, summarise(await overHttp(s))]);

    const live = await app.db.query<{ run: string; action: string }>(
      `SELECT r.id AS run, a.id AS action FROM playbook_runs r JOIN playbook_run_actions a ON a.playbook_run_id = r.id LIMIT 1`);
    const lines = await liveLatency(app, base, token, live.rows[0].run, live.rows[0].action, 100, 30);

    console.log(`\n/api/playbook and the runs screens: PostgreSQL ${version}, Node ${process.version}, ${cpus().length} CPUs, load ${loadavg().map((l) => fmt(l)).join(' ')}, ${SECONDS} s per run, ${CONNECTIONS} connections, loopback`);
    console.log(`${RUNS} runs (${RUNS / 10} child runs), ${RUNS * ACTIONS_PER_RUN} actions; target p95 < ${TARGET_MS} ms\n`);
    const head = ['scenario', 'requests', 'req/s', 'p50 ms', 'p95 ms', 'p99 ms', 'failed', `p95<${TARGET_MS}`];
    const table = [head, ...rows.map(([name, s]) => [name, String(s.n), fmt(s.rps), fmt(s.p50, 2), fmt(s.p95, 2), fmt(s.p99, 2), String(s.failures), s.p95 < TARGET_MS ? 'yes' : 'NO'])];
    const widths = head.map((_, i) => Math.max(...table.map((r) => r[i].length)));
    for (const [i, r] of table.entries()) {
      console.log(r.map((cell, j) => (j === 0 ? cell.padEnd(widths[j]) : cell.padStart(widths[j]))).join('  '));
      if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
    }
    console.log(`\na printed line → a /api/ws watcher (log writer's 100 ms batches included): ${lines.length}/100 lines, p50 ${fmt(percentile(lines, 0.5))} ms, p95 ${fmt(percentile(lines, 0.95))} ms, max ${fmt(lines[lines.length - 1] ?? NaN)} ms`);
    console.log(`(measured in ${fmt((performance.now() - t0) / 1000)} s)`);
    if (rows.some(([, s]) => s.failures > 0)) process.exitCode = 1;
  } finally {
    await app.close();
    await database.close();
  }
}

if (process.argv.includes('--load')) await loadGenerator();
else await main();
