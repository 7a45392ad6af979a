import type { RoutePage } from './route-group';

/** The agents page (/agents and /settings/agents), one route module: its chunk stays out of start-up. */
export const AGENTS_PAGES = {
  AgentsPage: () => import('./agents-page').then((m) => m.AgentsPage),
} satisfies Record<string, () => Promise<RoutePage>>;
