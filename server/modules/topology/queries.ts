import type pg from 'pg';
import type { TopologyQuery } from '../../contracts/topology.js';

/**
 * One fetched component: its level under the roots (0 = root), what the tree, the filters, the sort and the filter
 * values need (`doc`), its selector parents, whether the card-level filters keep it, and its JSON text as sent
 * (`json`, without `components`; null when no card it could sit under is kept, so it is never sent).
 */
export interface ComponentRow {
  lvl: number;
  doc: {
    id: string; name: string; parent_id: string | null; status: string; type: string | null;
    /** Cards only (levels 0 and 1), the sort's keys: updated_at as the JSON text has it, properties when sorting by one. */
    updated_at?: string | null; properties?: { name?: string; text?: string; value?: number }[] | null;
  };
  rel_parents: string[] | null;
  /** The card-level filters (owner, labels, team, agent_id) and status keep this component, were it a card. */
  card_ok: boolean;
  status_ok: boolean;
  json: string | null;
}

// A component's depth from its stored path (the ancestors' ids, dot-separated; kept by 0060's parent trigger).
const DEPTH = `CASE WHEN coalesce(c.path, '') = '' THEN 0 ELSE array_length(string_to_array(c.path, '.'), 1) END`;

// The parameters of every statement: $1 root id, $2 include hidden, $3 levels below the roots, then the filters: each
// matchItems list as its exclusions ($n, without the '!') and its inclusions ($n+1); owner, agent, labels; flatten;
// whether the cards' properties are needed (sorting by one).
const P = { types: 4, status: 6, team: 8, owner: 10, agent: 11, labels: 12, flatten: 13, props: 14 } as const;

/** duty's matchItems in SQL over a split list (see tree.ts matchItems): `!x` excludes, `*` or any listed one matches. */
const match = (value: string, at: number) => `(NOT (coalesce(${value}, '') = ANY ($${at}::text[]))
    AND (cardinality($${at + 1}::text[]) = 0 OR '*' = ANY ($${at + 1}::text[]) OR coalesce(${value}, '') = ANY ($${at + 1}::text[])))`;

// The card-level filters other than status: a component without teams matches the team filter as '' would.
const CARD_OK = `($${P.owner}::text IS NULL OR c.owner IS NOT DISTINCT FROM $${P.owner})
    AND ($${P.agent}::uuid IS NULL OR c.agent_id = $${P.agent})
    AND ($${P.labels}::jsonb IS NULL OR coalesce(c.labels, '{}') @> $${P.labels})
    AND CASE WHEN cardinality(tm.team_names) > 0 THEN EXISTS (SELECT 1 FROM unnest(tm.team_names) t WHERE ${match('t', P.team)})
      ELSE ${match("''", P.team)} END`;

// The JSON text of a node (row_to_json of a column list: compact, and a third of the cost of editing to_jsonb(c)).
// As duty's two queries (fetchAllComponents): the component asked for and its direct children, or without an id the
// roots, carry every column but the internal ones (selectors, log_selectors, component checks and configs, is_pushed,
// properties_values) plus `logs` (the log selectors' names) and `team_names`; every other node what a card's child
// list shows (duty's selectClause for non-direct children, plus `text`, the child line's label). A missing summary is
// `{}`. (Without an id the roots' children were full too: 1,800 of the cards page's 2,000 components at 20,000.)
const FULL = `(SELECT row_to_json(x) FROM (SELECT c.id, c.agent_id, c.topology_id, c.external_id, c.parent_id, c.config_id, c.name,
      c.text, c.topology_type, c.namespace, c.labels, c.hidden, c.silenced, c.status, c.status_expr, c.health_expr, c.health,
      c.description, c.lifecycle, c.tooltip, c.status_reason, c.schedule, c.icon, c.type, c.owner, c.properties, c.path,
      coalesce(c.summary, '{}') AS summary, c.is_leaf, c.cost_per_minute, c.cost_total_1d, c.cost_total_7d, c.cost_total_30d,
      c.created_by, c.created_at, c.updated_at, c.deleted_at, f.team_names,
      (SELECT json_agg(json_build_object('name', e->'name'))
         FROM jsonb_array_elements(CASE WHEN jsonb_typeof(c.log_selectors) = 'array' THEN c.log_selectors ELSE '[]' END) e) AS logs
    ) x)::text`;
