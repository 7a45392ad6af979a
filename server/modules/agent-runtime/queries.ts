import type pg from 'pg';

type Q = Pick<pg.Pool, 'query'>;

/**
 * The outbox tables in push order (parents first: a canary before its checks, a check before its latest state and its
 * statuses) and the order each is read in (check statuses by time). Names are PushData keys; every table has
 * `is_pushed` and a partial index WHERE NOT is_pushed on its order column (0087). Constants, never request input.
 */
export const OUTBOX_TABLES = [
  { table: 'canaries', order: 'updated_at', parent: null },
  { table: 'checks', order: 'updated_at', parent: { table: 'canaries', column: 'canary_id' } },
  { table: 'checks_unlogged', order: 'updated_at', parent: { table: 'checks', column: 'check_id' } },
  { table: 'check_statuses', order: 'time', parent: { table: 'checks', column: 'check_id' } },
  { table: 'job_history', order: 'created_at', parent: null },
  // catalog and topology (0104): a scraper before its items, an item before its changes, insights and components.
  // Items and components may hang off one another (parent_id): the pusher adds a row's unpushed ancestors to its batch.
  { table: 'topologies', order: 'created_at', parent: null },
  { table: 'config_scrapers', order: 'created_at', parent: null },
  { table: 'config_items', order: 'created_at', parent: { table: 'config_items', column: 'parent_id' } },
  { table: 'config_changes', order: 'created_at', parent: { table: 'config_items', column: 'config_id' } },
  { table: 'config_analysis', order: 'first_observed', parent: { table: 'config_items', column: 'config_id' } },
  { table: 'components', order: 'created_at', parent: { table: 'components', column: 'parent_id' } },
  // relationships and last scrape times (0106), after every table they point at: all of a batch's unpushed items,
  // components and checks are read before them. `refs` are what a 422 (unknown parent upstream) puts back in the outbox.
  { table: 'config_relationships', order: 'created_at', parent: null,
    refs: [{ table: 'config_items', column: 'config_id' }, { table: 'config_items', column: 'related_id' }, { table: 'config_scrapers', column: 'scraper_id' }] },
  { table: 'component_relationships', order: 'created_at', parent: null,
    refs: [{ table: 'components', column: 'component_id' }, { table: 'components', column: 'relationship_id' }] },
  { table: 'config_component_relationships', order: 'created_at', parent: null,
    refs: [{ table: 'components', column: 'component_id' }, { table: 'config_items', column: 'config_id' }] },
  { table: 'check_config_relationships', order: 'created_at', parent: null,
    refs: [{ table: 'config_items', column: 'config_id' }, { table: 'checks', column: 'check_id' }, { table: 'canaries', column: 'canary_id' }] },
  { table: 'check_component_relationships', order: 'created_at', parent: null,
    refs: [{ table: 'components', column: 'component_id' }, { table: 'checks', column: 'check_id' }, { table: 'canaries', column: 'canary_id' }] },
  { table: 'config_items_last_scraped_time', order: 'created_at', parent: null, refs: [{ table: 'config_items', column: 'config_id' }] },
] as const;

/** The tables whose rows a 422 may name as missing upstream (what `refs` point at). */
export type RefTable = 'config_items' | 'config_scrapers' | 'components' | 'checks' | 'canaries';
export type OutboxTable = (typeof OUTBOX_TABLES)[number]['table'];

/** One unpushed row version: where it is (ctid), which version (xmin), and its JSON text as PostgreSQL wrote it. */
export interface OutboxRow {
  table: OutboxTable;
  tid: string;
  xmin: string;
  /** The row as JSON (`to_jsonb(row) - 'is_pushed'`): timestamps keep their microseconds, so keys match upstream. */
  json: string;
  /** The parent's id (canary of a check, check of a status), for repairing an unknown parent. */
  parent: string | null;
}

