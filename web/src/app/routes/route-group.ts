import { lazy, type ComponentType } from 'react';

export type RoutePage = ComponentType<{ params: Record<string, string | undefined> }>;

/**
 * A page loaded through its area's route module (catalog-routes.ts, settings-routes.ts). Every dynamic import in the
 * entry carries the list of chunks it needs; one import per area instead of one per page keeps those lists out of the
 * start-up bundle (/health's initial JS has a 250 kB budget). A page costs one more small request on first visit.
 */
export function groupPage<G extends Record<string, () => Promise<RoutePage>>>(
  loadGroup: () => Promise<G>, name: keyof G & string,
) {
  return lazy(() => loadGroup().then((g) => g[name]()).then((page) => ({ default: page })));
}
