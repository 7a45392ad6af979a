import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { Config } from '../../config.js';
import { safeEqual, sha256 } from '../../lib/crypto.js';
import { notifyChange } from '../../lib/events.js';
import { invalidatePrincipals, SESSION_COOKIE } from '../../plugins/auth.js';
import { clearSessionCookie } from './cookies.js';
import { recordAuthEvent } from './events.js';
import { callerSession } from './flows/engine.js';
import { aal2Required, csrfViolation, KratosError, sessionInactive } from './flows/errors.js';
import {
  deleteOwnSession, deletePersonSessions, selectPersonSessions, type IdentityRow, type SessionRow,
} from './flows/queries.js';
import { checkReturnTo } from './flows/return-to.js';
import { toIdentity, toKratosSession } from './flows/store.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The logout token of a session: derived from its cookie, so only that browser can sign itself out with it. */
export const logoutTokenFor = (sessionToken: string) => sha256(`logout:${sessionToken}`);

const WHOAMI_SQL = `SELECT s.id, s.person_id, s.created_at, s.last_seen_at, s.expires_at, s.ip, s.user_agent, s.aal,
    s.authenticated_at, s.methods, s.organization_id,
    i.traits, i.state, i.created_at AS identity_created_at, i.updated_at AS identity_updated_at,
    coalesce((SELECT json_agg(json_build_object('id', a.id, 'value', a.value, 'verified', a.verified, 'status', a.status,
      'verified_at', a.verified_at, 'created_at', a.created_at, 'updated_at', a.updated_at) ORDER BY a.created_at)
      FROM identity_verifiable_addresses a WHERE a.person_id = i.id), '[]') AS addresses
  FROM sessions s JOIN identities i ON i.id = s.person_id JOIN people p ON p.id = i.id
  WHERE s.id = $1 AND s.person_id = $2 AND p.deleted_at IS NULL`;

/** whoami's session and identity in one query (the hot path: a tab polls it); null when the session is gone. */
export async function selectWhoami(
  db: pg.Pool, sessionId: string, personId: string,
): Promise<{ session: SessionRow; identity: IdentityRow } | null> {
  const { rows } = await db.query({ name: 'auth-whoami', text: WHOAMI_SQL, values: [sessionId, personId] });
  const r = rows[0];
  if (!r) return null;
  return {
    session: {
      id: r.id, person_id: r.person_id, created_at: r.created_at, last_seen_at: r.last_seen_at, expires_at: r.expires_at,
      ip: r.ip, user_agent: r.user_agent, aal: r.aal, authenticated_at: r.authenticated_at, methods: r.methods,
      organization_id: r.organization_id,
    },
    identity: {
      id: r.person_id, traits: r.traits, state: r.state, created_at: r.identity_created_at, updated_at: r.identity_updated_at,
      addresses: r.addresses,
    },
  };
}

/** Ends sessions' live connections and cached principals on every replica. */
export async function sessionsEnded(db: Parameters<typeof notifyChange>[0], ids?: string[]): Promise<void> {
  invalidatePrincipals();
  await notifyChange(db, { relation: 'sessions', ...(ids && { ids }) }).catch(() => undefined);
}

