import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KratosErrorBody, KratosErrorId } from '../../../contracts/identity.js';
import { ApiError } from '../../../lib/errors.js';

const STATUS: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict', 410: 'Gone',
  422: 'Unprocessable Entity', 429: 'Too Many Requests', 500: 'Internal Server Error',
};

/** An error with a Kratos error id (spec 001 §8); /api/.ory and the auth plugin render it as KratosErrorBody. */
export class KratosError extends ApiError {
  constructor(
    status: number,
    readonly id: KratosErrorId | undefined,
    message: string,
    readonly extra: { reason?: string; details?: Record<string, unknown>; redirectTo?: string } = {},
  ) {
    super(status, id ?? 'error', message, extra.details ?? null);
  }
}

/** Kratos' body for an error: `{error: {id, code, status, reason, message, details}, redirect_browser_to?}`. */
export function kratosBody(err: ApiError): KratosErrorBody {
  const k = err instanceof KratosError ? err : null;
  const details = (k?.extra.details ?? (err.details && typeof err.details === 'object' ? err.details : undefined)) as
    | Record<string, unknown>
    | undefined;
  return {
    error: {
      ...(k?.id && { id: k.id }),
      code: err.statusCode,
      status: STATUS[err.statusCode] ?? 'Error',
      ...(k?.extra.reason && { reason: k.extra.reason }),
      message: err.message,
      ...(details && { details }),
    },
    ...(k?.extra.redirectTo && { redirect_browser_to: k.extra.redirectTo }),
  };
}

export const aal2Required = (returnTo: string) =>
  new KratosError(403, 'session_aal2_required', 'An active session was found but it does not fulfill the Authenticator Assurance Level, implying that the session must (re-)authenticate using a second factor.', {
    reason: 'Please complete the second authentication challenge.',
    redirectTo: `/login?aal=aal2&return_to=${encodeURIComponent(returnTo)}`,
  });

export const enrolmentRequired = () =>
  new KratosError(403, 'session_aal2_required', 'Two-factor authentication is required: set up an authenticator app, a security key or a passkey first.', {
    reason: 'Set up a second factor in your profile settings.',
    details: { enrolment_required: true },
    redirectTo: '/profile-settings',
  });

export const sessionInactive = (returnTo?: string) =>
  new KratosError(401, 'session_inactive', 'No active session was found in this request.', {
    reason: 'No valid session credentials found in the request.',
    redirectTo: returnTo ? `/login?return_to=${encodeURIComponent(returnTo)}` : '/login',
  });

export const refreshRequired = (returnTo: string) =>
  new KratosError(403, 'session_refresh_required', 'The login session is too old and thus not allowed to update these fields. Please re-authenticate.', {
    redirectTo: `/login?refresh=true&return_to=${encodeURIComponent(returnTo)}`,
  });

/** 429 past a per-client limit (flow submissions, requests for a mail): Kratos' body; the caller sets Retry-After. */
export const flowRateLimited = (retryAfterSeconds: number, what = 'requests') =>
  new KratosError(429, undefined, `Too many ${what} from this address: retry in ${retryAfterSeconds} seconds.`, {
    reason: 'The request was rate limited. Please wait before trying again.',
    details: { retry_after_seconds: retryAfterSeconds },
  });

export const csrfViolation = () =>
  new KratosError(403, 'security_csrf_violation', 'the request was rejected to protect you from Cross-Site-Request-Forgery', {
    reason: 'Please retry the flow and optionally clear your cookies. The request was rejected to protect you from Cross-Site-Request-Forgery (CSRF) which could cause account takeover, leaking personal information, and other serious security issues.',
  });

/** Whether the caller wants JSON (an SPA or SDK) rather than a browser navigation. */
export function wantsJson(req: FastifyRequest): boolean {
  const accept = req.headers.accept ?? '';
  const ct = req.headers['content-type'] ?? '';
  return accept.includes('application/json') || (ct.startsWith('application/json') && !accept.includes('text/html'));
}

/** Sends an ApiError as Kratos' body (used by the /api/.ory error handler and the auth plugin). */
export function sendKratosError(reply: FastifyReply, err: ApiError): FastifyReply {
  return reply.status(err.statusCode).type('application/json; charset=utf-8').send(kratosBody(err));
}
