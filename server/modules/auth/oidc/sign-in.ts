import type pg from 'pg';
import type { Organization } from '../../../contracts/auth.js';
import type { Role } from '../../../contracts/rbac.js';
import { notifyChange } from '../../../lib/events.js';
import { claimGroups, claimOrganizations, personFields, type Claims } from './claims.js';
import { applyContextRoles, syncOrganizations } from './orgs.js';
import { findPersonByEmail, findPersonByExternalId, insertOidcPerson, syncOidcPerson, touchLastLogin } from './queries.js';
import type { RoleMapper } from './role-mapping.js';
import { syncTeams } from './teams.js';

/** A sign-in the provider vouched for but the console refuses; `message` is shown on /login. */
export class OidcSignInRefused extends Error {}

export interface SyncedPerson {
  personId: string;
  created: boolean;
  linked: boolean;
  organizations: Organization[];
  active: Organization | null;
  /** The provider sent the organisation claim (the organisation gate applies). */
  orgsInUse: boolean;
  roles: Role[];
  teams: { added: number; removed: number };
}

/**
 * Finds the person the claims describe (by `<iss>|<sub>`; else a local person with the same email, linked only when
 * the provider says the email is verified; else a new person) and re-syncs name, email, organisations, roles and
 * teams. Runs in the caller's transaction.
 */
export async function syncPerson(
  c: pg.PoolClient, claims: Claims, opts: { mapper: RoleMapper; orgClaim: string; providerName: string },
): Promise<SyncedPerson> {
  if (typeof claims.sub !== 'string' || typeof claims.iss !== 'string') throw new OidcSignInRefused('the answer names no subject');
  const externalId = `${claims.iss}|${claims.sub}`;
  const fields = personFields(claims);
  let person = await findPersonByExternalId(c, externalId);
  let created = false;
  let linked = false;
  if (!person && fields.email) {
    const local = await findPersonByEmail(c, fields.email);
    if (local) {
      if (!fields.emailVerified) {
        throw new OidcSignInRefused(`an account with ${fields.email} exists, and ${opts.providerName} has not verified that this address is yours`);
      }
      // another provider account holds it already (people.external_id set by other sources is overwritten)
      if (local.external_id && /^https?:\/\/[^|]+\|/.test(local.external_id)) {
        throw new OidcSignInRefused(`${fields.email} already belongs to another ${opts.providerName} account`);
      }
      person = local;
      linked = true;
    }
  }
  if (person && person.state === 'inactive') throw new OidcSignInRefused('this account is deactivated; ask an administrator');
  let personId: string;
  if (person) {
    personId = person.id;
    await syncOidcPerson(c, personId, { externalId, ...fields });
  } else {
    personId = await insertOidcPerson(c, { externalId, ...fields });
    created = true;
  }
  const orgs = claimOrganizations(claims, opts.orgClaim);
  const sync = await syncOrganizations(c, personId, claims, orgs, opts.mapper);
  const orgsInUse = orgs !== null;
  const roles = await applyContextRoles(c, personId, sync, sync.active, orgsInUse);
  const teams = await syncTeams(c, personId, claimGroups(claims));
  await touchLastLogin(c, personId);
  await notifyChange(c, { relation: 'people', ids: [personId] });
  if (teams.added || teams.removed) await notifyChange(c, { relation: 'team_members' });
  return { personId, created, linked, organizations: sync.organizations, active: sync.active, orgsInUse, roles, teams };
}
