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
  /** Session callers: the assurance level reached and when a factor was last proven (privileged window). */
  aal?: 'aal1' | 'aal2';
  authenticatedAt?: Date;
  /** Session callers at aal1 who must go further: 'aal2' (a second factor is enrolled), 'enrol' (auth.mfa.required). */
  assurance?: 'aal2' | 'enrol';
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
  interface FastifyInstance {
    /** Sessions end after this many minutes without use (SESSION_IDLE_MINUTES). */
    sessionIdleMinutes: number;
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

/** Forgets the cached principal of one session (by the SHA-256 of its cookie, i.e. its token_hash): a sign-in that
 * replaced or upgraded it. Other sessions and tokens keep theirs. */
export function forgetSessionPrincipal(tokenHash: string): void {
  cache.delete(`session:${tokenHash}`);
}

/** What assurance a person must reach (set by the sign-in flows module; without it every session counts as enough). */
type AssuranceResolver = (db: pg.Pool, personId: string) => Promise<'aal1' | 'aal2' | 'enrol'>;
let assuranceOf: AssuranceResolver | null = null;
export function setAssuranceResolver(fn: AssuranceResolver): void {
  assuranceOf = fn;
}

/** Routes a session that still owes a second factor may call: the flows themselves, logout; enrolment also whoami. */
function mayCallBeforeAal2(url: string, assurance: 'aal2' | 'enrol'): boolean {
  if (url.startsWith('/api/.ory/') || url.startsWith('/api/auth/logout')) return true;
  return assurance === 'enrol' && /^\/api\/auth\/(whoami|csrf)(\?|$)/.test(url);
}

function remember(key: string, principal: Principal | null) {
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(key, { principal, until: Date.now() + CACHE_TTL_MS });
}

async function sessionPrincipal(db: pg.Pool, token: string, idleMinutes: number): Promise<Principal | null> {
  const { rows } = await db.query(
    `UPDATE sessions s SET last_seen_at = now()
     FROM people p LEFT JOIN identities i ON i.id = p.id
     WHERE s.token_hash = $1 AND s.expires_at > now() AND s.last_seen_at > now() - make_interval(mins => $2)
       AND p.id = s.person_id AND p.deleted_at IS NULL AND coalesce(i.state, 'active') = 'active'
     RETURNING s.id AS session_id, s.aal, s.authenticated_at, p.id, p.name, p.email,
       s.methods @> '[{"method": "oidc"}]' AS via_provider,
       ARRAY(SELECT role FROM person_roles r WHERE r.person_id = p.id) AS roles`,
    [sha256(token), idleMinutes],
  );
  const r = rows[0];
  if (!r) return null;
  // a session from the hosted sign-in: the provider decides how many factors it asks for, not the local ones a
  // linked person may still have
  const need = r.aal === 'aal1' && !r.via_provider && assuranceOf ? await assuranceOf(db, r.id) : 'aal1';
  return {
    id: r.id, name: r.name, email: r.email, roles: effectiveRoles(r.roles), via: 'session',
    sessionId: r.session_id, csrfToken: csrfTokenFor(token), aal: r.aal, authenticatedAt: r.authenticated_at,
    ...(need !== 'aal1' && { assurance: need }),
  };
}

/** Access tokens look like `<token id without dashes>.<secret>`; only an argon2id hash of the secret is stored. */
export function parseAccessToken(token: string): { id: string; secret: string } | null {
  const m = /^([0-9a-f]{32})\.([A-Za-z0-9_-]{20,128})$/.exec(token);
  if (!m) return null;
  const h = m[1];
  return { id: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`, secret: m[2] };
}

// Token secrets already verified against their argon2id hash, by token id: {that hash, SHA-256 of the secret}. The
// principal cache is cleared at every logout and role change (a sign-in forgets only the session it replaces); without
// this, each API call after a clear would wait for an
// argon2 verification (~8 ms of a core, queued behind the sign-ins' own). The token row is still read every time, so
// a revoked, expired or re-generated token (another hash) is refused at once.
const verifiedTokens = new Map<string, { phc: string; digest: string }>();

async function verifiedSecret(id: string, phc: string, secret: string): Promise<boolean> {
  const digest = sha256(secret);
  const known = verifiedTokens.get(id);
  if (known && known.phc === phc && safeEqual(known.digest, digest)) return true;
  if (!(await verifySecret(phc, secret))) return false;
  if (verifiedTokens.size >= CACHE_MAX) verifiedTokens.delete(verifiedTokens.keys().next().value!);
  verifiedTokens.set(id, { phc, digest });
  return true;
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
  if (!r || !(await verifiedSecret(parsed.id, r.value, parsed.secret))) return null;
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

/** The path of a same-site page address (the Referer of an API call), else `/`. */
function safePath(referer: string): string {
  try {
    const u = new URL(referer);
    const path = `${u.pathname}${u.search}`;
    return /^\/(?![/\\])/.test(path) ? path : '/';
  } catch {
    return '/';
  }
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
  const idle = req.server?.sessionIdleMinutes ?? 720;
  const principal = cred.kind === 'session' ? await sessionPrincipal(db, cred.value, idle) : await tokenPrincipal(db, cred.value);
  remember(key, principal);
  return { principal, presented: true };
}

/**
 * Authenticates every request and enforces each route's declared access. Requires @fastify/cookie and the db
 * plugin to be registered first.
 */
export const authPlugin = fp<{ sessionIdleMinutes?: number }>(
  async (app, opts) => {
    app.decorate('sessionIdleMinutes', opts.sessionIdleMinutes ?? 720);
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
      // highest available assurance: a session still owing its second factor (or its enrolment) reaches nothing else
      if (principal.assurance && !mayCallBeforeAal2(req.url, principal.assurance)) {
        const here = req.headers.referer ? safePath(req.headers.referer) : '/';
        const enrol = principal.assurance === 'enrol';
        return reply.status(403).type('application/json; charset=utf-8').send({
          error: {
            id: 'session_aal2_required', code: 403, status: 'Forbidden',
            reason: enrol ? 'Set up a second factor in your profile settings.' : 'Please complete the second authentication challenge.',
            message: enrol
              ? 'Two-factor authentication is required: set up an authenticator app, a security key or a passkey first.'
              : 'An active session was found but it does not fulfill the Authenticator Assurance Level, implying that the session must (re-)authenticate using a second factor.',
            ...(enrol && { details: { enrolment_required: true } }),
          },
          redirect_browser_to: enrol ? '/profile-settings' : `/login?aal=aal2&return_to=${encodeURIComponent(here)}`,
        });
      }
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