/** Kratos' session routes: whoami, your sessions (list, revoke, sign out everywhere else), logout. */
export const orySessionRoutes: FastifyPluginAsync<{ config: Config }> = async (app, { config }) => {
  /** The caller's browser session, else 401 session_inactive. Unsafe methods must echo X-CSRF-Token. */
  function own(req: FastifyRequest) {
    const s = callerSession(req);
    if (!s) throw sessionInactive();
    if (req.method !== 'GET') {
      const sent = req.headers['x-csrf-token'];
      if (typeof sent !== 'string' || !safeEqual(sent, req.principal!.csrfToken!)) throw csrfViolation();
    }
    return s;
  }

  app.get<{ Querystring: { return_to?: string } }>('/sessions/whoami', { config: { access: 'public' } }, async (req) => {
    const s = own(req);
    // the principal (cached a few seconds) already knows whether this session owes its second factor
    if (s.aal === 'aal1' && req.principal!.assurance === 'aal2') {
      let back = '/';
      try {
        back = checkReturnTo(config, req.query.return_to) ?? '/';
      } catch { /* a foreign return_to falls back to home */ }
      throw aal2Required(back);
    }
    // one round trip (a named, prepared statement): the session row, read every time so a revocation on any replica
    // answers 401 at once, with its identity
    const found = await selectWhoami(app.db, s.id, s.personId);
    if (!found) throw sessionInactive();
    return toKratosSession(found.session, toIdentity(config, found.identity));
  });

  app.get('/sessions', { config: { access: 'public' } }, async (req) => {
    const s = own(req);
    const rows = await selectPersonSessions(app.db, s.personId, config.SESSION_IDLE_MINUTES, s.id);
    return rows.map((r) => toKratosSession(r));
  });

  app.delete('/sessions', { config: { access: 'public' } }, async (req) => {
    const s = own(req);
    const count = await deletePersonSessions(app.db, s.personId, s.id);
    await sessionsEnded(app.db);
    await recordAuthEvent(app.db, req, { personId: s.personId, sessionId: s.id, type: 'session_revoked', details: { others: count } });
    return { count };
  });

  app.delete<{ Params: { id: string } }>('/sessions/:id', { config: { access: 'public' } }, async (req, reply) => {
    const s = own(req);
    const { id } = req.params;
    if (!UUID.test(id)) throw new KratosError(404, undefined, 'Unable to locate the resource');
    if (id === s.id) throw new KratosError(400, undefined, 'Use the logout flow to end the current session.');
    if (!(await deleteOwnSession(app.db, s.personId, id))) throw new KratosError(404, undefined, 'Unable to locate the resource');
    await sessionsEnded(app.db, [id]);
    await recordAuthEvent(app.db, req, { personId: s.personId, sessionId: s.id, type: 'session_revoked', details: { session: id } });
    return reply.status(204).send();
  });

  app.get<{ Querystring: { return_to?: string } }>('/self-service/logout/browser', { config: { access: 'public' } }, async (req) => {
    const cookie = req.cookies?.[SESSION_COOKIE];
    if (!callerSession(req) || !cookie) throw sessionInactive();
    const returnTo = checkReturnTo(config, req.query.return_to);
    const token = logoutTokenFor(cookie);
    const url = `${config.publicUrl}/api/.ory/self-service/logout?token=${token}${returnTo ? `&return_to=${encodeURIComponent(returnTo)}` : ''}`;
    return { logout_url: url, logout_token: token };
  });

  app.get<{ Querystring: { token?: string; return_to?: string } }>('/self-service/logout', { config: { access: 'public' } }, async (req, reply) => {
    const returnTo = checkReturnTo(config, req.query.return_to);
    const cookie = req.cookies?.[SESSION_COOKIE];
    const s = callerSession(req);
    if (!cookie || !s) {
      clearSessionCookie(reply, config);
      return reply.redirect(returnTo ?? '/login', 303);
    }
    if (typeof req.query.token !== 'string' || !safeEqual(req.query.token, logoutTokenFor(cookie))) {
      throw new KratosError(401, undefined, 'Unable to log out because the logout token in the URL query does not match the session cookie.');
    }
    await app.db.query('DELETE FROM sessions WHERE id = $1', [s.id]);
    await sessionsEnded(app.db, [s.id]);
    clearSessionCookie(reply, config);
    await recordAuthEvent(app.db, req, { personId: s.personId, sessionId: s.id, type: 'logout' });
    if ((req.headers.accept ?? '').includes('application/json')) return reply.status(204).send();
    return reply.redirect(returnTo ?? '/login', 303);
  });
};
