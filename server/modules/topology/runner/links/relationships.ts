import type { SavedComponent } from '../types.js';
import type { Link, Q } from './queries.js';
import { listOf } from './select.js';

/**
 * A spec component's `relationships` (`[{ref, type}]`, canary-checker's RelationshipSpec: "dependsOn",
 * "subcomponentOf", "providesApis", "consumesApis"…) → component_relationships rows written by the selectors step, as
 * a selector's match would be: the component that declares it is `relationship_id`, the referenced one
 * `component_id` (it shows among the declaring component's children, dashed in the graph, and counts in impact).
 * `ref` names a component of this run by its external id, else its name; else a live component's id. The row's
 * `selector_id` is `relationship:<type>` (`relationship:` without a type). An entry without a ref, a ref matching
 * nothing, or one naming the component itself is a note.
 */

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

export const relationshipSelectorId = (type: string | undefined) => `relationship:${type ?? ''}`;

export async function relationshipLinks(db: Q, saved: SavedComponent[], notes: string[]): Promise<Link[]> {
  const byExternal = new Map<string, string>();
  const byName = new Map<string, string>();
  for (const c of saved) {
    if (!byExternal.has(c.built.externalId)) byExternal.set(c.built.externalId, c.id);
    if (c.built.name && !byName.has(c.built.name)) byName.set(c.built.name, c.id);
  }
  const wanted: Array<{ owner: string; ref: string; type?: string; path: string }> = [];
  for (const c of saved) {
    listOf(c.built.relationships).forEach((raw, i) => {
      const path = `${c.built.specPath}.relationships.${i}`;
      const ref = isObj(raw) && typeof raw.ref === 'string' ? raw.ref.trim() : '';
      if (!ref) return notes.push(`${path}: a relationship needs a ref`);
      const type = isObj(raw) && typeof raw.type === 'string' && raw.type ? raw.type : undefined;
      wanted.push({ owner: c.id, ref, type, path });
    });
  }
  if (!wanted.length) return [];
  const ids = [...new Set(wanted.map((w) => w.ref).filter((r) => UUID_RE.test(r)).map((r) => r.toLowerCase()))];
  const live = new Set<string>();
  if (ids.length) {
    const { rows } = await db.query<{ id: string }>(
      'SELECT id::text AS id FROM components WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL', [ids]);
    for (const r of rows) live.add(r.id);
  }
  const links: Link[] = [];
  for (const w of wanted) {
    const target = byExternal.get(w.ref) ?? byName.get(w.ref) ?? (live.has(w.ref.toLowerCase()) ? w.ref.toLowerCase() : undefined);
    if (!target) notes.push(`${w.path}: no component '${w.ref.slice(0, 80)}'`);
    else if (target === w.owner) notes.push(`${w.path}: a component cannot relate to itself`);
    else links.push({ owner: w.owner, target, selectorId: relationshipSelectorId(w.type) });
  }
  return links;
}
