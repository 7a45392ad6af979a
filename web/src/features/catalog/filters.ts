/**
 * The /catalog list's filters as URL state and as /api/db/configs query parameters. Every filter is in the URL so a
 * shared link (or a saved view) restores the list.
 */

/** Grouping: by type (default), by class, or by a tag key (`tag:cluster`). */
export type GroupBy = 'type' | 'config_class' | `tag:${string}`;

export const CATALOG_URL_DEFAULTS = {
  groupBy: 'type',
  /** One config type; `configType` (the changes breadcrumb's link) is read as the same filter. */
  type: '',
  /** Tri-state labels: `key=value:1` includes, `key=value:-1` excludes; entries URI-encoded, comma-separated. */
  labels: '',
  status: '',
  health: '',
  /** Show deleted items too. */
  deleted: false,
  search: '',
};
export type CatalogFilters = typeof CATALOG_URL_DEFAULTS;

export type LabelMode = 'include' | 'exclude';
export interface LabelFilter {
  key: string;
  value: string;
  mode: LabelMode;
}

/** `app%3Dweb:1,env%3Ddev:-1` → [{app, web, include}, {env, dev, exclude}]; malformed entries are dropped. */
export function parseLabelFilters(raw: string): LabelFilter[] {
  const out: LabelFilter[] = [];
  for (const part of raw.split(',')) {
    const m = /^(.+):(1|-1)$/.exec(part.trim());
    if (!m) continue;
    let pair: string;
    try {
      pair = decodeURIComponent(m[1]);
    } catch {
      continue;
    }
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    out.push({ key: pair.slice(0, eq), value: pair.slice(eq + 1), mode: m[2] === '1' ? 'include' : 'exclude' });
  }
  return out;
}

export function formatLabelFilters(filters: readonly LabelFilter[]): string {
  return filters.map((f) => `${encodeURIComponent(`${f.key}=${f.value}`)}:${f.mode === 'include' ? 1 : -1}`).join(',');
}

/** The tri-state cycle of one label: off → include → exclude → off. */
export function cycleLabel(filters: readonly LabelFilter[], key: string, value: string): LabelFilter[] {
  const current = filters.find((f) => f.key === key && f.value === value);
  const rest = filters.filter((f) => f !== current);
  if (!current) return [...rest, { key, value, mode: 'include' }];
  if (current.mode === 'include') return [...rest, { key, value, mode: 'exclude' }];
  return rest;
}

export function parseGroupBy(raw: string): GroupBy {
  if (raw === 'config_class') return raw;
  if (raw.startsWith('tag:') && raw.length > 4) return raw as GroupBy;
  return 'type';
}

/** A PostgREST value inside a logic tree, double-quoted so commas, dots and parentheses stay part of it. */
function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

type Query = Record<string, string | string[]>;

function add(q: Query, key: string, value: string) {
  const prev = q[key];
  q[key] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
}

/** The filters (not the grouping) as /api/db/configs parameters. */
export function filterQuery(f: CatalogFilters): Query {
  const q: Query = {};
  if (f.type) add(q, 'type', `eq.${f.type}`);
  if (f.status) add(q, 'status', `eq.${f.status}`);
  if (f.health) add(q, 'health', `eq.${f.health}`);
  if (!f.deleted) add(q, 'deleted_at', 'is.null');
  // as the summary reads them: a key's included values are ORed, keys ANDed, excluded values all left out
  const labels = parseLabelFilters(f.labels);
  const included = new Map<string, string[]>();
  for (const l of labels) if (l.mode === 'include') included.set(l.key, [...(included.get(l.key) ?? []), l.value]);
  const single = Object.fromEntries([...included].filter(([, v]) => v.length === 1).map(([k, v]) => [k, v[0]]));
  if (Object.keys(single).length) add(q, 'labels', `cs.${JSON.stringify(single)}`);
  for (const [key, values] of included) {
    if (values.length > 1) add(q, 'or', `(${values.map((v) => `labels.cs.${quoted(JSON.stringify({ [key]: v }))}`).join(',')})`);
  }
  for (const l of labels.filter((x) => x.mode === 'exclude')) add(q, 'labels', `not.cs.${JSON.stringify({ [l.key]: l.value })}`);
  const search = f.search.trim();
  if (search) {
    // the summary's search columns: name, type, description, namespace
    const like = quoted(`*${search}*`);
    add(q, 'or', `(name.ilike.${like},type.ilike.${like},description.ilike.${like},namespace.ilike.${like})`);
  }
  return q;
}

/** The filter selecting one group's items: its type, class or tag value (null: the items without one). */
export function groupQuery(groupBy: GroupBy, value: string | null): Query {
  if (groupBy.startsWith('tag:')) {
    const key = groupBy.slice(4);
    return value === null ? { [`tags->>${key}`]: 'is.null' } : { tags: `cs.${JSON.stringify({ [key]: value })}` };
  }
  const column = groupBy === 'config_class' ? 'config_class' : 'type';
  return { [column]: value === null ? 'is.null' : `eq.${value}` };
}

/** Merges the filter and group parameters: a key both set (type) is sent twice, which PostgREST ANDs. */
export function mergeQueries(...queries: Query[]): Query {
  const out: Query = {};
  for (const q of queries) for (const [k, v] of Object.entries(q)) for (const x of Array.isArray(v) ? v : [v]) add(out, k, x);
  return out;
}
