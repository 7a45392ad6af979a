// The relationship graph's layout (elkjs, layered) off the main thread: a 1,000-node graph lays out without
// freezing the page. One request in, positions out; the newest request's answer is the one the graph uses.
import ELK from 'elkjs/lib/elk.bundled.js';
import type { LayoutRequest, LayoutResponse } from './layout';

const elk = new ELK();

self.onmessage = async (e: MessageEvent<LayoutRequest>) => {
  const { seq, nodes, edges, direction } = e.data;
  const started = performance.now();
  try {
    const graph = await elk.layout({
      id: 'root',
      layoutOptions: {
        'elk.algorithm': 'layered',
        'elk.direction': direction === 'LR' ? 'RIGHT' : 'DOWN',
        // spec 001 §9: node layout spacing 120 and 100
        'elk.layered.spacing.nodeNodeBetweenLayers': '120',
        'elk.spacing.nodeNode': '100',
        'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
        'elk.separateConnectedComponents': 'true',
      },
      children: nodes.map((n) => ({ id: n.id, width: n.width, height: n.height })),
      edges: edges.map((x) => ({ id: x.id, sources: [x.source], targets: [x.target] })),
    });
    const positions: LayoutResponse['positions'] = {};
    for (const c of graph.children ?? []) positions[c.id] = { x: c.x ?? 0, y: c.y ?? 0 };
    const reply: LayoutResponse = { seq, positions, ms: performance.now() - started };
    self.postMessage(reply);
  } catch (err) {
    const reply: LayoutResponse = { seq, positions: {}, ms: performance.now() - started, error: String(err) };
    self.postMessage(reply);
  }
};
