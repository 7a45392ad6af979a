import type pg from 'pg';

/** One fetched component: its level under the roots (0 = root), its columns, and its selector parents. */
export interface ComponentRow {
  lvl: number;
  doc: Record<string, unknown> & { id: string; name: string; parent_id: string | null; status: string; type: string | null };
  rel_parents: string[] | null;
}

// A component's depth from its stored path (the ancestors' ids, dot-separated; kept by 0060's parent trigger).
const DEPTH = `CASE WHEN coalesce(c.path, '') = '' THEN 0 ELSE array_length(string_to_array(c.path, '.'), 1) END`;

// Every level carries what a card's child list and the filters need (duty's selectClause for non-direct children);
// cards (levels 0 and 1) also carry every other column as `full`. Internal columns (selectors, component checks and
// configs, is_pushed, properties_values) never leave. Team names and selector parents are joined aggregated, once.
function select(picked: string): string {
  return `WITH ${picked}
  SELECT p.lvl, c.id, c.name, c.namespace, c.type, c.icon, c.status, c.status_reason, c.health, c.is_leaf, c.summary,
    c.topology_type, c.labels, c.parent_id, c.hidden, c.owner, c.agent_id, tm.team_names, rp.rel_parents,
    CASE WHEN p.lvl <= 1 THEN to_jsonb(c) - ARRAY['selectors', 'component_checks', 'configs', 'log_selectors', 'properties_values', 'is_pushed']
      || jsonb_build_object('logs', (SELECT jsonb_agg(jsonb_build_object('name', e->'name'))
           FROM jsonb_array_elements(CASE WHEN jsonb_typeof(c.log_selectors) = 'array' THEN c.log_selectors ELSE '[]' END) e))
    END AS full
  FROM picked p JOIN components c ON c.id = p.id
  LEFT JOIN (SELECT tc.component_id, array_agg(t.name ORDER BY t.name) AS team_names
               FROM team_components tc JOIN teams t ON t.id = tc.team_id GROUP BY 1) tm ON tm.component_id = c.id
  LEFT JOIN (SELECT r.component_id, array_agg(r.relationship_id) AS rel_parents
               FROM component_relationships r WHERE r.deleted_at IS NULL GROUP BY 1) rp ON rp.component_id = c.id`;
}

// $1 root id, $2 include hidden, $3 levels below the root. The subtree is a range of the C-collated path index (the
// descendants' paths start with the root's path and id); the components that name a fetched one as their selector
// parent (component_relationships) come one hop, without their own subtree.
const BY_ID = select(`root AS (
    SELECT c.id, ${DEPTH} AS depth, CASE WHEN coalesce(c.path, '') = '' THEN c.id::text ELSE c.path || '.' || c.id END AS prefix
      FROM components c WHERE c.id = $1::uuid AND c.deleted_at IS NULL
  ),
  sub AS (
    SELECT id, 0 AS lvl FROM root
    UNION ALL
    SELECT c.id, ${DEPTH} - (SELECT depth FROM root) FROM components c
      WHERE c.deleted_at IS NULL AND ($2 OR c.hidden IS NOT TRUE)
        AND (c.path COLLATE "C") >= (SELECT prefix FROM root) AND (c.path COLLATE "C") < (SELECT prefix || '/' FROM root)
        AND ${DEPTH} - (SELECT depth FROM root) <= $3
  ),
  picked AS (
    SELECT id, lvl FROM sub
    UNION ALL
    SELECT DISTINCT ON (r.component_id) r.component_id, s.lvl + 1 FROM component_relationships r
      JOIN sub s ON s.id = r.relationship_id
      JOIN components k ON k.id = r.component_id AND k.deleted_at IS NULL AND ($2 OR k.hidden IS NOT TRUE)
      WHERE r.deleted_at IS NULL AND s.lvl < $3 AND NOT EXISTS (SELECT 1 FROM sub x WHERE x.id = r.component_id)
  )`);

// Every live component down to $3 levels below the roots ($1 is always null here: one parameter list for both).
const ALL_ROOTS = select(`picked AS (
    SELECT c.id, ${DEPTH} AS lvl FROM components c
      WHERE c.deleted_at IS NULL AND ($2 OR c.hidden IS NOT TRUE) AND ${DEPTH} <= $3 AND $1::uuid IS NULL
  )`);

interface Fetched {
  lvl: number; id: string; name: string; parent_id: string | null; status: string; type: string | null;
  rel_parents: string[] | null; team_names: string[] | null; full: Record<string, unknown> | null; [column: string]: unknown;
}

/** The component (or every root) and its descendants down to `levels` below it, in one statement. */
export async function fetchSubtree(db: pg.Pool, rootId: string | undefined, hidden: boolean, levels: number): Promise<ComponentRow[]> {
  const { rows } = await db.query<Fetched>(rootId ? BY_ID : ALL_ROOTS, [rootId ?? null, hidden, levels]);
  return rows.map(({ lvl, rel_parents, full, ...minimal }) => ({
    lvl, rel_parents, doc: full ? { ...full, team_names: minimal.team_names } as unknown as ComponentRow['doc'] : minimal,
  }));
}
