import type pg from 'pg';
import type { SavedComponent } from '../types.js';
import { LOCAL_AGENT, Params, plainSelector, selectorWhere, type PlainSelector, type ResourceSelector, type SelectorTarget } from './resource-selector.js';

/** Parameterised SQL of the link steps. Table and column names come from the constants here and in TARGETS. */

export type Q = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** How many rows one selector may link; beyond that the step links the first ones (by id) and notes it. */
export const MAX_MATCHES = 10_000;

/** Selectors per statement: one round trip for many (a run has one or more per component). */
const SELECTORS_PER_QUERY = 200;

type Match = { at: number; id: string; canary_id?: string };

const limitOf = (s: ResourceSelector) => (s.limit && s.limit > 0 ? Math.min(s.limit, MAX_MATCHES + 1) : MAX_MATCHES + 1);

/**
 * Ids (and, for checks, canary ids) of what each selector selects, by id, `limit` of them when it sets one (at most
 * MAX_MATCHES + 1, so the caller can tell it was cut); `at` is the selector's index in `selectors`, rows in `at`
 * order. The common shapes (plainSelector) run as one statement per shape, however many selectors; the rest in
 * batches, one UNION ALL statement each. Throws SelectorError for a selector that cannot be compiled: callers compile
 * each first (selectorWhere) and pass only good ones.
 */
export async function selectIds(db: Q, t: SelectorTarget, selectors: ResourceSelector[]): Promise<Match[]> {
  const out: Match[] = [];
  const shapes = new Map<string, Array<{ at: number; p: PlainSelector; limit: number }>>();
  const rest: number[] = [];
  selectors.forEach((s, at) => {
    const p = plainSelector(s, t);
    if (!p) return rest.push(at);
    const key = PLAIN_FIELDS.filter((f) => p[f] !== undefined).join(',');
    shapes.set(key, [...(shapes.get(key) ?? []), { at, p, limit: limitOf(s) }]);
  });
  for (const group of shapes.values()) out.push(...(await selectPlain(db, t, group)));
  const cols = t.table === 'checks' ? 'id, canary_id' : 'id';
  for (let from = 0; from < rest.length; from += SELECTORS_PER_QUERY) {
    const ps = new Params();
    const parts = rest.slice(from, from + SELECTORS_PER_QUERY).map((at) =>
      `(SELECT ${at} AS at, ${cols} FROM ${t.table} WHERE ${selectorWhere(selectors[at], t, ps)} ORDER BY id LIMIT ${limitOf(selectors[at])})`);
    const { rows } = await db.query<Match>(parts.join(' UNION ALL '), ps.values);
    out.push(...rows);
  }
  // stable: each selector's rows stay in id order
  return out.sort((a, b) => a.at - b.at);
}

const PLAIN_FIELDS = ['name', 'namespace', 'types', 'labels', 'tags'] as const;

/**
 * Selectors of one shape (the same fields set) as one statement: their values are rows of a jsonb parameter joined
 * to the table by equality, so the planner can hash-join all of them in one pass instead of probing once per
 * selector; a label (or tag) map joins on its first pair (the row's labels expanded) and must contain the rest.
 * row_number keeps each selector's first `limit` by id.
 */
async function selectPlain(db: Q, t: SelectorTarget, group: Array<{ at: number; p: PlainSelector; limit: number }>): Promise<Match[]> {
  const p0 = group[0].p;
  const conds = ['x.deleted_at IS NULL', 'x.agent_id = $2::uuid'];
  if (p0.name !== undefined) conds.push('x.name = s.s_name');
  if (p0.namespace !== undefined) conds.push(`${t.namespace.replace(/^(\w)/, 'x.$1')} = s.s_namespace`);
  if (p0.types !== undefined) conds.push('x.type = ANY(s.s_types)');
  if (p0.labels !== undefined) conds.push('x.labels @> s.s_labels');
  if (p0.tags !== undefined) conds.push(`x.${t.tags} @> s.s_tags`);
  // the map whose first pair is the join key: labels, else tags
  const map = p0.labels !== undefined ? 'labels' : p0.tags !== undefined ? t.tags : null;
  // materialized, not a join LATERAL, so the selectors are hashed once rather than scanned once per row (only the
  // columns the conditions read: config items carry large documents)
  const used = ['id', 'deleted_at', 'agent_id', 'name', 'type', 'labels', ...(t.table === 'checks' ? ['canary_id'] : []),
    ...(t.tags ? [t.tags] : ['namespace'])];
  const pre = map
    ? `WITH x AS MATERIALIZED (SELECT ${used.map((c) => `y.${c}`).join(', ')}, kv.key AS kv_key, kv.value AS kv_value FROM ${t.table} y
        CROSS JOIN LATERAL jsonb_each_text(CASE WHEN jsonb_typeof(y.${map}) = 'object' THEN y.${map} ELSE '{}' END) kv) `
    : '';
  const from = map ? 'x' : `${t.table} x`;
  if (map) conds.push('x.kv_key = s.s_key', 'x.kv_value = s.s_value');
  const cols = t.table === 'checks' ? 'x.id, x.canary_id' : 'x.id';
  const rows = group.map(({ at, p, limit }) => {
    const first = Object.entries((p.labels ?? p.tags) ?? {})[0];
    return { at, lim: limit, s_name: p.name, s_namespace: p.namespace, s_types: p.types, s_labels: p.labels, s_tags: p.tags, s_key: first?.[0], s_value: first?.[1] };
  });
  const { rows: out } = await db.query<Match>(
    `${pre}SELECT at, id${t.table === 'checks' ? ', canary_id' : ''} FROM (
       SELECT s.at, s.lim, ${cols}, row_number() OVER (PARTITION BY s.at ORDER BY x.id) AS n
       FROM jsonb_to_recordset($1::jsonb) AS s(at int, lim int, s_name text, s_namespace text, s_types text[], s_labels jsonb, s_tags jsonb, s_key text, s_value text)
       JOIN ${from} ON ${conds.join(' AND ')}
     ) m WHERE n <= lim ORDER BY at, id`,
    [JSON.stringify(rows), LOCAL_AGENT],
  );
  return out;
}

