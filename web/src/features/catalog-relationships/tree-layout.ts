/**
 * A tidy tree for large graphs: elk's layered layout costs seconds at 1,000 nodes (its crossing minimisation and node
 * placement over every layer), while relationships are mostly trees. This places a spanning tree (breadth first from
 * the tab's item, as the graph model walks it) in one pass: each subtree gets the breadth of its children side by
 * side, the parent centred over them, each level 120 px past its parent, siblings 100 px apart (spec 001 §9). Edges
 * outside the tree (a second parent, a link back) are drawn as they are, without bending the layout.
 */
import type { LayoutRequest, LayoutResponse } from './layout';
import { SPACING } from '../../lib/graph-layout/leaf-grid';

type Box = LayoutRequest['nodes'][number];

export function treeLayout(req: Pick<LayoutRequest, 'nodes' | 'edges' | 'direction'>): LayoutResponse['positions'] {
  const lr = req.direction === 'LR';
  const along = (b: Box) => (lr ? b.height : b.width);
  const across = (b: Box) => (lr ? b.width : b.height);
  const byId = new Map(req.nodes.map((n) => [n.id, n]));
  const out = new Map<string, string[]>();
  const indegree = new Map<string, number>();
  for (const e of req.edges) {
    if (!byId.has(e.source) || !byId.has(e.target)) continue;
    out.set(e.source, [...(out.get(e.source) ?? []), e.target]);
    indegree.set(e.target, (indegree.get(e.target) ?? 0) + 1);
  }

  // the spanning forest: the first node (the tab's item) first, then nodes nothing points at, then what cycles left
  const kids = new Map<string, string[]>();
  const roots: string[] = [];
  const seen = new Set<string>();
  const grow = (start: string) => {
    roots.push(start);
    seen.add(start);
    const queue = [start];
    for (let i = 0; i < queue.length; i++) {
      const mine: string[] = [];
      for (const t of out.get(queue[i]) ?? []) {
        if (seen.has(t)) continue;
        seen.add(t);
        mine.push(t);
        queue.push(t);
      }
      kids.set(queue[i], mine);
    }
  };
  const first = req.nodes[0];
  if (first) grow(first.id);
  for (const n of req.nodes) if (!seen.has(n.id) && !indegree.get(n.id)) grow(n.id);
  for (const n of req.nodes) if (!seen.has(n.id)) grow(n.id);

  // breadth of each subtree, leaves up (the breadth-first order reversed has every child before its parent)
  const order: string[] = [];
  for (const r of roots) {
    const queue = [r];
    for (let i = 0; i < queue.length; i++) queue.push(...(kids.get(queue[i]) ?? []));
    order.push(...queue);
  }
  const breadth = new Map<string, number>();
  const childBreadth = new Map<string, number>();
  for (let i = order.length - 1; i >= 0; i--) {
    const id = order[i];
    const cs = kids.get(id) ?? [];
    const sum = cs.reduce((s, c) => s + breadth.get(c)!, 0) + Math.max(0, cs.length - 1) * SPACING.node;
    childBreadth.set(id, sum);
    breadth.set(id, Math.max(along(byId.get(id)!), sum));
  }

  // top down: each node centred in its subtree's span, its children's spans side by side below it
  const positions: LayoutResponse['positions'] = {};
  const place = (id: string, start: number, depth: number) => {
    const box = byId.get(id)!;
    const span = breadth.get(id)!;
    const a = start + (span - along(box)) / 2;
    positions[id] = lr ? { x: depth, y: a } : { x: a, y: depth };
    let next = start + (span - childBreadth.get(id)!) / 2;
    for (const c of kids.get(id) ?? []) {
      place(c, next, depth + across(box) + SPACING.layer);
      next += breadth.get(c)! + SPACING.node;
    }
  };
  let start = 0;
  for (const r of roots) {
    place(r, start, 0);
    start += breadth.get(r)! + SPACING.node;
  }
  return positions;
}
