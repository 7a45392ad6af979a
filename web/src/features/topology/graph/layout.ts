/**
 * The topology graph's layout, as the worker runs it: each parent's leaves packed in a grid (lib/graph-layout's
 * leaf-grid: a service over 20 pods is one block), then dagre's layered layout of what is left. Packing keeps dagre's
 * input small (2,000 components are a few hundred boxes); dagre places node centres, the graph wants top-left
 * corners.
 */
import { graphlib, layout } from '@dagrejs/dagre';
import {
  packLeaves,
  type LayoutBox,
  type LayoutDirection,
  type LayoutEdge,
  type LayoutPositions,
} from '../../../lib/graph-layout/leaf-grid';

export interface LayoutRequest {
  seq: number;
  direction: LayoutDirection;
  nodes: LayoutBox[];
  edges: LayoutEdge[];
}

export interface LayoutResponse {
  seq: number;
  positions: LayoutPositions;
  /** How long the layout took in the worker. */
  ms: number;
  error?: string;
}

/**
 * Tighter than the catalog's §9 spacing: a topology's fan-outs are wide (2,000 components are mostly pods), and the
 * grids and layers stay readable at these gaps.
 */
export const GAPS = { cell: 24, node: 48, layer: 90 } as const;

/** Node boxes as the graph draws them. */
export const NODE_SIZE = { component: { width: 220, height: 52 }, group: { width: 160, height: 44 } } as const;

export function layoutTopology(req: Pick<LayoutRequest, 'nodes' | 'edges' | 'direction'>): LayoutPositions {
  const packed = packLeaves(req, GAPS.cell);
  const g = new graphlib.Graph({ multigraph: false });
  g.setGraph({ rankdir: req.direction, nodesep: GAPS.node, ranksep: GAPS.layer, marginx: 0, marginy: 0 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of packed.nodes) g.setNode(n.id, { width: n.width, height: n.height });
  for (const e of packed.edges) if (g.hasNode(e.source) && g.hasNode(e.target)) g.setEdge(e.source, e.target);
  layout(g);
  const corners: LayoutPositions = {};
  for (const n of packed.nodes) {
    const at = g.node(n.id) as { x: number; y: number } | undefined;
    if (at) corners[n.id] = { x: at.x - n.width / 2, y: at.y - n.height / 2 };
  }
  return packed.unpack(corners);
}
