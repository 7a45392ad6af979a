/**
 * The playbook engine's throughput and pickup (issue 14 "Performance"): 1,000 queued runs of a 3-action playbook (exec
 * `echo`, http GET to a loopback server, sql `SELECT` on the console's database) drained by 2 replicas, each its own
 * process running the engine (PLAYBOOK_CONCURRENCY 8 by default): runs/s. Then pickup latency when idle: runs created
 * one at a time, the time from the run's creation to its claim (both read from the database clock), p50/p99.
 * Prints a table; no assertions.
 *
 *   npx tsx scripts/bench-playbooks.ts     (DATABASE_URL to use an existing server; BENCH_RUNS=1000, BENCH_PICKUPS=100)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startEmbeddedPostgres } from '../server/db/embedded.js';
import { migrate } from '../server/db/migrate.js';
import { PlaybookExecutor } from '../server/modules/playbooks/executor.js';
import { createRun } from '../server/modules/playbooks/runs.js';
import { wakeEngines } from '../server/modules/playbooks/engine-queries.js';

const SELF = fileURLToPath(import.meta.url);
const quiet = { info() {}, warn() {}, debug() {} };

/** The statements a replica's pool ran, by their first 60 characters (for queries per run). */
function countQueries(db: pg.Pool): Map<string, number> {
  const counts = new Map<string, number>();
  const query = db.query.bind(db) as (...a: unknown[]) => unknown;
  (db as unknown as { query: (...a: unknown[]) => unknown }).query = (...a: unknown[]) => {
    const q = a[0] as string | { text?: string };
    const text = (typeof q === 'string' ? q : q?.text ?? '?').replace(/\s+/g, ' ').trim().slice(0, 60);
    counts.set(text, (counts.get(text) ?? 0) + 1);
    return query(...a);
  };
  return counts;
}

/** CPU ticks (1/100 s) of a process: its own, and its waited-for children's. */
async function ticks(pid: number): Promise<{ own: number; children: number; ppid: number }> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // after the comm: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14)
  return { ppid: Number(f[1] ?? 0), own: Number(f[11] ?? 0) + Number(f[12] ?? 0), children: Number(f[13] ?? 0) + Number(f[14] ?? 0) };
}

/**
 * CPU ms of a process tree: the process, its children alive now (a replica's exec spawner) and those it reaped, and
 * what those live children reaped (the scripts the spawner started); one level below for postgres.
 */
async function treeCpuMs(pid: number): Promise<{ own: number; children: number; exited: number; helpers: number }> {
  const root = await ticks(pid);
  let children = root.children;
  let helpers = 0;
  for (const e of await readdir('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const t = await ticks(Number(e));
    if (t.ppid === pid) {
      children += t.own + t.children;
      helpers += t.own;
    }
  }
  return { own: root.own * 10, children: children * 10, exited: root.children * 10, helpers: helpers * 10 };
}

/** Replica mode: `--replica name url` runs one engine until SIGTERM. */
async function replica(name: string, url: string): Promise<void> {
  const db = new pg.Pool({ connectionString: url, max: 12 });
  const counts = countQueries(db);
  process.on('message', (m) => {
    if (m === 'stats') process.send!({ queries: [...counts.entries()] });
    if (m === 'reset') counts.clear();
  });
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-playbooks-replica-'));
  const key = randomBytes(32);
  const engine = new PlaybookExecutor({
    db, connectionString: url, log: { info() {}, warn: (o, m) => console.error(m, o) }, replica: name,
    concurrency: Number(process.env.PLAYBOOK_CONCURRENCY ?? 8),
    actionOptions: { dataDir, execEnabled: true }, secretsKey: () => key,
  });
  await engine.start();
  process.stdout.write('ready\n');
  process.once('SIGTERM', () => {
    void engine.stop(1_000).then(() => db.end()).then(() => rm(dataDir, { recursive: true, force: true })).then(() => process.exit(0));
  });
}

function startReplica(name: string, url: string): Promise<ChildProcess> {
  // BENCH_CPU_PROF=dir: each replica writes a V8 CPU profile there when it exits
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [];
  const child = spawn(process.execPath, [...prof, '--import', 'tsx', SELF, '--replica', name, url], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('ready')) resolve(child); });
    child.once('exit', (code) => reject(new Error(`replica ${name} exited (${code})`)));
  });
}

function replicaStats(child: ChildProcess): Promise<[string, number][]> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve((m as { queries: [string, number][] }).queries));
    child.send('stats');
  });
}

