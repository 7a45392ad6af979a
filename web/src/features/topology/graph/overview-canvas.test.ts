import { describe, expect, it } from 'vitest';
import { serviceTree } from './graph-fixtures';
import { buildTopologyGraph } from './graph-model';
import { layoutTopology, NODE_SIZE } from './layout';
import { boxAt, overviewBoxes, overviewSummary } from './overview-canvas';

describe('the zoomed-out overview', () => {
  const model = buildTopologyGraph(serviceTree(12, 20), new Set());
  const positions = layoutTopology({ direction: 'TB', nodes: model.nodes.map((n) => ({ id: n.id, ...NODE_SIZE[n.kind] })), edges: model.edges });
  const boxes = overviewBoxes(model.nodes, positions);

  it('draws every laid-out node as a box where the layout put it, in its health colour', () => {
    expect(boxes).toHaveLength(1 + 12 + 240);
    const pod = boxes.find((b) => b.id === 'pod-4-3');
    expect(pod).toMatchObject({ ...positions['pod-4-3'], ...NODE_SIZE.component, color: 'red' });
    expect(boxes.find((b) => b.id === 'pod-4-2')?.color).toBe('green');
    // a node the layout has not placed yet is not drawn
    expect(overviewBoxes(model.nodes, { root: { x: 0, y: 0 } }).map((b) => b.id)).toEqual(['root']);
  });

  it('finds the node under a click, and nothing between nodes', () => {
    const pod = positions['pod-7-11'];
    expect(boxAt(boxes, pod.x + 5, pod.y + NODE_SIZE.component.height - 1)?.id).toBe('pod-7-11');
    expect(boxAt(boxes, pod.x - 1, pod.y - 1)).toBeUndefined();
  });

  it('names the picture by its counts for assistive technology', () => {
    // 2 of each service's 20 pods are unhealthy; services with them, and the root, are drawn by their own status
    expect(overviewSummary(boxes)).toBe('Overview of 253 nodes: 24 unhealthy, 229 healthy. Zoom in to read and reach them.');
    expect(overviewSummary([])).toBe('Overview of 0 nodes. Zoom in to read and reach them.');
  });
});
