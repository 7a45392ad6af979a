/**
 * npm run bench:catalog: the catalog screens' reads over 100,000 items, 1,000,000 changes and 200,000 insights (issue
 * 12, "Performance").
 *
 * Seeds with INSERT ... SELECT generate_series into a fresh embedded PostgreSQL (or DATABASE_URL; an already seeded
 * database is reused): 25 types under 3 clusters and 50 namespaces, 5% deleted; changes spread evenly over 30 days;
 * two insights per item, 80% open. Then times, over loopback HTTP, one request at a time (BENCH_RUNS each, default 40):
 * the summary the /catalog page asks for; a group's first 50 items with count=exact as the reference UI's list asks
 * (select twice, agent embed), and the same with a search; the changes page (200 rows, the UI's body); the insights
 * page (50, count=exact); config_detail of a random item. The summary and the changes count read rollups kept by
 * triggers (0051, 0052) when only the window narrows them; the filtered calls show the exact paths. Targets (p95): summary < 100 ms, group < 100 ms (search <
 * 150), changes < 150, insights < 100, config_detail < 50.
 *
 *   npx tsx scripts/bench-catalog.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildApp } from '../server/app.js';
import { loadConfig } from '../server/config.js';
import { startEmbeddedPostgres } from '../server/db/embedded.js';
import { migrate } from '../server/db/migrate.js';
import { adminToken, fmt, percentile } from './lib/load.js';

const ITEMS = 100_000;
const CHANGES = 1_000_000;
const TYPES = [
  ...Array(8).fill('Kubernetes::Pod'), 'Kubernetes::ReplicaSet', 'Kubernetes::ReplicaSet', 'Kubernetes::Deployment',
  'Kubernetes::Service', 'Kubernetes::ConfigMap', 'Kubernetes::Secret', 'Kubernetes::Namespace', 'Kubernetes::Node',
  'Kubernetes::Ingress', 'Kubernetes::StatefulSet', 'Kubernetes::DaemonSet', 'Kubernetes::Job', 'Kubernetes::CronJob',
  'AWS::EC2::Instance', 'AWS::S3::Bucket', 'File::Config', 'SQL::Row',
];
const sqlArray = (xs: string[]) => `ARRAY[${xs.map((x) => `'${x}'`).join(',')}]`;

async function seed(db: pg.Pool) {
  await db.query(`
    INSERT INTO config_items (id, config_class, type, name, tags, labels, health, status, description, deleted_at,
                              cost_per_minute, cost_total_1d, cost_total_30d, config, created_at, updated_at)
    SELECT md5('item' || g)::uuid, split_part(t.type, '::', 2), t.type, 'item-' || g,
           jsonb_build_object('cluster', 'cluster-' || (g % 3), 'namespace', 'ns-' || (g % 50)),
           jsonb_build_object('app', 'app-' || (g % 200), 'team', 'team-' || (g % 10)),
           (ARRAY['healthy','healthy','healthy','healthy','healthy','healthy','healthy','healthy','unhealthy','warning'])[1 + g % 10],
           (ARRAY['Running','Running','Pending','Active','Degraded'])[1 + g % 5],
           CASE WHEN g % 7 = 0 THEN 'service number ' || g END,
           CASE WHEN g % 20 = 0 THEN now() - interval '1 day' END,
           CASE WHEN g % 4 = 0 THEN 0.0010 END, CASE WHEN g % 4 = 0 THEN 1.44 END, CASE WHEN g % 4 = 0 THEN 43.2 END,
           jsonb_build_object('kind', t.type, 'spec', jsonb_build_object('replicas', g % 5, 'image', 'nginx:' || (g % 30))),
           now() - make_interval(days => g % 60), now() - make_interval(hours => g % 500)
    FROM generate_series(1, ${ITEMS}) g, LATERAL (SELECT (${sqlArray(TYPES)})[1 + (g * 7) % ${TYPES.length}] AS type) t`);
  await db.query(`
    INSERT INTO config_changes (config_id, change_type, severity, source, summary, created_at, first_observed, count, details)
    SELECT md5('item' || (1 + (g::bigint * 7919) % ${ITEMS}))::uuid,
           (ARRAY['diff','diff','diff','diff','Pulled','Created','Started','Killing','BackOff','Scheduled','Unhealthy',
                  'SuccessfulCreate','ScalingReplicaSet','FailedMount','UPDATE'])[1 + g % 15],
           (ARRAY['info','info','info','low','low','medium','high','critical'])[1 + g % 8],
           (ARRAY['kubernetes','kubernetes/event','file'])[1 + g % 3],
           'changed spec.replicas ' || (g % 100), t, t, 1 + g % 3, jsonb_build_object('n', g)
    FROM generate_series(1, ${CHANGES}) g,
         LATERAL (SELECT now() - make_interval(secs => (g::double precision / ${CHANGES}) * 30 * 86400) AS t) x`);
  await db.query(`
    INSERT INTO config_analysis (config_id, analyzer, analysis_type, severity, status, source, summary, message, first_observed, last_observed)
    SELECT md5('item' || i)::uuid, a.analyzer, a.type, (ARRAY['info','low','medium','high','critical'])[1 + (i + a.k) % 5],
           CASE WHEN (i + a.k) % 5 = 0 THEN 'resolved' ELSE 'open' END, 'kubernetes', a.analyzer || ' on item-' || i,
           'message for item-' || i, now() - make_interval(hours => i % 700), now() - make_interval(mins => i % 600)
    FROM generate_series(1, ${ITEMS}) i,
         LATERAL (SELECT * FROM (VALUES
           (0, (ARRAY['latest-tag','no-limits','crashloop','image-pull','root-user'])[1 + i % 5], (ARRAY['security','reliability','availability','availability','security'])[1 + i % 5]),
           (1, (ARRAY['missing-probe','unavailable-replicas','not-ready'])[1 + i % 3], (ARRAY['reliability','availability','availability'])[1 + i % 3])
         ) v(k, analyzer, type)) a`);
  for (const t of ['config_items', 'config_changes', 'config_analysis', 'config_summary_rollup', 'config_item_rollup', 'config_item_rollup_latest', 'config_change_rollup']) {
    await db.query(`VACUUM ANALYZE ${t}`);
  }
}

interface Call { name: string; target: string; method: 'GET' | 'POST'; url: () => string; body?: unknown; headers?: Record<string, string> }

async function time(base: string, token: string, call: Call, runs: number) {
  const ms: number[] = [];
  for (let i = 0; i < runs + 2; i++) {
    const started = performance.now();
    const res = await fetch(base + call.url(), {
      method: call.method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...call.headers },
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
    });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${call.name}: HTTP ${res.status}`);
    if (i >= 2) ms.push(performance.now() - started); // two warm-up calls
  }
  return ms.sort((a, b) => a - b);
}

async function main() {
  const runs = Number(process.env.BENCH_RUNS ?? 40);
  let dir: string | undefined;
  let stop = async () => {};
  let url = process.env.DATABASE_URL;
  if (!url) {
    dir = await mkdtemp(join(tmpdir(), 'bench-catalog-'));
    const embedded = await startEmbeddedPostgres(dir, 0, { info() {}, warn() {}, debug() {} });
    url = embedded.url;
    stop = () => embedded.stop();
  }
  const db = new pg.Pool({ connectionString: url, max: 4 });
  try {
    await migrate(db);
    if (Number((await db.query('SELECT count(*) AS n FROM config_items')).rows[0].n) === 0) {
      const started = Date.now();
      await seed(db);
      console.log(`seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
    const counts = (await db.query(`SELECT (SELECT count(*) FROM config_items)::int AS items,
      (SELECT count(*) FROM config_changes)::int AS changes, (SELECT count(*) FROM config_analysis)::int AS insights`)).rows[0];
    console.log(counts);

    const config = loadConfig({ DATABASE_URL: url, DEMO_DATA: 'false', LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1' });
    const app = await buildApp(config, { logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    // a reused database keeps the last run's bench admin: free its email for this run's
    const stamp = Date.now();
    await db.query(`UPDATE people SET email = $1 WHERE email = 'bench-admin@example.test'`, [`bench-admin-${stamp}@example.test`]);
    await db.query(`UPDATE identities SET traits = jsonb_set(traits, '{email}', to_jsonb($1::text))
      WHERE lower(traits ->> 'email') = 'bench-admin@example.test'`, [`bench-admin-${stamp}@example.test`]);
    const token = await adminToken(db);
    const ids = (await db.query('SELECT id FROM config_items WHERE deleted_at IS NULL ORDER BY random() LIMIT 200')).rows.map((r) => r.id as string);

    // the reference UI's list query (prepareConfigListQuery): select twice, a group's type, live items, first 50
    const list = (extra: Record<string, string>) => {
      const q = new URLSearchParams({ select: 'id,type,config_class,status,health,labels,name,tags,created_at,updated_at,deleted_at,cost_per_minute,cost_total_1d,cost_total_30d,changes,analysis' });
      q.append('select', 'agent:agents(id,name)');
      q.append('type', 'eq.Kubernetes::Pod');
      for (const [k, v] of Object.entries(extra)) q.append(k, v);
      q.append('order', 'type,name.asc');
      q.append('deleted_at', 'is.null');
      q.append('limit', '50');
      q.append('offset', '0');
      return `/api/db/configs?${q}`;
    };
    const search = (s: string) => `(name.ilike.*${s}*,type.ilike.*${s}*,description.ilike.*${s}*,namespace.ilike.*${s}*)`;
    const count = { prefer: 'count=exact' };
    const calls: Call[] = [
      { name: 'POST /api/catalog/summary (by type, 30d changes, cost)', target: '< 100', method: 'POST', url: () => '/api/catalog/summary',
        body: { groupBy: ['type'], deleted: false, changes: { since: '30d' }, analysis: { since: '30d' }, cost: '30d' } },
      { name: 'POST /api/catalog/summary (by namespace tag)', target: '< 100', method: 'POST', url: () => '/api/catalog/summary',
        body: { groupBy: ['namespace'], changes: { since: '30d' } } },
      { name: 'POST /api/catalog/summary (health filter: exact joins)', target: '-', method: 'POST', url: () => '/api/catalog/summary',
        body: { groupBy: ['type'], health: 'unhealthy', changes: { since: '30d' } } },
      { name: "a group's first 50 (Pods, count=exact)", target: '< 100', method: 'GET', url: () => list({}), headers: count },
      { name: 'the same with a search', target: '< 150', method: 'GET', url: () => list({ or: search(`item-${1 + Math.floor(Math.random() * 999)}`) }), headers: count },
      { name: 'POST /api/catalog/changes (first page of 200, 2 days)', target: '< 150', method: 'POST', url: () => '/api/catalog/changes',
        body: { page_size: 200, sort_by: '-created_at', recursive: 'none', include_deleted_configs: false } },
      // a filter other than the window: counted exactly (index on created_at with the type and item)
      { name: 'the same, severity >= high (exact count)', target: '< 150', method: 'POST', url: () => '/api/catalog/changes',
        body: { page_size: 200, sort_by: '-created_at', recursive: 'none', include_deleted_configs: false, severity: '>=high' } },
      { name: 'insights page (50 open, count=exact)', target: '< 100', method: 'GET', headers: count,
        url: () => '/api/db/config_analysis_items?select=id,analysis_type,analyzer,summary,severity,status,source,first_observed,last_observed,config_name,config:configs(id,name,config_class,type)&status=eq.open&order=last_observed.desc&limit=50&offset=0' },
      { name: 'config_detail of one item', target: '< 50', method: 'GET', url: () => `/api/db/config_detail?id=eq.${ids[Math.floor(Math.random() * ids.length)]}&select=*` },
    ];
    console.log(`\n| call (${runs} runs, one at a time) | p50 ms | p95 ms | target p95 |\n|---|---|---|---|`);
    for (const call of calls) {
      const ms = await time(base, token, call, runs);
      console.log(`| ${call.name} | ${fmt(percentile(ms, 0.5))} | ${fmt(percentile(ms, 0.95))} | ${call.target} |`);
    }
    await app.close();
  } finally {
    await db.end();
    await stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
