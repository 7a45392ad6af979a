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
import { isBuilt } from '../route-table';

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
  { label: 'Catalog Scrapers', href: paths.catalogScrapers, resource: 'config_scrapers', feature: 'settings.config_scraper' },
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

/** The settings menu with each logging backend by name after the Log Backends entry (spec 001 §2). */
export function withLoggingBackends(settings: NavItem[], backends: { id: string; name: string }[] | undefined): NavItem[] {
  const at = settings.findIndex((i) => i.href === '/settings/logging_backends');
  if (at < 0 || !backends?.length) return settings;
  const items = backends.map((b): NavItem => ({
    label: b.name,
    href: `/settings/logging_backends/${encodeURIComponent(b.id)}`,
    resource: 'logging_backends',
    feature: 'settings.logging_backends',
  }));
  return [...settings.slice(0, at + 1), ...items, ...settings.slice(at + 1)];
}

const visible = (session: SessionInfo) => (item: NavItem) =>
  session.can(item.resource, item.action ?? 'read') && (!item.feature || session.enabled(item.feature));

/** The entries this user may open, before the dashboard entry is pointed at the landing page. */
function allowed(session: SessionInfo): { main: NavItem[]; settings: NavItem[] } {
  const main = MAIN_NAV.filter(visible(session));
  if (session.about.mode === 'check-runner') return { main: main.filter((i) => i.href === paths.health), settings: [] };
  return { main, settings: session.isViewer ? [] : SETTINGS_NAV.filter(visible(session)) };
}

/**
 * What this user sees: entries need read on their resource and their feature on; viewers get no settings menu;
 * the standalone check runner has only Health. Until the dashboard (topology) is built its entry goes to `/`, the
 * landing page, and is never the "Not available" placeholder whose one button would lead back to it.
 */
export function navFor(session: SessionInfo): { main: NavItem[]; settings: NavItem[] } {
  const { main, settings } = allowed(session);
  const dashboardBuilt = isBuilt(paths.topology);
  return { main: main.map((i) => (i.href === paths.topology && !dashboardBuilt ? { ...i, href: paths.home } : i)), settings };
}

/**
 * The entry `/` lands on, and the one place that decides it: spec 001 sends `/` to /topology, so the dashboard when
 * it is built and this user may open it (feature on, read allowed); otherwise the first entry in sidebar order whose
 * page is built (Health for most), so signing in never ends on a placeholder.
 */
export function homeEntry(session: SessionInfo): NavItem | undefined {
  const { main, settings } = allowed(session);
  return [...main, ...settings].find((i) => isBuilt(i.href));
}

/** Where `/` goes: the landing entry, or the user's own profile when nothing else is open to them. */
export function homePath(session: SessionInfo): string {
  return homeEntry(session)?.href ?? paths.profileSettings;
}
