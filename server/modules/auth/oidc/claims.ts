/** Reading an OpenID Connect provider's claims: dotted paths, globs, the person's fields and organisations. */

export type Claims = Record<string, unknown>;

/** The value at a dotted path (`realm_access.roles`); a key that itself holds dots is tried whole first. */
export function claimAt(claims: Claims, path: string): unknown {
  if (path in claims) return claims[path];
  let cur: unknown = claims;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** The scalar values of a claim as strings: a string, a number, a boolean, or a list of them. */
export function claimValues(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((v) => claimValues(v));
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  return [];
}

const globs = new Map<string, RegExp>();

/** `*` any run of characters, `?` one character, everything else literal; the whole value must match. */
export function globMatch(pattern: string, value: string): boolean {
  let re = globs.get(pattern);
  if (!re) {
    const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
    re = new RegExp(`^${body}$`, 's');
    if (globs.size > 500) globs.clear();
    globs.set(pattern, re);
  }
  return re.test(value);
}

/** An organisation as a claim names it. */
export interface ClaimOrganization {
  externalId: string;
  name: string;
}

/**
 * Organisations from the claim: a string (one), a list of strings (or of `{id, name}` objects), or an object keyed by
 * id as Keycloak's `organization` claim (`{"acme": {"id": "…", "name": "…"}}`, the key is the organisation's alias).
 * `null` when the claim is absent: the provider does not use organisations.
 */
export function claimOrganizations(claims: Claims, path: string): ClaimOrganization[] | null {
  if (!path) return null;
  const v = claimAt(claims, path);
  if (v === undefined || v === null) return null;
  const out = new Map<string, ClaimOrganization>();
  const add = (id: unknown, name: unknown) => {
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const externalId = String(id).trim().slice(0, 200);
    if (!externalId) return;
    out.set(externalId, { externalId, name: (typeof name === 'string' && name.trim() ? name.trim() : externalId).slice(0, 200) });
  };
  if (typeof v === 'string' || typeof v === 'number') add(v, v);
  else if (Array.isArray(v)) {
    for (const item of v) {
      if (item && typeof item === 'object') add((item as Claims).id ?? (item as Claims).name, (item as Claims).name);
      else add(item, item);
    }
  } else if (typeof v === 'object') {
    for (const [key, item] of Object.entries(v as Claims)) {
      add(key, item && typeof item === 'object' ? (item as Claims).name : undefined);
    }
  }
  return [...out.values()];
}

/** The person's name and email as the claims give them. */
export function personFields(claims: Claims): { name: string; first: string; last: string; email: string | null; emailVerified: boolean } {
  const str = (k: string) => (typeof claims[k] === 'string' ? (claims[k] as string).trim() : '');
  const email = str('email').toLowerCase() || null;
  let first = str('given_name');
  let last = str('family_name');
  const full = str('name') || `${first} ${last}`.trim() || str('preferred_username') || email || String(claims.sub);
  if (!first && !last) {
    const i = full.indexOf(' ');
    first = i > 0 ? full.slice(0, i) : full;
    last = i > 0 ? full.slice(i + 1) : '';
  }
  // some providers send "true" as a string
  const verified = claims.email_verified === true || claims.email_verified === 'true';
  return { name: full.slice(0, 200), first: first.slice(0, 100), last: last.slice(0, 100), email, emailVerified: verified };
}

/** The groups a claim lists (`groups`); Keycloak's full-path groups (`/ops/sre`) also count by their last segment. */
export function claimGroups(claims: Claims, path = 'groups'): string[] {
  const out = new Set<string>();
  for (const g of claimValues(claimAt(claims, path))) {
    out.add(g);
    if (g.startsWith('/')) out.add(g.slice(g.lastIndexOf('/') + 1));
  }
  return [...out];
}
