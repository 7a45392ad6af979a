import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsync } from 'fastify';
import { ApiError } from '../../lib/errors.js';
import { inviteRoutes } from './invite-routes.js';
import { notMeRoutes } from './not-me-routes.js';
import { profileRoutes } from './profile-routes.js';
import { sessionRoutes, type AuthRoutesOptions } from './session-routes.js';
import { tokenRoutes } from './token-routes.js';

/** Everything under /api/auth that concerns signing in: sessions, access tokens, invites, your own profile. */
export const authRoutes: FastifyPluginAsync<AuthRoutesOptions & { invites?: boolean }> = async (app, { config, invites = true }) => {
  // the login form may be a plain HTML form post
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  // Per client address and per replica (in memory); only routes with config.rateLimit are limited.
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_req, ctx) =>
      new ApiError(429, 'rate_limited', `too many attempts, retry in ${ctx.after}`),
  });
  // not the whole options object: it carries this plugin's prefix, which would apply twice
  await app.register(sessionRoutes, { config });
  await app.register(tokenRoutes, { config });
  // invitations and self-registration belong to the console (people administration); the check runner has none
  if (invites) await app.register(inviteRoutes, { config });
  await app.register(profileRoutes, { config });
  await app.register(notMeRoutes, { config }); // POST /api/auth/not-me (This wasn't me)
};
