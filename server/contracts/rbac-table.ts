/**
 * The RBAC and feature tables as plain TypeScript (no zod): the web's start-up path (session, navigation, `can()`)
 * imports this file. rbac.ts re-exports everything here and adds the zod enums the request contracts use.
 */

/** Roles as the spec names them. A user with no role is treated as viewer; roles combine. */
export const ROLES = ['admin', 'editor', 'commander', 'responder', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/**
 * RBAC resources of the spec (document 000, section 6), plus `kubernetes-proxy` (the reference system's object for
 * /api/kubeconfig and /kubeproxy): it follows the table like any resource, so admin and editor write (download a
 * kubeconfig, act as the cluster writer) and every other role reads (acts as the cluster reader).
 */
export const RESOURCES = [
  'database', 'rbac', 'auth', 'responder', 'incident', 'evidences', 'comments', 'canaries', 'topologies',
  'config_scrapers', 'identities', 'connections', 'kratos', 'agents', 'feature_flags', 'logging_backends',
  'integrations', 'notifications', 'playbooks', 'playbook_runs', 'kubernetes-proxy',
] as const;
export type Resource = (typeof RESOURCES)[number];

export type Action = 'read' | 'write';

const ALL = new Set<Resource>(RESOURCES);
const except = (...r: Resource[]) => new Set<Resource>(RESOURCES.filter((x) => !r.includes(x)));
const NONE = new Set<Resource>();
const INCIDENT_WORK = new Set<Resource>(['responder', 'incident', 'evidences', 'comments']);

/** The spec's permission table, role by role. */
export const PERMISSIONS: Record<Role, Record<Action, ReadonlySet<Resource>>> = {
  admin: { read: ALL, write: ALL },
  editor: { read: ALL, write: except('connections', 'identities', 'rbac') },
  commander: { read: except('rbac', 'identities', 'connections'), write: INCIDENT_WORK },
  responder: { read: except('rbac', 'identities', 'connections'), write: INCIDENT_WORK },
  viewer: { read: except('rbac', 'identities', 'connections'), write: NONE },
};

/** Roles in effect: unknown names are dropped, and no role at all means viewer. */
export function effectiveRoles(roles: readonly string[]): Role[] {
  const known = roles.filter((r): r is Role => (ROLES as readonly string[]).includes(r));
  return known.length ? [...new Set(known)] : ['viewer'];
}

/** True when any of the roles grants the action on the resource. */
export function can(roles: readonly string[], resource: Resource, action: Action): boolean {
  return effectiveRoles(roles).some((r) => PERMISSIONS[r][action].has(resource));
}

/** The highest role to show for a user, in the order admin, editor, commander, responder, viewer. */
export function primaryRole(roles: readonly string[]): Role {
  const eff = effectiveRoles(roles);
  return ROLES.find((r) => eff.includes(r)) ?? 'viewer';
}

/** Feature names that can be disabled with a property `{feature}.disable = "true"`. */
export const FEATURES = [
  'topology', 'health', 'incidents', 'config', 'logs', 'playbooks', 'agents',
  'settings.connections', 'settings.users', 'settings.teams', 'settings.rules', 'settings.config_scraper',
  'settings.topology', 'settings.health', 'settings.job_history', 'settings.feature_flags',
  'settings.logging_backends', 'settings.event_queue_status', 'settings.organization_profile',
  'settings.notifications', 'settings.playbooks', 'settings.integrations',
] as const;
export type Feature = (typeof FEATURES)[number];

/** Disabling a parent feature also disables these (spec 000, section 6). */
const FEATURE_CHILDREN: Partial<Record<Feature, Feature[]>> = {
  config: ['settings.config_scraper'],
  topology: ['settings.topology'],
  health: ['settings.health', 'settings.job_history'],
};

/** Given the properties map, returns every feature with whether it is enabled, hierarchy applied. */
export function featureStates(properties: Record<string, string>): Record<Feature, boolean> {
  const disabled = new Set<Feature>(FEATURES.filter((f) => properties[`${f}.disable`] === 'true'));
  for (const [parent, children] of Object.entries(FEATURE_CHILDREN)) {
    if (disabled.has(parent as Feature)) children!.forEach((c) => disabled.add(c));
  }
  return Object.fromEntries(FEATURES.map((f) => [f, !disabled.has(f)])) as Record<Feature, boolean>;
}