async function postmasterPid(dir: string | undefined): Promise<number | null> {
  if (!dir) return null;
  const text = await readFile(join(dir, 'pg', 'postmaster.pid'), 'utf8').catch(() => '');
  return Number(text.split('\n')[0]) || null;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function main() {
  const RUNS = Number(process.env.BENCH_RUNS ?? 1000);
  const PICKUPS = Number(process.env.BENCH_PICKUPS ?? 100);
  let dir: string | undefined;
  let stop = async () => {};
  let url = process.env.DATABASE_URL;
  if (!url) {
    dir = await mkdtemp(join(tmpdir(), 'bench-playbooks-'));
    const embedded = await startEmbeddedPostgres(dir, 0, quiet);
    url = embedded.url;
    stop = () => embedded.stop();
  }
  const peer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
  const peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}/ok`;
  const db = new pg.Pool({ connectionString: url, max: 4 });
  const replicas: ChildProcess[] = [];
  try {
    await migrate(db);
    const person = (await db.query<{ id: string }>("INSERT INTO people (name, email) VALUES ('Bench', $1) RETURNING id",
      [`bench-${randomBytes(3).toString('hex')}@bench.test`])).rows[0].id;
    const spec = {
      actions: [
        { name: 'exec', exec: { script: 'echo "hello from $HOSTNAME"' } },
        { name: 'http', http: { url: peerUrl, method: 'GET' } },
        { name: 'sql', sql: { driver: 'postgres', url, query: 'SELECT count(*) AS n FROM playbook_runs' } },
      ],
    };
    const pb = (await db.query<{ id: string }>("INSERT INTO playbooks (name, title, spec) VALUES ($1, $1, $2) RETURNING id",
      [`bench-${randomBytes(3).toString('hex')}`, spec])).rows[0];
    replicas.push(await startReplica('bench-a', url), await startReplica('bench-b', url));

    // queue RUNS at once (one statement, one wake-up), then time the drain
    const pgPid = await postmasterPid(dir);
    for (const r of replicas) r.send('reset');
    const cpu0 = await Promise.all([...replicas.map((r) => treeCpuMs(r.pid!)), pgPid ? treeCpuMs(pgPid) : null]);
    const t0 = Date.now();
    const { rows: queued } = await db.query<{ id: string }>(
      `INSERT INTO playbook_runs (playbook_id, spec, status, created_by, parameters)
       SELECT $1, $2, 'scheduled', $3, '{}' FROM generate_series(1, $4) RETURNING id`, [pb.id, spec, person, RUNS]);
    await wakeEngines(db);
    const ids = queued.map((r) => r.id);
    for (;;) {
      const { rows } = await db.query<{ done: number; ok: number }>(
        `SELECT count(*) FILTER (WHERE status IN ('completed', 'failed', 'cancelled', 'timed_out'))::int AS done,
                count(*) FILTER (WHERE status = 'completed')::int AS ok FROM playbook_runs WHERE id = ANY($1)`, [ids]);
      if (rows[0].done === RUNS) {
        const secs = (Date.now() - t0) / 1000;
        const failed = await db.query<{ error: string | null; n: number }>(
          `SELECT coalesce(a.error, r.error) AS error, count(*)::int AS n FROM playbook_runs r
             LEFT JOIN playbook_run_actions a ON a.playbook_run_id = r.id AND a.status = 'failed'
            WHERE r.id = ANY($1) AND r.status <> 'completed' GROUP BY 1 ORDER BY 2 DESC LIMIT 3`, [ids]);
        console.log('\nplaybook engine: drain (2 replica processes, PLAYBOOK_CONCURRENCY', process.env.PLAYBOOK_CONCURRENCY ?? 8, 'each)');
        console.table([{ runs: RUNS, actions: RUNS * 3, completed: rows[0].ok, seconds: secs.toFixed(2), 'runs/s': (RUNS / secs).toFixed(1) }]);
        if (failed.rows.length) console.log('not completed:', failed.rows);
        const steps = await db.query(
          `SELECT name, round(avg(extract(epoch FROM end_time - start_time) * 1000)::numeric, 1) AS "avg ms",
                  round((percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM end_time - start_time) * 1000))::numeric, 1) AS "p99 ms"
             FROM playbook_run_actions WHERE playbook_run_id = ANY($1) GROUP BY name ORDER BY name`, [ids]);
        // the engine's own share: a run's time outside its actions (claim, template env, rows, final status)
        const whole = await db.query(
          `SELECT round(avg(extract(epoch FROM r.end_time - r.start_time) * 1000)::numeric, 1) AS "run avg ms",
                  round(avg((extract(epoch FROM r.end_time - r.start_time) - a.busy) * 1000)::numeric, 1) AS "engine avg ms a run",
                  round(avg(extract(epoch FROM r.start_time - r.created_at) * 1000)::numeric, 1) AS "queued avg ms"
             FROM playbook_runs r
             JOIN LATERAL (SELECT sum(extract(epoch FROM end_time - start_time)) AS busy FROM playbook_run_actions
                            WHERE playbook_run_id = r.id) a ON true
            WHERE r.id = ANY($1)`, [ids]);
        console.table(steps.rows);
        console.table(whole.rows);
        // CPU per run (load-insensitive): the replicas' node processes, what they spawned (bash), PostgreSQL (every
        // backend, the sql action's too, and this script's polling); statements the replicas' pools sent per run
        const cpu1 = await Promise.all([...replicas.map((r) => treeCpuMs(r.pid!)), pgPid ? treeCpuMs(pgPid) : null]);
        const per = (v: number) => (v / RUNS).toFixed(2);
        const nodeMs = replicas.reduce((s, _r, i) => s + cpu1[i]!.own - cpu0[i]!.own, 0);
        const childMs = replicas.reduce((s, _r, i) => s + cpu1[i]!.children - cpu0[i]!.children, 0);
        const spawnerMs = replicas.reduce((s, _r, i) => s + cpu1[i]!.helpers - cpu0[i]!.helpers, 0);
        const pgMs = pgPid ? cpu1[2]!.own + cpu1[2]!.children - cpu0[2]!.own - cpu0[2]!.children : NaN;
        const stats = await Promise.all(replicas.map(replicaStats));
        const byText = new Map<string, number>();
        for (const list of stats) for (const [k, n] of list) byText.set(k, (byText.get(k) ?? 0) + n);
        const total = [...byText.values()].reduce((a, b) => a + b, 0);
        console.log('\nCPU ms per run (process CPU time, load-insensitive; 2 cores = 2,000 ms a second)');
        const pgExited = pgPid ? (await ticks(pgPid)).children * 10 - (cpu0[2]!.exited ?? 0) : NaN;
        console.table([{ 'replicas (node)': per(nodeMs), 'their children (spawner + bash)': per(childMs), 'of which the spawners': per(spawnerMs), postgres: pgPid ? per(pgMs) : 'n/a (DATABASE_URL)', 'of which ended backends': pgPid ? per(pgExited) : '', 'pool statements per run': (total / RUNS).toFixed(1) }]);
        if (process.env.BENCH_QUERIES) {
          console.table([...byText.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([q, n]) => ({ statement: q, 'per run': (n / RUNS).toFixed(2) })));
        }
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }

    // pickup when idle: one run at a time, a 1-action playbook, a short pause between them
    const one = (await db.query<{ id: string }>("INSERT INTO playbooks (name, title, spec) VALUES ($1, $1, $2) RETURNING id",
      [`bench-pickup-${randomBytes(3).toString('hex')}`, { actions: [{ name: 'sql', sql: { driver: 'postgres', url, query: 'SELECT 1' } }] }])).rows[0];
    const oneSpec = (await db.query('SELECT spec FROM playbooks WHERE id = $1', [one.id])).rows[0].spec;
    const pickups: number[] = [];
    for (let i = 0; i < PICKUPS; i++) {
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 150));
      const { run_id } = await createRun(db, { playbook: { id: one.id, spec: oneSpec }, params: {}, createdBy: person });
      for (;;) {
        const { rows } = await db.query<{ ms: number | null; status: string }>(
          'SELECT extract(epoch FROM (start_time - created_at)) * 1000 AS ms, status FROM playbook_runs WHERE id = $1', [run_id]);
        if (rows[0].ms !== null && ['completed', 'failed'].includes(rows[0].status)) {
          pickups.push(Number(rows[0].ms));
          break;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    pickups.sort((a, b) => a - b);
    console.log('\nplaybook engine: pickup when idle (run created → claimed, database clock)');
    console.table([{ runs: PICKUPS, 'p50 ms': pct(pickups, 50).toFixed(1), 'p99 ms': pct(pickups, 99).toFixed(1), 'max ms': pickups[pickups.length - 1].toFixed(1) }]);
  } finally {
    for (const r of replicas) r.kill('SIGTERM');
    await Promise.all(replicas.map((r) => new Promise((res) => (r.exitCode !== null ? res(null) : r.once('exit', res)))));
    peer.close();
    await db.end();
    await stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--replica') {
  void replica(process.argv[3], process.argv[4]);
} else {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
