import type { SavedComponent } from '../types.js';
import { MAX_MATCHES, selectIds, type Link, type Q } from './queries.js';
import { parseSelector, selectorHash, SelectorError, type SelectorTarget } from './resource-selector.js';

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
  const links: Link[] = [];
  for (const e of entries) {
    try {
      const s = parseSelector(e.raw);
      const selectorId = selectorHash(s);
      const rows = await selectIds(db, target, s);
      if (rows.length > MAX_MATCHES) notes.push(`${e.path}: matches more than ${MAX_MATCHES}; the first ${MAX_MATCHES} are linked`);
      for (const r of rows.slice(0, MAX_MATCHES)) {
        if (keep(e, r.id)) links.push({ owner: e.component.id, target: r.id, selectorId, canaryId: r.canary_id });
      }
    } catch (err) {
      if (!(err instanceof SelectorError)) throw err;
      notes.push(`${e.path}: ${err.message}`);
    }
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
