import type pg from 'pg';
import type { Organization } from '../../../contracts/auth.js';
import type { Role } from '../../../contracts/rbac.js';
import type { ClaimOrganization, Claims } from './claims.js';
import { listMemberships, setMemberships, setPersonRoles, upsertOrganization } from './queries.js';
import type { RoleMapper } from './role-mapping.js';

/**
 * Organisations are role contexts of one console: a person's roles are worked out per organisation at each sign-in
 * (organization_members.roles), and the session's active organisation decides which of them the console applies
 * (copied into person_roles, which every request's principal reads). Without organisations (the provider sends no
 * organisation claim) the roles are the mapping's console-wide ones.
 */
export interface OrgSync {
  organizations: Organization[];
  /** The organisation a new session starts in: the only one, else none (the gate asks). */
  active: Organization | null;
  /** Roles outside any organisation (no claim, or before one is chosen). */
  globalRoles: Role[];
}

/** Stores the claim's organisations and the person's roles in each; returns them. */
export async function syncOrganizations(
  db: pg.PoolClient, personId: string, claims: Claims, orgs: ClaimOrganization[] | null, mapper: RoleMapper,
): Promise<OrgSync> {
  const globalRoles = mapper.rolesFor(claims, null);
  const members: { orgId: string; roles: Role[] }[] = [];
  for (const org of orgs ?? []) {
    members.push({ orgId: await upsertOrganization(db, org.externalId, org.name), roles: mapper.rolesFor(claims, org) });
  }
  await setMemberships(db, personId, members);
  const organizations = await listMemberships(db, personId);
  return { organizations, active: organizations.length === 1 ? organizations[0] : null, globalRoles };
}

/**
 * Applies a context's roles to the console: the organisation's when one is active; else, with organisations in use,
 * viewer at most (the gate asks for a choice first); else the console-wide roles.
 */
export async function applyContextRoles(db: pg.Pool | pg.PoolClient, personId: string, sync: Pick<OrgSync, 'globalRoles'>,
  active: Organization | null, orgsInUse: boolean): Promise<Role[]> {
  const roles: Role[] = active ? active.roles : orgsInUse ? ['viewer'] : sync.globalRoles;
  await setPersonRoles(db, personId, roles);
  return roles;
}
