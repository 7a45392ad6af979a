import type { FluentIcon } from '@fluentui/react-icons';
import {
  Board20Regular,
  DocumentText20Regular,
  HeartPulse20Regular,
  Library20Regular,
  Play20Regular,
  Warning20Regular,
} from '@fluentui/react-icons';
import type { Action, Feature, Resource } from '@contracts/rbac-table';
import type { SessionInfo } from '../session-context';
import { paths } from '../paths';

export interface NavItem {
  label: string;
  href: string;
  resource: Resource;
  /** The action on `resource` the entry needs (default read). */
  action?: Action;
  feature?: Feature;
  icon?: FluentIcon;
}

/** The sidebar's main entries (spec 000, "Shared layout"). */
export const MAIN_NAV: NavItem[] = [
  { label: 'Dashboard', href: paths.topology, icon: Board20Regular, resource: 'topologies', feature: 'topology' },
  { label: 'Health', href: paths.health, icon: HeartPulse20Regular, resource: 'canaries', feature: 'health' },
  { label: 'Incidents', href: paths.incidents, icon: Warning20Regular, resource: 'incident', feature: 'incidents' },
  { label: 'Catalog', href: paths.catalog, icon: Library20Regular, resource: 'database', feature: 'config' },
  { label: 'Logs', href: paths.logs, icon: DocumentText20Regular, resource: 'database', feature: 'logs' },
  { label: 'Playbooks', href: paths.playbooks, icon: Play20Regular, resource: 'playbooks', feature: 'playbooks' },
];

/** The settings submenu, in the reference console's order. */
export const SETTINGS_NAV: NavItem[] = [
  { label: 'Connections', href: paths.settingsConnections, resource: 'connections', feature: 'settings.connections' },
  { label: 'Users', href: paths.settingsUsers, resource: 'identities', feature: 'settings.users' },
  { label: 'Teams', href: '/settings/teams', resource: 'database', feature: 'settings.teams' },
  { label: 'Incident Rules', href: '/settings/incident_rules', resource: 'incident', feature: 'settings.rules' },
  { label: 'Catalog Scrapers', href: '/settings/config_scrapers', resource: 'config_scrapers', feature: 'settings.config_scraper' },
  { label: 'Topologies', href: '/settings/topologies', resource: 'topologies', feature: 'settings.topology' },
  { label: 'Health Checks', href: '/settings/canaries', resource: 'canaries', feature: 'settings.health' },
  { label: 'Job History', href: paths.settingsJobs, resource: 'database', feature: 'settings.job_history' },
  { label: 'Feature Flags', href: paths.settingsFeatureFlags, resource: 'feature_flags', feature: 'settings.feature_flags' },
  { label: 'Log Backends', href: '/settings/logging_backends', resource: 'logging_backends', feature: 'settings.logging_backends' },
  { label: 'Event Queue', href: paths.settingsEventQueue, resource: 'database', feature: 'settings.event_queue_status' },
  { label: 'Notifications', href: paths.notificationRules, resource: 'notifications', feature: 'settings.notifications' },
  { label: 'Integrations', href: paths.settingsIntegrations, resource: 'integrations', feature: 'settings.integrations' },
  { label: 'Agents', href: paths.settingsAgents, resource: 'agents', feature: 'agents' },
  { label: 'Kubernetes', href: paths.settingsKubernetes, resource: 'kubernetes-proxy', action: 'write' },
];

const visible = (session: SessionInfo) => (item: NavItem) =>
  session.can(item.resource, item.action ?? 'read') && (!item.feature || session.enabled(item.feature));

/**
 * What this user sees: entries need read on their resource and their feature on; viewers get no settings menu;
 * the standalone check runner has only Health.
 */
export function navFor(session: SessionInfo): { main: NavItem[]; settings: NavItem[] } {
  const main = MAIN_NAV.filter(visible(session));
  if (session.about.mode === 'check-runner') return { main: main.filter((i) => i.href === paths.health), settings: [] };
  return { main, settings: session.isViewer ? [] : SETTINGS_NAV.filter(visible(session)) };
}

/** Where `/` goes: the dashboard, or the first entry this user has when the dashboard is off for them. */
export function homePath(session: SessionInfo): string {
  const { main, settings } = navFor(session);
  if (main.some((i) => i.href === paths.topology)) return paths.topology;
  return main[0]?.href ?? settings[0]?.href ?? paths.profileSettings;
}
