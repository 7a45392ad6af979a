import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import type pg from 'pg';
import { can, effectiveRoles, type Action, type Resource, type Role } from '../contracts/rbac.js';
import { ForbiddenError, UnauthorizedError } from '../lib/errors.js';
import { safeEqual, sha256, verifySecret } from '../lib/crypto.js';
import { kubeproxyPathToken } from '../lib/kubeproxy-path.js';

/** Who is calling. Tokens act with the roles of the person who created them. */
export interface Principal {
  id: string;
  name: string;
  email: string | null;
  roles: Role[];
  via: 'session' | 'token';
  /** The session row id, for session callers (logout deletes it). */
  sessionId?: string;
  /** The CSRF token cookie-authenticated writes must echo in X-CSRF-Token. */
  csrfToken?: string;
  /** For token callers: the person who created the token (whose roles it carries). */
  ownerId?: string;
  /** For an agent's token (its person is of type `agent`): the agent. Such a principal has no roles. */
  agentId?: string;
  agentName?: string;
}

/**
 * What a route requires; every /api route must declare one (checked when routes are registered). `agent`: an agent's
 * token only (/api/upstream/*); an agent's token is refused (403) by every other non-public route.
 */
export type Access = 'public' | 'authenticated' | 'custom' | 'agent' | { resource: Resource; action: Action };

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** True when the caller's roles grant the action on the resource. */
    can(resource: Resource, action: Action): boolean;
  }
  interface FastifyContextConfig {
    access?: Access;
  }
}

export const SESSION_COOKIE = 'session';
const CACHE_TTL_MS = 5_000;
const CACHE_MAX = 10_000;
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The CSRF token of a session: derived from its secret cookie value, so nothing extra is stored. */
export function csrfTokenFor(sessionToken: string): string {
  return sha256(`csrf:${sessionToken}`);
}

// Principals by credential hash for a few seconds, so a burst of API calls costs one lookup. Logout, role changes
// and deactivation call invalidatePrincipals(); other replicas see such changes within CACHE_TTL_MS.
const cache = new Map<string, { principal: Principal | null; until: number }>();

export function invalidatePrincipals(): void {
  cache.clear();
}

function remember(key: string, principal: Principal | null) {
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(key, { principal, until: Date.now() + CACHE_TTL_MS });
}

async function sessionPrincipal(db: pg.Pool, token: string): Promise<Principal | null> {
  const { rows } = await db.query(
    `UPDATE sessions s SET last_seen_at = now()
     FROM people p LEFT JOIN identities i ON i.id = p.id
     WHERE s.token_hash = $1 AND s.expires_at > now() AND p.id = s.person_id AND p.deleted_at IS NULL
       AND coalesce(i.state, 'active') = 'active'
     RETURNING s.id AS session_id, p.id, p.name, p.email,
       ARRAY(SELECT role FROM person_roles r WHERE r.person_id = p.id) AS roles`,
    [sha256(token)],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    id: r.id, name: r.name, email: r.email, roles: effectiveRoles(r.roles), via: 'session',
    sessionId: r.session_id, csrfToken: csrfTokenFor(token),
  };
}

