import type pg from 'pg';
import { claimValues } from './claims.js';
import { listTeamsWithGroups, setOidcTeams } from './queries.js';

/**
 * Team membership from the provider's groups (no SCIM): a team whose name, or one of whose `spec.oidc_groups`, equals a
 * group (case-insensitive) gets the person as a member with source 'oidc'; the row goes when the group does.
 */
export async function syncTeams(db: pg.PoolClient, personId: string, groups: string[]): Promise<{ added: number; removed: number }> {
  const wanted = new Set(groups.map((g) => g.toLowerCase()));
  const teams = await listTeamsWithGroups(db);
  const ids = teams
    .filter((t) => [t.name, ...claimValues(t.oidc_groups)].some((n) => wanted.has(n.toLowerCase())))
    .map((t) => t.id);
  return setOidcTeams(db, personId, ids);
}
