import { evalCel } from '../../../lib/cel.js';
import { Params, parseSelector, selectorWhere, SelectorError, TARGETS } from '../../topology/runner/links/resource-selector.js';
import type { EventResource, Q } from '../types.js';
import { activeSilences, resourcePath, silenceActiveAt, type SilenceRow } from '../queries.js';
import type { SilenceCache } from './cache.js';

/**
 * Whether a notification about a resource is silenced (issue 15 "Silences"). A silence is active while not deleted and
 * from ≤ at < until (no until: indefinitely). It matches a resource:
 * - by id: its check; a canary silences every check of the canary; a component or config item itself, and with
 *   `recursive` every descendant (the silenced id is on the resource's path, or among silenceKeys.parents);
 * - by `filter`: CEL over the resource's env ({check, canary}, {config}, {component}…) that evaluates to true
 *   (an expression that fails to evaluate matches nothing);
 * - by `selectors`: a ResourceSelector (or a list of them) that selects the resource, compiled to SQL as the topology
 *   and playbooks compile theirs (checks, components and config items only).
 * Every given target of a silence must hold (an id and a filter: both). The oldest matching silence wins.
 */
export async function findSilence(db: Q, resource: EventResource, at: Date = new Date(),
  cached?: SilenceCache): Promise<{ id: string } | null> {
  // from the pipeline's cache (live silences, filtered by time here), else one query
  const silences = cached ? (await cached.list()).filter((s) => silenceActiveAt(s, at)) : await activeSilences(db, at);
  if (!silences.length) return null;
  let ancestors: string[] | undefined;
  const ancestorsOf = async (): Promise<string[]> => {
    ancestors ??= resource.silenceKeys.parents ?? await resourcePath(db, resource.kind, resource.id);
    return ancestors;
  };
  const candidates: SilenceRow[] = [];
  for (const s of silences) {
    if (!(await idMatches(s, resource, ancestorsOf))) continue;
    if (s.filter && !filterHolds(s.filter, resource)) continue;
    candidates.push(s);
  }
  const withSelectors = candidates.filter((s) => selectorList(s.selectors).length);
  const selected = withSelectors.length ? await selectorsMatch(db, withSelectors, resource) : new Set<string>();
  const hit = candidates.find((s) => !selectorList(s.selectors).length || selected.has(s.id));
  return hit ? { id: hit.id } : null;
}

/** Whether the silence's id target (if any) covers the resource. */
export async function idMatches(s: SilenceRow, r: EventResource, ancestorsOf: () => Promise<string[]>): Promise<boolean> {
  const keys = r.silenceKeys;
  if (s.check_id) return keys.check_id === s.check_id || (r.kind === 'check' && r.id === s.check_id);
  if (s.canary_id) return keys.canary_id === s.canary_id || (r.kind === 'canary' && r.id === s.canary_id);
  if (s.component_id) {
    if (keys.component_id === s.component_id || (r.kind === 'component' && r.id === s.component_id)) return true;
    return s.recursive === true && r.kind === 'component' && (await ancestorsOf()).includes(s.component_id);
  }
  if (s.config_id) {
    if (keys.config_id === s.config_id || (r.kind === 'config' && r.id === s.config_id)) return true;
    return s.recursive === true && r.kind === 'config' && (await ancestorsOf()).includes(s.config_id);
  }
  return true;
}

export function filterHolds(filter: string, r: EventResource): boolean {
  try {
    return evalCel(filter, r.env) === true;
  } catch {
    return false;
  }
}

/** A silence's selectors as a list (a single selector object is one). */
export function selectorList(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  return v && typeof v === 'object' ? [v] : [];
}

export const TABLE_OF = { check: 'checks', component: 'components', config: 'config_items' } as const;

/** The selectors of a silence as one SQL condition over `table` (null when none can be read). */
export function selectorsClause(selectors: unknown, table: (typeof TABLE_OF)[keyof typeof TABLE_OF], ps: Params): string | null {
  const parts: string[] = [];
  for (const raw of selectorList(selectors)) {
    try {
      parts.push(`(${selectorWhere(parseSelector(raw), TARGETS[table], ps)})`);
    } catch (err) {
      if (!(err instanceof SelectorError)) throw err;
    }
  }
  return parts.length ? parts.join(' OR ') : null;
}

/** The ids of the silences (all with selectors) one of whose selectors selects the resource; one query. */
async function selectorsMatch(db: Q, silences: SilenceRow[], r: EventResource): Promise<Set<string>> {
  const table = TABLE_OF[r.kind as keyof typeof TABLE_OF];
  if (!table) return new Set();
  const ps = new Params();
  const cols: { id: string; clause: string }[] = [];
  for (const s of silences) {
    const clause = selectorsClause(s.selectors, table, ps);
    if (clause) cols.push({ id: s.id, clause });
  }
  if (!cols.length) return new Set();
  const idParam = `$${ps.values.length + 1}`;
  const sql = `SELECT ${cols.map((c, i) => `EXISTS (SELECT 1 FROM ${table} WHERE id = ${idParam}::uuid AND (${c.clause})) AS m${i}`).join(', ')}`;
  const { rows } = await db.query<Record<string, boolean>>(sql, [...ps.values, r.id]);
  return new Set(cols.filter((_c, i) => rows[0]?.[`m${i}`] === true).map((c) => c.id));
}
