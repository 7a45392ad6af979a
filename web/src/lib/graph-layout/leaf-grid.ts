/**
 * Leaves packed in a grid under their parent before the layout (the catalog's relationship graph and the topology
 * graph lay out through it). A fully expanded catalog graph is mostly fan-outs (a
 * type node over 40 pods); laid out as one row each, 1,000 items make a layer 300,000 px wide that nothing can read,
 * and the layered layout's cost grows with those layers. Packed, each parent's leaves (no edges out, one edge in: the
 * parent's) are one block for the layout, and the grid inside the block is arithmetic. The parent stays above (or
 * left of) its children, and the block keeps the layout's spacing between its cells.
 */

/** A box to lay out, an edge between two, and where the layout put each box's top-left corner. */
export interface LayoutBox { id: string; width: number; height: number }
export interface LayoutEdge { id: string; source: string; target: string }
export type LayoutPositions = Record<string, { x: number; y: number }>;
export type LayoutDirection = 'TB' | 'LR';
interface LayoutInput { nodes: LayoutBox[]; edges: LayoutEdge[]; direction: LayoutDirection }

/** Up to this many leaves of one parent stay in a row; more are packed in a grid. */
export const GRID_ROW_MAX = 6;
/** Spec 001 §9: node spacing 100 (between nodes of a layer) and 120 (between layers). */
export const SPACING = { node: 100, layer: 120 } as const;

type Box = LayoutBox;

interface Block {
  id: string;
  leaves: Box[];
  /** cells along the layer (x when top to bottom, y when left to right) */
  along: number;
  cell: { width: number; height: number };
}

export interface PackedGraph {
  /** What the layout lays out: the nodes that are not packed, and one box per block. */
  nodes: Box[];
  edges: LayoutEdge[];
  blocks: Block[];
  /** Places each packed leaf from its block's position (the layout's answer). */
  unpack: (positions: LayoutPositions) => LayoutPositions;
}

/** Cells along the layer for `n` leaves: a row up to GRID_ROW_MAX, then about twice as many along as across. */
export const gridAlong = (n: number) => (n <= GRID_ROW_MAX ? n : Math.max(GRID_ROW_MAX, Math.ceil(Math.sqrt(2 * n))));

/** `gap`: between the cells of a block (the catalog keeps §9's node spacing; the topology packs tighter). */
export function packLeaves(req: LayoutInput, gap: number = SPACING.node): PackedGraph {
  const out = new Map<string, number>();
  const into = new Map<string, string[]>();
  for (const e of req.edges) {
    out.set(e.source, (out.get(e.source) ?? 0) + 1);
    into.set(e.target, [...(into.get(e.target) ?? []), e.source]);
  }
  const leavesOf = new Map<string, Box[]>();
  for (const n of req.nodes) {
    const parents = into.get(n.id);
    if (!out.get(n.id) && parents?.length === 1) leavesOf.set(parents[0], [...(leavesOf.get(parents[0]) ?? []), n]);
  }
  const blocks: Block[] = [];
  const blockOf = new Map<string, string>();
  for (const [parent, leaves] of leavesOf) {
    if (leaves.length <= GRID_ROW_MAX) continue;
    const id = `${parent}::leaves`;
    const cell = { width: Math.max(...leaves.map((l) => l.width)), height: Math.max(...leaves.map((l) => l.height)) };
    blocks.push({ id, leaves, along: gridAlong(leaves.length), cell });
    for (const l of leaves) blockOf.set(l.id, id);
  }

  const lr = req.direction === 'LR';
  const size = (b: Block) => {
    const across = Math.ceil(b.leaves.length / b.along);
    const [cols, rows] = lr ? [across, b.along] : [b.along, across];
    return { width: cols * b.cell.width + (cols - 1) * gap, height: rows * b.cell.height + (rows - 1) * gap };
  };
  const nodes = [...req.nodes.filter((n) => !blockOf.has(n.id)), ...blocks.map((b) => ({ id: b.id, ...size(b) }))];
  const edges: LayoutEdge[] = [];
  const seen = new Set<string>();
  for (const e of req.edges) {
    const target = blockOf.get(e.target) ?? e.target;
    const id = target === e.target ? e.id : `${e.source}->${target}`;
    if (seen.has(id)) continue;
    seen.add(id);
    edges.push({ id, source: e.source, target });
  }

  const unpack = (positions: LayoutPositions) => {
    const placed: LayoutPositions = {};
    for (const n of req.nodes) if (!blockOf.has(n.id) && positions[n.id]) placed[n.id] = positions[n.id];
    for (const b of blocks) {
      const at = positions[b.id] ?? { x: 0, y: 0 };
      b.leaves.forEach((leaf, i) => {
        const [a, c] = [i % b.along, Math.floor(i / b.along)];
        const [col, row] = lr ? [c, a] : [a, c];
        placed[leaf.id] = {
          // centred in its cell: a collapsed type node is smaller than an item
          x: at.x + col * (b.cell.width + gap) + (b.cell.width - leaf.width) / 2,
          y: at.y + row * (b.cell.height + gap) + (b.cell.height - leaf.height) / 2,
        };
      });
    }
    return placed;
  };
  return { nodes, edges, blocks, unpack };
}

/** The rectangle the laid-out boxes cover (what a graph fits its view to). */
export function layoutBounds(nodes: LayoutBox[], at: LayoutPositions) {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const n of nodes) {
    const p = at[n.id];
    if (!p) continue;
    [x0, y0, x1, y1] = [Math.min(x0, p.x), Math.min(y0, p.y), Math.max(x1, p.x + n.width), Math.max(y1, p.y + n.height)];
  }
  return Number.isFinite(x0) ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : { x: 0, y: 0, width: 1, height: 1 };
}
