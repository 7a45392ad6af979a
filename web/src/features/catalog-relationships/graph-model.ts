/**
 * The relationship graph's nodes and edges from the RPC's rows (spec 001 §4 "Graph"): a type node stands between an
 * item and its related items when it has 3 or more of one type; a group (a type node, or any item) with more than 3
 * children starts collapsed, and a click toggles it; deleted items stay out of the layout. Pure: the layout worker
 * and the tests take its output.
 */

/** What the graph needs of a row of `related_configs_recursive`. */
export interface GraphConfig {
  id: string;
  name?: string | null;
  type?: string | null;
  health?: string | null;
  status?: string | null;
  deleted_at?: string | null;
  related_ids?: string[] | null;
}

/** Spec 001 §9: a type node at 3 or more related of one type; groups collapse above 3 children. */
export const TYPE_NODE_MIN = 3;
export const COLLAPSE_ABOVE = 3;

export type GraphNode =
  | { id: string; kind: 'config'; config: GraphConfig; childCount: number; collapsed: boolean }
  | { id: string; kind: 'type'; configType: string; parent: string; childCount: number; collapsed: boolean };

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
}

export interface GraphModel {
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** Deleted items left out of the layout. */
  deleted: number;
  /** Items hidden inside collapsed groups. */
  hidden: number;
}

export const typeNodeId = (parent: string, type: string) => `${parent}::type::${type}`;

/**
 * Builds the visible graph. `toggled` holds the ids of groups the user clicked: a group collapsed by default opens,
 * an open one closes. `rootId` (the item the tab is on) is always shown.
 */
export function buildGraph(rows: GraphConfig[], rootId: string, toggled: ReadonlySet<string> = new Set()): GraphModel {
  const live = rows.filter((r) => !r.deleted_at || r.id === rootId);
  const byId = new Map(live.map((r) => [r.id, r]));
  // children by parent, self-links and links to items not returned (or deleted) dropped, each pair once
  const children = new Map<string, string[]>();
  for (const r of live) {
    const kids = [...new Set((r.related_ids ?? []).filter((id) => id !== r.id && byId.has(id)))];
    children.set(r.id, kids);
  }

  // the graph's adjacency after type nodes: parent → type node → children of that type
  const adjacency = new Map<string, string[]>();
  const typeNodes = new Map<string, { parent: string; type: string; kids: string[] }>();
  for (const [parent, kids] of children) {
    const byType = new Map<string, string[]>();
    for (const k of kids) {
      const t = byId.get(k)?.type ?? '';
      byType.set(t, [...(byType.get(t) ?? []), k]);
    }
    const out: string[] = [];
    for (const [type, ofType] of byType) {
      if (ofType.length >= TYPE_NODE_MIN) {
        const id = typeNodeId(parent, type);
        typeNodes.set(id, { parent, type, kids: ofType });
        adjacency.set(id, ofType);
        out.push(id);
      } else out.push(...ofType);
    }
    adjacency.set(parent, out);
  }

  const isCollapsed = (id: string) => {
    const n = adjacency.get(id)?.length ?? 0;
    const byDefault = n > COLLAPSE_ABOVE && id !== rootId;
    return toggled.has(id) ? !byDefault : byDefault;
  };

  // walk from the roots (the tab's item, then items nothing points at), not into collapsed groups
  const indegree = new Map<string, number>();
  for (const targets of adjacency.values()) for (const t of targets) indegree.set(t, (indegree.get(t) ?? 0) + 1);
  const visible = new Set<string>();
  const walk = (start: string) => {
    const queue = [start];
    visible.add(start);
    while (queue.length) {
      const id = queue.shift()!;
      if (isCollapsed(id)) continue;
      for (const t of adjacency.get(id) ?? []) {
        if (!visible.has(t)) {
          visible.add(t);
          queue.push(t);
        }
      }
    }
  };
  if (byId.has(rootId)) walk(rootId);
  for (const r of live) if (!visible.has(r.id) && !indegree.get(r.id)) walk(r.id);
  // what a cycle left unreached, unless a collapsed group holds it
  const inCollapsed = new Set<string>();
  for (const id of adjacency.keys()) {
    if (!isCollapsed(id)) continue;
    const queue = [...(adjacency.get(id) ?? [])];
    while (queue.length) {
      const t = queue.shift()!;
      if (inCollapsed.has(t)) continue;
      inCollapsed.add(t);
      queue.push(...(adjacency.get(t) ?? []));
    }
  }
  for (const r of live) if (!visible.has(r.id) && !inCollapsed.has(r.id)) walk(r.id);

  const nodes: GraphNode[] = [];
  for (const id of visible) {
    const childCount = adjacency.get(id)?.length ?? 0;
    const tn = typeNodes.get(id);
    if (tn) nodes.push({ id, kind: 'type', configType: tn.type, parent: tn.parent, childCount: tn.kids.length, collapsed: isCollapsed(id) });
    else nodes.push({ id, kind: 'config', config: byId.get(id)!, childCount, collapsed: isCollapsed(id) });
  }
  const edges: GraphEdge[] = [];
  for (const id of visible) {
    if (isCollapsed(id)) continue;
    for (const t of adjacency.get(id) ?? []) if (visible.has(t)) edges.push({ id: `${id}->${t}`, source: id, target: t });
  }
  return { nodes, edges, deleted: rows.length - live.length, hidden: live.length - nodes.filter((n) => n.kind === 'config').length };
}
