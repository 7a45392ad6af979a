import type { TopologyComponent, TopologyQuery, TopologyResponse } from '../../contracts/topology.js';
import type { ComponentRow } from './queries.js';

type Node = TopologyComponent & { owner?: string | null; agent_id?: string; properties?: TopologyComponent['properties'] };

/**
 * duty's matchItems: `!x` excludes x, `*` matches everything, otherwise any listed value matches; an empty list
 * matches all.
 */
export function matchItems(value: string | null | undefined, items: readonly string[] | undefined): boolean {
  if (!items?.length) return true;
  const v = value ?? '';
  if (items.some((i) => i.startsWith('!') && i.slice(1) === v)) return false;
  const positive = items.filter((i) => !i.startsWith('!'));
  // only exclusions given: everything else matches
  if (!positive.length) return true;
  return positive.some((i) => i === '*' || i === v);
}

const sorted = (values: Iterable<string>) => [...new Set(values)].filter(Boolean).sort();

/** The filter values of the fetched components (before filtering), sorted, as the reference's updateMetadata. */
function metadata(rows: ComponentRow[]): Omit<TopologyResponse, 'components'> {
  const tags = new Map<string, Set<string>>();
  for (const { doc } of rows) {
    for (const [k, v] of Object.entries((doc.labels as Record<string, string> | null) ?? {})) {
      if (!tags.has(k)) tags.set(k, new Set());
      tags.get(k)!.add(String(v));
    }
  }
  return {
    healthStatuses: sorted(rows.map((r) => r.doc.status)),
    teams: sorted(rows.flatMap((r) => (r.doc.team_names as string[] | null) ?? [])),
    tags: Object.fromEntries([...tags].sort(([a], [b]) => a.localeCompare(b)).map(([k, vs]) => [k, sorted(vs)])),
    types: sorted(rows.map((r) => r.doc.type ?? '')),
  };
}

/** The card-level filters other than status (labels, owner, agent, team): the cards, not their children. */
function cardMatches(n: Node, q: TopologyQuery): boolean {
  if (q.owner !== undefined && n.owner !== q.owner) return false;
  if (q.agent_id !== undefined && n.agent_id !== q.agent_id) return false;
  if (q.labels && !Object.entries(q.labels).every(([k, v]) => n.labels?.[k] === v)) return false;
  if (q.team?.length) {
    const teams = n.team_names ?? [];
    if (!(teams.length ? teams.some((t) => matchItems(t, q.team)) : matchItems('', q.team))) return false;
  }
  return true;
}

const byStatus = (q: TopologyQuery) => (n: Node) => matchItems(n.status, q.status);

/** Sort key of a node for `field:<property>`: its property's text when every node has a text, else its value. */
function propertyOf(n: Node, field: string) {
  return n.properties?.find((p) => p.name === field);
}

const HEALTH_RANK: Record<string, number> = { info: 4, healthy: 3, warning: 2, unhealthy: 1 };

/** duty's SortComponentsByField: by name, or by a property; nodes without the value go last either way. */
export function sortNodes(nodes: Node[], sortBy: string | undefined, order: 'asc' | 'desc' = 'asc'): void {
  if (!sortBy) return;
  const dir = order === 'desc' ? -1 : 1;
  if (sortBy === 'name' || sortBy === 'type' || sortBy === 'updated_at') {
    const key = (n: Node) => String(n[sortBy as 'name'] ?? '');
    nodes.sort((a, b) => dir * key(a).localeCompare(key(b)));
    return;
  }
  if (sortBy === 'status') {
    // spec 001 §4: info 4, healthy 3, warning 2, unhealthy 1; desc lists unhealthy first (the cards' default), so the
    // rank is reversed here; anything else (unknown) goes last either way
    const rank = (n: Node) => HEALTH_RANK[n.status];
    nodes.sort((a, b) => {
      const ra = rank(a);
      const rb = rank(b);
      if (ra === undefined || rb === undefined) return ra === rb ? 0 : ra === undefined ? 1 : -1;
      return dir * (rb - ra) || a.name.localeCompare(b.name);
    });
    return;
  }
  const field = sortBy.slice('field:'.length);
  const text = nodes.every((n) => !!propertyOf(n, field)?.text);
  const key = (n: Node): string | number | undefined => {
    const p = propertyOf(n, field);
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
 * The response from the fetched rows: type filter, tree (from parent_id and the selector relationships, never
 * looping: a node is not its own descendant), depth, then the card-level filters and sort. "Cards" are the roots, or
 * with an id the component's children (the reference applies status there and one level down).
 */
export function buildTopology(rows: ComponentRow[], q: TopologyQuery): TopologyResponse {
  const meta = metadata(rows);
  const kept = q.type?.length ? rows.filter((r) => matchItems(r.doc.type, q.type)) : [...rows];
  // siblings in name order (code units: the same whatever the database's collation), then id
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  kept.sort((a, b) => a.lvl - b.lvl || cmp(a.doc.name, b.doc.name) || cmp(a.doc.id, b.doc.id));
  // the rows are this request's own objects: nodes are built in place (no copies of 20,000 objects)
  const nodes = new Map<string, Node>();
  for (const r of kept) {
    const node = r.doc as Node;
    node.summary ??= {};
    nodes.set(node.id, node);
  }

  if (q.flatten) {
    const flat = [...nodes.values()].filter((n) => cardMatches(n, q) && matchItems(n.status, q.status));
    sortNodes(flat, q.sortBy, q.sortOrder);
    return { components: flat, ...meta };
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
  // reached twice (a parent and a selector parent) is built once and shared, as the reference's NodeProcessed.
  const path = new Set<string>();
  const built = new Set<string>();
  const build = (id: string, levels: number): Node => {
    const node = nodes.get(id)!;
    if (built.has(id)) return node;
    built.add(id);
    const kids = levels > 1 ? (children.get(id) ?? []).filter((k) => !path.has(k) && k !== id) : [];
    if (kids.length) {
      path.add(id);
      node.components = kids.map((k) => build(k, levels - 1));
      path.delete(id);
    }
    return node;
  };

  const rootIds = q.id ? (nodes.has(q.id) ? [q.id] : []) : kept.filter((r) => r.lvl === 0).map((r) => r.doc.id);
  let roots = rootIds.map((id) => build(id, q.depth));
  const status = byStatus(q);
  if (q.id) {
    for (const root of roots) {
      const cards = (root.components ?? []).filter((c) => status(c) && cardMatches(c, q));
      sortNodes(cards, q.sortBy, q.sortOrder);
      root.components = cards.length ? cards : undefined;
    }
  } else {
    roots = roots.filter((r) => status(r) && cardMatches(r, q));
    for (const root of roots) {
      if (root.components && q.status?.length) root.components = root.components.filter(status);
    }
    sortNodes(roots, q.sortBy, q.sortOrder);
  }
  return { components: roots, ...meta };
}
