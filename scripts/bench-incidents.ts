/**
 * Incidents at scale (issue 6): 50,000 incidents with 500,000 evidences and 500,000 comments (1,000,000 rows under
 * them), 100,000 hypotheses and responders and about 1,100,000 timeline entries, then the web's own calls through
 * /api/db: the list's first page with `Prefer: count=exact` (default filter status=open, and unfiltered), the list
 * filtered by component, and the detail page (the incident with its tree and evidence, its comments, its responders
 * and its changelog). Prints p50/p95/p99 per call over loopback HTTP (autocannon, 4 connections).
 *
 *   npx tsx scripts/bench-incidents.ts           (BENCH_SECONDS=10 by default; DATABASE_URL to use an existing server)
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

const INCIDENTS = 50_000;
const PER_INCIDENT = 10; // evidences and comments each

// The web's calls (web/src/features/incidents/api.ts and work-api.ts), as sent.
const LIST_SELECT = 'id,incident_id,title,severity,type,status,created_at,updated_at,responders(id,team:team_id(id,name,icon),person:person_id(id,name,avatar))';
const DETAIL_SELECT = '*,created_by(id,name,avatar),commander:commander_id(id,name,avatar),communicator:communicator_id(id,name,avatar),hypotheses(id,incident_id,parent_id,title,type,status,created_at,created_by(id,name,avatar),evidences(*,created_by(id,name,avatar),check:check_id(id,name,type,status)))';
const HISTORY_SELECT = 'id,type,description,created_at,created_by(id,name,avatar),hypothesis:hypothesis_id(id,title),evidence:evidence_id(id,description,type),comment:comment_id(id,comment),responder:responder_id(id,person:person_id(id,name,avatar),team:team_id(id,name,icon))';
const q = (params: Record<string, string | number>) =>
  Object.entries(params).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&');

async function seed(db: pg.Pool) {
  const c = await db.connect();
  try {
    // bulk load: no per-row triggers or FK checks (the timeline is generated in bulk below instead)
    await c.query('SET session_replication_role = replica');
    await c.query(`INSERT INTO people (name, email) SELECT 'Person ' || g, 'p' || g || '@bench.test' FROM generate_series(1, 200) g`);
    await c.query(`INSERT INTO teams (name, icon, spec, created_by)
      SELECT 'Team ' || g, 'k8s', '{"responder_clients":{"jira":{}}}', (SELECT id FROM people LIMIT 1) FROM generate_series(1, 20) g`);
    await c.query(`CREATE TEMP TABLE ppl AS SELECT row_number() OVER () AS n, id FROM people`);
    await c.query(`CREATE TEMP TABLE tms AS SELECT row_number() OVER () AS n, id FROM teams`);
    await c.query(`
      INSERT INTO incidents (title, description, severity, type, status, created_by, commander_id, created_at)
      SELECT 'Incident ' || g || ' on service-' || (g % 500), 'bench', (ARRAY['low','medium','high','blocker','critical'])[1 + g % 5],
        (ARRAY['cost','availability','performance','security','integration','compliance','technicalDebt','reliability'])[1 + g % 8],
        (ARRAY['open','open','investigating','mitigated','resolved','closed','closed','closed'])[1 + g % 8],
        (SELECT id FROM ppl WHERE n = 1 + g % 200), (SELECT id FROM ppl WHERE n = 1 + (g * 7) % 200),
        now() - make_interval(mins => g * 10)
      FROM generate_series(1, ${INCIDENTS}) g`);
    await c.query(`CREATE TEMP TABLE inc AS SELECT row_number() OVER (ORDER BY created_at) AS n, id, created_by FROM incidents`);
    await c.query(`INSERT INTO hypotheses (incident_id, title, type, status, created_by)
      SELECT id, 'Root of ' || n, 'root', 'possible', created_by FROM inc`);
    await c.query(`INSERT INTO hypotheses (incident_id, parent_id, title, type, status, created_by)
      SELECT h.incident_id, h.id, 'Factor of ' || h.title, 'factor', 'likely', h.created_by FROM hypotheses h WHERE h.type = 'root'`);
    await c.query(`CREATE TEMP TABLE hyp AS SELECT id, incident_id, created_by, row_number() OVER (PARTITION BY incident_id ORDER BY type DESC) AS k FROM hypotheses`);
    await c.query(`
      INSERT INTO evidences (hypothesis_id, type, description, component_id, evidence, created_by, definition_of_done)
      SELECT h.id, (ARRAY['log','config','topology','comment'])[1 + g % 4], 'Evidence ' || g,
        CASE WHEN g % 4 = 2 THEN ('00000000-0000-4000-8000-' || lpad(to_hex(i.n % 1000), 12, '0'))::uuid END,
        '{"lines":[{"message":"connection refused"}]}', h.created_by, g = 1
      FROM inc i CROSS JOIN generate_series(1, ${PER_INCIDENT}) g JOIN hyp h ON h.incident_id = i.id AND h.k = 1 + g % 2`);
    await c.query(`
      INSERT INTO comments (incident_id, hypothesis_id, comment, created_by)
      SELECT i.id, h.id, 'Comment ' || g || ' about the incident', (SELECT id FROM ppl WHERE n = 1 + (i.n + g) % 200)
      FROM inc i CROSS JOIN generate_series(1, ${PER_INCIDENT}) g JOIN hyp h ON h.incident_id = i.id AND h.k = 1 + g % 2`);
    await c.query(`
      INSERT INTO responders (incident_id, type, person_id, team_id, properties, created_by)
      SELECT i.id, CASE WHEN g = 1 THEN 'person' ELSE 'system' END,
        CASE WHEN g = 1 THEN (SELECT id FROM ppl WHERE n = 1 + i.n % 200) END,
        CASE WHEN g = 2 THEN (SELECT id FROM tms WHERE n = 1 + i.n % 20) END,
        CASE WHEN g = 1 THEN '{"responderType":"person"}'::jsonb ELSE '{"responderType":"jira"}'::jsonb END, i.created_by
      FROM inc i CROSS JOIN generate_series(1, 2) g`);
    await c.query(`
      INSERT INTO incident_histories (incident_id, type, description, created_by, evidence_id, created_at)
      SELECT h.incident_id, 'evidence.created', 'Evidence added', e.created_by, e.id, e.created_at
      FROM evidences e JOIN hypotheses h ON h.id = e.hypothesis_id`);
    await c.query(`
      INSERT INTO incident_histories (incident_id, type, description, created_by, comment_id, hypothesis_id, created_at)
      SELECT incident_id, 'responder.commented', left(comment, 100), created_by, id, hypothesis_id, created_at FROM comments`);
    await c.query(`
      INSERT INTO incident_histories (incident_id, type, description, created_by, created_at)
      SELECT id, 'incident.created', 'Incident created', created_by, created_at FROM incidents`);
    await c.query('SET session_replication_role = DEFAULT');
    await c.query('VACUUM ANALYZE');
  } finally {
    c.release();
  }
}

async function main() {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  let dir: string | undefined;
  let stop = async () => {};
  let url = process.env.DATABASE_URL;
  if (!url) {
    dir = await mkdtemp(join(tmpdir(), 'bench-incidents-'));
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
    const counts = (await db.query(`SELECT (SELECT count(*) FROM incidents)::int AS incidents,
      (SELECT count(*) FROM evidences)::int AS evidences, (SELECT count(*) FROM comments)::int AS comments,
      (SELECT count(*) FROM hypotheses)::int AS hypotheses, (SELECT count(*) FROM responders)::int AS responders,
      (SELECT count(*) FROM incident_histories)::int AS histories`)).rows[0];
    console.log(`seeded in ${((Date.now() - started) / 1000).toFixed(0)} s:`, counts);

    const config = loadConfig({ DATABASE_URL: url, DEMO_DATA: 'false', LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1' });
    const app = await buildApp(config, { logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const token = await adminToken(db);
    const ids = (await db.query(`SELECT id FROM incidents ORDER BY random() LIMIT 200`)).rows.map((r) => r.id as string);
    const listBase = { select: LIST_SELECT, 'responders.deleted_at': 'is.null', order: 'created_at.desc', limit: 50, offset: 0 };
    const scenarios: [string, string[]][] = [
      ['list, first page, status=open, count=exact', [`/api/db/incidents?${q({ ...listBase, status: 'eq.open' })}`]],
      ['list, first page, no filter, count=exact', [`/api/db/incidents?${q(listBase)}`]],
      ['list, filtered by component, count=exact', Array.from({ length: 50 }, (_, i) => `/api/db/incidents?${q({
        ...listBase, select: `${LIST_SELECT},hypotheses!inner(id,evidences!inner(component_id))`,
        'hypotheses.evidences.component_id': `eq.00000000-0000-4000-8000-${(i * 7).toString(16).padStart(12, '0')}`,
      })}`)],
      ['detail: incident, tree and evidence', ids.map((id) => `/api/db/incidents?${q({ select: DETAIL_SELECT, id: `eq.${id}` })}`)],
      ['detail: comments', ids.map((id) => `/api/db/comments?${q({ incident_id: `eq.${id}`, select: 'id,comment,hypothesis_id,responder_id,external_created_by,created_at,created_by(id,name,avatar)', order: 'created_at.asc' })}`)],
      ['detail: responders', ids.map((id) => `/api/db/responders?${q({ incident_id: `eq.${id}`, deleted_at: 'is.null', select: '*,team:team_id(id,name,icon,spec),person:person_id(id,name,avatar)', order: 'created_at.asc' })}`)],
      ['detail: changelog', ids.map((id) => `/api/db/incident_histories?${q({ incident_id: `eq.${id}`, select: HISTORY_SELECT, order: 'created_at.desc', limit: 200 })}`)],
    ];
    console.log('| call | req/s | p50 ms | p95 ms | p99 ms | failures |\n|---|---|---|---|---|---|');
    for (const [name, paths] of scenarios) {
      const headers = { authorization: `Bearer ${token}`, prefer: name.includes('count=exact') ? 'count=exact' : '' };
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
