import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from '@playwright/test';
import pg from 'pg';
import { deleteProperty, setProperty, type ApiSession } from './api';

/**
 * Catalog items are written by scrapers only (read-only in /api/db), so the catalog suite seeds its items with SQL
 * into the e2e server's own database: the embedded PostgreSQL in the temporary DATA_DIR web-server.mjs made. Several
 * e2e servers may run on one machine; the right one is the database holding a marker property this run set
 * through the API.
 */
export async function e2eDatabase(admin: ApiSession): Promise<pg.Client> {
  const marker = `catalog-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  await setProperty(admin, 'e2e.catalog.marker', marker);
  try {
    const dirs = readdirSync(tmpdir()).filter((d) => d.startsWith('console-e2e-')).map((d) => join(tmpdir(), d));
    for (const dir of dirs) {
      const pidFile = join(dir, 'pg', 'postmaster.pid');
      const pwFile = join(dir, 'pg-password');
      if (!existsSync(pidFile) || !existsSync(pwFile)) continue;
      // postmaster.pid: pid, data directory, start time, port, ...
      const port = Number(readFileSync(pidFile, 'utf8').split('\n')[3]);
      const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password: readFileSync(pwFile, 'utf8').trim(), database: 'console' });
      try {
        await client.connect();
        const { rows } = await client.query('SELECT value FROM properties WHERE name = $1', ['e2e.catalog.marker']);
        if (rows[0]?.value === marker) return client;
      } catch {
        // another run's database that is stopping, or not ours
      }
      await client.end().catch(() => {});
    }
  } finally {
    await deleteProperty(admin, 'e2e.catalog.marker');
  }
  throw new Error('the e2e server database was not found under the temporary directory');
}

export interface SeededCatalog {
  scraperId: string;
  deploymentId: string;
  podId: string;
  deletedPodId: string;
  checkName: string;
  playbookTitle: string;
}

/**
 * A scraper (never scheduled), a Deployment with labels, tags, cost and a stale scrape, two Pods under it (one
 * deleted), a playbook run on the Deployment and a health check linked to it. Names carry `u` so reruns do not
 * collide.
 */
export async function seedCatalog(db: pg.Client, u: string, checkId: string, canaryId: string): Promise<SeededCatalog> {
  const one = async (sql: string, params: unknown[]) => (await db.query<{ id: string }>(sql, params)).rows[0].id;
  const scraperId = await one(
    `INSERT INTO config_scrapers (name, namespace, spec, source) VALUES ($1, 'default', $2, 'UI') RETURNING id`,
    [`e2e-scraper-${u}`, { schedule: '@never' }],
  );
  const deploymentConfig = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `web-${u}`, namespace: 'shop', labels: { app: 'web' } },
    spec: { replicas: 3, template: { spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
  };
  const deploymentId = await one(
    `INSERT INTO config_items (scraper_id, config_class, type, name, status, health, description, config, labels, tags, cost_total_30d)
     VALUES ($1, 'Deployment', 'Kubernetes::Deployment', $2, 'Running', 'healthy', '3 of 3 replicas ready', $3, $4, $5, 42.5) RETURNING id`,
    [
      scraperId, `web-${u}`, deploymentConfig,
      {
        app: 'web',
        'app.kubernetes.io/version': '1.27',
        'app.kubernetes.io/part-of': 'shop',
        'topology.kubernetes.io/region': 'eu-west-1',
        'topology.kubernetes.io/zone': 'eu-west-1a',
      },
      { cluster: 'e2e', namespace: 'shop' },
    ],
  );
  await db.query(
    `INSERT INTO config_items_last_scraped_time (config_id, last_scraped_time) VALUES ($1, now() - interval '2 hours')`,
    [deploymentId],
  );
  const podId = await one(
    `INSERT INTO config_items (scraper_id, parent_id, config_class, type, name, status, health, config, labels, tags)
     VALUES ($1, $2, 'Pod', 'Kubernetes::Pod', $3, 'CrashLoopBackOff', 'unhealthy', $4, '{"app":"web"}', '{"cluster":"e2e","namespace":"shop"}') RETURNING id`,
    [scraperId, deploymentId, `web-${u}-pod-a`, { kind: 'Pod', metadata: { name: `web-${u}-pod-a` } }],
  );
  const deletedPodId = await one(
    `INSERT INTO config_items (scraper_id, parent_id, config_class, type, name, status, health, config, tags, deleted_at)
     VALUES ($1, $2, 'Pod', 'Kubernetes::Pod', $3, 'Succeeded', 'unknown', '{}', '{"cluster":"e2e"}', now() - interval '3 hours') RETURNING id`,
    [scraperId, deploymentId, `web-${u}-pod-old`],
  );
  const playbookTitle = `Restart web ${u}`;
  const playbookId = await one(
    `INSERT INTO playbooks (name, title, spec, source) VALUES ($1, $2, '{"actions":[]}', 'UI') RETURNING id`,
    [`restart-${u}`, playbookTitle],
  );
  await db.query(
    `INSERT INTO playbook_runs (playbook_id, config_id, status, start_time, end_time)
     VALUES ($1, $2, 'completed', now() - interval '10 minutes', now() - interval '9 minutes')`,
    [playbookId, deploymentId],
  );
  await db.query(`INSERT INTO check_config_relationships (config_id, check_id, canary_id) VALUES ($1, $2, $3)`, [deploymentId, checkId, canaryId]);
  const check = await db.query<{ name: string }>('SELECT name FROM checks WHERE id = $1', [checkId]);
  expect(check.rows).toHaveLength(1);
  return { scraperId, deploymentId, podId, deletedPodId, checkName: check.rows[0].name, playbookTitle };
}
