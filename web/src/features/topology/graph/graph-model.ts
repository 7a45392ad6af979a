import type { TopologyComponent } from '@contracts/topology';

/** A parent with more children than this shows them as one "+N" node until it is expanded. */
export const GROUP_MAX = 20;

export type GraphNode =
  | { kind: 'component'; id: string; component: TopologyComponent; childCount: number; expanded: boolean }
  /** The children of `parentId`, folded: `count` of them, coloured by the worst status among them. */
  | { kind: 'group'; id: string; parentId: string; count: number; status: string };

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  /** `parent`: the child's own parent; `relationship`: a component another selected (component_relationships). */
  kind: 'parent' | 'relationship';
}

export interface TopologyGraphModel {
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** Components inside collapsed groups (not drawn). */
  folded: number;
}

export const groupId = (parentId: string) => `${parentId}::group`;

// worst first: a group is as red as its worst child
const RANK: Record<string, number> = { unhealthy: 4, warning: 3, healthy: 2, info: 1 };
export function worstStatus(statuses: Iterable<string | null | undefined>): string {
  let worst = 'unknown';
  for (const s of statuses) if (s && (RANK[s] ?? 0) > (RANK[worst] ?? 0)) worst = s;
  return worst;
}

/**
 * The /api/topology tree as graph nodes and edges. A child nested under a component whose id is its `parent_id` is a
 * parent edge; nested under another (the API puts selected components under the selector) it is a relationship edge,
 * drawn dashed. A component reached twice is one node with both edges. A parent with more than GROUP_MAX children
 * shows one group node instead, unless it is in `expanded` (the user clicked "+N"); `expanded` may also hold a small
 * parent's id, which changes nothing.
 */
export function buildTopologyGraph(roots: TopologyComponent[], expanded: ReadonlySet<string>): TopologyGraphModel {
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const seen = new Set<string>();
  const edgeIds = new Set<string>();
  let folded = 0;
  const addEdge = (source: string, target: string, kind: GraphEdge['kind']) => {
    const id = `${source}->${target}`;
    if (edgeIds.has(id) || source === target) return;
    edgeIds.add(id);
    edges.push({ id, source, target, kind });
  };

  // breadth first, so a component nested twice is placed at its shallowest place
  const queue: { c: TopologyComponent; from?: string }[] = roots.map((c) => ({ c }));
  for (let i = 0; i < queue.length; i++) {
    const { c, from } = queue[i];
    if (from) addEdge(from, c.id, c.parent_id === from ? 'parent' : 'relationship');
    if (seen.has(c.id)) continue;
    seen.add(c.id);
    const children = c.components ?? [];
    const open = children.length <= GROUP_MAX || expanded.has(c.id);
    nodes.push({ kind: 'component', id: c.id, component: c, childCount: children.length, expanded: open });
    if (open) {
      for (const child of children) queue.push({ c: child, from: c.id });
    } else {
      const id = groupId(c.id);
      nodes.push({ kind: 'group', id, parentId: c.id, count: children.length, status: worstStatus(children.map((x) => x.status)) });
      addEdge(c.id, id, 'parent');
      folded += children.length;
    }
  }
  return { nodes, edges, folded };
}
