import type { TopologyComponent } from '@contracts/topology';

/** A component as /api/topology gives it: only the fields the graph reads. */
export function comp(id: string, opts: { parent?: string; status?: string; type?: string; children?: TopologyComponent[] } = {}): TopologyComponent {
  return {
    id,
    name: id,
    type: opts.type ?? 'Service',
    status: opts.status ?? 'healthy',
    parent_id: opts.parent ?? null,
    summary: {},
    components: opts.children,
  };
}

/**
 * A topology of `services` services under one root, each with `pods` pods (the root, services and pods: 1 + s + s·p
 * components), every tenth pod unhealthy: the benchmark's and the tests' large graph.
 */
export function serviceTree(services: number, pods: number): TopologyComponent[] {
  const children = Array.from({ length: services }, (_, s) =>
    comp(`svc-${s}`, {
      parent: 'root',
      children: Array.from({ length: pods }, (_, p) => comp(`pod-${s}-${p}`, { parent: `svc-${s}`, type: 'Pod', status: p % 10 === 3 ? 'unhealthy' : 'healthy' })),
    }),
  );
  return [comp('root', { type: 'Topology', children })];
}
