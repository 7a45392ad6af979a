/**
 * The graph's layout, as the worker runs it: leaves packed in grids (leaf-grid.ts), then the tidy tree (tree-layout.ts)
 * for a tree or a large graph, elk's layered layout for a small graph where some item has several parents. Layered
 * draws those with fewer crossings, but at 1,000 nodes it takes seconds (and a few hundred ms cold, for its first
 * layout in a new worker) where the tree takes milliseconds (issue 12: a 1,000-node graph laid out in under 2 s);
 * for a tree both draw the same picture.
 */
import type { ELK as Elk } from 'elkjs/lib/elk-api.js';
import type { LayoutRequest, LayoutResponse } from './layout';
import { packLeaves, SPACING } from '../../lib/graph-layout/leaf-grid';
import { treeLayout } from './tree-layout';

/** Nodes plus edges (after packing) up to which a graph that is not a tree is laid out by elk's layered layout. */
export const LAYERED_MAX = 300;

// elk loads on the first layered layout: its 1.4 MB cost seconds to load and warm up on a busy machine, which a
// tree (most relationship graphs) never needs
let elk: Promise<Elk> | undefined;
const loadElk = () => (elk ??= import('elkjs/lib/elk.bundled.js').then((m) => new m.default()));

export async function layoutGraph(req: Pick<LayoutRequest, 'nodes' | 'edges' | 'direction'>): Promise<Pick<LayoutResponse, 'positions' | 'algorithm'>> {
  const packed = packLeaves(req);
  const targets = new Set(packed.edges.map((e) => e.target));
  const tree = targets.size === packed.edges.length;
  if (tree || packed.nodes.length + packed.edges.length > LAYERED_MAX) {
    return { positions: packed.unpack(treeLayout({ ...packed, direction: req.direction })), algorithm: 'tree' };
  }
  const graph = await (await loadElk()).layout({
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': req.direction === 'LR' ? 'RIGHT' : 'DOWN',
      'elk.layered.spacing.nodeNodeBetweenLayers': String(SPACING.layer),
      'elk.spacing.nodeNode': String(SPACING.node),
      'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
      'elk.separateConnectedComponents': 'true',
    },
    children: packed.nodes.map((n) => ({ id: n.id, width: n.width, height: n.height })),
    edges: packed.edges.map((x) => ({ id: x.id, sources: [x.source], targets: [x.target] })),
  });
  const positions: LayoutResponse['positions'] = {};
  for (const c of graph.children ?? []) positions[c.id] = { x: c.x ?? 0, y: c.y ?? 0 };
  return { positions: packed.unpack(positions), algorithm: 'layered' };
}
