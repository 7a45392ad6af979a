import type pg from 'pg';

type Q = Pick<pg.Pool, 'query'>;

/** A table's rows for the snapshot: the columns in table order (the CSV header, even with no rows) and the rows. */
export interface Dump { columns: string[]; rows: Record<string, unknown>[] }

// One more row than the bound is read, so a cut can be told from an exact fit. Every statement is parameterised; the
// window is [$2, $3].
export const DUMPS = {
  components: `SELECT * FROM components WHERE id = ANY ($1::uuid[]) ORDER BY path NULLS FIRST, name, id LIMIT $2`,
  checks: `SELECT ch.* FROM checks ch
             WHERE ch.id IN (SELECT check_id FROM check_component_relationships WHERE component_id = ANY ($1::uuid[]) AND deleted_at IS NULL)
             ORDER BY ch.name, ch.id LIMIT $2`,
  check_statuses: `SELECT s.* FROM check_statuses s WHERE s.check_id = ANY ($1::uuid[]) AND s.time >= $2 AND s.time <= $3
             ORDER BY s.time DESC, s.check_id LIMIT $4`,
  // incidents with one of the components as evidence, open at some time in the window
  incidents: `SELECT i.* FROM incidents i
             WHERE i.id IN (SELECT h.incident_id FROM evidences e JOIN hypotheses h ON h.id = e.hypothesis_id WHERE e.component_id = ANY ($1::uuid[]))
               AND i.created_at <= $3 AND (i.closed IS NULL OR i.closed >= $2)
             ORDER BY i.created_at DESC, i.id LIMIT $4`,
  hypotheses: `SELECT * FROM hypotheses WHERE incident_id = ANY ($1::uuid[]) ORDER BY created_at, id LIMIT $2`,
  evidences: `SELECT e.* FROM evidences e JOIN hypotheses h ON h.id = e.hypothesis_id WHERE h.incident_id = ANY ($1::uuid[])
             ORDER BY e.created_at, e.id LIMIT $2`,
  config_items: `SELECT ci.* FROM config_items ci
             WHERE ci.id IN (SELECT config_id FROM config_component_relationships WHERE component_id = ANY ($1::uuid[]) AND deleted_at IS NULL)
             ORDER BY ci.name, ci.id LIMIT $2`,
  config_changes: `SELECT * FROM config_changes WHERE config_id = ANY ($1::uuid[]) AND created_at >= $2 AND created_at <= $3
             ORDER BY created_at DESC, id LIMIT $4`,
  config_analysis: `SELECT * FROM config_analysis WHERE config_id = ANY ($1::uuid[]) AND last_observed >= $2 AND first_observed <= $3
             ORDER BY last_observed DESC, id LIMIT $4`,
} as const;
export type DumpName = keyof typeof DUMPS;

/** Tables whose statement takes the window (`$2`, `$3`) before the bound. */
const WINDOWED = new Set<DumpName>(['check_statuses', 'incidents', 'config_changes', 'config_analysis']);

/** Columns never written to a snapshot: a check's spec and a component's inline checks may carry credentials. */
const OMIT: Partial<Record<DumpName, string[]>> = { checks: ['spec'], components: ['component_checks'] };

export async function dumpTable(db: Q, name: DumpName, ids: string[], window: [Date, Date], bound: number): Promise<Dump> {
  const params = WINDOWED.has(name) ? [ids, window[0], window[1], bound + 1] : [ids, bound + 1];
  const res = await db.query(DUMPS[name], params);
  const omit = OMIT[name] ?? [];
  const columns = res.fields.map((f) => f.name).filter((c) => !omit.includes(c));
  const rows = omit.length ? res.rows.map((r) => Object.fromEntries(columns.map((c) => [c, r[c]]))) : res.rows;
  return { columns, rows };
}

/** The live components linked to any of `ids` by component_relationships, either way, not among `ids`. */
export async function relatedComponents(db: Q, ids: string[], bound: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT DISTINCT c.id FROM component_relationships r
       JOIN components c ON c.id = CASE WHEN r.component_id = ANY ($1::uuid[]) THEN r.relationship_id ELSE r.component_id END
       WHERE (r.component_id = ANY ($1::uuid[]) OR r.relationship_id = ANY ($1::uuid[])) AND r.deleted_at IS NULL
         AND c.deleted_at IS NULL AND NOT c.id = ANY ($1::uuid[])
       ORDER BY c.id LIMIT $2`,
    [ids, bound]);
  return rows.map((r) => r.id);
}

/** The live components among `ids` with log selectors, and their selectors' names (in order, unnamed ones as ''). */
export async function componentsWithLogs(db: Q, ids: string[]): Promise<Array<{ id: string; name: string; type: string | null; selectors: string[] }>> {
  const { rows } = await db.query<{ id: string; name: string; type: string | null; selectors: string[] }>(
    `SELECT c.id, c.name, c.type,
            ARRAY(SELECT coalesce(s->>'name', '') FROM jsonb_array_elements(c.log_selectors) s WHERE jsonb_typeof(s) = 'object') AS selectors
       FROM components c
       WHERE c.id = ANY ($1::uuid[]) AND c.deleted_at IS NULL AND jsonb_typeof(c.log_selectors) = 'array'
         AND jsonb_array_length(c.log_selectors) > 0
       ORDER BY c.path NULLS FIRST, c.name, c.id`,
    [ids]);
  return rows;
}
