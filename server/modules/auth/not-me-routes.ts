import type { FastifyPluginAsync } from 'fastify';
import { ForbiddenError } from '../../lib/errors.js';
import { inTransaction } from '../../lib/tx.js';
import { clearSessionCookie } from './cookies.js';
import { recordAuthEvent } from './events.js';
import { deleteAllSessions, hasVerifiedAddress, removePassword } from './not-me-queries.js';
import { sessionsEnded } from './ory-sessions.js';
import type { AuthRoutesOptions } from './session-routes.js';

/** What POST /api/auth/not-me did. */
export interface NotMeResponse {
  message: string;
  /** Sessions ended, the caller's included. */
  sessions_ended: number;
  /** The password was removed: the next sign-in goes through account recovery (a new password). */
  password_reset_required: boolean;
}

/**
 * "This wasn't me" (Your Profile → Sign-in activity): ends every session of the caller, this one too, and records a
 * `not_me` event. When account recovery can reach them (mail is set up and an address is verified) their password is
 * removed as well, so whoever knew it cannot sign in again and they choose a new one through recovery; otherwise the
 * password stays (removing it would lock them out) and they are told to change it after signing in.
 */
export const notMeRoutes: FastifyPluginAsync<AuthRoutesOptions> = async (app, { config }) => {
  app.post('/not-me', { config: { access: 'authenticated' } }, async (req, reply): Promise<NotMeResponse> => {
    const p = req.principal!;
    // a leaked access token must not be able to lock its owner out
    if (p.via !== 'session') throw new ForbiddenError('only a signed-in browser can report this; access tokens cannot');
    const recoverable = Boolean(config.SMTP_HOST) && (await hasVerifiedAddress(app.db, p.id));
    const result = await inTransaction(app.db, async (c) => {
      const removed = recoverable ? await removePassword(c, p.id) : false;
      const ended = await deleteAllSessions(c, p.id);
      await recordAuthEvent(c, req, {
        personId: p.id, sessionId: p.sessionId, type: 'not_me', aal: p.aal ?? null,
        details: { sessions_ended: ended, password_removed: removed },
      });
      return { ended, removed };
    });
    await sessionsEnded(app.db);
    clearSessionCookie(reply, config);
    req.log.warn({ person: p.id, endedSessions: result.ended, passwordRemoved: result.removed }, 'sign-in activity reported as not theirs');
    return {
      message: result.removed
        ? 'Every session ended. Choose a new password through "Forgot your password?" to sign in again.'
        : 'Every session ended. Sign in again and change your password.',
      sessions_ended: result.ended,
      password_reset_required: result.removed,
    };
  });
};
