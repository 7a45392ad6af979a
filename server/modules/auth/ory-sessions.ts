import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { safeEqual, sha256 } from '../../lib/crypto.js';
import { notifyChange } from '../../lib/events.js';
import { invalidatePrincipals, SESSION_COOKIE } from '../../plugins/auth.js';
import { clearSessionCookie } from './cookies.js';
import { recordAuthEvent } from './events.js';
import { callerSession } from './flows/engine.js';
import { aal2Required, csrfViolation, KratosError, sessionInactive } from './flows/errors.js';
import { deleteOwnSession, deletePersonSessions, selectIdentity, selectPersonSessions, selectSession } from './flows/queries.js';
import { checkReturnTo } from './flows/return-to.js';
import { toIdentity, toKratosSession } from './flows/store.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The logout token of a session: derived from its cookie, so only that browser can sign itself out with it. */
export const logoutTokenFor = (sessionToken: string) => sha256(`logout:${sessionToken}`);

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
    const [row, identity] = await Promise.all([selectSession(app.db, s.id), selectIdentity(app.db, s.personId)]);
    if (!row || !identity) throw sessionInactive();
    return toKratosSession(row, toIdentity(config, identity));
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
