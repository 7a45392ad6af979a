import type { TopologyQuery, TopologyResponse } from '../../contracts/topology.js';
import type { ComponentRow, FilterValues } from './queries.js';

type Doc = ComponentRow['doc'];

const sorted = (values: Iterable<string> | null) => [...new Set(values ?? [])].filter(Boolean).sort();

/** The filter values sorted, as the reference's updateMetadata (label keys in locale order, as before). */
function metadata(v: FilterValues): Omit<TopologyResponse, 'components'> {
  const tags = new Map<string, string[]>();
  for (const [k, value] of v.tags ?? []) tags.set(k, [...(tags.get(k) ?? []), value]);
  return {
    healthStatuses: sorted(v.healthStatuses),
    teams: sorted(v.teams),
    tags: Object.fromEntries([...tags].sort(([a], [b]) => a.localeCompare(b)).map(([k, vs]) => [k, sorted(vs)])),
    types: sorted(v.types),
  };
}

/** Sort key of a node for `field:<property>`: its property's text when every node has a text, else its value. */
function propertyOf(d: Doc, field: string) {
  return d.properties?.find((p) => p.name === field);
}

const HEALTH_RANK: Record<string, number> = { info: 4, healthy: 3, warning: 2, unhealthy: 1 };

/** duty's SortComponentsByField: by name, or by a property; nodes without the value go last either way. */
export function sortNodes(nodes: ComponentRow[], sortBy: string | undefined, order: 'asc' | 'desc' = 'asc'): void {
  if (!sortBy) return;
  const dir = order === 'desc' ? -1 : 1;
  if (sortBy === 'name' || sortBy === 'type' || sortBy === 'updated_at') {
    const key = (n: ComponentRow) => String(n.doc[sortBy as 'name'] ?? '');
    nodes.sort((a, b) => dir * key(a).localeCompare(key(b)));
    return;
  }
  if (sortBy === 'status') {
    // spec 001 §4: info 4, healthy 3, warning 2, unhealthy 1; desc lists unhealthy first (the cards' default), so the
    // rank is reversed here; anything else (unknown) goes last either way
    const rank = (n: ComponentRow) => HEALTH_RANK[n.doc.status];
    nodes.sort((a, b) => {
      const ra = rank(a);
      const rb = rank(b);
      if (ra === undefined || rb === undefined) return ra === rb ? 0 : ra === undefined ? 1 : -1;
      return dir * (rb - ra) || a.doc.name.localeCompare(b.doc.name);
    });
    return;
  }
  const field = sortBy.slice('field:'.length);
  const text = nodes.every((n) => !!propertyOf(n.doc, field)?.text);
  const key = (n: ComponentRow): string | number | undefined => {
    const p = propertyOf(n.doc, field);
    return text ? p?.text || undefined : p?.value || undefined;
  };
  nodes.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka === undefined || kb === undefined) return ka === kb ? 0 : ka === undefined ? 1 : -1;
    return dir * (typeof ka === 'number' && typeof kb === 'number' ? ka - kb : String(ka).localeCompare(String(kb)));
  });
}

/**
 * The response's JSON text from the fetched rows (fetchTopology with the same query: the type filter, the card
 * filters' verdicts and each component's JSON come from SQL): the tree (from parent_id and the selector
 * relationships, never looping: a node is not its own descendant), depth, then the card-level filters and sort. "Cards"
 * are the roots, or with an id the component's children (the reference applies status there and one level down).
 * Each node's text is its row's JSON with its children spliced in: no per-component object is built or serialised.
 */
export function renderTopology(rows: ComponentRow[], q: TopologyQuery, values: FilterValues): string {
  const meta = JSON.stringify(metadata(values)).slice(1);
  // siblings in name order (code units: the same whatever the database's collation), then id
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const kept = [...rows].sort((a, b) => a.lvl - b.lvl || cmp(a.doc.name, b.doc.name) || cmp(a.doc.id, b.doc.id));
  const nodes = new Map<string, ComponentRow>();
  for (const r of kept) nodes.set(r.doc.id, r);
  const text = (r: ComponentRow) => {
    if (r.json === null) throw new Error(`topology: component ${r.doc.id} is shown but its JSON was not fetched`);
    return r.json;
  };
  const response = (components: string[]) => `{"components":[${components.join(',')}],${meta}`;

  if (q.flatten) {
    const flat = [...nodes.values()].filter((n) => n.card_ok && n.status_ok);
    sortNodes(flat, q.sortBy, q.sortOrder);
    return response(flat.map(text));
  }

  const children = new Map<string, string[]>();
  const link = (parent: string | null | undefined, child: string) => {
    if (!parent || !nodes.has(parent)) return;
    const list = children.get(parent) ?? [];
    if (!list.includes(child)) list.push(child);
    children.set(parent, list);
  };
  for (const r of kept) {
    link(r.doc.parent_id, r.doc.id);
    for (const p of r.rel_parents ?? []) link(p, r.doc.id);
  }

  // Depth-first from the roots; `path` holds the ancestors, so a selector loop is cut where it would repeat. A node
  // reached twice (a parent and a selector parent) is built once and shown the same wherever it appears, as the
  // reference's NodeProcessed. `shown` holds each built node's children (absent: none).
  const path = new Set<string>();
  const built = new Set<string>();
  const shown = new Map<string, ComponentRow[]>();
  const build = (id: string, levels: number): ComponentRow => {
    const node = nodes.get(id)!;
    if (built.has(id)) return node;
    built.add(id);
    const kids = levels > 1 ? (children.get(id) ?? []).filter((k) => !path.has(k) && k !== id) : [];
    if (kids.length) {
      path.add(id);
      shown.set(id, kids.map((k) => build(k, levels - 1)));
      path.delete(id);
    }
    return node;
  };

  const rootIds = q.id ? (nodes.has(q.id) ? [q.id] : []) : kept.filter((r) => r.lvl === 0).map((r) => r.doc.id);
  let roots = rootIds.map((id) => build(id, q.depth));
  if (q.id) {
    for (const root of roots) {
      const cards = (shown.get(root.doc.id) ?? []).filter((c) => c.status_ok && c.card_ok);
      sortNodes(cards, q.sortBy, q.sortOrder);
      if (cards.length) shown.set(root.doc.id, cards);
      else shown.delete(root.doc.id);
    }
  } else {
    roots = roots.filter((r) => r.status_ok && r.card_ok);
    for (const root of roots) {
      const kids = shown.get(root.doc.id);
      if (kids && q.status?.length) shown.set(root.doc.id, kids.filter((c) => c.status_ok));
    }
    sortNodes(roots, q.sortBy, q.sortOrder);
  }
  const render = (r: ComponentRow): string => {
    const kids = shown.get(r.doc.id);
    return kids ? `${text(r).slice(0, -1)},"components":[${kids.map(render).join(',')}]}` : text(r);
  };
  return response(roots.map(render));
}

const NO_VALUES: FilterValues = { healthStatuses: null, types: null, teams: null, tags: null };

/** The response as objects (the snapshot's door to the same assembly; it reads the components only). */
export function buildTopology(rows: ComponentRow[], q: TopologyQuery, values = NO_VALUES): TopologyResponse {
  return JSON.parse(renderTopology(rows, q, values)) as TopologyResponse;
}
