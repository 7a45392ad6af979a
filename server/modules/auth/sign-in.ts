import type { FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { Config } from '../../config.js';
import type { LoginResponse, SessionUser } from '../../contracts/auth.js';
import { effectiveRoles } from '../../contracts/rbac.js';
import { hashSecret, sha256, verifySecret } from '../../lib/crypto.js';
import { UnauthorizedError } from '../../lib/errors.js';
import { forgetSessionPrincipal, SESSION_COOKIE } from '../../plugins/auth.js';
import { setSessionCookie } from './cookies.js';
import { deleteSessionByHash, findLoginCandidates, touchLastLogin } from './queries.js';
import { createSession } from './sessions.js';

// Unknown usernames still cost one argon2 verification, so response time does not reveal which accounts exist.
let dummyHash: Promise<string> | undefined;

/** The person whose email or name and password match, active and not deleted; else 401 "invalid credentials". */
export async function authenticate(db: pg.Pool, username: string, password: string): Promise<SessionUser & { roles: string[] }> {
  const candidates = await findLoginCandidates(db, username);
  if (candidates.length === 0) {
    await verifySecret(await (dummyHash ??= hashSecret('not a password')), password);
  }
  for (const c of candidates) {
    if (await verifySecret(c.password_hash, password)) {
      // an inactive user learns nothing more than a wrong password would tell
      if (c.state !== 'active') break;
      return { id: c.id, name: c.name, email: c.email, roles: c.roles };
    }
  }
  throw new UnauthorizedError('invalid credentials');
}

/**
 * Opens a session for the person (in the caller's transaction when given a client), replaces any session the
 * browser already had, sets the cookie and builds the login answer.
 */
export async function signIn(
  db: pg.Pool | pg.PoolClient,
  req: FastifyRequest,
  reply: FastifyReply,
  config: Config,
  user: SessionUser & { roles: string[] },
  returnTo?: string,
): Promise<LoginResponse> {
  const previous = req.cookies?.[SESSION_COOKIE];
  if (previous) {
    await deleteSessionByHash(db, sha256(previous));
    forgetSessionPrincipal(sha256(previous)); // that session's alone: other callers keep their cached principals
  }
  const session = await createSession(db, user.id, config.SESSION_TTL_HOURS, {
    ip: req.ip, userAgent: req.headers['user-agent'],
  });
  await touchLastLogin(db, user.id);
  setSessionCookie(reply, config, session.token);
  return {
    message: 'success',
    csrf_token: session.csrfToken,
    ...(returnTo !== undefined && { return_to: returnTo }),
    user: { id: user.id, name: user.name, email: user.email },
    roles: effectiveRoles(user.roles),
    expires_at: session.expiresAt.toISOString(),
  };
}
