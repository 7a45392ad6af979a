import type { RoutePage } from './route-group';

/** The incidents' pages, one route module: their list of chunks lives here, not in the start-up bundle. */
export const INCIDENTS_PAGES = {
  IncidentPage: () => import('./incidents-page').then((m) => m.IncidentPage),
  IncidentsPage: () => import('./incidents-page').then((m) => m.IncidentsPage),
} satisfies Record<string, () => Promise<RoutePage>>;
