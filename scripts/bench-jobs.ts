/**
 * npm run bench:jobs: the Job History page's calls over 1,000,000 job_history rows (issue 11, "Performance").
 *
 * Seeds 30 days of runs (200 job names, 2,000 resources of the three kinds, 10% not SUCCESS) with one INSERT ...
 * SELECT generate_series into a fresh embedded PostgreSQL, then measures over loopback HTTP (autocannon, 4
 * connections) the calls web/src/features/jobs/api.ts makes through /api/db: the first page (150 rows, created_at
 * desc, `Prefer: count=exact`) under the default filter (status=neq.SUCCESS, the last 2 days), each filter, a one-day
 * range, resource_id, the whole 30 days, and job_history_names. Targets: p95 < 100 ms each, names < 20 ms.
 *
 *   npx tsx scripts/bench-jobs.ts     (BENCH_SECONDS=5 per call by default; DATABASE_URL to use an existing server)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildApp } from '../server/app.js';
import { loadConfig } from '../server/config.js';
import { startEmbeddedPostgres } from '../server/db/embedded.js';
import { migrate } from '../server/db/migrate.js';
import { adminToken, loadGenerator, overHttp, summarise } from './lib/load.js';

const ROWS = Number(process.env.BENCH_JOB_ROWS ?? 1_000_000);
const NAMES = 200;
const RESOURCES = 2_000;
const DAYS = 30;

// the page's select and its default sort and page (web/src/features/jobs/api.ts)
const SELECT = 'id,name,agent,resource_id,resource_type,resource_name,status,time_start,time_end,duration_millis,success_count,error_count,created_at,details';
const q = (params: Record<string, string | number>) =>
  Object.entries(params).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&');

async function seed(db: pg.Pool) {
  await db.query(`INSERT INTO canaries (name, namespace, spec, source)
    SELECT 'canary-' || g, 'default', '{}'::jsonb, 'bench' FROM generate_series(1, ${RESOURCES / 2}) g`);
  // one statement, evenly spread over 30 days; every tenth row FAILED, WARNING or RUNNING, with errors in details
  await db.query(`
    INSERT INTO job_history (name, agent_id, resource_type, resource_id, status, success_count, error_count, details,
                             hostname, duration_millis, time_start, time_end, created_at)
    SELECT 'Job' || lpad((g % ${NAMES})::text, 3, '0'),
           '00000000-0000-0000-0000-000000000000',
           (ARRAY['canary', 'topology', 'config_scraper'])[1 + (g % ${RESOURCES}) % 3],
           CASE WHEN (g % ${RESOURCES}) % 3 = 0 THEN c.ids[1 + (g % ${RESOURCES}) / 3 % ${RESOURCES / 2}]
                ELSE 'resource-' || (g % ${RESOURCES}) END,
           CASE WHEN g % 10 <> 0 THEN 'SUCCESS' ELSE (ARRAY['FAILED', 'WARNING', 'FAILED', 'RUNNING'])[1 + (g / 10) % 4] END,
           g % 50, CASE WHEN g % 10 = 0 THEN 1 + g % 5 ELSE 0 END,
           CASE WHEN g % 10 = 0 THEN jsonb_build_object('errors', jsonb_build_array('connection refused to target ' || g % 97)) END,
           'bench-host', (g::bigint * 7919) % 60000, t, t + make_interval(secs => ((g::bigint * 7919) % 60000) / 1000.0), t
    FROM (SELECT array_agg(id::text ORDER BY name) AS ids FROM canaries) c,
         generate_series(1, ${ROWS}) g,
         LATERAL (SELECT now() - make_interval(secs => (g::double precision / ${ROWS}) * ${DAYS} * 86400) AS t) x`);
  await db.query('VACUUM ANALYZE job_history');
}

async function main() {
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  let dir: string | undefined;
  let stop = async () => {};
  let url = process.env.DATABASE_URL;
  if (!url) {
    dir = await mkdtemp(join(tmpdir(), 'bench-jobs-'));
    const quiet = { info() {}, warn() {}, debug() {} };
    const embedded = await startEmbeddedPostgres(dir, 0, quiet);
    url = embedded.url;
    stop = () => embedded.stop();
  }
  const db = new pg.Pool({ connectionString: url, max: 4 });
  try {
    await migrate(db);
    const started = Date.now();
    await seed(db);
    const counts = (await db.query(`SELECT count(*)::int AS rows, count(*) FILTER (WHERE status <> 'SUCCESS')::int AS not_success,
      count(DISTINCT name)::int AS names FROM job_history`)).rows[0];
    console.log(`seeded in ${((Date.now() - started) / 1000).toFixed(0)} s:`, counts);

    const config = loadConfig({ DATABASE_URL: url, DEMO_DATA: 'false', LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1' });
    const app = await buildApp(config, { logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const token = await adminToken(db);
    const resources = (await db.query(`SELECT DISTINCT resource_id FROM job_history LIMIT 200`)).rows.map((r) => r.resource_id as string);
    // instants are fixed per scenario, as a page sends them after resolving its range
    const ago = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
    const page = { select: SELECT, order: 'created_at.desc', limit: 150, offset: 0 };
    const last2d = { 'created_at': `gte.${ago(2)}` };
    const jobs = (params: Record<string, string | number>, extra = '') => `/api/db/job_histories?${q({ ...page, ...params })}${extra}`;
    // a range is two created_at filters, as the page sends it
    const range = (from: number, to: number) => `&${q({ created_at: `gte.${ago(from)}` })}&${q({ created_at: `lte.${ago(to)}` })}`;
    const names = Array.from({ length: 20 }, (_, i) => `Job${String(i * 10).padStart(3, '0')}`);
    const scenarios: [string, string[]][] = [
      ['default: status=neq.SUCCESS, last 2 days', [jobs({ status: 'neq.SUCCESS', ...last2d })]],
      ['+ name=eq.{name}', names.map((n) => jobs({ status: 'neq.SUCCESS', ...last2d, name: `eq.${n}` }))],
      ['+ resource_type=eq.config_scraper', [jobs({ status: 'neq.SUCCESS', ...last2d, resource_type: 'eq.config_scraper' })]],
      ['status=eq.FAILED, last 2 days', [jobs({ status: 'eq.FAILED', ...last2d })]],
      ['+ duration_millis=gte.50000', [jobs({ status: 'neq.SUCCESS', ...last2d, duration_millis: 'gte.50000' })]],
      ['all statuses, last 2 days', [jobs(last2d)]],
      ['one day, 10 days ago, all statuses', [jobs({}, range(10, 9))]],
      ['resource_id=eq.{id}, all 30 days', resources.map((id) => jobs({ resource_id: `eq.${id}` }))],
      ['status=neq.SUCCESS, all 30 days', [jobs({ status: 'neq.SUCCESS' })]],
      ['name=eq.{name}, all 30 days', names.map((n) => jobs({ name: `eq.${n}` }))],
      ['resource_type=eq.topology, all 30 days', [jobs({ resource_type: 'eq.topology' })]],
      ['no filter, all 30 days', [jobs({})]],
      ['job_history_names?order=name.asc', ['/api/db/job_history_names?order=name.asc']],
    ];
    console.log('| call (page of 150, count=exact) | req/s | p50 ms | p95 ms | p99 ms | failures |\n|---|---|---|---|---|---|');
    for (const [name, paths] of scenarios) {
      const headers = { authorization: `Bearer ${token}`, prefer: 'count=exact' };
      const f = summarise(await overHttp({ url: base, headers, paths, connections: 4, duration: seconds }));
      console.log(`| ${name} | ${f.rps.toFixed(0)} | ${f.p50.toFixed(1)} | ${f.p95.toFixed(1)} | ${f.p99.toFixed(1)} | ${f.failures} |`);
    }
    await app.close();
  } finally {
    await db.end();
    await stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--load')) void loadGenerator();
else void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
