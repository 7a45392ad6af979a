// The relationship graph's layout (layout-graph.ts) off the main thread: a 1,000-node graph lays out without
// freezing the page. One request in, positions out; the newest request's answer is the one the graph uses.
import type { LayoutRequest, LayoutResponse } from './layout';
import { layoutGraph } from './layout-graph';

self.onmessage = async (e: MessageEvent<LayoutRequest>) => {
  const { seq } = e.data;
  const started = performance.now();
  try {
    const { positions, algorithm } = await layoutGraph(e.data);
    const reply: LayoutResponse = { seq, positions, algorithm, ms: performance.now() - started };
    self.postMessage(reply);
  } catch (err) {
    const reply: LayoutResponse = { seq, positions: {}, ms: performance.now() - started, error: String(err) };
    self.postMessage(reply);
  }
};
