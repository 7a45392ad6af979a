import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../../config.js';
import { randomToken, safeEqual, sha256 } from '../../../lib/crypto.js';
import { csrfViolation } from './errors.js';

/** The flows' CSRF cookie (httpOnly, SameSite=Lax); a flow keeps the SHA-256 of its token. */
export const FLOW_CSRF_COOKIE = 'csrf_token_ory';

/**
 * The browser's flow CSRF token: the cookie it already has (so several open flows stay valid), else a new one set
 * now. Returns the token the flow's hidden `csrf_token` node carries.
 */
export function ensureCsrfCookie(req: FastifyRequest, reply: FastifyReply, config: Config): string {
  const existing = req.cookies?.[FLOW_CSRF_COOKIE];
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomToken(32);
  reply.setCookie(FLOW_CSRF_COOKIE, token, {
    httpOnly: true, sameSite: 'lax', path: '/', secure: config.publicUrl.startsWith('https:'),
  });
  return token;
}

/** A submission must carry the flow's token in `csrf_token`, matching the cookie; else 403 security_csrf_violation. */
export function checkCsrf(req: FastifyRequest, csrfHash: string, body: Record<string, unknown>): void {
  const cookie = req.cookies?.[FLOW_CSRF_COOKIE];
  const sent = body.csrf_token;
  if (typeof cookie !== 'string' || typeof sent !== 'string' || !safeEqual(sent, cookie) || !safeEqual(sha256(cookie), csrfHash)) {
    throw csrfViolation();
  }
}
