import type pg from 'pg';

/**
 * The run's SQL over components (0060_topology.sql). The written columns are one registry: the save compares a
 * built component with its row on exactly these, and inserts/updates exactly these.
 */

type Q = Pick<pg.Pool, 'query'>;

/** Written columns and their types (jsonb_to_recordset's column definitions); identifiers come only from here. */
export const WRITTEN_COLUMNS = {
  external_id: 'text',
  name: 'text',
  text: 'text',
  topology_type: 'text',
  namespace: 'text',
  labels: 'jsonb',
  status_expr: 'text',
  health_expr: 'text',
  health: 'text',
  status_reason: 'text',
  schedule: 'text',
  icon: 'text',
  type: 'text',
  owner: 'text',
  description: 'text',
  lifecycle: 'text',
  tooltip: 'text',
  selectors: 'jsonb',
  log_selectors: 'jsonb',
  component_checks: 'jsonb',
  configs: 'jsonb',
  properties: 'jsonb',
  is_leaf: 'boolean',
  config_id: 'uuid',
  static_summary: 'jsonb',
} as const;
export type WrittenColumn = keyof typeof WRITTEN_COLUMNS;
export type ComponentValues = Record<WrittenColumn, unknown>;

const COLS = Object.keys(WRITTEN_COLUMNS) as WrittenColumn[];
const RECORD = COLS.map((c) => `${c} ${WRITTEN_COLUMNS[c]}`).join(', ');

export interface ExistingComponent extends ComponentValues {
  id: string;
  parent_id: string | null;
  deleted: boolean;
  hidden: boolean;
}

/** Every row of the topology, deleted ones too (a component that reappears is the same row). */
export async function existingComponents(db: Q, topologyId: string): Promise<ExistingComponent[]> {
  const { rows } = await db.query<ExistingComponent>(
    `SELECT id, parent_id, deleted_at IS NOT NULL AS deleted, hidden, ${COLS.join(', ')}
       FROM components WHERE topology_id = $1`, [topologyId]);
  return rows;
}

/** n fresh ids of the table's own kind (ULIDs as uuids), so a level's inserts are one statement. */
export async function newIds(db: Q, n: number): Promise<string[]> {
  if (!n) return [];
  const { rows } = await db.query<{ id: string }>('SELECT generate_ulid() AS id FROM generate_series(1, $1)', [n]);
  return rows.map((r) => r.id);
}

export interface InsertRow extends ComponentValues { id: string; parent_id: string | null; hidden: boolean }
export interface UpdateRow extends ComponentValues { id: string; hidden: boolean }

export async function insertComponents(db: Q, topologyId: string, rows: InsertRow[]): Promise<void> {
  if (!rows.length) return;
  await db.query(
    `INSERT INTO components (id, topology_id, parent_id, hidden, ${COLS.join(', ')})
     SELECT v.id, $1, v.parent_id, coalesce(v.hidden, false), ${COLS.map((c) => `v.${c}`).join(', ')}
       FROM jsonb_to_recordset($2::jsonb) AS v(id uuid, parent_id uuid, hidden boolean, ${RECORD})`,
    [topologyId, JSON.stringify(rows)]);
}

/** Rewrites changed rows (and revives deleted ones); `hidden` only ever set here (a user's hidden survives). */
export async function updateComponents(db: Q, rows: UpdateRow[]): Promise<void> {
  if (!rows.length) return;
  await db.query(
    `UPDATE components c SET ${COLS.map((col) => `${col} = v.${col}`).join(', ')},
            hidden = c.hidden OR coalesce(v.hidden, false), deleted_at = NULL
       FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, hidden boolean, ${RECORD})
      WHERE c.id = v.id`,
    [JSON.stringify(rows)]);
}

