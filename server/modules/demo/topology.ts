import type pg from 'pg';
import type { DemoSet } from '../../lib/demo.js';
import { selfUrl } from './health.js';

/**
 * The topology's offline demo (issue 13 "Live, roles, demo"): "Ops Console", the console itself as a topology. Its
 * HTTP server carries the console-self canary's checks and its version (a lookup of its own /api/about); its Database is
 * a postgres lookup of the console's own database (version, size, connections of max as a bar) through a Connection,
 * so the spec names the connection and never holds the credentials; "Health checks" has a child per demo canary (a
 * lookup of the canaries, each child's checks by namespace), so the failing canary rolls up to warning. Team Platform
 * SRE owns it; the live demo incident's pool-exhaustion factor gets the Database as topology evidence.
 */

const DEMO_LABELS = { env: 'demo' };
const CONNECTION = { name: 'console-database', namespace: 'default' };
const CONNECTION_REF = `connection://${CONNECTION.namespace}/${CONNECTION.name}`;

/** The demo topology; exported for the demo test. */
export function opsConsoleTopology() {
  const { base } = selfUrl();
  const db = (query: string, expr: string) => ({ postgres: [{ name: 'console-database', connection: CONNECTION_REF, query, display: { expr } }] });
  return {
    name: 'ops-console', namespace: 'default',
    spec: {
      text: 'Ops Console', type: 'Application', icon: 'console', schedule: '@every 5m', owner: 'Platform SRE',
      components: [
        {
          name: 'HTTP server', type: 'WebServer', icon: 'http',
          // by name: checks rows do not carry their canary's labels (the reference's do), so app=console selects none
          checks: [{ selector: { name: 'console-healthz' } }, { selector: { name: 'console-port' } }],
          properties: [{
            name: 'version', headline: true,
            lookup: { http: [{ name: 'about', url: `${base}/api/about`, display: { expr: "[{'name': 'version', 'text': json.appVersion}]" } }] },
          }],
        },
        {
          name: 'Database', type: 'Database', icon: 'postgres',
          properties: [
            { name: 'version', lookup: db('SHOW server_version', "[{'name': 'version', 'text': results.rows[0].server_version}]") },
            {
              name: 'size', unit: 'bytes',
              lookup: db('SELECT pg_database_size(current_database()) AS size', "[{'name': 'size', 'unit': 'bytes', 'value': results.rows[0].size}]"),
            },
            {
              name: 'connections', headline: true,
              lookup: db(
                "SELECT (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()) AS used, current_setting('max_connections')::int AS max",
                "[{'name': 'connections', 'value': results.rows[0].used, 'max': results.rows[0].max}]",
              ),
            },
          ],
        },
        {
          name: 'Health checks', type: 'Group', icon: 'health',
          components: [{
            // no name: the lookup's results sit under "Health checks", one per demo canary
            type: 'Canary', icon: 'health',
            lookup: db(
              "SELECT name, namespace FROM canaries WHERE labels->>'app' = 'console' AND deleted_at IS NULL ORDER BY name",
              "results.rows.map(r, {'name': r.name, 'type': 'Canary', 'namespace': r.namespace})",
            ),
            // each demo canary has a namespace of its own
            forEach: { checks: [{ selector: { namespace: '{{.namespace}}' } }] },
          }],
        },
      ],
    },
  };
}

/** The console's own database as a Connection: credentials in their columns, only placeholders in the url. */
function databaseConnection(client: pg.PoolClient) {
  const p = (client as unknown as { connectionParameters: { host?: string; port?: number; user?: string; password?: unknown; database?: string } })
    .connectionParameters;
  const socket = p.host?.startsWith('/');
  const host = socket ? 'localhost' : p.host ?? '127.0.0.1';
  const url = `postgres://$(username):$(password)@${host}:${p.port ?? 5432}/${encodeURIComponent(p.database ?? 'postgres')}${socket ? `?host=${encodeURIComponent(p.host!)}` : ''}`;
  return { ...CONNECTION, type: 'postgres', url, username: p.user ?? null, password: typeof p.password === 'string' ? p.password : null };
}

async function one(client: pg.PoolClient, sql: string, params: unknown[]): Promise<string | null> {
  const { rows } = await client.query<{ id: string }>(sql, params);
  return rows[0]?.id ?? null;
}

export const topologyDemo: DemoSet = {
  name: 'topology',
  async load(client) {
    const createdBy = await one(client, `SELECT id FROM people WHERE email = 'alice.nguyen@example.com' AND deleted_at IS NULL`, []);
    if (!await one(client, 'SELECT id FROM connections WHERE name = $1 AND namespace = $2 AND deleted_at IS NULL', [CONNECTION.name, CONNECTION.namespace])) {
      const c = databaseConnection(client);
      await client.query(
        `INSERT INTO connections (name, namespace, type, url, username, password, labels, source, created_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'UI', $8)`,
        [c.name, c.namespace, c.type, c.url, c.username, c.password, DEMO_LABELS, createdBy]);
    }
    const t = opsConsoleTopology();
    if (await one(client, 'SELECT id FROM topologies WHERE name = $1 AND namespace = $2 AND deleted_at IS NULL', [t.name, t.namespace])) return;
    const topologyId = (await one(client,
      `INSERT INTO topologies (name, namespace, spec, schedule, labels, source, created_by) VALUES ($1, $2, $3, $4, $5, 'UI', $6) RETURNING id`,
      [t.name, t.namespace, t.spec, t.spec.schedule, DEMO_LABELS, createdBy]))!;
    // The root and the Database now, on the runner's own key (topology, type, name, parent): its first run adopts
    // these rows, so the incident's evidence can name the Database before the topology has run.
    const root = (await one(client,
      `INSERT INTO components (topology_id, name, type, icon, owner, topology_type, external_id, schedule)
       VALUES ($1, $2, $3, $4, $5, $3, $2, $6) RETURNING id`,
      [topologyId, t.spec.text, t.spec.type, t.spec.icon, t.spec.owner, t.spec.schedule]))!;
    const database = (await one(client,
      `INSERT INTO components (topology_id, parent_id, name, type, icon, topology_type, external_id, schedule)
       VALUES ($1, $2, 'Database', 'Database', 'postgres', $3, 'Database', $4) RETURNING id`,
      [topologyId, root, t.spec.type, t.spec.schedule]))!;
    await client.query(
      `UPDATE teams SET spec = coalesce(spec, '{}'::jsonb) || jsonb_build_object('components', $2::jsonb) WHERE name = $1 AND deleted_at IS NULL`,
      ['Platform SRE', JSON.stringify([{ name: t.spec.text, types: [t.spec.type] }])]);
    const factor = await one(client,
      `SELECT h.id FROM hypotheses h JOIN incidents i ON i.id = h.incident_id
        WHERE h.title = 'Connection pool exhausted on the new release' AND i.status <> 'closed' ORDER BY h.created_at LIMIT 1`, []);
    const carla = await one(client, `SELECT id FROM people WHERE email = 'carla.mendes@example.com' AND deleted_at IS NULL`, []);
    if (factor && carla) {
      await client.query(
        `INSERT INTO evidences (hypothesis_id, type, description, component_id, evidence, created_by) VALUES ($1, 'topology', $2, $3, $4, $5)`,
        [factor, 'Ops Console database: connections near max_connections', database, { id: database }, carla]);
    }
  },
};
