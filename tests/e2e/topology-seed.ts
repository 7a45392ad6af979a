import type pg from 'pg';

export interface SeededTopology {
  rootId: string;
  checkoutId: string;
  paymentsId: string;
  storeId: string;
  hiddenId: string;
  checkId: string;
}

/**
 * Components are written by the topology runner only (read-only in /api/db but for `hidden` and `parent_id`), so the
 * topology suites seed with SQL into the e2e server's database (catalog-seed.ts's e2eDatabase finds it). No
 * `topologies` row: the runner has nothing of these to rebuild or delete. The canary is `@never`, so the scheduler
 * never overwrites the check's status the test sets.
 *
 *   shop-{u} (labels e2e={u})
 *   ├── checkout-{u}  Service, check {u}-probe (healthy), headline cpu 800 of 1000 millicores, properties
 *   ├── payments-{u}  Service, own health warning
 *   ├── store-{u}     Database, own health healthy, cost 1500 (currency)
 *   └── old-{u}       hidden
 */
export async function seedTopologyCards(db: pg.Client, u: string): Promise<SeededTopology> {
  const one = async (sql: string, params: unknown[]) => (await db.query<{ id: string }>(sql, params)).rows[0].id;
  const component = (name: string, type: string, parent: string | null, extra: { health?: string; hidden?: boolean; labels?: object; properties?: object[] } = {}) =>
    one(
      `INSERT INTO components (external_id, name, type, parent_id, health, hidden, labels, properties)
       VALUES ($1, $1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [name, type, parent, extra.health ?? null, extra.hidden ?? false, extra.labels ?? null, extra.properties ? JSON.stringify(extra.properties) : null],
    );
  const canaryId = await one(`INSERT INTO canaries (name, spec) VALUES ($1, $2) RETURNING id`, [`e2e-topology-${u}`, { schedule: '@never' }]);
  const checkId = await one(`INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', $2, 'healthy') RETURNING id`, [canaryId, `${u}-probe`]);
  const rootId = await component(`shop-${u}`, 'Topology', null, { labels: { e2e: u } });
  const checkoutId = await component(`checkout-${u}`, 'Service', rootId, {
    properties: [
      { name: 'cpu', label: 'CPU', value: 800, max: 1000, unit: 'millicores', headline: true },
      ...['region', 'zone', 'tier', 'owner', 'version', 'runtime', 'image'].map((n) => ({ name: n, text: `${n}-${u}` })),
    ],
  });
  const paymentsId = await component(`payments-${u}`, 'Service', rootId, { health: 'warning' });
  const storeId = await component(`store-${u}`, 'Database', rootId, {
    health: 'healthy', properties: [{ name: 'cost', label: 'Cost', value: 1500, type: 'currency' }],
  });
  const hiddenId = await component(`old-${u}`, 'Service', rootId, { hidden: true });
  await db.query(
    `INSERT INTO check_component_relationships (component_id, check_id, canary_id, selector_id) VALUES ($1, $2, $3, 'e2e')`,
    [checkoutId, checkId, canaryId],
  );
  return { rootId, checkoutId, paymentsId, storeId, hiddenId, checkId };
}
