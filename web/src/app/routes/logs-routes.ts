import type { RoutePage } from './route-group';

/** The logs area's pages, one chunk (route-group.ts says why). */
export const LOGS_PAGES = {
  LogsPage: () => import('./logs-page').then((m) => m.LogsRoutePage),
} satisfies Record<string, () => Promise<RoutePage>>;
