import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { Action, Feature, Resource } from '@contracts/rbac-table';
import { paths } from './paths';
import { groupPage } from './routes/route-group';

/** A signed-in route: what it needs, and its page once the feature is built. */
export interface AppRoute {
  path: string;
  /** The page title, as the top bar and the browser tab show it. */
  title: string;
  /** Read (or `action`) on this resource is needed; otherwise the Unauthorized screen shows. */
  resource?: Resource;
  action?: Action;
  /** The feature flag that turns the route off. */
  feature?: Feature;
  /** Present in the standalone check-runner mode. */
  checkRunner?: boolean;
  /** No shell (no sidebar, no top bar): the page alone, for embedding in another page of the same origin. */
  bare?: true;
  /** Not set yet: the shared "Not available in this version" page shows. */
  page?: LazyExoticComponent<ComponentType<{ params: Record<string, string | undefined> }>>;
}

// an area's pages load through one route module each (route-group.ts): one dynamic import per area in the entry
const catalogPage = (name: keyof typeof import('./routes/catalog-routes').CATALOG_PAGES) =>
  groupPage(() => import('./routes/catalog-routes').then((m) => m.CATALOG_PAGES), name);
const devPage = (name: keyof typeof import('./routes/dev-routes').DEV_PAGES) =>
  groupPage(() => import('./routes/dev-routes').then((m) => m.DEV_PAGES), name);
const incidentsPage = (name: keyof typeof import('./routes/incidents-routes').INCIDENTS_PAGES) =>
  groupPage(() => import('./routes/incidents-routes').then((m) => m.INCIDENTS_PAGES), name);
const topologyPage = (name: keyof typeof import('./routes/topology-routes').TOPOLOGY_PAGES) =>
  groupPage(() => import('./routes/topology-routes').then((m) => m.TOPOLOGY_PAGES), name);
const playbooksPage = (name: keyof typeof import('./routes/playbooks-routes').PLAYBOOKS_PAGES) =>
  groupPage(() => import('./routes/playbooks-routes').then((m) => m.PLAYBOOKS_PAGES), name);
const notificationsPage = (name: keyof typeof import('./routes/notifications-routes').NOTIFICATIONS_PAGES) =>
  groupPage(() => import('./routes/notifications-routes').then((m) => m.NOTIFICATIONS_PAGES), name);
const agentsPage = (name: keyof typeof import('./routes/agents-routes').AGENTS_PAGES) =>
  groupPage(() => import('./routes/agents-routes').then((m) => m.AGENTS_PAGES), name);
const logsPage = (name: keyof typeof import('./routes/logs-routes').LOGS_PAGES) =>
  groupPage(() => import('./routes/logs-routes').then((m) => m.LOGS_PAGES), name);
const settingsPage = (name: keyof typeof import('./routes/settings-routes').SETTINGS_PAGES) =>
  groupPage(() => import('./routes/settings-routes').then((m) => m.SETTINGS_PAGES), name);

/**
 * Every signed-in route of both route tables, most specific first (the first match wins). Public routes (sign-in,
 * registration, error pages) live in app.tsx, outside the session gate.
 */
