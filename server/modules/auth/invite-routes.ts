import type { FastifyPluginAsync } from 'fastify';
import { InviteUserRequest, RegistrationRequest } from '../../contracts/auth.js';
import { hashSecret, randomToken, sha256 } from '../../lib/crypto.js';
import { ApiError, BadRequestError, ConflictError } from '../../lib/errors.js';
import { parseBody } from '../../lib/validation.js';
import { lockInvite, markInviteAccepted, replaceInvite } from './invite-queries.js';
import { emailInUse, insertIdentity } from './queries.js';
import type { AuthRoutesOptions } from './session-routes.js';
import { signIn } from './sign-in.js';
import { enqueueMail, mailAvailable } from './courier/index.js';
import { inviteMail } from './courier/templates.js';
import { inTransaction } from '../../lib/tx.js';
import { notifyChange } from '../../lib/events.js';

const INVITE_TTL_DAYS = 7;

class GoneError extends ApiError {
  constructor(message: string) {
    super(410, 'gone', message);
  }
}

/** Invite links (admins) and registration through them (public). */
export const inviteRoutes: FastifyPluginAsync<AuthRoutesOptions> = async (app, { config }) => {
  app.post('/invite_user', { config: { access: { resource: 'identities', action: 'write' } } }, async (req) => {
    if (config.AUTH_MODE === 'oidc') {
      throw new ConflictError(`invites are not used in hosted mode (AUTH_MODE=oidc): people sign in with ${config.OIDC_DISPLAY_NAME}`);
    }
    const body = parseBody(InviteUserRequest, req.body);
    const token = randomToken(32);
    const expiresAt = await inTransaction(app.db, async (c) => {
      if (await emailInUse(c, body.email)) throw new ConflictError(`a user with email ${body.email} already exists`);
      const expires = await replaceInvite(c, {
        email: body.email, first: body.firstName, last: body.lastName, role: body.role,
        tokenHash: sha256(token), invitedBy: req.principal!.id, ttlDays: INVITE_TTL_DAYS,
      });
      await notifyChange(c, { relation: 'invites' });
      // with a mail server the invite also goes out by mail (the outbox; the leader sends it)
      if (await mailAvailable(c, config)) {
        await enqueueMail(c, config, inviteMail(body.email, body.firstName, `${config.publicUrl}/registration?invite=${token}`, expires));
      }
      return expires;
    });
    return { link: `${config.publicUrl}/registration?invite=${token}`, expires_at: expiresAt.toISOString() };
  });

  const limit = { max: config.LOGIN_RATE_LIMIT, timeWindow: 60_000 };
  app.post('/registration', { config: { access: 'public', rateLimit: limit } }, async (req, reply) => {
    const body = parseBody(RegistrationRequest, req.body);
    // hash before the transaction: argon2 takes a while and the invite row stays locked meanwhile
    const passwordHash = await hashSecret(body.password);
    const user = await inTransaction(app.db, async (c) => {
      const invite = await lockInvite(c, sha256(body.invite));
      if (!invite) throw new BadRequestError('invalid invite link');
      if (invite.accepted_at) throw new GoneError('this invite has already been used');
      if (invite.expires_at.getTime() <= Date.now()) throw new GoneError('this invite has expired; ask for a new one');
      if (await emailInUse(c, invite.email)) throw new ConflictError(`a user with email ${invite.email} already exists`);
      const first = invite.first_name ?? '';
      const last = invite.last_name ?? '';
      const id = await insertIdentity(c, { email: invite.email, first, last, passwordHash, roles: [invite.role] });
      await markInviteAccepted(c, invite.id);
      await notifyChange(c, { relation: 'identities', ids: [id] });
      await notifyChange(c, { relation: 'people', ids: [id] });
      await notifyChange(c, { relation: 'invites', ids: [invite.id] });
      return { id, name: `${first} ${last}`.trim(), email: invite.email, roles: [invite.role] };
    });
    return signIn(app.db, req, reply, config, user);
  });
};
