import type { RoutePage } from './route-group';

/** The settings pages, each its own chunk; imported once by the entry (route-group.ts), like catalog-routes.ts. */
export const SETTINGS_PAGES = {
  SettingsConnectionsPage: () => import('./settings-connections-page').then((m) => m.SettingsConnectionsPage),
  SettingsUsersPage: () => import('./settings-users-page').then((m) => m.SettingsUsersPage),
  SettingsJobsPage: () => import('./settings-jobs-page').then((m) => m.SettingsJobsPage),
  SettingsFeatureFlagsPage: () => import('./settings-feature-flags-page').then((m) => m.SettingsFeatureFlagsPage),
  SettingsIntegrationsPage: () => import('./settings-integrations-page').then((m) => m.SettingsIntegrationsPage),
  SettingsIntegrationPage: () => import('./settings-integrations-page').then((m) => m.SettingsIntegrationPage),
  SettingsKubernetesPage: () => import('./settings-kubernetes-page').then((m) => m.SettingsKubernetesPage),
  SettingsResourceListPage: () => import('./settings-resources-page').then((m) => m.SettingsResourceListPage),
  SettingsResourcePage: () => import('./settings-resources-page').then((m) => m.SettingsResourcePage),
  SettingsResourceNewPage: () => import('./settings-resources-page').then((m) => m.SettingsResourceNewPage),
} satisfies Record<string, () => Promise<RoutePage>>;