// Deeper nodes leave their null fields out (duty's Component fields are omitempty; the contract has them nullish):
// at 20,000 components the cards page's 1,800 child lines were four fifths of its bytes, half of them nulls.
const MINIMAL = `json_strip_nulls((SELECT row_to_json(x) FROM (SELECT c.id, c.name, c.text, c.namespace, c.type, c.icon, c.status,
      c.status_reason, c.health, c.is_leaf, coalesce(c.summary, '{}') AS summary, c.topology_type, c.labels, c.parent_id, c.hidden,
      c.owner, c.agent_id, f.team_names) x))::text`;

/**
 * The statement over `picked` (id, lvl): the facts of every fetched component (the filter values are taken from them
 * all), and the JSON only of those the response can show. `shown` is the SQL's share of the card filters, so that
 * components under a card the filters drop cost no JSON: with `flatten` a component must pass them itself; in the
 * tree it must sit under a kept card (`card`: the root, or with an id the root's child) and, without an id, under a
 * child of the root that passes `status` (`child`). Selector relationships put components under other cards, so
 * when a fetched component is a selector parent every component is shown (the tree drops what it does not use).
 */
function select(picked: string, card: string, child: string, fullLevels: number, carryRow = false): string {
  return `WITH ${picked},
  facts AS (
    SELECT p.lvl, ${carryRow ? 'c AS crow,' : ''} c.id, c.name, c.parent_id, c.status, c.type, c.labels, tm.team_names, rp.rel_parents,
      ${card} AS card, ${child} AS child,
      ${CARD_OK} AS card_ok, ${match('c.status', P.status)} AS status_ok, ${match('c.type', P.types)} AS type_ok
    FROM picked p JOIN components c ON c.id = p.id
    LEFT JOIN (SELECT tc.component_id, array_agg(t.name ORDER BY t.name) AS team_names
                 FROM team_components tc JOIN teams t ON t.id = tc.team_id GROUP BY 1) tm ON tm.component_id = c.id
    LEFT JOIN (SELECT r.component_id, array_agg(r.relationship_id) AS rel_parents
                 FROM component_relationships r WHERE r.deleted_at IS NULL GROUP BY 1) rp ON rp.component_id = c.id
  ),
  selected AS (SELECT EXISTS (SELECT 1 FROM component_relationships r JOIN facts f ON f.id = r.relationship_id
    WHERE r.deleted_at IS NULL) AS found)
  SELECT f.lvl, f.id, f.name, f.parent_id, f.status, f.type, f.rel_parents, f.card_ok, f.status_ok,
    CASE WHEN f.lvl <= 1 THEN to_jsonb(c.updated_at) #>> '{}' END AS updated_at,
    CASE WHEN f.lvl <= 1 AND $${P.props} THEN c.properties END AS properties,
    CASE WHEN f.type_ok AND ((SELECT found FROM selected) OR CASE WHEN $${P.flatten} THEN f.card_ok AND f.status_ok
      ELSE (f.card IS NULL OR coalesce(k.card_ok AND k.status_ok, false)) AND (f.child IS NULL OR coalesce(h.status_ok, false)) END)
    THEN CASE WHEN f.lvl <= ${fullLevels} THEN ${FULL} ELSE ${MINIMAL} END END AS json
  FROM facts f ${carryRow ? 'CROSS JOIN LATERAL (SELECT (f.crow).*) c' : 'JOIN components c ON c.id = f.id'}
  LEFT JOIN facts k ON k.id = f.card
  LEFT JOIN facts h ON h.id = f.child
  WHERE f.type_ok
  UNION ALL
  SELECT -1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, json_build_object(
    'healthStatuses', (SELECT json_agg(DISTINCT status) FROM facts),
    'types', (SELECT json_agg(DISTINCT coalesce(type, '')) FROM facts),
    'teams', (SELECT json_agg(DISTINCT t) FROM facts, unnest(team_names) t),
    'tags', (SELECT json_agg(json_build_array(l.key, l.value)) FROM (SELECT DISTINCT e.key, e.value FROM facts,
      jsonb_each_text(CASE WHEN jsonb_typeof(labels) = 'object' THEN labels ELSE '{}' END) e) l))::text`;
}

// The nth id of a component's path (1-based), as a uuid.
const ancestor = (n: string) => `nullif(split_part(c.path, '.', ${n}), '')::uuid`;

