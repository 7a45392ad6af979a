import { z } from 'zod';
import { ROLES, type Role } from '../../../contracts/rbac.js';
import { celToNative } from '../../../lib/cel-funcs.js';
import { compileCel, evalCel } from '../../../lib/cel.js';
import { claimAt, claimValues, globMatch, type ClaimOrganization, type Claims } from './claims.js';

/** One OIDC_ROLE_MAPPING rule: when a value of `claim` (a dotted path) matches the glob `value`, grant `role`. */
export const RoleRule = z.object({
  claim: z.string().min(1),
  value: z.string().min(1),
  role: z.enum(ROLES),
  /** Only in organisations whose id or name matches this glob; without it the rule applies in every context. */
  org: z.string().min(1).optional(),
});
export type RoleRule = z.infer<typeof RoleRule>;

/** Maps claims to roles for a context (an organisation, or none). */
export interface RoleMapper {
  rolesFor(claims: Claims, org: ClaimOrganization | null): Role[];
}

/**
 * Builds the mapper from OIDC_ROLE_MAPPING (JSON rules) and OIDC_ROLE_MAPPER_CEL; both checked at start so a typo
 * stops the server with the reason rather than silently signing everyone in as viewer. Roles from every rule that
 * matches and from the CEL expression combine; none gives viewer.
 *
 * CEL sees `claims` (the id_token and userinfo claims) and `org` (`{id, name}`, both '' outside an organisation) and
 * returns a role name, a list of role names, or a map with `role` or `roles` (as the reference's IdentityRoleMapper
 * returns `{"role": …}`); unknown names are ignored.
 */
export function createRoleMapper(mapping: string | undefined, cel: string | undefined): RoleMapper {
  let rules: RoleRule[] = [];
  if (mapping?.trim()) {
    let json: unknown;
    try {
      json = JSON.parse(mapping);
    } catch (err) {
      throw new Error(`OIDC_ROLE_MAPPING is not JSON: ${(err as Error).message}`);
    }
    const parsed = z.array(RoleRule).safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`OIDC_ROLE_MAPPING: ${issue.path.join('.') || 'value'}: ${issue.message} (expected [{claim, value, role, org?}])`);
    }
    rules = parsed.data;
  }
  const expr = cel?.trim() || undefined;
  if (expr) {
    try {
      compileCel(expr);
    } catch (err) {
      throw new Error(`OIDC_ROLE_MAPPER_CEL: ${(err as Error).message}`);
    }
  }
  return {
    rolesFor(claims, org) {
      const roles = new Set<Role>();
      for (const rule of rules) {
        if (rule.org && !(org && (globMatch(rule.org, org.externalId) || globMatch(rule.org, org.name)))) continue;
        if (claimValues(claimAt(claims, rule.claim)).some((v) => globMatch(rule.value, v))) roles.add(rule.role);
      }
      if (expr) for (const r of celRoles(expr, claims, org)) roles.add(r);
      return roles.size ? ROLES.filter((r) => roles.has(r)) : ['viewer'];
    },
  };
}

function celRoles(expr: string, claims: Claims, org: ClaimOrganization | null): Role[] {
  let out: unknown;
  try {
    out = celToNative(evalCel(expr, { claims, org: { id: org?.externalId ?? '', name: org?.name ?? '' } }));
  } catch {
    // a claim the expression expects is missing for this person: no role from it (the rules and viewer remain)
    return [];
  }
  if (out && typeof out === 'object' && !Array.isArray(out)) {
    const m = out as Record<string, unknown>;
    out = m.roles ?? m.role;
  }
  return claimValues(out).filter((r): r is Role => (ROLES as readonly string[]).includes(r));
}
