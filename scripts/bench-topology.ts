/**
 * Topology at scale (issue 13): 20,000 components in 200 topologies (each a root, 9 children, 90 grandchildren with a
 * check each), written as a runner would (one statement per level, the roll-up triggers on), then GET /api/topology
 * as the cards call it: the roots (default depth 5: every component), a topology's subtree by id, and a child's
 * subtree. Also the roll-up of one check result (a check turning unhealthy, up three levels). Prints p50/p95/p99 over
 * loopback HTTP (autocannon, 1 connection: latency, not throughput).
 *
 *   npm run bench:topology      (BENCH_SECONDS=10 by default; DATABASE_URL to use an existing server)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildApp } from '../server/app.js';
import { loadConfig } from '../server/config.js';
import { startEmbeddedPostgres } from '../server/db/embedded.js';
import { migrate } from '../server/db/migrate.js';
import { adminToken, fmt, loadGenerator, overHttp, percentile, summarise } from './lib/load.js';

const TOPOLOGIES = 200;
const CHILDREN = 9;
const GRANDCHILDREN = 10; // per child: 1 + 9 + 90 = 100 components per topology

export async function seed(db: pg.Pool): Promise<Record<string, number>> {
  const ms: Record<string, number> = {};
  const timed = async (name: string, sql: string) => {
    const t0 = performance.now();
    await db.query(sql);
    ms[name] = performance.now() - t0;
  };
  await db.query(`INSERT INTO canaries (name, spec) VALUES ('bench', '{}')`);
  await db.query(`INSERT INTO topologies (name, namespace, spec) SELECT 'topology-' || g, 'default', '{}' FROM generate_series(1, ${TOPOLOGIES}) g`);
  await timed('roots', `INSERT INTO components (topology_id, external_id, name, type, icon, labels)
    SELECT id, name, name, 'Topology', 'server', jsonb_build_object('env', CASE WHEN name ~ '[02468]$' THEN 'prod' ELSE 'dev' END)
    FROM topologies`);
  await timed('children', `INSERT INTO components (topology_id, parent_id, external_id, name, type, properties)
    SELECT c.topology_id, c.id, c.name || '-svc-' || g, 'svc-' || g, 'Service',
      jsonb_build_array(jsonb_build_object('name', 'cpu', 'value', g * 10, 'max', 100, 'headline', true))
    FROM components c CROSS JOIN generate_series(1, ${CHILDREN}) g WHERE c.parent_id IS NULL`);
  await timed('grandchildren', `INSERT INTO components (topology_id, parent_id, external_id, name, type)
    SELECT c.topology_id, c.id, c.external_id || '-pod-' || g, 'pod-' || g, 'Pod'
    FROM components c CROSS JOIN generate_series(1, ${GRANDCHILDREN}) g WHERE c.type = 'Service'`);
  await db.query(`INSERT INTO checks (canary_id, type, name, status)
    SELECT (SELECT id FROM canaries LIMIT 1), 'http', c.external_id, CASE WHEN random() < 0.02 THEN 'unhealthy' ELSE 'healthy' END
    FROM components c WHERE c.type = 'Pod'`);
  await timed('check links', `INSERT INTO check_component_relationships (component_id, check_id, canary_id, selector_id)
    SELECT c.id, ch.id, ch.canary_id, 'bench' FROM components c JOIN checks ch ON ch.name = c.external_id`);
  await db.query('VACUUM ANALYZE');
  return ms;
}

async function main() {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  let dir: string | undefined;
  let stop = async () => {};
  let url = process.env.DATABASE_URL;
  if (!url) {
    dir = await mkdtemp(join(tmpdir(), 'bench-topology-'));
    const embedded = await startEmbeddedPostgres(dir, 0, { info() {}, warn() {}, debug() {} });
    url = embedded.url;
    stop = () => embedded.stop();
  }
  const db = new pg.Pool({ connectionString: url, max: 4 });
  try {
    await migrate(db);
    const seeded = await seed(db);
    const count = (await db.query(`SELECT count(*)::int AS n FROM components`)).rows[0].n;
    console.log(`seeded ${count} components in ${TOPOLOGIES} topologies; statement times with the roll-up (ms):`,
      Object.fromEntries(Object.entries(seeded).map(([k, v]) => [k, Math.round(v)])));

    // one check result turning unhealthy and back: the roll-up of a pod, its service and its root
    const checks = (await db.query(`SELECT id FROM checks ORDER BY random() LIMIT 100`)).rows.map((r) => r.id as string);
    const flips: number[] = [];
    for (const id of checks) {
      for (const status of ['unhealthy', 'healthy']) {
        const t0 = performance.now();
        await db.query('UPDATE checks SET status = $2 WHERE id = $1', [id, status]);
        flips.push(performance.now() - t0);
      }
    }
    flips.sort((a, b) => a - b);
    console.log(`check status change with roll-up: p50 ${fmt(percentile(flips, 0.5))} ms, p95 ${fmt(percentile(flips, 0.95))} ms`);

    const config = loadConfig({ DATABASE_URL: url, DEMO_DATA: 'false', LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1' });
    const app = await buildApp(config, { logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const token = await adminToken(db);
    const roots = (await db.query(`SELECT id FROM components WHERE parent_id IS NULL`)).rows.map((r) => r.id as string);
    const services = (await db.query(`SELECT id FROM components WHERE type = 'Service' ORDER BY random() LIMIT 200`)).rows.map((r) => r.id as string);
    const scenarios: [string, string[]][] = [
      ['root: every topology, depth 5 (20,000 components)', ['/api/topology']],
      ['root, status=unhealthy,warning sorted by name', ['/api/topology?status=unhealthy,warning&sortBy=name']],
      ['subtree: a topology by id (100 components)', roots.map((id) => `/api/topology?id=${id}`)],
      ['subtree: a service by id (11 components)', services.map((id) => `/api/topology?id=${id}`)],
      ['flatten, type=Service (1,800 components)', ['/api/topology?flatten=true&type=Service']],
    ];
    const load = (await import('node:os')).loadavg().map((n) => n.toFixed(2)).join(' ');
    console.log(`load average before: ${load}`);
    console.log('| call | req/s | p50 ms | p95 ms | p99 ms | failures |\n|---|---|---|---|---|---|');
    for (const [name, paths] of scenarios) {
      const f = summarise(await overHttp({ url: base, headers: { authorization: `Bearer ${token}` }, paths, connections: 1, duration: seconds }));
      console.log(`| ${name} | ${f.rps.toFixed(0)} | ${fmt(f.p50)} | ${fmt(f.p95)} | ${fmt(f.p99)} | ${f.failures} |`);
    }
    console.log(`load average after: ${(await import('node:os')).loadavg().map((n) => n.toFixed(2)).join(' ')}`);
    await app.close();
  } finally {
    await db.end();
    await stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--load')) void loadGenerator();
else if (process.argv[1]?.endsWith('bench-topology.ts')) void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
