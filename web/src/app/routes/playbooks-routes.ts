import type { RoutePage } from './route-group';

/** The playbooks' pages, one route module: their list of chunks lives here, not in the start-up bundle. */
export const PLAYBOOKS_PAGES = {
  PlaybookRunsPage: () => import('./playbook-runs-page').then((m) => m.PlaybookRunsPage),
  PlaybookRunPage: () => import('./playbook-run-page').then((m) => m.PlaybookRunPage),
  PlaybooksPage: () => import('./playbooks-page').then((m) => m.PlaybooksPage),
  PlaybookPage: () => import('./playbooks-page').then((m) => m.PlaybookPage),
} satisfies Record<string, () => Promise<RoutePage>>;
