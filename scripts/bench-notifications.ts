/**
 * The notification pipeline under load (issue 15 "Performance"): 1,000 rules (each matching a tenth of a percent of
 * the checks by a CEL filter), 100 silences, check transitions at 10,000 a minute to a loopback sink (20 ms, 5% 500s,
 * one rule's URL hanging), consumed by one console replica in this process: enqueue-to-send p50/p99 (the flip's time
 * to its history row), sends/s, peak RSS. Then 1,000,000 send history rows: the history's first page p95, filtered by
 * status, and count=exact; notifications_summary for the 1,000 rules p95. Prints a table; no assertions.
 *
 *   npx tsx scripts/bench-notifications.ts    (DATABASE_URL to use an existing server; BENCH_SCALE=1 is the issue's
 *   size, 0.02 a quick run; BENCH_MINUTES=10; BENCH_FAULTS=0 without the 500s and the hanging URL)
 */
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildApp } from '../server/app.js';
import { loadConfig } from '../server/config.js';
import { startEmbeddedPostgres } from '../server/db/embedded.js';
import { migrate } from '../server/db/migrate.js';

const quiet = { info() {}, warn() {}, debug() {} };
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
/** BENCH_FAULTS=0: no 500s and no hanging URL (the pipeline's own latency). */
const FAULTS = process.env.BENCH_FAULTS !== '0';
const MINUTES = Number(process.env.BENCH_MINUTES ?? 10 * Math.min(1, SCALE * 5));
const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

