import type pg from 'pg';
import type { DemoSet } from '../../lib/demo.js';
import { PASSWORD } from '../../contracts/notification-connection-types.js';
import { selfUrl } from './health.js';

type Row = Record<string, unknown>;
const DEMO_LABELS = { env: 'demo' };

/**
 * The demo connections: one whose test passes (the console's own liveness probe), one whose test fails (nothing
 * listens on port 1) and a notification type the test does not cover (501). Exported for the demo test.
 */
export function demoConnections(): Row[] {
  const { base } = selfUrl();
  return [
    { name: 'console-self', namespace: 'default', type: 'http', url: `${base}/healthz`, properties: null },
    { name: 'cache-offline', namespace: 'default', type: 'redis', url: 'redis://127.0.0.1:1', properties: { db: '0' } },
    {
      name: 'team-chat', namespace: 'default', type: 'slack', url: `slack://${PASSWORD}@C0123456789`, username: 'C0123456789',
      // not a real token: the demo never sends anything
      password: 'xoxb-demo-not-a-real-token', properties: { BotName: 'ops-console' },
    },
  ];
}

/** One of each settings resource, named as a user would see them in the lists. */
export const DEMO_SETTINGS = {
  topology: {
    name: 'console-stack', namespace: 'default',
    spec: {
      type: 'Application', icon: 'console', schedule: '@every 5m', owner: 'Platform SRE',
      components: [
        { name: 'web', type: 'Website', icon: 'http' },
        { name: 'database', type: 'Database', icon: 'postgres', properties: [{ name: 'engine', text: 'PostgreSQL' }] },
      ],
    },
  },
  scraper: {
    name: 'cluster-config', namespace: 'default', description: 'Kubernetes objects of the demo cluster',
    spec: { schedule: '@every 30m', kubernetes: [{ clusterName: 'demo', exclusions: { namespaces: ['kube-system'] } }] },
  },
  loggingBackend: {
    name: 'cluster-logs', namespace: 'default',
    spec: { backends: [{ kubernetes: { routes: [{ type: 'KubernetesPod', is_additive: true }] } }] },
  },
  incidentRule: {
    name: 'unhealthy-databases', namespace: 'default',
    spec: {
      priority: 1, breakOnMatch: true, components: [{ types: ['Database'] }], filter: { status: ['unhealthy'], age: '5m' },
      template: { title: 'Database unhealthy', type: 'availability', severity: 'high' },
    },
  },
};

async function exists(client: pg.PoolClient, table: string, name: string, namespace: string): Promise<boolean> {
  // table comes from the constants of this file only
  const { rowCount } = await client.query(`SELECT 1 FROM ${table} WHERE name = $1 AND namespace = $2 AND deleted_at IS NULL`, [name, namespace]);
  return !!rowCount;
}

async function insert(client: pg.PoolClient, table: string, row: Row): Promise<string> {
  const cols = Object.keys(row);
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`,
    cols.map((c) => (row[c] !== null && typeof row[c] === 'object' ? JSON.stringify(row[c]) : row[c])),
  );
  return rows[0].id;
}

/** A finished job run of a demo resource, so Integrations and Job History show a status. */
async function jobRun(client: pg.PoolClient, name: string, resourceType: string, resourceId: string, status: string, details: Row): Promise<void> {
  const failed = status === 'FAILED';
  await client.query(
    `INSERT INTO job_history (name, resource_type, resource_id, status, success_count, error_count, duration_millis, details,
       hostname, time_start, time_end)
     VALUES ($1, $2, $3, $4, $5, $6, 840, $7, 'demo', now() - interval '5 minutes', now() - interval '5 minutes' + interval '840 milliseconds')`,
    [name, resourceType, resourceId, status, failed ? 0 : 2, failed ? 1 : 0, JSON.stringify(details)],
  );
}

/**
 * Connections (one passing, one failing, one untestable), a topology, a scraper, a logging backend and an incident
 * rule, created by the demo SRE lead, with a job run each for the topology and the scraper. Needs the foundation set
 * for its creator (left empty without it).
 */
export const settingsDemo: DemoSet = {
  name: 'settings',
  async load(client) {
    const { rows } = await client.query<{ id: string }>(`SELECT id FROM people WHERE email = 'alice.nguyen@example.com' AND deleted_at IS NULL`);
    const createdBy = rows[0]?.id ?? null;
    const base = { source: 'UI', created_by: createdBy };

    for (const c of demoConnections()) {
      if (!(await exists(client, 'connections', String(c.name), String(c.namespace)))) await insert(client, 'connections', { ...c, ...base });
    }
    const { topology, scraper, loggingBackend, incidentRule } = DEMO_SETTINGS;
    if (!(await exists(client, 'topologies', topology.name, topology.namespace))) {
      const id = await insert(client, 'topologies', { ...topology, schedule: topology.spec.schedule, labels: DEMO_LABELS, ...base });
      await jobRun(client, 'TopologySync', 'topology', id, 'SUCCESS', { summary: { components: 2 } });
    }
    if (!(await exists(client, 'config_scrapers', scraper.name, scraper.namespace))) {
      const id = await insert(client, 'config_scrapers', { ...scraper, labels: DEMO_LABELS, ...base });
      await jobRun(client, 'ConfigScraper', 'config_scraper', id, 'FAILED', {
        errors: ['the demo has no Kubernetes cluster to scrape'], scrape_summary: { kubernetes: { added: 0, updated: 0 } },
      });
    }
    if (!(await exists(client, 'logging_backends', loggingBackend.name, loggingBackend.namespace))) {
      await insert(client, 'logging_backends', { ...loggingBackend, labels: DEMO_LABELS, ...base });
    }
    if (!(await exists(client, 'incident_rules', incidentRule.name, incidentRule.namespace))) {
      await insert(client, 'incident_rules', { ...incidentRule, labels: DEMO_LABELS, ...base });
    }
  },
};
