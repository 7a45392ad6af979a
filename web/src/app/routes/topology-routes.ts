import type { RoutePage } from './route-group';

/** The topology's pages, one chunk for the area (route-group.ts says why). */
export const TOPOLOGY_PAGES = {
  TopologyPage: () => import('./topology-page').then((m) => m.TopologyRoutePage),
  TopologyViewPage: () => import('./topology-page').then((m) => m.TopologyViewRoutePage),
} satisfies Record<string, () => Promise<RoutePage>>;