// By id: the subtree is a range of the C-collated path index (the descendants' paths start with the root's path and
// id); the components that name a fetched one as their selector parent come one hop, without their own subtree.
// Cards are the root's children: a child is its own card, deeper ones have theirs in the path after the root.
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
  )`,
`CASE WHEN p.lvl = 1 THEN c.id WHEN p.lvl > 1 THEN ${ancestor('(SELECT depth FROM root) + 2')} END`, 'NULL::uuid', 1);

// Every live component down to $3 levels below the roots ($1 is always null here: one parameter list for both). The
// card is the root (the path's first id); the child the root's child (its second).
const ALL_ROOTS = select(`picked AS (
    SELECT c.id, ${DEPTH} AS lvl FROM components c
      WHERE c.deleted_at IS NULL AND ($2 OR c.hidden IS NOT TRUE) AND ${DEPTH} <= $3 AND $1::uuid IS NULL
  )`,
`CASE WHEN p.lvl = 0 THEN c.id ELSE ${ancestor('1')} END`, `CASE WHEN p.lvl = 1 THEN c.id WHEN p.lvl > 1 THEN ${ancestor('2')} END`, 0);

// The cards page's call (depth 2: a tenth of the components at 20,000) picks its rows by 0107's depth index; the
// facts then carry each component's row, so the JSON is built without joining back to components (which the planner
// did by hashing the whole table). Deeper calls read most of the table: there a row per fact would spill the CTE
// to disk, so they join back.
const ALL_ROOTS_SHALLOW = select(`picked AS (
    SELECT c.id, ${DEPTH} AS lvl FROM components c
      WHERE c.deleted_at IS NULL AND ($2 OR c.hidden IS NOT TRUE) AND ${DEPTH} <= $3 AND $1::uuid IS NULL
  )`,
`CASE WHEN p.lvl = 0 THEN c.id ELSE ${ancestor('1')} END`, `CASE WHEN p.lvl = 1 THEN c.id WHEN p.lvl > 1 THEN ${ancestor('2')} END`, 0, true);

interface Fetched extends Omit<ComponentRow['doc'], 'updated_at' | 'properties'> {
  lvl: number; rel_parents: string[] | null; card_ok: boolean; status_ok: boolean;
  updated_at: string | null; properties: ComponentRow['doc']['properties']; json: string | null;
}

/** The filter values of every fetched component (before filtering), distinct, as the statement's last row has them. */
export interface FilterValues { healthStatuses: string[] | null; types: string[] | null; teams: string[] | null; tags: [string, string][] | null }

/** A matchItems list as the statement takes it: exclusions (without the '!') and inclusions. */
const split = (items: readonly string[] | undefined) => [
  (items ?? []).filter((i) => i.startsWith('!')).map((i) => i.slice(1)),
  (items ?? []).filter((i) => !i.startsWith('!')),
];

/**
 * The component `q.id` (or every root) and its descendants down to `q.depth` levels (the roots are level 1), in one
 * statement, with the filters' work done in SQL: the rows `type` drops are not returned (they only count for the
 * filter values, which come as the last row), and JSON is built only for components the response can show.
 */
export async function fetchTopology(db: pg.Pool, q: TopologyQuery): Promise<{ rows: ComponentRow[]; values: FilterValues }> {
  const params = [
    q.id ?? null, q.hidden !== false, q.depth - 1, ...split(q.type), ...split(q.status), ...split(q.team),
    q.owner ?? null, q.agent_id ?? null, q.labels ? JSON.stringify(q.labels) : null, q.flatten === true,
    !!q.sortBy?.startsWith('field:'),
  ];
  const { rows } = await db.query<Fetched>(q.id ? BY_ID : q.depth <= 3 ? ALL_ROOTS_SHALLOW : ALL_ROOTS, params);
  const values = JSON.parse(rows.pop()!.json!) as FilterValues;
  return {
    values,
    rows: rows.map(({ lvl, rel_parents, card_ok, status_ok, json, updated_at, properties, ...doc }) => ({
      lvl, rel_parents, card_ok, status_ok, json, doc: lvl <= 1 ? { ...doc, updated_at, properties } : doc,
    })),
  };
}

/** Every component of the subtree (or every root's) down to `levels` below it, shown whatever the filters (snapshot). */
export async function fetchSubtree(db: pg.Pool, rootId: string | undefined, hidden: boolean, levels: number): Promise<ComponentRow[]> {
  const depth = Math.min(levels + 1, 10);
  return (await fetchTopology(db, { id: rootId, hidden, depth })).rows;
}