export const ROUTES: AppRoute[] = [
  { path: '/__kit', title: 'UI kit', page: devPage('KitGalleryPage') },
  // npm run bench:web measures the DataTable here: 10,000 generated rows, signed-in users only, not in the navigation
  {
    path: '/__bench/table', title: 'Table benchmark',
    page: devPage('BenchTablePage'),
  },
  {
    path: paths.profileSettings, title: 'Your Profile',
    page: lazy(() => import('./routes/profile-settings-page').then((m) => ({ default: m.ProfileSettingsPage }))),
  },
  {
    path: paths.notificationSilenceAdd, title: 'Add Silence', resource: 'notifications', action: 'write',
    feature: 'settings.notifications',
    page: notificationsPage('NotificationSilenceAddPage'),
  },
  {
    path: paths.notificationSilences, title: 'Silences', resource: 'notifications', feature: 'settings.notifications',
    page: notificationsPage('NotificationSilencesPage'),
  },
  {
    path: paths.notificationRules, title: 'Notification Rules', resource: 'notifications', feature: 'settings.notifications',
    page: notificationsPage('NotificationRulesPage'),
  },
  {
    path: paths.notifications, title: 'Notifications', resource: 'notifications', feature: 'settings.notifications',
    page: notificationsPage('NotificationsPage'),
  },

  {
    path: paths.topologyView, title: 'Topology', resource: 'topologies', feature: 'topology', bare: true,
    page: topologyPage('TopologyViewPage'),
  },
  {
    path: paths.topologyDetail, title: 'Topology', resource: 'topologies', feature: 'topology',
    page: topologyPage('TopologyPage'),
  },
  {
    path: paths.topology, title: 'Topology', resource: 'topologies', feature: 'topology',
    page: topologyPage('TopologyPage'),
  },
  {
    path: paths.health, title: 'Health', resource: 'canaries', feature: 'health', checkRunner: true,
    page: lazy(() => import('./routes/health-page').then((m) => ({ default: m.HealthPage }))),
  },
  {
    path: paths.incident, title: 'Incident', resource: 'incident', feature: 'incidents',
    page: incidentsPage('IncidentPage'),
  },
  {
    path: paths.incidents, title: 'Incidents', resource: 'incident', feature: 'incidents',
    page: incidentsPage('IncidentsPage'),
  },
  { path: paths.agents, title: 'Agents', resource: 'agents', feature: 'agents', page: agentsPage('AgentsPage') },
  { path: paths.logs, title: 'Logs', resource: 'database', feature: 'logs', page: logsPage('LogsPage') },

  {
    path: paths.catalogChanges, title: 'Catalog Changes', resource: 'database', feature: 'config',
    page: catalogPage('CatalogChangesPage'),
  },
  {
    path: paths.catalogInsights, title: 'Catalog Insights', resource: 'database', feature: 'config',
    page: catalogPage('CatalogInsightsPage'),
  },
  {
    path: paths.catalogScraper, title: 'Catalog Scraper', resource: 'config_scrapers', feature: 'config',
    page: catalogPage('CatalogScraperPage'),
  },
  {
    path: paths.catalogScrapers, title: 'Catalog Scrapers', resource: 'config_scrapers', feature: 'config',
    page: catalogPage('CatalogScrapersPage'),
  },
  {
    path: paths.configChanges, title: 'Config Changes', resource: 'database', feature: 'config',
    page: catalogPage('ConfigChangesPage'),
  },
  {
    path: paths.configInsights, title: 'Config Insights', resource: 'database', feature: 'config',
    page: catalogPage('ConfigInsightsPage'),
  },
  {
    path: paths.configRelationships, title: 'Config Relationships', resource: 'database', feature: 'config',
    page: catalogPage('ConfigRelationshipsPage'),
  },
  {
    path: paths.configPlaybooks, title: 'Config Playbooks', resource: 'playbooks', feature: 'config',
    page: catalogPage('ConfigPlaybooksPage'),
  },
  {
    path: paths.configChecks, title: 'Config Checks', resource: 'canaries', feature: 'config',
    page: catalogPage('ConfigChecksPage'),
  },
  {
    path: paths.config, title: 'Catalog Item', resource: 'database', feature: 'config',
    page: catalogPage('ConfigPage'),
  },
  {
    path: paths.catalog, title: 'Catalog', resource: 'database', feature: 'config',
    page: catalogPage('CatalogPage'),
  },

  {
    path: paths.playbookRun, title: 'Playbook Run', resource: 'playbook_runs', feature: 'playbooks',
    page: playbooksPage('PlaybookRunPage'),
  },
  {
    path: paths.playbookRuns, title: 'Playbook Runs', resource: 'playbook_runs', feature: 'playbooks',
    page: playbooksPage('PlaybookRunsPage'),
  },
  {
    path: paths.playbook, title: 'Playbook', resource: 'playbooks', feature: 'playbooks',
    page: playbooksPage('PlaybookPage'),
  },
  {
    path: paths.playbooks, title: 'Playbooks', resource: 'playbooks', feature: 'playbooks',
    page: playbooksPage('PlaybooksPage'),
  },

  {
    path: paths.settingsConnections, title: 'Connections', resource: 'connections', feature: 'settings.connections',
    page: settingsPage('SettingsConnectionsPage'),
  },
  {
    path: paths.settingsUsers, title: 'Users', resource: 'identities', feature: 'settings.users',
    page: settingsPage('SettingsUsersPage'),
  },
  {
    path: paths.settingsJobs, title: 'Job History', resource: 'database', feature: 'settings.job_history',
    page: settingsPage('SettingsJobsPage'),
  },
  {
    path: paths.settingsFeatureFlags, title: 'Feature Flags', resource: 'feature_flags', feature: 'settings.feature_flags',
    page: settingsPage('SettingsFeatureFlagsPage'),
  },
  {
    path: paths.settingsEventQueue, title: 'Event Queue', resource: 'database', feature: 'settings.event_queue_status',
    page: notificationsPage('EventQueuePage'),
  },
  { path: paths.settingsAgents, title: 'Agents', resource: 'agents', feature: 'agents', page: agentsPage('AgentsPage') },
  {
    path: paths.settingsIntegration, title: 'Integration', resource: 'integrations', action: 'write',
    feature: 'settings.integrations',
    page: settingsPage('SettingsIntegrationPage'),
  },
  {
    path: paths.settingsIntegrations, title: 'Integrations', resource: 'integrations', feature: 'settings.integrations',
    page: settingsPage('SettingsIntegrationsPage'),
  },
  // the cluster connection and the watched custom resources: for those who may act in the cluster as the writer
  {
    path: paths.settingsKubernetes, title: 'Kubernetes', resource: 'kubernetes-proxy', action: 'write',
    page: settingsPage('SettingsKubernetesPage'),
  },
  // /settings/{table}, /settings/{table}/new and /settings/{table}/{id}, after every specific settings route: the page
  // resolves the table against the descriptor table (its flag, read, and write for /new)
  {
    path: paths.settingsTableNew, title: 'Settings',
    page: settingsPage('SettingsResourceNewPage'),
  },
  {
    path: paths.settingsTableItem, title: 'Settings',
    page: settingsPage('SettingsResourcePage'),
  },
  {
    path: paths.settingsTable, title: 'Settings',
    page: settingsPage('SettingsResourceListPage'),
  },
];

/** Whether the signed-in route at exactly `path` has a page of its own (not the "Not available" placeholder). */
export function isBuilt(path: string): boolean {
  return ROUTES.some((r) => r.path === path && r.page !== undefined);
}
