/** Catalog shapes for the graph's tests: typed factories, not literals. */
import { buildGraph, type GraphConfig, type GraphModel } from './graph-model';
import { NODE_SIZE, type LayoutRequest } from './layout';

export const item = (id: string, type: string, related: string[] = [], deleted = false): GraphConfig => ({
  id, name: id, type, related_ids: related, deleted_at: deleted ? '2026-11-26T00:00:00Z' : null,
});

/**
 * A namespace over `deployments` deployments, each over one replica set over `pods` pods (1,000 related items at the
 * defaults); `crossLinks` links every 5th pod to one of 4 nodes (a second parent); `deletedEvery` deletes every n-th pod.
 */
export function deploymentTree({ deployments = 25, pods = 38, crossLinks = false, deletedEvery = 0 } = {}): GraphConfig[] {
  const nodes = crossLinks ? ['node-0', 'node-1', 'node-2', 'node-3'] : [];
  const deps = Array.from({ length: deployments }, (_, d) => `dep-${d}`);
  const rows = [item('ns', 'Kubernetes::Namespace', [...deps, ...nodes]), ...nodes.map((n) => item(n, 'Kubernetes::Node'))];
  for (const [d, dep] of deps.entries()) {
    const podIds = Array.from({ length: pods }, (_, p) => `${dep}-pod-${p}`);
    rows.push(item(dep, 'Kubernetes::Deployment', [`${dep}-rs`]), item(`${dep}-rs`, 'Kubernetes::ReplicaSet', podIds));
    podIds.forEach((id, p) =>
      rows.push(item(id, 'Kubernetes::Pod', crossLinks && p % 5 === 0 ? [nodes[(d + p) % 4]] : [], deletedEvery > 0 && p % deletedEvery === 0)),
    );
  }
  return rows;
}

/** The graph with every group opened, as a user clicking each "+n" in turn sees it. */
export function expandAll(rows: GraphConfig[], rootId: string): { model: GraphModel; toggled: Set<string> } {
  const toggled = new Set<string>();
  for (;;) {
    const model = buildGraph(rows, rootId, toggled);
    const closed = model.nodes.filter((n) => n.collapsed && !toggled.has(n.id));
    if (!closed.length) return { model, toggled };
    for (const n of closed) toggled.add(n.id);
  }
}

/** The worker's request for a model, with the boxes the graph draws. */
export const layoutRequest = (model: GraphModel, direction: 'TB' | 'LR' = 'TB'): LayoutRequest => ({
  seq: 1,
  direction,
  nodes: model.nodes.map((n) => ({ id: n.id, ...(n.kind === 'type' ? NODE_SIZE.type : NODE_SIZE.config) })),
  edges: model.edges,
});
