import type pg from 'pg';
import { Params, parseSelector, selectorWhere, TARGETS } from './links/resource-selector.js';

/**
 * A Topology's `groupBy` (`{tag, query?}`), as canary-checker's TopologyJob.Run: the distinct values of the config
 * items' tag `tag` (among the items `query`, a ResourceSelector, selects; all live items without one), then the spec's
 * components built once per value with that tag injected into every catalog filter: components' and the spec's
 * `configs` (`tagSelector`), components' `selectors` (`labelSelector`), `lookup.configDB` (`tags`) and
 * `lookup.catalog[].selector[]` (`tagSelector`), down the component tree. The reference makes one root per value
 * ("<topology> (<value>)"); a run here has one root, so each value is a group under it (see build.ts).
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** At most this many groups (values past it are left out, with a note). */
export const MAX_GROUPS = 200;

export interface GroupBy { tag: string; query?: unknown }

/** The spec's groupBy when it names a tag, else undefined (an empty groupBy is none, as the reference's IsEmpty). */
export function groupByOf(spec: Obj): GroupBy | undefined {
  const g = spec.groupBy;
  if (!isObj(g) || typeof g.tag !== 'string' || !g.tag.trim()) return undefined;
  return { tag: g.tag.trim(), query: isObj(g.query) && Object.keys(g.query).length ? g.query : undefined };
}

/** The distinct values of the tag, sorted (duty's GetAllValuesForConfigTag); throws SelectorError for a bad query. */
export async function groupValues(db: pg.Pool, g: GroupBy): Promise<string[]> {
  const ps = new Params();
  const tag = ps.p(g.tag);
  const where = g.query ? selectorWhere(parseSelector(g.query), TARGETS.config_items, ps) : 'deleted_at IS NULL';
  const { rows } = await db.query<{ v: string }>(
    `SELECT DISTINCT tags->>${tag} AS v FROM config_items WHERE ${where} AND tags->>${tag} IS NOT NULL AND tags->>${tag} <> ''
     ORDER BY 1 LIMIT ${MAX_GROUPS + 1}`, ps.values);
  return rows.map((r) => r.v);
}

/** `k=v` added to a label-selector text (the reference's injectIntoSelector: a `k=` already there is replaced). */
export function injectIntoSelector(key: string, value: string, selector: unknown): string {
  const parts = typeof selector === 'string' && selector.trim() ? selector.split(',').map((p) => p.trim()).filter(Boolean) : [];
  const kept = parts.filter((p) => !new RegExp(`^${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*==?`).test(p));
  return [...kept, `${key}=${value}`].sort().join(',');
}

const withField = (list: unknown, field: string, key: string, value: string) =>
  Array.isArray(list) ? list.map((s) => (isObj(s) ? { ...s, [field]: injectIntoSelector(key, value, s[field]) } : s)) : list;

function injectLookup(lookup: unknown, key: string, value: string): unknown {
  if (!isObj(lookup)) return lookup;
  const out: Obj = { ...lookup };
  if (Array.isArray(lookup.configDB)) {
    out.configDB = lookup.configDB.map((e) => (isObj(e) ? { ...e, tags: { ...(isObj(e.tags) ? e.tags : {}), [key]: value } } : e));
  }
  if (Array.isArray(lookup.catalog)) {
    out.catalog = lookup.catalog.map((e) => (isObj(e) ? { ...e, selector: withField(e.selector, 'tagSelector', key, value) } : e));
  }
  return out;
}

/** The spec's components with the tag injected into their catalog filters (a copy; the spec is not changed). */
export function injectTag(components: unknown, key: string, value: string): unknown[] {
  if (!Array.isArray(components)) return [];
  return components.map((c) => {
    if (!isObj(c)) return c;
    const out: Obj = { ...c };
    if (Array.isArray(c.configs)) out.configs = withField(c.configs, 'tagSelector', key, value);
    if (Array.isArray(c.selectors)) out.selectors = withField(c.selectors, 'labelSelector', key, value);
    if (isObj(c.lookup)) out.lookup = injectLookup(c.lookup, key, value);
    if (Array.isArray(c.components)) out.components = injectTag(c.components, key, value);
    return out;
  });
}

/** The spec's own `configs` with the tag injected. */
export const injectConfigs = (configs: unknown, key: string, value: string) => withField(configs, 'tagSelector', key, value);
