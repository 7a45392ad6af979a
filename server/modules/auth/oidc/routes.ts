import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import * as oidc from 'openid-client';
import type { Config } from '../../../config.js';
import { ReturnTo } from '../../../contracts/auth.js';
import { randomToken, safeEqual, sha256 } from '../../../lib/crypto.js';
import { secretsKey, sealSecret } from '../../../lib/secret-box.js';
import { inTransaction } from '../../../lib/tx.js';
import { invalidatePrincipals, SESSION_COOKIE } from '../../../plugins/auth.js';
import { setSessionCookie } from '../cookies.js';
import { recordAuthEvent } from '../events.js';
import { createSession } from '../sessions.js';
import type { OidcClient } from './client.js';
import { insertAuthRequest, markOidcSession, takeAuthRequest } from './queries.js';
import type { RoleMapper } from './role-mapping.js';
import { OidcSignInRefused, syncPerson } from './sign-in.js';

/** A sign-in started at /api/auth/oidc/login must come back within this many minutes. */
export const AUTH_REQUEST_MINUTES = 10;
/** The state also travels in this cookie, so a callback only completes in the browser that started it. */
const STATE_COOKIE = 'oidc_state';
/** Errors a `prompt=none` attempt gets when the provider would have to ask the user: no message, just /login. */
const QUIET_ERRORS = new Set(['login_required', 'interaction_required', 'consent_required', 'account_selection_required']);

export interface OidcRoutesOptions {
  config: Config;
  client: OidcClient;
  mapper: RoleMapper;
}