/**
 * One link table as the steps write it: `owner` is the component whose spec made the link, `target` what it links
 * to. A link made by hand (selector_id 'manual') is never revived, re-pointed or removed by a run.
 */
export interface LinkTable {
  table: 'component_relationships' | 'check_component_relationships' | 'config_component_relationships';
  owner: string;
  target: string;
  /** the unique key an upsert lands on */
  conflict: string;
  /** checks carry their canary */
  canary: boolean;
}

export const LINK_TABLES = {
  // relationship_id is the component whose selectors matched; component_id the matched one (GET /api/topology
  // shows it among the selecting component's children)
  components: { table: 'component_relationships', owner: 'relationship_id', target: 'component_id', conflict: 'component_id, relationship_id, selector_id', canary: false },
  checks: { table: 'check_component_relationships', owner: 'component_id', target: 'check_id', conflict: 'component_id, check_id, canary_id, selector_id', canary: true },
  configs: { table: 'config_component_relationships', owner: 'component_id', target: 'config_id', conflict: 'component_id, config_id', canary: false },
} as const satisfies Record<string, LinkTable>;

export interface Link { owner: string; target: string; selectorId: string; canaryId?: string }

/**
 * Makes the links owned by `owners` (and by the topology's other components, live or gone) exactly `links`: new ones
 * inserted, soft-deleted ones revived, the rest soft-deleted. Unchanged rows are not written (no roll-up runs for
 * them). Returns the number of live links written or kept.
 */
export async function syncLinks(db: Q, lt: LinkTable, topologyId: string, links: Link[]): Promise<number> {
  const owners = links.map((l) => l.owner);
  const targets = links.map((l) => l.target);
  const sels = links.map((l) => l.selectorId);
  const canaries = links.map((l) => l.canaryId ?? null);
  const cols = `${lt.owner}, ${lt.target}, selector_id${lt.canary ? ', canary_id' : ''}`;
  const src = `SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[]${lt.canary ? ', $4::uuid[]' : ''})`;
  const args = lt.canary ? [owners, targets, sels, canaries] : [owners, targets, sels];
  // config links have one row per (component, config): a run takes over its own selector's row, never a manual one
  const onConflict = lt.table === 'config_component_relationships'
    ? `DO UPDATE SET deleted_at = NULL, selector_id = EXCLUDED.selector_id, updated_at = now()
       WHERE x.selector_id IS DISTINCT FROM 'manual' AND (x.deleted_at IS NOT NULL OR x.selector_id IS DISTINCT FROM EXCLUDED.selector_id)`
    : 'DO UPDATE SET deleted_at = NULL, updated_at = now() WHERE x.deleted_at IS NOT NULL';
  if (links.length) {
    await db.query(`INSERT INTO ${lt.table} AS x (${cols}) ${src} ON CONFLICT (${lt.conflict}) ${onConflict}`, args);
  }
  await db.query(
    `UPDATE ${lt.table} x SET deleted_at = now(), updated_at = now()
     WHERE x.deleted_at IS NULL AND x.selector_id IS DISTINCT FROM 'manual'
       AND x.${lt.owner} IN (SELECT c.id FROM components c WHERE c.topology_id = $4::uuid)
       AND NOT EXISTS (SELECT 1 FROM unnest($1::uuid[], $2::uuid[], $3::text[]) k(o, t, s)
                       WHERE k.o = x.${lt.owner} AND k.t = x.${lt.target} AND k.s = x.selector_id)`,
    [owners, targets, sels, topologyId],
  );
  return links.length;
}

