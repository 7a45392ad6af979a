/**
 * The notification pipeline under load (issue 15 "Performance"): 1,000 rules (each matching a tenth of a percent of
 * the checks by a CEL filter), 100 silences, check transitions at 10,000 a minute to a loopback sink (20 ms, 5% 500s,
 * one rule's URL hanging), consumed by one console replica in a child process that is killed (SIGKILL) halfway and
 * restarted. The sink parses each request (the check names in its title and message), so every failing transition is
 * followed to the sink: enqueue-to-first-attempt (flip → first request) for all sends, enqueue-to-delivered for sends
 * that succeeded at their first attempt and, separately, for the retried ones; lost (no 200 for a transition that is
 * not silenced) and duplicated (two 200s for one) deliveries; peak RSS of the replica. Then 1,000,000 send history
 * rows: the history's first page p95, filtered by status and by resource type, count=exact; notifications_summary
 * for the 1,000 rules. Prints a table; no assertions.
 *
 *   npx tsx scripts/bench-notifications.ts    (DATABASE_URL to use an existing server; BENCH_SCALE=1 is the issue's
 *   size, 0.02 a quick run; BENCH_MINUTES=10; BENCH_FAULTS=0 without the 500s and the hanging URL; BENCH_KILL=0
 *   without the kill -9; BENCH_HISTORY=0 skips the history part)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { buildApp } from '../server/app.js';
import { loadConfig } from '../server/config.js';
import { startEmbeddedPostgres } from '../server/db/embedded.js';
import { migrate } from '../server/db/migrate.js';

const quiet = { info() {}, warn() {}, debug() {} };
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
/** BENCH_FAULTS=0: no 500s and no hanging URL (the pipeline's own latency). */
const FAULTS = process.env.BENCH_FAULTS !== '0';
const KILL = process.env.BENCH_KILL !== '0';
const MINUTES = Number(process.env.BENCH_MINUTES ?? 10 * Math.min(1, SCALE * 5));
/** The replica's delivery lease (s): how long a killed replica's `sending` rows wait before another takes them. */
const LEASE_SECONDS = Number(process.env.BENCH_LEASE_SECONDS ?? 20);
const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SELF = fileURLToPath(import.meta.url);
const progress = (m: string) => process.stderr.write(`[bench-notifications ${new Date().toISOString().slice(11, 19)}] ${m}\n`);

async function timed(db: pg.Pool, sql: string, runs = 20): Promise<{ p50: number; p95: number }> {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await db.query(sql);
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { p50: pct(ms, 50), p95: pct(ms, 95) };
}

/** `--replica <url>`: the whole console (event queue consumer, send pipeline) on the database; prints "ready". */
async function replicaMain(url: string) {
  const config = loadConfig({
    DATABASE_URL: url, DEMO_DATA: 'false', LOG_LEVEL: 'silent', PLAYBOOK_ENGINE: 'off',
    NOTIFICATION_DELIVERY_LEASE_SECONDS: String(LEASE_SECONDS),
  });
  const app = await buildApp(config, { logger: false });
  await app.ready();
  process.stdout.write('ready\n');
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

/** CPU seconds each replica (by pid) had used when it said "ready": its start-up, left out of the per-send figures. */
const startupCpu = new Map<number, number>();
/** The replica's RSS when it said "ready" (the app before any event): what the pipeline adds is the peak above it. */
let readyRss = 0;

function startReplica(url: string): Promise<ChildProcess> {
  // BENCH_CPU_PROF=<dir>: a V8 CPU profile of each replica that exits normally (use with BENCH_KILL=0)
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [];
  const c = spawn(process.execPath, [...prof, '--import', 'tsx', SELF, '--replica', url], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    c.stdout!.on('data', (b: Buffer) => {
      if (!b.toString().includes('ready')) return;
      startupCpu.set(c.pid!, cpuOf(c.pid));
      readyRss = Math.max(readyRss, rssOf(c.pid));
      resolve(c);
    });
    c.once('exit', (code) => reject(new Error(`replica exited ${code}`)));
  });
}

