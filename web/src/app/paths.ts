/** Every route of the console by name (spec 000 and 001, section 2). Patterns use wouter's `:param` syntax. */
export const paths = {
  home: '/',
  login: '/login',
  registration: '/registration',
  recovery: '/recovery',
  verification: '/verification',
  authStateChecker: '/auth-state-checker',
  error: '/error',
  orgsSwitched: '/organizations/orgs-switched',
  profileSettings: '/profile-settings',

  topology: '/topology',
  topologyDetail: '/topology/:id',
  topologyView: '/view/topology/:id',
  health: '/health',
  incidents: '/incidents',
  incident: '/incidents/:id',
  agents: '/agents',
  logs: '/logs',

  configs: '/configs',
  catalog: '/catalog',
  catalogChanges: '/catalog/changes',
  catalogInsights: '/catalog/insights',
  catalogScrapers: '/catalog/scrapers',
  catalogScraper: '/catalog/scrapers/:id',
  config: '/catalog/:id',
  configChanges: '/catalog/:id/changes',
  configInsights: '/catalog/:id/insights',
  configRelationships: '/catalog/:id/relationships',
  configPlaybooks: '/catalog/:id/playbooks',
  configChecks: '/catalog/:id/checks',

  playbooks: '/playbooks',
  playbookRuns: '/playbooks/runs',
  playbookRun: '/playbooks/runs/:id',
  playbook: '/playbooks/:id',

  notifications: '/notifications',
  notificationRules: '/notifications/rules',
  notificationSilences: '/notifications/silences',
  notificationSilenceAdd: '/notifications/silences/add',

  settingsConnections: '/settings/connections',
  settingsUsers: '/settings/users',
  settingsJobs: '/settings/jobs',
  settingsFeatureFlags: '/settings/feature-flags',
  settingsEventQueue: '/settings/event-queue-status',
  settingsAgents: '/settings/agents',
  settingsIntegrations: '/settings/integrations',
  settingsIntegration: '/settings/integrations/:type/:id',
  settingsKubernetes: '/settings/kubernetes',
  settingsTable: '/settings/:table',
  settingsTableNew: '/settings/:table/new',
  settingsTableItem: '/settings/:table/:id',
} as const;

export type PathName = keyof typeof paths;

/** Fills a pattern's `:params` (URL-encoded) and appends a query string. */
export function pathTo(
  pattern: string,
  params: Record<string, string> = {},
  query?: Record<string, string | undefined>,
): string {
  const path = pattern.replace(/:(\w+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`pathTo: missing :${name} for ${pattern}`);
    return encodeURIComponent(value);
  });
  const qs = new URLSearchParams(
    Object.entries(query ?? {}).filter((e): e is [string, string] => e[1] !== undefined),
  ).toString();
  return qs ? `${path}?${qs}` : path;
}