/** GET /api/auth/oidc/login and /callback: the authorization code flow with PKCE, state and nonce kept server-side. */
export const oidcRoutes: FastifyPluginAsync<OidcRoutesOptions> = async (app, { config, client, mapper }) => {
  const name = client.displayName;
  const cookieOpts = { httpOnly: true, sameSite: 'lax' as const, path: '/api/auth/oidc', secure: config.publicUrl.startsWith('https:') };

  /** Back to /login with a message naming the provider and the way out (the local sign-in, where allowed). */
  const fail = (reply: FastifyReply, what: string, returnTo?: string | null) => {
    const local = config.OIDC_LOCAL_LOGIN === 'none' ? '' : config.OIDC_LOCAL_LOGIN === 'admins'
      ? ' Administrators can use the local sign-in below.' : ' You can use the local sign-in below.';
    const q = new URLSearchParams({ oidc_error: `Sign-in with ${name} failed: ${what}.${local}` });
    if (returnTo) q.set('return_to', returnTo);
    reply.clearCookie(STATE_COOKIE, cookieOpts);
    return reply.redirect(`/login?${q}`, 303);
  };

  app.get('/login', { config: { access: 'public' } }, async (req, reply) => {
    const q = req.query as Record<string, string | undefined>;
    const parsed = ReturnTo.safeParse(q.return_to);
    const returnTo = parsed.success ? parsed.data : null;
    const promptNone = q.prompt === 'none';
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    if (!(await client.reachable())) return fail(reply, `${name} is not reachable`, returnTo);
    let url: URL;
    try {
      url = await client.authorizationUrl({ state, nonce, codeChallenge: await oidc.calculatePKCECodeChallenge(codeVerifier), promptNone });
    } catch (err) {
      req.log.warn({ err: errText(err) }, 'oidc: provider discovery failed');
      return fail(reply, `${name} is not reachable`, returnTo);
    }
    await insertAuthRequest(app.db, { stateHash: sha256(state), nonce, codeVerifier, returnTo, promptNone, minutes: AUTH_REQUEST_MINUTES });
    reply.setCookie(STATE_COOKIE, state, { ...cookieOpts, maxAge: AUTH_REQUEST_MINUTES * 60 });
    return reply.redirect(url.href, 302);
  });

  app.get('/callback', { config: { access: 'public' } }, async (req, reply) => {
    const q = req.query as Record<string, string | undefined>;
    const state = typeof q.state === 'string' ? q.state : '';
    const request = state ? await takeAuthRequest(app.db, sha256(state)) : null;
    const refuse = async (what: string, reason: string, returnTo?: string | null) => {
      await recordAuthEvent(app.db, req, { personId: null, type: 'login_failed', method: 'oidc', success: false, details: { provider: name, reason } });
      return fail(reply, what, returnTo);
    };
    if (!request) return refuse('the sign-in answer is unknown or was already used; please sign in again', 'unknown_state');
    const cookie = req.cookies?.[STATE_COOKIE];
    if (!cookie || !safeEqual(cookie, state)) {
      return refuse('the sign-in was started in another browser or tab; please sign in again', 'state_cookie_mismatch', request.return_to);
    }
    if (request.expired) return refuse('the sign-in took too long; please sign in again', 'expired_state', request.return_to);
    if (request.prompt_none && q.error && QUIET_ERRORS.has(q.error)) {
      reply.clearCookie(STATE_COOKIE, cookieOpts);
      return reply.redirect(`/login?${new URLSearchParams({ return_to: request.return_to ?? '/' })}`, 303);
    }
    let result: Awaited<ReturnType<OidcClient['finish']>>;
    try {
      const current = new URL(req.url, config.publicUrl);
      result = await client.finish(current, { state, nonce: request.nonce, codeVerifier: request.code_verifier });
    } catch (err) {
      const { what, reason } = describe(err, name);
      req.log.warn({ err: errText(err), reason }, 'oidc: sign-in failed');
      return refuse(what, reason, request.return_to);
    }
    let synced;
    try {
      synced = await inTransaction(app.db, async (c) => {
        const s = await syncPerson(c, result.claims, { mapper, orgClaim: config.OIDC_ORG_CLAIM, providerName: name });
        const previous = req.cookies?.[SESSION_COOKIE];
        if (previous) await c.query('DELETE FROM sessions WHERE token_hash = $1', [sha256(previous)]);
        const session = await createSession(c, s.personId, config.SESSION_TTL_HOURS, { ip: req.ip, userAgent: req.headers['user-agent'] });
        const { rows } = await c.query<{ id: string }>('SELECT id FROM sessions WHERE token_hash = $1', [sha256(session.token)]);
        const sealed = result.idToken ? sealSecret(result.idToken, secretsKey(config)) : null;
        await markOidcSession(c, {
          sessionId: rows[0].id, organizationId: s.active?.id ?? null, idTokenSealed: sealed, orgClaimPresent: s.orgsInUse, provider: name,
        });
        return { ...s, session, sessionId: rows[0].id };
      });
    } catch (err) {
      if (err instanceof OidcSignInRefused) return refuse(err.message, 'refused', request.return_to);
      throw err;
    }
    invalidatePrincipals();
    await recordAuthEvent(app.db, req, {
      personId: synced.personId, sessionId: synced.sessionId, type: 'oidc_login', method: 'oidc', aal: 'aal1',
      details: { provider: name, created: synced.created, linked: synced.linked, organization: synced.active?.name ?? null },
    });
    setSessionCookie(reply, config, synced.session.token);
    reply.clearCookie(STATE_COOKIE, cookieOpts);
    return reply.redirect(request.return_to ?? '/', 303);
  });
};

/** The user's words for a failed exchange, and a short reason for the activity log. */
function describe(err: unknown, name: string): { what: string; reason: string } {
  if (err instanceof oidc.AuthorizationResponseError) {
    if (err.error === 'access_denied') return { what: `${name} denied the sign-in`, reason: err.error };
    return { what: `${name} answered "${err.error_description ?? err.error}"`, reason: err.error };
  }
  if (err instanceof oidc.ResponseBodyError) {
    if (err.error === 'invalid_grant') return { what: 'the sign-in code was already used or has expired; please sign in again', reason: err.error };
    return { what: `${name} refused the sign-in code (${err.error})`, reason: err.error };
  }
  const e = err as { code?: string; name?: string; cause?: { code?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return { what: `${name} did not answer in time`, reason: 'timeout' };
  // fetch failed: connection refused, reset, unknown host
  if (err instanceof TypeError) return { what: `${name} is not reachable`, reason: 'unreachable' };
  // openid-client's checks: signature, issuer, audience, nonce, expiry of the id_token
  if (e?.code?.startsWith('OAUTH_') || e?.code?.startsWith('ERR_JW')) {
    return { what: `${name} sent an answer that failed verification (${e.code})`, reason: e.code };
  }
  return { what: `${name} could not complete the sign-in`, reason: 'error' };
}

function errText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
