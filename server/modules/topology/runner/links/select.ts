import type { SavedComponent } from '../types.js';
import { MAX_MATCHES, selectIds, type Link, type Q } from './queries.js';
import { Params, parseSelector, plainSelector, selectorHash, SelectorError, selectorWhere, type ResourceSelector, type SelectorTarget } from './resource-selector.js';

/** One selector entry of a component's spec, where it was written. */
export interface SelectorEntry { component: SavedComponent; raw: unknown; path: string }

/**
 * The links a list of selector entries makes, one code path for components, checks and configs: each entry read,
 * hashed (selector_id), run; a bad entry is a note naming its spec path and links nothing, never a failed run.
 * `keep` drops matches the caller refuses (a component selecting itself).
 */
export async function linksOf(
  db: Q, target: SelectorTarget, entries: SelectorEntry[], notes: string[],
  keep: (e: SelectorEntry, id: string) => boolean = () => true,
): Promise<Link[]> {
  const good: Array<{ e: SelectorEntry; s: ResourceSelector; selectorId: string }> = [];
  for (const e of entries) {
    try {
      const s = parseSelector(e.raw);
      // compiled once here so a bad one is a note, not a failed batch (a plain one is read by plainSelector: it compiles)
      if (!plainSelector(s, target)) selectorWhere(s, target, new Params());
      good.push({ e, s, selectorId: selectorHash(s) });
    } catch (err) {
      if (!(err instanceof SelectorError)) throw err;
      notes.push(`${e.path}: ${err.message}`);
    }
  }
  const rows = await selectIds(db, target, good.map((g) => g.s));
  const counts = new Map<number, number>();
  const links: Link[] = [];
  for (const r of rows) {
    const n = (counts.get(r.at) ?? 0) + 1;
    counts.set(r.at, n);
    const { e, selectorId } = good[r.at];
    if (n > MAX_MATCHES) {
      if (n === MAX_MATCHES + 1) notes.push(`${e.path}: matches more than ${MAX_MATCHES}; the first ${MAX_MATCHES} are linked`);
      continue;
    }
    if (keep(e, r.id)) links.push({ owner: e.component.id, target: r.id, selectorId, canaryId: r.canary_id });
  }
  return links;
}

/** Entries of one list field of every saved component, with their spec paths (`spec.components.0.selectors.1`). */
export function entriesOf(saved: SavedComponent[], field: 'selectors' | 'configs'): SelectorEntry[] {
  return saved.flatMap((c) => listOf(c.built[field]).map((raw, i) => ({ component: c, raw, path: `${c.built.specPath}.${field}.${i}` })));
}

export const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);

/** One link per unique key of its table (two selectors of a component matching one config make one row). */
export function uniqueBy(links: Link[], key: (l: Link) => string): Link[] {
  const seen = new Set<string>();
  return links.filter((l) => (seen.has(key(l)) ? false : (seen.add(key(l)), true)));
}
