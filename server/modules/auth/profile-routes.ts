import type { FastifyPluginAsync } from 'fastify';
import { ChangePasswordRequest, UpdateProfileRequest, type UpdateProfileResponse } from '../../contracts/auth.js';
import { hashSecret, verifySecret } from '../../lib/crypto.js';
import { BadRequestError, ConflictError, ForbiddenError } from '../../lib/errors.js';
import { notifyChange } from '../../lib/events.js';
import { inTransaction } from '../../lib/tx.js';
import { parseBody } from '../../lib/validation.js';
import { invalidatePrincipals } from '../../plugins/auth.js';
import { deleteOtherSessions, getPasswordHash, replacePasswordHash, setIdentityName } from './profile-queries.js';
import type { AuthRoutesOptions } from './session-routes.js';

/** Your Profile: change your own password and name. */
export const profileRoutes: FastifyPluginAsync<AuthRoutesOptions> = async (app, { config }) => {
  // guessing the current password from a stolen session costs as much as guessing it at the login form
  const limit = { max: config.LOGIN_RATE_LIMIT, timeWindow: 60_000 };

  app.post('/password', { config: { access: 'authenticated', rateLimit: limit } }, async (req) => {
    const p = req.principal!;
    // a token carries no password of its own, and one leaked must not be able to take the account over
    if (p.via !== 'session') throw new ForbiddenError('access tokens cannot change passwords; sign in to change yours');
    const body = parseBody(ChangePasswordRequest, req.body);
    const current = await getPasswordHash(app.db, p.id);
    if (!current) throw new BadRequestError('this account has no password to change');
    if (!(await verifySecret(current, body.current_password))) throw new BadRequestError('current password is incorrect');
    const next = await hashSecret(body.new_password);
    const ended = await inTransaction(app.db, async (c) => {
      if (!(await replacePasswordHash(c, p.id, current, next))) {
        throw new ConflictError('the password was changed meanwhile; try again');
      }
      // whoever else holds a session (another browser, a thief) signs in again; this browser stays signed in
      return deleteOtherSessions(c, p.id, p.sessionId!);
    });
    invalidatePrincipals();
    req.log.info({ person: p.id, endedSessions: ended }, 'password changed');
    return { message: 'success' };
  });

  app.patch('/profile', { config: { access: 'authenticated' } }, async (req): Promise<UpdateProfileResponse> => {
    const p = req.principal!;
    const body = parseBody(UpdateProfileRequest, req.body);
    const user = await inTransaction(app.db, async (c) => {
      const updated = await setIdentityName(c, p.id, body.firstName, body.lastName);
      if (!updated) return null;
      await notifyChange(c, { relation: 'identities', ids: [p.id] });
      await notifyChange(c, { relation: 'people', ids: [p.id] });
      return updated;
    });
    if (!user) throw new BadRequestError('only users who sign in with a password have a profile to edit');
    invalidatePrincipals(); // cached principals carry the old name
    return { message: 'success', payload: { user } };
  });
};
