import type pg from 'pg';

/**
 * A small catalog seeded with SQL (the scrape engine is built alongside): a cluster, a namespace, a deployment with two
 * pods (one deleted), a service softly linked to a pod, and a file item, with changes, insights, locations, a check
 * and a scraper. Ids are fixed so that tests can name them.
 */
export const IDS = {
  scraper: '0000000c-0000-4000-8000-000000000001',
  cluster: '0000000c-0000-4000-8000-0000000000a1',
  namespace: '0000000c-0000-4000-8000-0000000000a2',
  deployment: '0000000c-0000-4000-8000-0000000000a3',
  pod: '0000000c-0000-4000-8000-0000000000a4',
  service: '0000000c-0000-4000-8000-0000000000a5',
  deletedPod: '0000000c-0000-4000-8000-0000000000a6',
  file: '0000000c-0000-4000-8000-0000000000f1',
} as const;

export async function seedCatalog(db: pg.Pool, personId: string): Promise<void> {
  await db.query(`INSERT INTO config_scrapers (id, name, spec, source) VALUES ($1, 'cluster scraper', '{"kubernetes":[{}]}', 'UI')`, [IDS.scraper]);
  const item = (id: string, cls: string, type: string, name: string, extra: Record<string, unknown> = {}) =>
    db.query(`INSERT INTO config_items (id, config_class, type, name, scraper_id, parent_id, tags, labels, health, status,
                external_id, deleted_at, cost_per_minute, cost_total_1d, cost_total_30d, config, description)
              VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
    [id, cls, type, name, extra.scraper === false ? null : IDS.scraper, extra.parent ?? null, extra.tags ?? null,
      extra.labels ?? null, extra.health ?? null, extra.status ?? null, extra.external ?? null, extra.deleted ?? null,
      extra.cpm ?? null, extra.c1d ?? null, extra.c30d ?? null, extra.config ?? { kind: type }, extra.description ?? null]);
  const prod = { cluster: 'prod' };
  await item(IDS.cluster, 'Cluster', 'Kubernetes::Cluster', 'prod', { tags: prod, health: 'healthy', status: 'Running', external: ['kubernetes://prod'] });
  await item(IDS.namespace, 'Namespace', 'Kubernetes::Namespace', 'default', {
    parent: IDS.cluster, tags: { ...prod, namespace: 'default' }, health: 'healthy', status: 'Active', external: ['kubernetes://prod/default'],
  });
  await item(IDS.deployment, 'Deployment', 'Kubernetes::Deployment', 'web', {
    parent: IDS.namespace, tags: { ...prod, namespace: 'default' }, labels: { app: 'web', team: 'payments' },
    health: 'unhealthy', status: 'Degraded', cpm: 0.01, c1d: 14.4, c30d: 432, description: 'the storefront',
  });
  await item(IDS.pod, 'Pod', 'Kubernetes::Pod', 'web-7d9f', {
    parent: IDS.deployment, tags: { ...prod, namespace: 'default' }, labels: { app: 'web' }, health: 'healthy', status: 'Running',
  });
  await item(IDS.service, 'Service', 'Kubernetes::Service', 'web-svc', {
    parent: IDS.namespace, tags: { ...prod, namespace: 'default' }, labels: { app: 'web' }, health: 'healthy', status: 'Active',
  });
  await item(IDS.deletedPod, 'Pod', 'Kubernetes::Pod', 'web-old', {
    parent: IDS.deployment, tags: { ...prod, namespace: 'default' }, health: 'unknown', status: 'Terminated', deleted: new Date(Date.now() - 3600_000),
  });
  await item(IDS.file, 'File', 'File::Config', 'app.yaml', { scraper: false, labels: { team: 'platform' }, health: 'warning' });
  await db.query(`INSERT INTO config_relationships (config_id, related_id, relation, scraper_id) VALUES ($1, $2, 'soft', $3)`,
    [IDS.service, IDS.pod, IDS.scraper]);
  await db.query(`INSERT INTO config_locations (id, location) VALUES ($1, 'kubernetes://prod'), ($1, 'kubernetes://prod/default')`, [IDS.pod]);
  await db.query(`INSERT INTO config_items_last_scraped_time (config_id, last_scraped_time) VALUES ($1, now() - interval '5 minutes')`, [IDS.deployment]);

  const change = (config: string, type: string, severity: string, ago: string, extra: Record<string, unknown> = {}) =>
    db.query(`INSERT INTO config_changes (config_id, change_type, severity, source, summary, created_at, first_observed,
                external_created_by, created_by, count, external_change_id)
              VALUES ($1, $2, $3, $4, $5, now() - $6::interval, now() - $6::interval, $7, $8, $9, $10)`,
    [config, type, severity, extra.source ?? 'kubernetes', extra.summary ?? `${type} on ${config.slice(-2)}`, ago,
      extra.external ?? null, extra.createdBy ?? null, extra.count ?? 1, extra.externalId ?? null]);
  await change(IDS.deployment, 'diff', 'high', '1 hour', { summary: 'spec.replicas' });
  await change(IDS.deployment, 'CREATE', 'info', '70 minutes');
  await change(IDS.pod, 'Pulled', 'low', '3 hours', { source: 'kubernetes/event', count: 4, externalId: 'evt-1' });
  await change(IDS.pod, 'BackOff', 'critical', '30 minutes', { source: 'kubernetes/event' });
  await change(IDS.namespace, 'diff', 'medium', '3 days');
  await change(IDS.deletedPod, 'diff', 'high', '2 hours');
  await change(IDS.file, 'diff', 'medium', '10 minutes', { source: 'file', external: 'alice', createdBy: personId });
  await change(IDS.cluster, 'diff', 'low', '20 days');

  const insight = (config: string, analyzer: string, type: string, severity: string, status = 'open') =>
    db.query(`INSERT INTO config_analysis (config_id, analyzer, analysis_type, severity, status, source, message, scraper_id)
              VALUES ($1, $2, $3, $4, $5, 'kubernetes', $6, $7)`, [config, analyzer, type, severity, status, `${analyzer} found`, IDS.scraper]);
  await insight(IDS.deployment, 'latest-tag', 'security', 'high');
  await insight(IDS.deployment, 'no-limits', 'reliability', 'medium');
  await insight(IDS.pod, 'crashloop', 'availability', 'critical');
  await insight(IDS.pod, 'image-pull', 'availability', 'high', 'resolved');

  const canary = (await db.query(`INSERT INTO canaries (name, spec, source) VALUES ('web-http', '{}', 'UI') RETURNING id`)).rows[0].id;
  const check = (await db.query(`INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', 'web endpoint', 'healthy') RETURNING id`, [canary])).rows[0].id;
  await db.query(`INSERT INTO check_config_relationships (config_id, check_id, canary_id) VALUES ($1, $2, $3)`, [IDS.deployment, check, canary]);
}
