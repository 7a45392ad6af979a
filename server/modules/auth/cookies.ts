import type { FastifyReply } from 'fastify';
import type { Config } from '../../config.js';
import { SESSION_COOKIE } from '../../plugins/auth.js';

/** Cookie attributes of the session: httpOnly, SameSite=Lax, whole site, Secure behind an https public URL. */
function attributes(config: Config) {
  return {
    httpOnly: true,
    sameSite: 'lax' as const,
    path: '/',
    secure: config.publicUrl.startsWith('https:'),
  };
}

export function setSessionCookie(reply: FastifyReply, config: Config, token: string): void {
  reply.setCookie(SESSION_COOKIE, token, { ...attributes(config), maxAge: Math.round(config.SESSION_TTL_HOURS * 3600) });
}

export function clearSessionCookie(reply: FastifyReply, config: Config): void {
  reply.clearCookie(SESSION_COOKIE, attributes(config));
}
