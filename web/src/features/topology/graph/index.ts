// Lazy-loadable: `lazy(() => import('../graph').then((m) => ({ default: m.TopologyGraph })))` keeps @xyflow/react
// and dagre out of the page's chunk until view=graph.
export { TopologyGraph, type TopologyGraphProps } from './topology-graph';
