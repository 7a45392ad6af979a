// The topology graph's layout (layout.ts) off the main thread: laying out 2,000 components does not freeze the page.
// One request in, positions out; the graph uses the newest request's answer only.
import { layoutTopology, type LayoutRequest, type LayoutResponse } from './layout';

self.onmessage = (e: MessageEvent<LayoutRequest>) => {
  const { seq } = e.data;
  const started = performance.now();
  try {
    const reply: LayoutResponse = { seq, positions: layoutTopology(e.data), ms: performance.now() - started };
    self.postMessage(reply);
  } catch (err) {
    const reply: LayoutResponse = { seq, positions: {}, ms: performance.now() - started, error: String(err) };
    self.postMessage(reply);
  }
};