/** Access tokens look like `<token id without dashes>.<secret>`; only an argon2id hash of the secret is stored. */
export function parseAccessToken(token: string): { id: string; secret: string } | null {
  const m = /^([0-9a-f]{32})\.([A-Za-z0-9_-]{20,128})$/.exec(token);
  if (!m) return null;
  const h = m[1];
  return { id: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`, secret: m[2] };
}

async function tokenPrincipal(db: pg.Pool, token: string): Promise<Principal | null> {
  const parsed = parseAccessToken(token);
  if (!parsed) return null;
  // A token acts with its creator's roles, so it dies with its creator: a deleted or deactivated owner (or holder)
  // disables it.
  // An agent's token (person of type `agent`) lives with its live agent row, not with whoever generated it.
  const { rows } = await db.query(
    `SELECT t.value, t.created_by, p.id, p.name, p.email, p.type, ag.id AS agent_id, ag.name AS agent_name,
       ARRAY(SELECT role FROM person_roles r WHERE r.person_id IN (t.person_id, t.created_by)) AS roles,
       (t.auto_renew AND t.renew_interval IS NOT NULL AND t.expires_at < now() + t.renew_interval / 2) AS renew
     FROM access_tokens t JOIN people p ON p.id = t.person_id
     LEFT JOIN people owner ON owner.id = t.created_by
     LEFT JOIN identities oi ON oi.id = t.created_by
     LEFT JOIN identities pi ON pi.id = t.person_id
     LEFT JOIN agents ag ON p.type = 'agent' AND ag.person_id = p.id AND ag.deleted_at IS NULL
     WHERE t.id = $1 AND (t.expires_at IS NULL OR t.expires_at > now()) AND p.deleted_at IS NULL
       AND (p.type = 'agent' OR (owner.deleted_at IS NULL AND coalesce(oi.state, 'active') = 'active'))
       AND coalesce(pi.state, 'active') = 'active'`,
    [parsed.id],
  );
  const r = rows[0];
  if (!r || !(await verifySecret(r.value, parsed.secret))) return null;
  if (r.type === 'agent') {
    if (!r.agent_id) return null; // its agent was deleted
    return { id: r.id, name: r.name, email: r.email, roles: [], via: 'token', agentId: r.agent_id, agentName: r.agent_name };
  }
  if (r.renew) {
    // auto_renew: a token in the second half of its lifetime gets a full lifetime again
    await db.query('UPDATE access_tokens SET expires_at = now() + renew_interval WHERE id = $1', [parsed.id]);
  }
  return {
    id: r.id, name: r.name, email: r.email, roles: effectiveRoles(r.roles), via: 'token', ownerId: r.created_by ?? undefined,
  };
}

/** Finds the bearer/basic token or session cookie of a request, if any. */
function credentials(req: FastifyRequest): { kind: 'token' | 'session'; value: string } | null {
  const header = req.headers.authorization;
  if (header) {
    const [scheme, rest = ''] = header.split(' ', 2);
    if (/^bearer$/i.test(scheme)) return { kind: 'token', value: rest.trim() };
    if (/^basic$/i.test(scheme)) {
      const decoded = Buffer.from(rest.trim(), 'base64').toString('utf8');
      const i = decoded.indexOf(':');
      if (i > 0 && decoded.slice(0, i) === 'token') return { kind: 'token', value: decoded.slice(i + 1) };
      return { kind: 'token', value: '' }; // Basic with a password is not accepted: fails as a bad token
    }
  }
  // kubectl over plain http sends no credentials, so its kubeconfig carries the token in the URL (kubeproxy-path.ts)
  const inPath = kubeproxyPathToken(req.url);
  if (inPath !== null) return { kind: 'token', value: inPath };
  const cookie = req.cookies?.[SESSION_COOKIE];
  return cookie ? { kind: 'session', value: cookie } : null;
}

/** Resolves the caller of a request (cached briefly by credential hash). */
export async function resolvePrincipal(
  db: pg.Pool, req: FastifyRequest, opts: { fresh?: boolean } = {},
): Promise<{ principal: Principal | null; presented: boolean }> {
  const cred = credentials(req);
  if (!cred) return { principal: null, presented: false };
  const key = `${cred.kind}:${sha256(cred.value)}`;
  const hit = opts.fresh ? undefined : cache.get(key);
  if (hit && hit.until > Date.now()) return { principal: hit.principal, presented: true };
  const principal = cred.kind === 'session' ? await sessionPrincipal(db, cred.value) : await tokenPrincipal(db, cred.value);
  remember(key, principal);
  return { principal, presented: true };
}

/**
 * Authenticates every request and enforces each route's declared access. Requires @fastify/cookie and the db
 * plugin to be registered first.
 */
export const authPlugin = fp(
  async (app) => {
    app.decorateRequest('principal', null);
    app.decorateRequest('can', function (this: FastifyRequest, resource: Resource, action: Action) {
      return this.principal !== null && !this.principal.agentId && can(this.principal.roles, resource, action);
    });

    app.addHook('onRoute', (route) => {
      if (route.url.startsWith('/api') && route.config?.access === undefined) {
        throw new Error(`route ${route.method} ${route.url} does not declare config.access`);
      }
    });

    app.addHook('onRequest', async (req, reply) => {
      const access = req.routeOptions.config?.access;
      const { principal, presented } = await resolvePrincipal(app.db, req);
      req.principal = principal;
      if (access === undefined || access === 'public') return;
      if (!principal) {
        throw new UnauthorizedError(presented ? 'invalid or expired credentials' : 'not logged in');
      }
      // agent tokens are for /api/upstream/* alone, and only they are
      if ((access === 'agent') !== Boolean(principal.agentId)) {
        throw new ForbiddenError(access === 'agent' ? 'an agent token is required' : 'agent tokens are valid on /api/upstream/* only');
      }
      if (principal.via === 'session' && UNSAFE.has(req.method)) {
        const sent = req.headers['x-csrf-token'];
        if (typeof sent !== 'string' || !safeEqual(sent, principal.csrfToken!)) {
          throw new ForbiddenError('missing or invalid CSRF token (send X-CSRF-Token)');
        }
      }
      if (typeof access === 'object' && !can(principal.roles, access.resource, access.action)) {
        reply.header('X-Rbac-Subject', principal.id).header('X-Rbac-Object', access.resource);
        reply.header('X-Rbac-Action', access.action);
        throw new ForbiddenError();
      }
    });
  },
  { name: 'auth', dependencies: ['db'] },
);