/** The topology's namespace and schedule (inline canaries live and run by them). */
export async function topologyOf(db: Q, topologyId: string): Promise<{ namespace: string; schedule: string | null }> {
  const { rows } = await db.query<{ namespace: string; schedule: string | null }>(
    `SELECT namespace, coalesce(nullif(schedule, ''), spec->>'schedule') AS schedule FROM topologies WHERE id = $1`, [topologyId],
  );
  return rows[0] ?? { namespace: 'default', schedule: null };
}

/** Live canaries made from components' inline checks (`source = component/<id>`) of this topology's components. */
export async function inlineCanariesOf(db: Q, topologyId: string): Promise<Array<{ id: string; source: string }>> {
  const { rows } = await db.query<{ id: string; source: string }>(
    `SELECT ca.id, ca.source FROM canaries ca
     WHERE ca.deleted_at IS NULL AND ca.source LIKE 'component/%'
       AND substr(ca.source, 11) IN (SELECT c.id::text FROM components c WHERE c.topology_id = $1::uuid)`,
    [topologyId],
  );
  return rows;
}

export interface InlineCanaryRow { id: string; name: string; namespace: string; labels: unknown; spec: unknown }

/** The live canary of a component's inline checks, if any. */
export async function inlineCanaryOf(db: Q, componentId: string): Promise<InlineCanaryRow | undefined> {
  const { rows } = await db.query<InlineCanaryRow>(
    `SELECT id, name, namespace, labels, spec FROM canaries WHERE source = $1 AND deleted_at IS NULL ORDER BY created_at LIMIT 1`, [`component/${componentId}`],
  );
  return rows[0];
}

/** Teams with their `spec.components` selectors (all live teams, or the given ones, live or not). */
export async function teamsWithSelectors(db: Q, teamIds?: string[]): Promise<Array<{ id: string; name: string; live: boolean; selectors: unknown }>> {
  const { rows } = await db.query<{ id: string; name: string; live: boolean; selectors: unknown }>(
    `SELECT id, name, deleted_at IS NULL AS live, spec->'components' AS selectors FROM teams
     WHERE ($1::uuid[] IS NULL AND deleted_at IS NULL) OR id = ANY($1::uuid[]) ORDER BY name`,
    [teamIds ?? null],
  );
  return rows;
}

/**
 * Makes the selector-made team_components rows of `teamIds` exactly `links` (owner = team, target = component).
 * Rows without a selector_id (made by hand) are neither replaced nor removed. Returns the rows written or kept.
 */
export async function syncTeamLinks(db: Q, teamIds: string[], links: Link[]): Promise<number> {
  await db.query(
    `INSERT INTO team_components AS x (team_id, component_id, selector_id)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[])
     ON CONFLICT (team_id, component_id) DO UPDATE SET selector_id = EXCLUDED.selector_id
       WHERE x.selector_id IS NOT NULL AND x.selector_id IS DISTINCT FROM EXCLUDED.selector_id`,
    [links.map((l) => l.owner), links.map((l) => l.target), links.map((l) => l.selectorId)],
  );
  await db.query(
    `DELETE FROM team_components x WHERE x.team_id = ANY($4::uuid[]) AND x.selector_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM unnest($1::uuid[], $2::uuid[], $3::text[]) k(o, t, s)
                       WHERE k.o = x.team_id AND k.t = x.component_id AND k.s = x.selector_id)`,
    [links.map((l) => l.owner), links.map((l) => l.target), links.map((l) => l.selectorId), teamIds],
  );
  return links.length;
}

/**
 * Live components with `checks` in their spec (as the last run saved them), by topology, shaped as the run hands
 * them to the link steps. Only topologies that have some; the rest have no check links to keep.
 */
export async function componentsWithChecks(db: Q): Promise<Map<string, SavedComponent[]>> {
  const { rows } = await db.query<{ id: string; parent_id: string | null; topology_id: string; name: string; labels: Record<string, string> | null; checks: unknown[] }>(
    `SELECT id, parent_id, topology_id, name, labels, component_checks AS checks FROM components
     WHERE deleted_at IS NULL AND topology_id IS NOT NULL
       AND jsonb_typeof(component_checks) = 'array' AND jsonb_array_length(component_checks) > 0
     ORDER BY topology_id, id`,
  );
  const out = new Map<string, SavedComponent[]>();
  for (const r of rows) {
    const list = out.get(r.topology_id) ?? [];
    list.push({ id: r.id, parentId: r.parent_id, built: { name: r.name, externalId: r.name, labels: r.labels ?? undefined, checks: r.checks, children: [], specPath: `component ${r.name}` } });
    out.set(r.topology_id, list);
  }
  return out;
}
