import type pg from 'pg';

/** One fetched component: its level under the roots (0 = root), its columns as JSON, and its selector parents. */
export interface ComponentRow {
  lvl: number;
  doc: Record<string, unknown> & { id: string; parent_id: string | null; status: string; type: string | null };
  rel_parents: string[] | null;
}

// Cards (levels 0 and 1) carry every column the UI shows; deeper levels carry what a card's child list and the
// roll-up need (duty's selectClause for non-direct children). Internal columns (selectors, component checks and
// configs, is_pushed, properties_values) never leave.
const FULL = `to_jsonb(c) - ARRAY['selectors', 'component_checks', 'configs', 'log_selectors', 'properties_values', 'is_pushed']
  || jsonb_build_object('team_names', tm.team_names, 'logs', (
       SELECT jsonb_agg(jsonb_build_object('name', e->'name'))
         FROM jsonb_array_elements(CASE WHEN jsonb_typeof(c.log_selectors) = 'array' THEN c.log_selectors ELSE '[]' END) e))`;
const MINIMAL = `jsonb_build_object('id', c.id, 'name', c.name, 'namespace', c.namespace, 'type', c.type, 'icon', c.icon,
  'status', c.status, 'status_reason', c.status_reason, 'health', c.health, 'is_leaf', c.is_leaf, 'summary', c.summary,
  'topology_type', c.topology_type, 'labels', c.labels, 'team_names', tm.team_names, 'parent_id', c.parent_id,
  'hidden', c.hidden)`;

// $1 root id (or null), $2 include hidden, $3 levels below the roots. The walk follows parent_id and the selector
// relationships (component_relationships: relationship_id is the parent); UNION plus the level bound end it on
// any loop. One statement: the tree is assembled in JS from these rows.
function walkSql(roots: string): string {
  return `WITH RECURSIVE walk(id, lvl) AS (
    ${roots}
    UNION
    SELECT x.id, w.lvl + 1 FROM walk w CROSS JOIN LATERAL (
      SELECT k.id FROM components k WHERE k.parent_id = w.id AND k.deleted_at IS NULL AND ($2 OR k.hidden IS NOT TRUE)
      UNION ALL
      SELECT r.component_id FROM component_relationships r
        JOIN components k ON k.id = r.component_id AND k.deleted_at IS NULL AND ($2 OR k.hidden IS NOT TRUE)
        WHERE r.relationship_id = w.id AND r.deleted_at IS NULL
    ) x WHERE w.lvl < $3
  ),
  nodes AS (SELECT id, min(lvl) AS lvl FROM walk GROUP BY id)
  SELECT n.lvl, CASE WHEN n.lvl <= 1 THEN ${FULL} ELSE ${MINIMAL} END AS doc, rp.rel_parents
    FROM nodes n JOIN components c ON c.id = n.id
    LEFT JOIN LATERAL (
      SELECT array_agg(t.name ORDER BY t.name) AS team_names FROM team_components tc JOIN teams t ON t.id = tc.team_id
        WHERE tc.component_id = c.id
    ) tm ON true
    LEFT JOIN LATERAL (
      SELECT array_agg(r.relationship_id) AS rel_parents FROM component_relationships r
        WHERE r.component_id = c.id AND r.deleted_at IS NULL
    ) rp ON true
    ORDER BY n.lvl, c.name, c.id`;
}

const BY_ID = walkSql(`SELECT c.id, 0 FROM components c WHERE c.id = $1::uuid AND c.deleted_at IS NULL`);
const ALL_ROOTS = walkSql(`SELECT c.id, 0 FROM components c
    WHERE c.parent_id IS NULL AND c.deleted_at IS NULL AND ($2 OR c.hidden IS NOT TRUE) AND $1::uuid IS NULL`);

/** The component (or every root) and its descendants down to `levels` below it, in one statement. */
export async function fetchSubtree(db: pg.Pool, rootId: string | undefined, hidden: boolean, levels: number): Promise<ComponentRow[]> {
  const { rows } = await db.query<ComponentRow>(rootId ? BY_ID : ALL_ROOTS, [rootId ?? null, hidden, levels]);
  return rows;
}