async function main() {
  const RULES = Math.max(10, Math.round(1000 * SCALE));
  const SILENCES = Math.max(1, Math.round(100 * SCALE));
  const CHECKS = Math.max(100, Math.round(10_000 * SCALE));
  const PER_MINUTE = Math.max(100, Math.round(10_000 * SCALE));
  const HISTORY = Math.max(10_000, Math.round(1_000_000 * SCALE));
  let url = process.env.DATABASE_URL;
  let stop = async () => {};
  if (!url) {
    const embedded = await startEmbeddedPostgres(await mkdtemp(join(tmpdir(), 'bench-notifications-')), 0, quiet);
    url = embedded.url;
    stop = () => embedded.stop();
  }
  let sent = 0;
  let failed = 0;
  const sink = createServer((req, res) => {
    req.resume();
    if (FAULTS && req.url?.startsWith('/hang')) return; // never answers
    setTimeout(() => {
      const fail = FAULTS && Math.random() < 0.05;
      if (fail) failed++;
      else sent++;
      res.writeHead(fail ? 500 : 200, { 'content-type': 'application/json' });
      res.end(fail ? '{"ok":false}' : '{"ok":true}');
    }, 20);
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const db = new pg.Pool({ connectionString: url, max: 4 });
  await migrate(db);

  // 1,000 rules over G check groups; one with a hanging URL; 100 silences on checks
  const groups = Math.max(1, Math.round(RULES / 1)); // a rule per group: each transition matches one rule
  await db.query(
    `INSERT INTO notifications (name, events, filter, custom_services)
     SELECT 'bench-' || i, '{check.failed}', 'check.labels.group == "g' || i || '"',
            jsonb_build_array(jsonb_build_object('url', 'generic+' || $1 || CASE WHEN i = 1 THEN '/hang' ELSE '/hook/' || i END))
     FROM generate_series(1, $2) i`, [sinkUrl, RULES]);
  const canary = (await db.query<{ id: string }>(`INSERT INTO canaries (name, namespace, spec, source) VALUES ('bench', 'bench', '{}', 'UI') RETURNING id`)).rows[0].id;
  const checkIds = (await db.query<{ id: string }>(
    `INSERT INTO checks (canary_id, type, name, status, labels)
     SELECT $1, 'http', 'c-' || i, 'healthy', jsonb_build_object('group', 'g' || (1 + i % $3)) FROM generate_series(1, $2) i RETURNING id`,
    [canary, CHECKS, groups])).rows.map((r) => r.id);
  await db.query(
    `INSERT INTO notification_silences (name, namespace, check_id, "from", until, source)
     SELECT 'bench-' || i, 'bench', (SELECT id FROM checks WHERE name = 'c-' || (i * 7)), now() - interval '1 minute', now() + interval '1 day', 'UI'
     FROM generate_series(1, $1) i`, [SILENCES]);

  const config = loadConfig({ DATABASE_URL: url, DEMO_DATA: 'false', LOG_LEVEL: 'silent', PLAYBOOK_ENGINE: 'off' });
  const app = await buildApp(config, { logger: false });
  await app.ready();

  // transitions: flips at PER_MINUTE for MINUTES, each check alternating failed/passed
  const flips = new Map<string, number[]>();
  let rss = process.memoryUsage().rss;
  const memTimer = setInterval(() => { rss = Math.max(rss, process.memoryUsage().rss); }, 500);
  const total = Math.round(PER_MINUTE * MINUTES);
  const started = Date.now();
  const failing = new Set<string>();
  for (let i = 0; i < total; i += 10) {
    const due = started + (i / PER_MINUTE) * 60_000;
    if (due > Date.now()) await sleep(due - Date.now());
    const batch = Array.from({ length: 10 }, (_, k) => checkIds[(i + k) % checkIds.length]);
    const fail = batch.filter((id) => !failing.has(id));
    const pass = batch.filter((id) => failing.has(id));
    const now = Date.now();
    for (const id of fail) { failing.add(id); flips.set(id, [...(flips.get(id) ?? []), now]); }
    for (const id of pass) failing.delete(id);
    if (fail.length) await db.query(`UPDATE checks SET status = 'unhealthy' WHERE id = ANY($1::uuid[])`, [fail]);
    if (pass.length) await db.query(`UPDATE checks SET status = 'healthy' WHERE id = ANY($1::uuid[])`, [pass]);
  }
  const flipSeconds = (Date.now() - started) / 1000;
  // drain: wait until the queue has no due check/send rows (the hanging URL's sends finish with their timeout)
  for (let i = 0; i < 600; i++) {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM event_queue WHERE name IN ('check.failed', 'notification.send') AND coalesce(attempts, 0) = 0`);
    if (rows[0].n === 0) break;
    await sleep(1_000);
  }
  clearInterval(memTimer);
  const hist = (await db.query<{ resource_id: string; status: string; at: number }>(
    `SELECT resource_id, status, extract(epoch FROM created_at) * 1000 AS at FROM notification_send_history`)).rows;
  const lat: number[] = [];
  for (const h of hist) {
    if (h.status !== 'sent' && h.status !== 'error') continue;
    const before = (flips.get(h.resource_id) ?? []).filter((f) => f <= Number(h.at) + 5).pop();
    if (before !== undefined) lat.push(Number(h.at) - before);
  }
  lat.sort((a, b) => a - b);
  const byStatus = Object.entries(hist.reduce<Record<string, number>>((m, h) => ({ ...m, [h.status]: (m[h.status] ?? 0) + 1 }), {}));
  await app.close();

  // 1,000,000 history rows over the rules, then the history's first page and the rules' summary
  const rules = (await db.query<{ id: string }>('SELECT id FROM notifications')).rows.map((r) => r.id);
  const statuses = ['sent', 'sent', 'sent', 'error', 'silenced', 'repeat-interval', 'cancelled', 'pending'];
  for (let done = 0; done < HISTORY; done += 100_000) {
    await db.query(
      `INSERT INTO notification_send_history (notification_id, status, source_event, resource_id, created_at, recipient, duration_millis, body)
       SELECT ($1::uuid[])[1 + i % $2], ($3::text[])[1 + i % 8], 'check.failed', ($4::uuid[])[1 + i % $5],
              now() - make_interval(secs => i), '{"kind":"custom","index":0}', 20 + i % 50, 'body'
       FROM generate_series($6::int, $7::int) i`,
      [rules, rules.length, statuses, checkIds, checkIds.length, done, Math.min(HISTORY, done + 100_000) - 1]);
  }
  await db.query('ANALYZE notification_send_history');
  const has = async (rel: string) => (await db.query('SELECT to_regclass($1) AS r', [rel])).rows[0].r !== null;
  const histRel = (await has('notification_send_history_summary')) ? 'notification_send_history_summary' : 'notification_send_history';
  const page = await timed(db, `SELECT * FROM ${histRel} ORDER BY created_at DESC LIMIT 50`);
  const filtered = await timed(db, `SELECT * FROM ${histRel} WHERE status = 'error' ORDER BY created_at DESC LIMIT 50`);
  const counted = await timed(db, `SELECT count(*) FROM ${histRel}`, 10);
  const summary = (await has('notifications_summary')) ? await timed(db, 'SELECT * FROM notifications_summary') : null;

  const f = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');
  console.log(`scale ${SCALE}: ${RULES} rules, ${SILENCES} silences, ${CHECKS} checks, ${total} transitions in ${flipSeconds.toFixed(0)} s (${PER_MINUTE}/min)`);
  console.log(`sink: ${sent} answered 200, ${failed} answered 500; history ${byStatus.map(([s, n]) => `${s} ${n}`).join(', ')}`);
  console.log(`enqueue-to-send (flip → history row): p50 ${f(pct(lat, 50))} ms, p99 ${f(pct(lat, 99))} ms, max ${f(lat[lat.length - 1] ?? NaN)} ms over ${lat.length}`);
  console.log(`peak RSS ${(rss / 1024 / 1024).toFixed(0)} MB`);
  console.log(`${HISTORY} history rows (${histRel}): first page p50 ${f(page.p50)} / p95 ${f(page.p95)} ms; status=error p95 ${f(filtered.p95)} ms; count exact p95 ${f(counted.p95)} ms`);
  console.log(summary ? `notifications_summary (${rules.length} rules): p50 ${f(summary.p50)} / p95 ${f(summary.p95)} ms` : 'notifications_summary: not there yet');
  await db.end();
  sink.closeAllConnections();
  sink.close();
  await stop();
}

await main();