function rssOf(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU seconds (user + system) a process has used; with `children`, also its reaped children's (cutime, cstime). */
function cpuOf(pid: number | undefined, children = false): number {
  if (!pid) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // after the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14)
    return (Number(f[11]) + Number(f[12]) + (children ? Number(f[13]) + Number(f[14]) : 0)) / 100;
  } catch {
    return 0;
  }
}

/** The ppid of a process (0 when unknown). */
function ppidOf(pid: number): number {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

/** CPU seconds of a PostgreSQL server on this machine: the postmaster, its reaped backends and the live ones. */
function postgresCpu(postmaster: number): number {
  if (!postmaster) return 0;
  let total = cpuOf(postmaster, true);
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    if (ppidOf(Number(d)) === postmaster) total += cpuOf(Number(d));
  }
  return total;
}

interface SinkRequest { at: number; done: number; ok: boolean; checks: number[] }

async function main() {
  const RULES = Math.max(10, Math.round(1000 * SCALE));
  const SILENCES = Math.max(1, Math.round(100 * SCALE));
  const CHECKS = Math.max(100, Math.round(10_000 * SCALE));
  const PER_MINUTE = Math.max(100, Math.round(10_000 * SCALE));
  const HISTORY = process.env.BENCH_HISTORY === '0' ? 0 : Math.max(10_000, Math.round(1_000_000 * SCALE));
  let url = process.env.DATABASE_URL;
  let stop = async () => {};
  if (!url) {
    const embedded = await startEmbeddedPostgres(await mkdtemp(join(tmpdir(), 'bench-notifications-')), 0, quiet);
    url = embedded.url;
    stop = () => embedded.stop();
  }
  // the sink: 20 ms, 5% 500s, /hang never answers; each request remembered with the check numbers it names
  const requests: SinkRequest[] = [];
  const sink = createServer((req, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const checks = [...new Set([...Buffer.concat(chunks).toString().matchAll(/\bc-(\d+)\b/g)].map((m) => Number(m[1])))];
      if (FAULTS && req.url?.startsWith('/hang')) {
        requests.push({ at, done: NaN, ok: false, checks });
        return; // never answers
      }
      setTimeout(() => {
        const fail = FAULTS && Math.random() < 0.05;
        requests.push({ at, done: Date.now(), ok: !fail, checks });
        res.writeHead(fail ? 500 : 200, { 'content-type': 'application/json' });
        res.end(fail ? '{"ok":false}' : '{"ok":true}');
      }, 20);
    });
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const db = new pg.Pool({ connectionString: url, max: 4 });
  await migrate(db);
  progress('migrated');

  // 1,000 rules, each matching its group of checks; rule 1's URL hangs; 100 silences on checks c-7, c-14, ...
  const groups = RULES;
  await db.query(
    `INSERT INTO notifications (name, events, filter, custom_services)
     SELECT 'bench-' || i, '{check.failed}', 'check.labels.group == "g' || i || '"',
            jsonb_build_array(jsonb_build_object('url', 'generic+' || $1 || CASE WHEN i = 1 THEN '/hang' ELSE '/hook/' || i END))
     FROM generate_series(1, $2) i`, [sinkUrl, RULES]);
  const canary = (await db.query<{ id: string }>(`INSERT INTO canaries (name, namespace, spec, source) VALUES ('bench', 'bench', '{}', 'UI') RETURNING id`)).rows[0].id;
  const checkRows = (await db.query<{ id: string; name: string }>(
    `INSERT INTO checks (canary_id, type, name, status, labels)
     SELECT $1, 'http', 'c-' || i, 'healthy', jsonb_build_object('group', 'g' || (1 + i % $3)) FROM generate_series(1, $2) i RETURNING id, name`,
    [canary, CHECKS, groups])).rows;
  const checkIds = checkRows.map((r) => r.id);
  const numberOf = new Map(checkRows.map((r) => [r.id, Number(r.name.slice(2))]));
  await db.query(
    `INSERT INTO notification_silences (name, namespace, check_id, "from", until, source)
     SELECT 'bench-' || i, 'bench', (SELECT id FROM checks WHERE name = 'c-' || (i * 7)), now() - interval '1 minute', now() + interval '1 day', 'UI'
     FROM generate_series(1, $1) i`, [SILENCES]);
  const silenced = new Set(Array.from({ length: SILENCES }, (_, i) => (i + 1) * 7));
  const hanging = (n: number) => FAULTS && 1 + (n % groups) === 1;

  progress('seeded; starting the replica');
  let replica = await startReplica(url);
  progress('replica ready; flipping');
  let rss = rssOf(replica.pid);
  // CPU (load-insensitive): each replica's last sample (a killed one keeps its last), PostgreSQL's whole server
  const postmaster = ppidOf((await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  const replicaCpu = new Map<number, number>();
  const pgCpu0 = postgresCpu(postmaster);
  const memTimer = setInterval(() => {
    rss = Math.max(rss, rssOf(replica.pid));
    const c = cpuOf(replica.pid);
    if (c && replica.pid) replicaCpu.set(replica.pid, c);
  }, 500);

  // transitions: flips at PER_MINUTE for MINUTES, each check alternating failed/passed; kill -9 halfway, restart
  const fails = new Map<number, number[]>(); // check number → its failing flips (ms)
  const total = Math.round(PER_MINUTE * MINUTES);
  const started = Date.now();
  const failing = new Set<string>();
  let killedAt = NaN;
  let restartedAt = NaN;
  let restart: Promise<void> | null = null;
  // steady state: CPU and sink requests from 10 s into the flips to the kill (or the flips' end), start-up and
  // restart left out; what the two cores allow is 2 s of CPU over the replica's and PostgreSQL's per send
  let steady0: { at: number; replica: number; pg: number; reqs: number } | null = null;
  let steady: string | null = null;
  const steadyMark = () => ({ at: Date.now(), replica: cpuOf(replica.pid), pg: postgresCpu(postmaster), reqs: requests.length });
  const steadyEnd = () => {
    if (!steady0 || steady) return;
    const e = steadyMark();
    const n = e.reqs - steady0.reqs;
    const r = ((e.replica - steady0.replica) / Math.max(1, n)) * 1000;
    const q = ((e.pg - steady0.pg) / Math.max(1, n)) * 1000;
    steady = `steady state (${((e.at - steady0.at) / 1000).toFixed(0)} s of flips, ${n} sink requests): per request replica ${r.toFixed(2)} ms, PostgreSQL ${q.toFixed(2)} ms (the bench's flips included): two cores allow ~${(2000 / Math.max(0.01, r + q)).toFixed(0)} sends/s`;
  };
  for (let i = 0; i < total; i += 10) {
    const due = started + (i / PER_MINUTE) * 60_000;
    if (due > Date.now()) await sleep(due - Date.now());
    if (!steady0 && Date.now() - started >= 10_000) steady0 = steadyMark();
    if (KILL && !restart && i >= total / 2) {
      steadyEnd();
      const old = replica;
      const gone = new Promise((r) => old.once('exit', r));
      old.kill('SIGKILL');
      killedAt = Date.now();
      restart = gone.then(() => startReplica(url!)).then((c) => { replica = c; restartedAt = Date.now(); });
    }
    const batch = Array.from({ length: 10 }, (_, k) => checkIds[(i + k) % checkIds.length]);
    const fail = batch.filter((id) => !failing.has(id));
    const pass = batch.filter((id) => failing.has(id));
    const now = Date.now();
    for (const id of fail) {
      failing.add(id);
      const n = numberOf.get(id)!;
      fails.set(n, [...(fails.get(n) ?? []), now]);
    }
    for (const id of pass) failing.delete(id);
    if (fail.length) await db.query(`UPDATE checks SET status = 'unhealthy' WHERE id = ANY($1::uuid[])`, [fail]);
    if (pass.length) await db.query(`UPDATE checks SET status = 'healthy' WHERE id = ANY($1::uuid[])`, [pass]);
  }
  steadyEnd();
  const flipSeconds = (Date.now() - started) / 1000;
  await restart;
  progress('flips done; draining');
  // drain: no due check/send rows, nothing `sending` or held for long (the hanging URL's sends end with their timeouts)
  const drainStarted = Date.now();
  const DRAIN_S = Number(process.env.BENCH_DRAIN_SECONDS ?? 150);
  let left = '';
  for (let i = 0; i < DRAIN_S; i++) {
    const { rows } = await db.query<{ q: number; h: number }>(
      `SELECT (SELECT count(*)::int FROM event_queue WHERE name IN ('check.failed', 'notification.send') AND coalesce(attempts, 0) = 0) AS q,
              (SELECT count(*)::int FROM notification_send_history WHERE status IN ('sending', 'pending', 'evaluating-waitfor')) AS h`);
    left = rows[0].q || rows[0].h ? `; left after ${DRAIN_S} s: ${rows[0].q} queued, ${rows[0].h} sending or held` : '';
    if (!left) break;
    await sleep(1_000);
  }
  const drainSeconds = (Date.now() - drainStarted) / 1000;
  progress(`drained in ${drainSeconds.toFixed(0)} s`);
  clearInterval(memTimer);
  if (replica.pid && cpuOf(replica.pid)) replicaCpu.set(replica.pid, cpuOf(replica.pid));
  const pgCpu = postgresCpu(postmaster) - pgCpu0;
  const replicaCpuTotal = [...replicaCpu].reduce((a, [pid, c]) => a + c - (startupCpu.get(pid) ?? 0), 0);
  await new Promise((r) => { replica.once('exit', r); replica.kill('SIGTERM'); setTimeout(r, 10_000); });

  // every failing flip followed to the sink: the requests naming its check after it and before the check's next failure
  const byCheck = new Map<number, SinkRequest[]>();
  for (const r of requests) for (const n of r.checks) byCheck.set(n, [...(byCheck.get(n) ?? []), r]);
  const firstAttempt: number[] = [];
  const firstOk: number[] = [];
  const retriedOk: number[] = [];
  let flipsFollowed = 0, lost = 0, duplicated = 0, silencedSent = 0, hangFlips = 0, inRestart = 0;
  const firstAttemptOutsideRestart: number[] = [];
  const restartEnd = (Number.isFinite(restartedAt) ? restartedAt : killedAt) + LEASE_SECONDS * 1000;
  for (const [n, times] of fails) {
    const reqs = (byCheck.get(n) ?? []).sort((a, b) => a.at - b.at);
    times.forEach((t, k) => {
      const next = times[k + 1] ?? Infinity;
      const mine = reqs.filter((r) => r.at >= t && r.at < next);
      if (silenced.has(n)) {
        if (mine.some((r) => r.ok)) silencedSent++;
        return;
      }
      flipsFollowed++;
      if (mine.length) {
        firstAttempt.push(mine[0].at - t);
        // the outage touches a flip still unsent when the replica died (a backlog reaches back before the kill)
        // and flips up to the new replica's lease; every other flip is outside it
        if (KILL && t <= restartEnd && mine[0].at >= killedAt) inRestart++;
        else firstAttemptOutsideRestart.push(mine[0].at - t);
      }
      if (hanging(n)) {
        hangFlips++;
        return;
      }
      const oks = mine.filter((r) => r.ok);
      if (!oks.length) lost++;
      if (oks.length > 1) duplicated++;
      if (oks.length && mine[0].ok) firstOk.push(mine[0].done - t);
      else if (oks.length) retriedOk.push(oks[0].done - t);
    });
  }
  for (const l of [firstAttempt, firstOk, retriedOk, firstAttemptOutsideRestart]) l.sort((a, b) => a - b);
  const hist = (await db.query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM notification_send_history GROUP BY 1 ORDER BY 1`)).rows;
  const held = (await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM notification_send_history WHERE payload->>'digest' IS NOT NULL`)).rows[0].n;
  const sinkOk = requests.filter((r) => r.ok).length;
  const sink500 = requests.filter((r) => !r.ok && Number.isFinite(r.done)).length;
  const sinkHang = requests.filter((r) => !Number.isFinite(r.done)).length;

  // 1,000,000 history rows over the rules, then the history's first page and the rules' summary
  const rules = (await db.query<{ id: string }>('SELECT id FROM notifications')).rows.map((r) => r.id);
  const statuses = ['sent', 'sent', 'sent', 'error', 'silenced', 'repeat-interval', 'cancelled', 'pending'];
  // seeded without the row triggers (session_replication_role replica), the per-rule counters filled after in one go;
  // resource_type as the pipeline writes it (the checks are http checks)
  const seed = await db.connect();
  await seed.query(`SET session_replication_role = replica`);
  for (let done = 0; done < HISTORY; done += 100_000) {
    await seed.query(
      `INSERT INTO notification_send_history (notification_id, status, source_event, resource_id, created_at, recipient, duration_millis, body, resource_type)
       SELECT ($1::uuid[])[1 + i % $2], ($3::text[])[1 + i % 8], 'check.failed', ($4::uuid[])[1 + i % $5],
              now() - make_interval(secs => i), '{"kind":"custom","index":0}', 20 + i % 50, 'body', 'http'
       FROM generate_series($6::int, $7::int) i`,
      [rules, rules.length, statuses, checkIds, checkIds.length, done, Math.min(HISTORY, done + 100_000) - 1]);
  }
  await seed.query(`RESET session_replication_role`);
  seed.release();
  await db.query(
    `INSERT INTO notification_send_counts AS c (notification_id, sent, failed, duration_total, duration_count, last_failed_at)
     SELECT notification_id, count(*) FILTER (WHERE status = 'sent'), count(*) FILTER (WHERE status = 'error'),
            coalesce(sum(duration_millis), 0), count(duration_millis), max(created_at) FILTER (WHERE status = 'error')
     FROM notification_send_history GROUP BY 1
     ON CONFLICT (notification_id) DO UPDATE SET sent = EXCLUDED.sent, failed = EXCLUDED.failed,
       duration_total = EXCLUDED.duration_total, duration_count = EXCLUDED.duration_count, last_failed_at = EXCLUDED.last_failed_at`);
  await db.query('VACUUM ANALYZE notification_send_history'); // as autovacuum does after such an insert
  const histRel = 'notification_send_history_summary';
  const page = HISTORY ? await timed(db, `SELECT * FROM ${histRel} ORDER BY created_at DESC LIMIT 50`) : null;
  const filtered = HISTORY ? await timed(db, `SELECT * FROM ${histRel} WHERE status = 'error' ORDER BY created_at DESC LIMIT 50`) : null;
  const byType = HISTORY ? await timed(db, `SELECT * FROM ${histRel} WHERE resource_type = 'http' ORDER BY created_at DESC LIMIT 50`) : null;
  // count=exact as /api/db runs it: the page and a count(*) of the same filter in one statement
  const withCount = (where: string) => `SELECT p.*, (SELECT count(*) FROM ${histRel} ${where}) AS total FROM (SELECT * FROM ${histRel} ${where} ORDER BY created_at DESC LIMIT 50) p`;
  const counted = HISTORY ? await timed(db, withCount(''), 10) : null;
  const countedFiltered = HISTORY ? await timed(db, withCount(`WHERE status = 'error'`), 10) : null;
  const summary = await timed(db, 'SELECT * FROM notifications_summary ORDER BY name LIMIT 1000');
  if (process.env.BENCH_EXPLAIN === '1') {
    for (const q of ['SELECT * FROM notifications_summary ORDER BY name LIMIT 1000', withCount('')]) {
      const plan = (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE) ${q}`)).rows.map((r) => r['QUERY PLAN']);
      progress(`plan of ${q.slice(0, 60)}…\n${plan.join('\n')}`);
    }
  }

  const f = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? n.toFixed(0) : '-');
  const line = (name: string, l: number[]) => console.log(
    `| ${name} | ${l.length} | ${f(pct(l, 50))} | ${f(pct(l, 99))} | ${f(l[l.length - 1])} |`);
  console.log(`scale ${SCALE}: ${RULES} rules, ${SILENCES} silences, ${CHECKS} checks, ${total} transitions in ${flipSeconds.toFixed(0)} s (${PER_MINUTE}/min), faults ${FAULTS ? 'on' : 'off'}, drained ${drainSeconds.toFixed(0)} s later${left}`);
  console.log(KILL ? `replica SIGKILLed at +${((killedAt - started) / 1000).toFixed(0)} s, the new one consuming ${((restartedAt - killedAt) / 1000).toFixed(1)} s later (lease ${LEASE_SECONDS} s)` : 'no kill');
  console.log(`sink: ${sinkOk} answered 200, ${sink500} answered 500, ${sinkHang} to the hanging URL; history ${hist.map((h) => `${h.status} ${h.n}`).join(', ')}; held in digests ${held}`);
  console.log(`failing transitions followed: ${flipsFollowed} (not silenced; ${hangFlips} to the hanging URL); lost ${lost}, delivered twice ${duplicated}; silenced yet delivered ${silencedSent}`);
  console.log('| measure (flip → sink) | n | p50 ms | p99 ms | max ms |');
  console.log('|---|---|---|---|---|');
  line('enqueue-to-first-attempt, all sends', firstAttempt);
  line(`  the same, flips outside the kill/restart window (${inRestart} inside)`, firstAttemptOutsideRestart);
  line('enqueue-to-delivered, ok at the first attempt', firstOk);
  line('enqueue-to-delivered, ok after retries', retriedOk);
  const sends = hist.filter((h) => h.status !== 'pending').reduce((a, h) => a + h.n, 0);
  console.log(`CPU seconds, flips and drain: replica ${replicaCpuTotal.toFixed(1)} (start-up left out), PostgreSQL ${pgCpu.toFixed(1)} (the bench's own flips included); per history row (${sends}): replica ${(replicaCpuTotal / Math.max(1, sends) * 1000).toFixed(2)} ms, PostgreSQL ${(pgCpu / Math.max(1, sends) * 1000).toFixed(2)} ms`);
  if (steady) console.log(steady);
  console.log(`peak RSS of the replica ${(rss / 1024 / 1024).toFixed(0)} MB (${(readyRss / 1024 / 1024).toFixed(0)} MB when ready)`);
  if (HISTORY) {
    console.log(`${HISTORY} history rows (${histRel}) p50 / p95 ms: first page ${f(page!.p50)} / ${f(page!.p95)}; status=error ${f(filtered!.p50)} / ${f(filtered!.p95)}; resource_type=http ${f(byType!.p50)} / ${f(byType!.p95)}; first page with count=exact ${f(counted!.p50)} / ${f(counted!.p95)}; the same, status=error ${f(countedFiltered!.p50)} / ${f(countedFiltered!.p95)}`);
  }
  console.log(`notifications_summary (${rules.length} rules): p50 ${f(summary.p50)} / p95 ${f(summary.p95)} ms`);
  await db.end();
  sink.closeAllConnections();
  sink.close();
  await stop();
}

if (process.argv[2] === '--replica') await replicaMain(process.argv[3]);
else await main();
