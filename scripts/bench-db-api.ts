/**
 * npm run bench: /api/db over 100k teams. Starts an embedded PostgreSQL in a temp dir, seeds it, serves the app on a
 * loopback port, and measures with autocannon (in a child process, so the load generator does not share the
 * server's event loop): a single row by id, and a 1,000-row page with two embeds and an exact count, compared with
 * the same SQL sent straight through the app's pool. BENCH_SECONDS (default 10) sets the length of each run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../server/app.js';
import { loadConfig } from '../server/config.js';
import { startEmbeddedPostgres } from '../server/db/embedded.js';
import { buildReadStatement } from '../server/modules/db/read-service.js';
import { loadSchemaCache } from '../server/modules/db/schema-cache.js';
import { adminToken, fmt, loadGenerator, overHttp, summarise, type Figures, type LoadSpec } from './lib/load.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const TEAMS = 100_000;
const PAGE = 1_000;
const PAGE_QUERY = (offset: number) =>
  `select=id,name,created_at,created_by(id,name),team_members(person_id)&order=name.asc&limit=${PAGE}&offset=${offset}`;

/** The same closed loop as autocannon's, without HTTP: `connections` callers sending statements back to back. */
async function overPool(pool: import('pg').Pool, statements: { sql: string; params: unknown[] }[], connections: number, seconds: number): Promise<Figures> {
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  let failures = 0;
  await Promise.all(Array.from({ length: connections }, async () => {
    while (performance.now() < end) {
      const s = statements[Math.floor(Math.random() * statements.length)];
      const t0 = performance.now();
      try {
        await pool.query(s.sql, s.params);
      } catch {
        failures++;
      }
      latencies.push(performance.now() - t0);
    }
  }));
  return { requests: latencies.length, failures, seconds, latencies };
}

async function seed(pool: import('pg').Pool) {
  await pool.query(`INSERT INTO people (name, email, type)
    SELECT 'Bench Person ' || i, 'bench' || i || '@example.test', 'identity' FROM generate_series(1, 1000) i`);
  await pool.query(`WITH p AS (SELECT array_agg(id ORDER BY email) AS ids FROM people WHERE email LIKE 'bench%@example.test')
    INSERT INTO teams (name, created_by, created_at)
    SELECT 'team ' || md5(i::text), p.ids[1 + i % 1000], now() - make_interval(mins => i)
    FROM p, generate_series(1, ${TEAMS}) i`);
  await pool.query(`WITH p AS (SELECT array_agg(id ORDER BY email) AS ids FROM people WHERE email LIKE 'bench%@example.test')
    INSERT INTO team_members (team_id, person_id)
    SELECT t.id, p.ids[1 + (t.n * 7 + j * 131) % 1000]
    FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM teams) t, p, generate_series(0, 2) j`);
  await pool.query('ANALYZE');
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'console-bench-'));
  const quiet = { info() {}, warn: (m: string) => console.warn(m), debug() {} };
  const db = await startEmbeddedPostgres(dir, 0, quiet);
  const config = loadConfig({ DATABASE_URL: db.url, DEMO_DATA: 'false', LOG_LEVEL: 'silent', MODE: 'console', DB_POOL_MAX: '20' });
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
    const { rows: ids } = await app.db.query<{ id: string }>('SELECT id FROM teams ORDER BY random() LIMIT 2000');
    const version = (await app.db.query('SHOW server_version')).rows[0].server_version;

    // The statement /api/db runs for a page, built by the engine's own parser and planner (as read-service does).
    const cache = await loadSchemaCache(app.db);
    const pageStatement = (offset: number) =>
      buildReadStatement(cache, {
        method: 'GET', target: 'teams', query: PAGE_QUERY(offset), prefer: 'count=exact', can: () => true,
      });
    const offsets = Array.from({ length: 200 }, () => Math.floor(Math.random() * (TEAMS - PAGE)));

    // Same answer both ways, or the comparison means nothing.
    const probe = pageStatement(offsets[0]);
    const direct = (await app.db.query(probe.sql, probe.params)).rows[0];
    const viaApi = await fetch(`${base}/api/db/teams?${PAGE_QUERY(offsets[0])}`, { headers: { ...auth, prefer: 'count=exact' } });
    const apiBody = await viaApi.text();
    if (viaApi.status >= 300 && viaApi.status !== 206) throw new Error(`/api/db answered ${viaApi.status}: ${apiBody.slice(0, 300)}`);
    const same = apiBody === direct.body;
    const first = JSON.parse(apiBody)[0];

    const single: LoadSpec = { url: base, headers: auth, paths: ids.map((r) => `/api/db/teams?id=eq.${r.id}`), connections: 10, duration: SECONDS };
    const page: LoadSpec = {
      url: base, headers: { ...auth, prefer: 'count=exact' }, paths: offsets.map((o) => `/api/db/teams?${PAGE_QUERY(o)}`),
      connections: 4, duration: SECONDS,
    };
    console.log(`seeded ${TEAMS} teams, ${TEAMS * 3} members in ${fmt(seedSeconds)} s; warming up`);
    await overHttp({ ...single, duration: 2 });
    await overHttp({ ...page, duration: 2 });
    t0 = performance.now();
    const rows = [
      ['GET /api/db/teams?id=eq.<random> (HTTP)', summarise(await overHttp(single)), single.connections],
      ['1,000-row page, 2 embeds, count=exact (HTTP)', summarise(await overHttp(page)), page.connections],
      ['same SQL through the app pool', summarise(await overPool(app.db, offsets.map(pageStatement), page.connections, SECONDS)), page.connections],
    ] as const;

    console.log(`\n/api/db benchmark: PostgreSQL ${version} (embedded), Node ${process.version}, ${cpus().length} CPUs, ${SECONDS} s per run, loopback`);
    console.log(`page body identical via API and direct SQL: ${same ? 'yes' : 'NO'}; a row: ${JSON.stringify(first).slice(0, 140)}…\n`);
    const head = ['scenario', 'conns', 'requests', 'req/s', 'p50 ms', 'p95 ms', 'p99 ms', 'failed'];
    const table = [head, ...rows.map(([name, s, c]) => [name, String(c), String(s.n), fmt(s.rps), fmt(s.p50, 2), fmt(s.p95, 2), fmt(s.p99, 2), String(s.failures)])];
    const widths = head.map((_, i) => Math.max(...table.map((r) => r[i].length)));
    for (const [i, r] of table.entries()) {
      console.log(r.map((cell, j) => (j === 0 ? cell.padEnd(widths[j]) : cell.padStart(widths[j]))).join('  '));
      if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
    }
    const [api, sql] = [rows[1][1], rows[2][1]];
    console.log(`\npage via API / direct SQL: p50 x${fmt(api.p50 / sql.p50, 2)}, p95 x${fmt(api.p95 / sql.p95, 2)}, p99 x${fmt(api.p99 / sql.p99, 2)}, throughput x${fmt(api.rps / sql.rps, 2)}`);
    console.log(`(measured in ${fmt((performance.now() - t0) / 1000)} s)`);
    if (rows.some(([, s]) => s.failures > 0)) process.exitCode = 1;
  } finally {
    await app.close();
    await db.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--load')) await loadGenerator();
else await main();
