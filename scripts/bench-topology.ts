/**
 * Topology at scale (issue 13): 20,000 components in 200 topologies (each a root, 9 children, 90 grandchildren with a
 * check each), written as a runner would (one statement per level, the roll-up triggers on), then GET /api/topology
 * as the cards call it: the roots as the reference UI asks (depth 2, hidden=false, sorted by health), the roots at
 * the default depth 5 (every component), a topology by id, a service's subtree, a status filter and flatten+type.
 * Also a check result reaching its topology's card: the check's status written, the roll-up of pod, service and
 * root, then the card read until it shows it. Prints p50/p95/p99 over loopback HTTP (autocannon, 1 connection:
 * latency, not throughput) and the load average, since the figures move with it.
 *
 *   npm run bench:topology      (BENCH_SECONDS=10 by default; DATABASE_URL to use an existing server)
 */
import { loadavg } from 'node:os';
import pg from 'pg';
import { buildApp } from '../server/app.js';
import { loadConfig } from '../server/config.js';
import { migrate } from '../server/db/migrate.js';
import { adminToken, benchDatabase, fmt, loadGenerator, overHttp, percentile, summarise } from './lib/load.js';

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
  await db.query(`INSERT INTO topologies (name, namespace, spec) SELECT 'topology-' || g, 'default', '{"schedule": "@never"}' FROM generate_series(1, ${TOPOLOGIES}) g`);
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

const loadAverage = () => loadavg().map((n) => n.toFixed(2)).join(' ');

/**
 * A check result reaching its card: the check's status written (the roll-up runs in its statement), then the
 * topology's card read (`id=<root>&depth=2`) until it shows the root's rolled-up status.
 */
async function checkToCard(db: pg.Pool, base: string, token: string, runs: number): Promise<{ write: number[]; card: number[] }> {
  const { rows } = await db.query<{ check_id: string; root: string }>(`SELECT r.check_id, split_part(c.path, '.', 1) AS root
    FROM check_component_relationships r JOIN components c ON c.id = r.component_id ORDER BY random() LIMIT $1`, [runs]);
  const write: number[] = [];
  const card: number[] = [];
  for (const { check_id, root } of rows) {
    for (const status of ['unhealthy', 'healthy']) {
      const t0 = performance.now();
      await db.query('UPDATE checks SET status = $2 WHERE id = $1', [check_id, status]);
      write.push(performance.now() - t0);
      // the roll-up ran in the write's statement: the root's stored status is what the card must show
      const want = (await db.query('SELECT status FROM components WHERE id = $1', [root])).rows[0].status;
      for (let tries = 0; tries < 50; tries++) {
        const res = await fetch(`${base}/api/topology?id=${root}&depth=2`, { headers: { authorization: `Bearer ${token}` } });
        const body = await res.json() as { components: { status: string }[] };
        if (body.components[0]?.status === want) break;
      }
      card.push(performance.now() - t0);
    }
  }
  return { write: write.sort((a, b) => a - b), card: card.sort((a, b) => a - b) };
}

async function main() {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const database = await benchDatabase('bench-topology');
  const db = new pg.Pool({ connectionString: database.url, max: 4 });
  // pg-pool's end() does not wait for its clients' sockets to close: a backend the database's stop terminates after
  // it is re-emitted here as an 'error' (unheard, it would crash the bench at teardown)
  let ending = false;
  db.on('error', (err) => {
    if (!ending) console.error(err);
  });
  try {
    await migrate(db);
    const seeded = await seed(db);
    const count = (await db.query(`SELECT count(*)::int AS n FROM components`)).rows[0].n;
    console.log(`seeded ${count} components in ${TOPOLOGIES} topologies; statement times with the roll-up (ms):`,
      Object.fromEntries(Object.entries(seeded).map(([k, v]) => [k, Math.round(v)])));

    const config = loadConfig({ DATABASE_URL: database.url, DEMO_DATA: 'false', LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1' });
    const app = await buildApp(config, { logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const token = await adminToken(db);
    const roots = (await db.query(`SELECT id FROM components WHERE parent_id IS NULL`)).rows.map((r) => r.id as string);
    const services = (await db.query(`SELECT id FROM components WHERE type = 'Service' ORDER BY random() LIMIT 200`)).rows.map((r) => r.id as string);
    const cards = 'hidden=false&sortBy=status&sortOrder=desc';
    const scenarios: [string, string[]][] = [
      ['root as the reference UI asks: depth 2 (2,000 components)', [`/api/topology?depth=2&${cards}`]],
      ['root, default depth 5 (all 20,000 components)', [`/api/topology?${cards}`]],
      ['root, status=unhealthy,warning sorted by name', ['/api/topology?status=unhealthy,warning&sortBy=name']],
      ['a topology by id (100 components)', roots.map((id) => `/api/topology?id=${id}&${cards}`)],
      ['subtree: a service by id (11 components)', services.map((id) => `/api/topology?id=${id}`)],
      ['flatten, type=Service (1,800 of 20,000)', ['/api/topology?flatten=true&type=Service&hidden=false&sortBy=name']],
    ];
    console.log(`load average before: ${loadAverage()}`);
    console.log('| call | req/s | p50 ms | p95 ms | p99 ms | failures | bytes |\n|---|---|---|---|---|---|---|');
    for (const [name, paths] of scenarios) {
      const bytes = (await (await fetch(base + paths[0], { headers: { authorization: `Bearer ${token}` } })).arrayBuffer()).byteLength;
      const f = summarise(await overHttp({ url: base, headers: { authorization: `Bearer ${token}` }, paths, connections: 1, duration: seconds }));
      console.log(`| ${name} | ${f.rps.toFixed(0)} | ${fmt(f.p50)} | ${fmt(f.p95)} | ${fmt(f.p99)} | ${f.failures} | ${bytes} |`);
    }
    const { write, card } = await checkToCard(db, base, token, Number(process.env.BENCH_FLIPS ?? 50));
    console.log(`check status write with the roll-up of pod, service, root: p50 ${fmt(percentile(write, 0.5))} ms, p95 ${fmt(percentile(write, 0.95))} ms`);
    console.log(`check result to card (the write + GET id=<root>&depth=2 showing it): p50 ${fmt(percentile(card, 0.5))} ms, p95 ${fmt(percentile(card, 0.95))} ms`);
    console.log(`load average after: ${loadAverage()}`);
    await app.close();
  } finally {
    ending = true;
    await db.end();
    await database.close();
  }
}

if (process.argv.includes('--load')) void loadGenerator();
else if (process.argv[1]?.endsWith('bench-topology.ts')) void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