/** Up to `limit` unpushed rows of one table, oldest first. */
export async function unpushedRows(c: Q, table: OutboxTable, limit: number): Promise<OutboxRow[]> {
  const def = OUTBOX_TABLES.find((t) => t.table === table)!;
  const parent = def.parent ? `t.${def.parent.column}::text` : 'NULL';
  const { rows } = await c.query<{ tid: string; xmin: string; json: string; parent: string | null }>(
    `SELECT t.ctid::text AS tid, t.xmin::text AS xmin, (to_jsonb(t) - 'is_pushed')::text AS json, ${parent} AS parent
     FROM ${table} t WHERE NOT t.is_pushed ORDER BY t.${def.order} LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({ table, ...r }));
}

/**
 * The unpushed rows of a table among the given ids, for a self-referencing table (config_items, components) whose
 * batch names parents that are still waiting: they go in the same batch, so the upstream finds them.
 */
export async function unpushedByIds(c: Q, table: OutboxTable, ids: string[]): Promise<OutboxRow[]> {
  if (!ids.length) return [];
  const def = OUTBOX_TABLES.find((t) => t.table === table)!;
  const parent = def.parent ? `t.${def.parent.column}::text` : 'NULL';
  const { rows } = await c.query<{ tid: string; xmin: string; json: string; parent: string | null }>(
    `SELECT t.ctid::text AS tid, t.xmin::text AS xmin, (to_jsonb(t) - 'is_pushed')::text AS json, ${parent} AS parent
     FROM ${table} t WHERE NOT t.is_pushed AND t.id = ANY($1::uuid[])`,
    [ids],
  );
  return rows.map((r) => ({ table, ...r }));
}

/**
 * Marks exactly the row versions that were sent: a row updated since it was read has a new ctid (the old version is
 * dead), so it stays unpushed and goes again with its new content.
 */
export async function markPushed(c: Q, table: OutboxTable, rows: Array<Pick<OutboxRow, 'tid' | 'xmin'>>): Promise<number> {
  if (!rows.length) return 0;
  const res = await c.query(
    `UPDATE ${table} SET is_pushed = true
     WHERE ctid = ANY($1::tid[]) AND NOT is_pushed AND xmin::text = ANY($2::text[])`,
    [rows.map((r) => r.tid), [...new Set(rows.map((r) => r.xmin))]],
  );
  return res.rowCount ?? 0;
}

/** Unpushed rows per table and the age (ms) of the oldest: the backlog and the push lag. */
export async function outboxDepth(c: Q): Promise<{ rows: number; lagMs: number; statuses: number }> {
  const parts = OUTBOX_TABLES.map((t) =>
    `SELECT '${t.table}' AS t, count(*)::bigint AS n, min(${t.order}) AS oldest FROM ${t.table} WHERE NOT is_pushed`);
  const { rows } = await c.query<{ t: string; n: string; oldest: Date | null }>(parts.join(' UNION ALL '));
  const now = Date.now();
  let total = 0;
  let oldest = now;
  let statuses = 0;
  for (const r of rows) {
    total += Number(r.n);
    if (r.t === 'check_statuses') statuses = Number(r.n);
    if (r.oldest && r.oldest.getTime() < oldest) oldest = r.oldest.getTime();
  }
  return { rows: total, lagMs: Math.max(0, now - oldest), statuses };
}

/** Deletes the `n` oldest unpushed check statuses (the bound on the buffer); returns how many went. */
export async function dropOldestStatuses(c: Q, n: number): Promise<number> {
  if (n <= 0) return 0;
  const res = await c.query(
    `DELETE FROM check_statuses WHERE ctid = ANY (ARRAY(
       SELECT ctid FROM check_statuses WHERE NOT is_pushed ORDER BY time LIMIT $1))`,
    [n],
  );
  return res.rowCount ?? 0;
}

/**
 * Puts the parents of refused rows back in the outbox (and their canaries): after an upstream "unknown parent"
 * answer, e.g. a parent pushed before a reset of the upstream, or one created already marked (a push-created canary).
 */
export async function requeueParents(c: Q, checkIds: string[], canaryIds: string[]): Promise<void> {
  if (checkIds.length) {
    const { rows } = await c.query<{ canary_id: string }>(
      'UPDATE checks SET is_pushed = false WHERE id = ANY($1::uuid[]) RETURNING canary_id', [checkIds]);
    canaryIds = [...canaryIds, ...rows.map((r) => r.canary_id)];
  }
  if (canaryIds.length) await c.query('UPDATE canaries SET is_pushed = false WHERE id = ANY($1::uuid[])', [[...new Set(canaryIds)]]);
}

/**
 * Puts rows a refused batch pointed at back in the outbox (after a 422 for relationship rows: an item, component or
 * check the upstream lost, e.g. after a reset of its database). Table names are constants of OUTBOX_TABLES.
 */
export async function requeueRefs(c: Q, table: RefTable, ids: string[]): Promise<void> {
  if (ids.length) await c.query(`UPDATE ${table} SET is_pushed = false WHERE id = ANY($1::uuid[]) AND is_pushed`, [ids]);
}

/** A canary as the upstream's pull answers it. */
export interface PulledCanary {
  id: string;
  name: string;
  namespace?: string | null;
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
  spec: Record<string, unknown>;
  deleted_at?: string | null;
}

/** The source of canaries pulled from the upstream: never edited here, never pushed back. */
export const UPSTREAM_SOURCE = 'Upstream';

/**
 * Stores a pulled canary under its upstream id as a local one (agent_id nil: the scheduler runs it), already pushed
 * (it is the upstream's), with `outbox.keep_pushed` so the update does not put it back in the outbox.
 */
export async function upsertPulledCanary(c: Q, p: PulledCanary): Promise<void> {
  await c.query(`SELECT set_config('outbox.keep_pushed', 'on', true)`);
  await c.query(
    `INSERT INTO canaries (id, name, namespace, labels, annotations, spec, source, is_pushed)
     VALUES ($1, $2, $3, $4, $5, $6, $7, true)
     ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, namespace = EXCLUDED.namespace, labels = EXCLUDED.labels,
       annotations = EXCLUDED.annotations, spec = EXCLUDED.spec, deleted_at = NULL, is_pushed = true
       WHERE canaries.source = EXCLUDED.source`,
    [p.id, p.name, p.namespace || 'default', p.labels ?? null, p.annotations ?? null, p.spec, UPSTREAM_SOURCE],
  );
  await c.query(`SELECT set_config('outbox.keep_pushed', '', true)`);
}

/** Whether a canary of that id is this agent's own (a CR or a console canary it pushed), not one pulled earlier. */
export async function isOwnCanary(c: Q, id: string): Promise<boolean> {
  const { rows } = await c.query('SELECT 1 FROM canaries WHERE id = $1 AND source IS DISTINCT FROM $2', [id, UPSTREAM_SOURCE]);
  return rows.length > 0;
}

/** Soft-deletes a pulled canary (the checks' deletion is pushed; the canary row is the upstream's). */
export async function softDeletePulledCanary(c: Q, id: string): Promise<boolean> {
  await c.query(`SELECT set_config('outbox.keep_pushed', 'on', true)`);
  const res = await c.query(
    `UPDATE canaries SET deleted_at = now() WHERE id = $1 AND source = $2 AND deleted_at IS NULL`, [id, UPSTREAM_SOURCE]);
  await c.query(`SELECT set_config('outbox.keep_pushed', '', true)`);
  if (!res.rowCount) return false;
  await c.query('UPDATE checks SET deleted_at = now() WHERE canary_id = $1 AND deleted_at IS NULL', [id]);
  return true;
}
