import { describe, expect, it } from 'vitest';
import { deploymentTree, expandAll, item, layoutRequest } from './graph-fixtures';
import { buildGraph } from './graph-model';
import type { LayoutRequest, LayoutResponse } from './layout';
import { layoutGraph } from './layout-graph';
import { GRID_ROW_MAX, packLeaves, SPACING } from '../../lib/graph-layout/leaf-grid';

type Positions = LayoutResponse['positions'];

/** Pairs of boxes that overlap, spacing included (boxes closer than `gap` on both axes). */
function overlaps(req: LayoutRequest, at: Positions, gap = 0) {
  const boxes = req.nodes.map((n) => ({ id: n.id, x: at[n.id].x, y: at[n.id].y, w: n.width, h: n.height })).sort((a, b) => a.x - b.x);
  const found: string[] = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length && boxes[j].x < boxes[i].x + boxes[i].w + gap; j++) {
      const [a, b] = [boxes[i], boxes[j]];
      if (a.y < b.y + b.h + gap && b.y < a.y + a.h + gap) found.push(`${a.id} × ${b.id}`);
    }
  }
  return found;
}

describe('layoutGraph', () => {
  it('lays out a fully expanded 1,000-item catalog as a tree: every node placed, parents above, no overlaps', async () => {
    const { model } = expandAll(deploymentTree(), 'ns');
    const req = layoutRequest(model);
    expect(req.nodes.length).toBe(1027);
    const { positions, algorithm } = await layoutGraph(req);
    expect(algorithm).toBe('tree');
    expect(Object.keys(positions).sort()).toEqual(req.nodes.map((n) => n.id).sort());
    // the spec's spacing between any two boxes (100 between nodes; levels are 120 apart)
    expect(overlaps(req, positions, SPACING.node)).toEqual([]);
    const height = new Map(req.nodes.map((n) => [n.id, n.height]));
    for (const e of req.edges) expect(positions[e.target].y).toBeGreaterThanOrEqual(positions[e.source].y + height.get(e.source)! + SPACING.layer);
    // the 38 pods of a replica set sit in a grid under their group, not in a row 12,000 px wide
    const pods = req.nodes.filter((n) => n.id.startsWith('dep-3-pod-')).map((n) => positions[n.id]);
    const width = Math.max(...pods.map((p) => p.x)) - Math.min(...pods.map((p) => p.x));
    expect(width).toBeLessThan(12 * (230 + SPACING.node));
    expect(new Set(pods.map((p) => p.y)).size).toBeGreaterThan(1);
  });

  it('keeps items with a second parent apart in a large graph, left to right too', async () => {
    const { model } = expandAll(deploymentTree({ crossLinks: true }), 'ns');
    for (const direction of ['TB', 'LR'] as const) {
      const req = layoutRequest(model, direction);
      const { positions, algorithm } = await layoutGraph(req);
      expect(algorithm).toBe('tree');
      expect(Object.keys(positions)).toHaveLength(req.nodes.length);
      expect(overlaps(req, positions, SPACING.node)).toEqual([]);
      const root = positions.ns;
      for (const n of req.nodes) expect(direction === 'LR' ? positions[n.id].x : positions[n.id].y).toBeGreaterThanOrEqual(direction === 'LR' ? root.x : root.y);
    }
  });

  it('uses the layered layout for a small graph where an item has two parents', async () => {
    const rows = [item('a', 'A', ['b', 'c']), item('b', 'B', ['d']), item('c', 'C', ['d']), item('d', 'D')];
    const req = layoutRequest(buildGraph(rows, 'a'));
    const { positions, algorithm } = await layoutGraph(req);
    expect(algorithm).toBe('layered');
    expect(overlaps(req, positions)).toEqual([]);
    expect(positions.d.y).toBeGreaterThan(positions.b.y);
    expect(positions.b.y).toBeGreaterThan(positions.a.y);
  });
});

describe('packLeaves', () => {
  const fan = (n: number) => layoutRequest(buildGraph([item('p', 'P', Array.from({ length: n }, (_, i) => `l${i}`).concat('x')), item('x', 'X', ['l0']), ...Array.from({ length: n }, (_, i) => item(`l${i}`, `T${i}`))], 'p'));

  it('packs more than a row of leaves into one block, keeps a leaf with two parents out of it', () => {
    const req = fan(20);
    const packed = packLeaves(req);
    expect(packed.blocks).toHaveLength(1);
    expect(packed.blocks[0].leaves.map((l) => l.id)).not.toContain('l0');
    expect(packed.blocks[0].leaves).toHaveLength(19);
    // p → x, p → l0, x → l0, p → the block
    expect(packed.edges.map((e) => e.target).sort()).toEqual(['l0', 'l0', 'p::leaves', 'x']);
    const at = packed.unpack(Object.fromEntries(packed.nodes.map((n) => [n.id, { x: 1000, y: 500 }])));
    expect(at['l1']).toEqual({ x: 1000, y: 500 });
    expect(at['l2']).toEqual({ x: 1000 + 230 + SPACING.node, y: 500 });
    const leaves = { ...req, nodes: packed.blocks[0].leaves };
    expect(overlaps(leaves, at, SPACING.node)).toEqual([]);
  });

  it('leaves a row of up to GRID_ROW_MAX leaves to the layout', () => {
    expect(packLeaves(fan(GRID_ROW_MAX + 1)).blocks).toHaveLength(0);
  });
});
