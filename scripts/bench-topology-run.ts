/**
 * A topology run at scale (issue 13 "Runs"): 5,000 components from one spec — 50 services, each a lookup (answered
 * in process, no network) whose 99 pods get a forEach property and container child config — built and saved three
 * times: the first build, a rebuild with nothing changed (target < 2 s, and it must write nothing: rows whose
 * updated_at moved are counted), and a rebuild with changes (10% of the pods changed, 1% gone, 1% new; target < 5 s).
 * The link steps run as in the console (BENCH_LINKS=0 leaves them out). Prints the wall times and the save's counts; say the load average with them.
 *
 *   npm run bench:topology-run      (DATABASE_URL to use an existing server)
 */
import { readdir, readFile, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import pg from 'pg';
import { startEmbeddedPostgres } from '../server/db/embedded.js';
import { migrate } from '../server/db/migrate.js';
import { LINK_STEPS } from '../server/modules/topology/runner/links/index.js';
import { liveTopology } from '../server/modules/topology/runner/queries.js';
import { runTopology } from '../server/modules/topology/runner/run.js';
import type { LookupRunner } from '../server/modules/topology/runner/types.js';

/**
 * CPU seconds of the embedded PostgreSQL (the postmaster, its live backends and those it reaped): on a loaded machine
 * wall time says mostly how long the processes waited for a core, so the figures that compare are CPU.
 */
async function databaseCpu(dir: string | undefined): Promise<number | null> {
  if (!dir) return null;
  const pidFile = (await readdir(dir, { recursive: true })).find((f) => String(f).endsWith('postmaster.pid'));
  if (!pidFile) return null;
  const postmaster = (await readFile(join(dir, String(pidFile)), 'utf8')).split('\n')[0].trim();
  const tick = 100; // USER_HZ on Linux
  let total = 0;
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    // fields after the command's closing parenthesis: state ppid ... utime(14) stime(15) cutime(16) cstime(17)
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (pid !== postmaster && f[1] !== postmaster) continue;
    total += Number(f[11]) + Number(f[12]) + (pid === postmaster ? Number(f[13]) + Number(f[14]) : 0);
  }
  return total / tick;
}

const SERVICES = 50;
const PODS = 99; // 1 root + 50 services + 4,950 pods = 5,001 components

/** The pods a service's lookup yields in round `round` (0 first, 2 with changes). */
function pods(service: number, round: number): unknown[] {
  const out: unknown[] = [];
  for (let p = 0; p < PODS; p++) {
    const n = service * PODS + p;
    if (round === 2 && n % 100 === 1) continue; // 1% gone
    const changed = round === 2 && n % 10 === 0; // 10% changed
    out.push({ name: `pod-${service}-${p}`, type: 'Pod', labels: { app: `svc-${service}` }, health: changed ? 'unhealthy' : 'healthy',
      properties: [{ name: 'restarts', value: changed ? 5 : 0 }] });
  }
  if (round === 2) for (let p = 0; p < PODS / 99; p++) out.push({ name: `new-pod-${service}-${p}`, type: 'Pod', labels: { app: `svc-${service}` } });
  return out;
}

const spec = {
  schedule: '@never', type: 'Bench',
  components: Array.from({ length: SERVICES }, (_, s) => ({
    name: `svc-${s}`, type: 'Service', icon: 'service', lookup: { exec: [{ script: `svc-${s}` }] },
    forEach: { properties: [{ name: 'app', text: '{{.labels.app}}' }], configs: [{ name: '{{.name}}', type: 'Kubernetes::Pod' }] },
  })),
};

async function main() {
  let dir: string | undefined;
  let stop = async () => {};
  let url = process.env.DATABASE_URL;
  if (!url) {
    dir = await mkdtemp(join(tmpdir(), 'bench-topology-run-'));
    const embedded = await startEmbeddedPostgres(dir, 0, { info() {}, warn() {}, debug() {} });
    url = embedded.url;
    stop = () => embedded.stop();
  }
  const db = new pg.Pool({ connectionString: url, max: 4 });
  // pg-pool's end() resolves once it has asked its idle clients to end, not once they have: stopping the database
  // right after can terminate a backend still closing ("terminating connection due to administrator command"), which
  // the pool re-emits as an 'error' that, unheard, crashed the bench after it had printed. Past the end, it is noise.
  let ending = false;
  db.on('error', (err) => {
    if (!ending) console.error(err);
  });
  const log = pino({ level: 'silent' });
  // BENCH_PROFILE=<ms>: auto_explain (nested statements too) of every statement slower than that, printed to stderr
  const profileMs = Number(process.env.BENCH_PROFILE ?? 0);
  if (profileMs > 0) {
    db.on('connect', (c) => {
      c.on('notice', (m) => console.error(m.message?.replace(/'\{[0-9a-f,-]{200,}\}'/g, "'{…}'").slice(0, 20_000)));
      void c.query(`LOAD 'auto_explain'; SET auto_explain.log_min_duration = ${Math.floor(profileMs)};
        SET auto_explain.log_nested_statements = on; SET auto_explain.log_analyze = on; SET client_min_messages = log`);
    });
  }
  try {
    await migrate(db);
    const { rows } = await db.query<{ id: string }>(`INSERT INTO topologies (name, namespace, spec) VALUES ('bench-run', 'default', $1) RETURNING id`, [spec]);
    const id = rows[0].id;
    const topology = (await liveTopology(db, id))!;
    let round = 0;
    const lookup: LookupRunner = async (block) => pods(Number(String((block.exec as Array<{ script: string }>)[0].script).slice(4)), round);
    console.log(`load average before: ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
    const names = ['first build', 'rebuild, unchanged (target < 2 s)', 'rebuild with changes (target < 5 s)'];
    for (round = 0; round < 3; round++) {
      const before = new Date((await db.query<{ now: Date }>('SELECT clock_timestamp() AS now')).rows[0].now);
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const dbCpu0 = await databaseCpu(dir);
      const out = await runTopology({ db, log, lookup, linkSteps: process.env.BENCH_LINKS === '0' ? [] : LINK_STEPS }, topology);
      const ms = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const dbCpu1 = await databaseCpu(dir);
      const dbCpu = dbCpu0 !== null && dbCpu1 !== null ? `, the database's CPU ${(dbCpu1 - dbCpu0).toFixed(2)} s` : '';
      const moved = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM components WHERE topology_id = $1 AND updated_at > $2', [id, before])).rows[0].n;
      console.log(`${names[round]}: ${(ms / 1000).toFixed(2)} s (this process's CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s${dbCpu}), ${out.status}, ${out.count} live components, save ${JSON.stringify(out.counts)}, rows whose updated_at moved: ${moved}, phases (ms) ${JSON.stringify(out.timings)}${out.errors.length ? `, errors: ${out.errors.slice(0, 3).join('; ')}` : ''}`);
    }
    console.log(`load average after: ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
  } finally {
    ending = true;
    await db.end();
    await stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

void main();
