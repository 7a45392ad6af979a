import { hostname } from 'node:os';
import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../config.js';
import { LoginRequest, type Permission, type WhoamiResponse } from '../../contracts/auth.js';
import { can, featureStates, RESOURCES, type Action } from '../../contracts/rbac.js';
import { sha256 } from '../../lib/crypto.js';
import { BadRequestError, ForbiddenError, UnauthorizedError } from '../../lib/errors.js';
import { invalidatePrincipals, SESSION_COOKIE } from '../../plugins/auth.js';
import { clearSessionCookie } from './cookies.js';
import { parseBody } from '../../lib/validation.js';
import { deleteSessionByHash, getPerson, propertyMap } from './queries.js';
import { authenticate, signIn } from './sign-in.js';
import { activeOrganization, localLoginRefusal, oidcLogoutUrl } from './oidc/index.js';

export interface AuthRoutesOptions {
  config: Config;
}

const ACTIONS: Action[] = ['read', 'write'];

/** Login, logout, CSRF token and whoami. */
export const sessionRoutes: FastifyPluginAsync<AuthRoutesOptions> = async (app, { config }) => {
  const loginLimit = { max: config.LOGIN_RATE_LIMIT, timeWindow: 60_000 };

  app.post('/login', { config: { access: 'public', rateLimit: loginLimit } }, async (req, reply) => {
    const body = parseBody(LoginRequest, req.body);
    // hosted mode: the password form is for break-glass admins only (OIDC_LOCAL_LOGIN)
    const off = localLoginRefusal(config, null);
    if (off && config.OIDC_LOCAL_LOGIN === 'none') throw new ForbiddenError(off);
    const user = await authenticate(app.db, body.username, body.password);
    const refusal = localLoginRefusal(config, user.roles);
    if (refusal) throw new ForbiddenError(refusal);
    const answer = await signIn(app.db, req, reply, config, user, body.return_to);
    // a plain HTML form (no script) is sent on to where it came from
    const form = req.headers['content-type']?.startsWith('application/x-www-form-urlencoded');
    const accept = req.headers.accept ?? '';
    if (form && accept.includes('text/html') && !accept.includes('application/json')) {
      return reply.redirect(body.return_to ?? '/', 303);
    }
    return answer;
  });

  app.post('/logout', { config: { access: 'public' } }, async (req, reply) => {
    const cookie = req.cookies?.[SESSION_COOKIE];
    // hosted mode: the provider's end_session URL (RP-initiated logout), read before the session goes
    const logoutUrl = await oidcLogoutUrl(app.db, config, cookie);
    if (cookie) {
      await deleteSessionByHash(app.db, sha256(cookie));
      invalidatePrincipals();
    }
    clearSessionCookie(reply, config);
    return { message: 'logged out', ...(logoutUrl && { logout_url: logoutUrl }) };
  });

  app.get('/csrf', { config: { access: 'authenticated' } }, async (req) => {
    const p = req.principal!;
    if (p.via !== 'session') throw new BadRequestError('only browser sessions use a CSRF token');
    return { csrf_token: p.csrfToken! };
  });

  app.get('/whoami', { config: { access: 'authenticated' } }, async (req): Promise<WhoamiResponse> => {
    const p = req.principal!;
    const user = await getPerson(app.db, p.id);
    if (!user) throw new UnauthorizedError('error fetching user');
    const permissions: Permission[] = RESOURCES.flatMap((object) =>
      ACTIONS.filter((action) => can(p.roles, object, action)).map((action) => ({ subject: p.id, object, action })),
    );
    return {
      message: 'success',
      payload: {
        user, roles: p.roles, permissions, hostname: hostname(),
        // hosted mode: people come from the provider, so user administration is off
        features: { ...featureStates(await propertyMap(app.db)), ...(config.AUTH_MODE === 'oidc' && { 'settings.users': false }) },
        ...(config.AUTH_MODE === 'oidc' && { organization: await activeOrganization(app.db, p.id, p.sessionId) }),
      },
    };
  });
};