/** Soft-deletes vanished components and their links (selector, check and config links alike). */
export async function softDelete(db: Q, ids: string[]): Promise<void> {
  if (!ids.length) return;
  await db.query('UPDATE components SET deleted_at = now() WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL', [ids]);
  await db.query(`UPDATE component_relationships SET deleted_at = now()
                   WHERE (component_id = ANY($1::uuid[]) OR relationship_id = ANY($1::uuid[])) AND deleted_at IS NULL`, [ids]);
  await db.query(`UPDATE check_component_relationships SET deleted_at = now()
                   WHERE component_id = ANY($1::uuid[]) AND deleted_at IS NULL`, [ids]);
  await db.query(`UPDATE config_component_relationships SET deleted_at = now()
                   WHERE component_id = ANY($1::uuid[]) AND deleted_at IS NULL`, [ids]);
}

/** Advisory-lock class of topology saves (second key: hashtext(topology id)): one save per topology across replicas. */
export const TOPOLOGY_LOCK_CLASS = 72_401_313;

export async function lockTopology(db: Q, topologyId: string): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [TOPOLOGY_LOCK_CLASS, topologyId]);
}

/** A live topology, as the runner reads it. */
export interface TopologyRecord {
  id: string;
  name: string;
  namespace: string;
  labels: Record<string, string> | null;
  spec: Record<string, unknown> | null;
  schedule: string | null;
}

export async function liveTopology(db: Q, id: string): Promise<TopologyRecord | null> {
  const { rows } = await db.query<TopologyRecord>(
    `SELECT id, name, namespace, labels, spec, schedule FROM topologies
      WHERE id = $1 AND deleted_at IS NULL AND agent_id = '00000000-0000-0000-0000-000000000000'`, [id]);
  return rows[0] ?? null;
}

export async function liveTopologies(db: Q): Promise<TopologyRecord[]> {
  const { rows } = await db.query<TopologyRecord>(
    `SELECT id, name, namespace, labels, spec, schedule FROM topologies
      WHERE deleted_at IS NULL AND agent_id = '00000000-0000-0000-0000-000000000000' ORDER BY id`);
  return rows;
}

/** Changes when any topology is created, changed or deleted (the scheduler's poll). */
export async function topologiesSignature(db: Q): Promise<string> {
  const { rows } = await db.query<{ sig: string | null }>(
    `SELECT count(*)::text || ':' || coalesce(max(updated_at)::text, '') || ':' || coalesce(max(deleted_at)::text, '') AS sig
       FROM topologies WHERE agent_id = '00000000-0000-0000-0000-000000000000'`);
  return rows[0]?.sig ?? '';
}

/** Live components of a topology with a healthExpr or statusExpr, deepest first (children before their parents). */
export interface ExprComponent {
  id: string; name: string; type: string | null; namespace: string | null; labels: Record<string, string> | null;
  properties: unknown[] | null; summary: Record<string, unknown> | null; status: string; health: string | null;
  health_expr: string | null; status_expr: string | null; external_id: string;
}

export async function exprComponents(db: Q, topologyId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM components WHERE topology_id = $1 AND deleted_at IS NULL
        AND (coalesce(health_expr, '') <> '' OR coalesce(status_expr, '') <> '')
      ORDER BY length(coalesce(path, '')) DESC, id`, [topologyId]);
  return rows.map((r) => r.id);
}

export async function exprComponent(db: Q, id: string): Promise<ExprComponent | null> {
  const { rows } = await db.query<ExprComponent>(
    `SELECT id, name, type, namespace, labels, properties, summary, status, health, health_expr, status_expr, external_id
       FROM components WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

export async function writeHealthStatus(db: Q, id: string, health: string | null, status: string | null): Promise<void> {
  await db.query(
    `UPDATE components SET health = coalesce($2, health), status = coalesce($3, status)
      WHERE id = $1 AND (($2::text IS NOT NULL AND health IS DISTINCT FROM $2) OR ($3::text IS NOT NULL AND status IS DISTINCT FROM $3))`,
    [id, health, status]);
}
