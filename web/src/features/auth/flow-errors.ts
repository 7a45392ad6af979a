import type { FlowType, KratosErrorBody, SelfServiceFlow } from '@contracts/identity';
import { ApiError } from '../../lib/api-client';
import { safeReturnTo } from '../../lib/return-to';

/** The toasts of spec 001 §8 (the texts of Ory's reference UI), each followed by a new flow. */
export const FLOW_ERROR_TOASTS = {
  returnToForbidden: 'The return_to address is not allowed.',
  expired: 'Your interaction expired, please fill out the form again.',
  csrf: 'A security violation was detected, please fill out the form again.',
} as const;

/** What a flow page does about an error (flowErrorAction decides; the page's useFlow carries it out). */
export type FlowErrorAction =
  /** go elsewhere: a page of the app (`hard` false) or a server address such as /api/… (a full page load) */
  | { type: 'navigate'; to: string; hard: boolean }
  /** start over with a new flow: the one the server already made (`flowId`) or a fresh one; `dropReturnTo` when
   *  the return_to was refused */
  | { type: 'restart'; toast?: string; flowId?: string; dropReturnTo?: boolean }
  /** the answer is the flow again, its messages at their fields (400) */
  | { type: 'show'; flow: SelfServiceFlow }
  /** not a flow error: the page shows it as any other error */
  | { type: 'unhandled'; error: unknown };

/** Where the user is now, to come back to after a second factor or sign-in. */
export interface FlowHere {
  kind: FlowType;
  /** the page's path and query, e.g. `/profile-settings?flow=…` */
  location: string;
  /** the flow page's own return_to (session_already_available continues there) */
  returnTo?: string | null;
  /** the app's origin, to tell own addresses from others (window.location.origin) */
  origin: string;
}

/** True for a flow as the API answers it (a 400 with field messages is one). */
export function isFlow(body: unknown): body is SelfServiceFlow {
  const b = body as Partial<SelfServiceFlow> | null;
  return typeof b === 'object' && b !== null && typeof b.id === 'string' && typeof b.ui === 'object' && b.ui !== null;
}

/** The Kratos error body of an ApiError, if it has one. */
export function kratosError(err: unknown): KratosErrorBody | null {
  if (!(err instanceof ApiError)) return null;
  const body = err.body as Partial<KratosErrorBody> | null | undefined;
  return typeof body === 'object' && body !== null && typeof body.error === 'object' && body.error !== null
    ? (body as KratosErrorBody)
    : null;
}

/**
 * A `redirect_browser_to` (absolute on PUBLIC_URL or a path) as a navigation: own pages by the router, the API's
 * addresses (/api/…, e.g. a recovery link) and other origins by a full page load.
 */
export function browserTarget(to: string, origin: string): { to: string; hard: boolean } {
  let url: URL;
  try {
    url = new URL(to, origin);
  } catch {
    return { to: '/', hard: false };
  }
  if (url.origin !== origin) return { to: url.href, hard: true };
  const path = `${url.pathname}${url.search}${url.hash}`;
  return { to: path, hard: url.pathname.startsWith('/api/') };
}

const withReturnTo = (path: string, returnTo: string) => `${path}${path.includes('?') ? '&' : '?'}return_to=${encodeURIComponent(returnTo)}`;

/**
 * The error catalogue of spec 001 §8 and issue 17, one decision for every flow page (login, registration, recovery,
 * verification, settings) and for fetching as well as submitting a flow.
 */
export function flowErrorAction(err: unknown, here: FlowHere): FlowErrorAction {
  if (!(err instanceof ApiError)) return { type: 'unhandled', error: err };
  if (isFlow(err.body)) return { type: 'show', flow: err.body };
  const body = kratosError(err);
  const redirect = body?.redirect_browser_to;
  const useFlowId = body?.error.details?.use_flow_id;
  const flowId = typeof useFlowId === 'string' ? useFlowId : undefined;

  switch (body?.error.id) {
    case 'session_aal2_required': {
      // the server may send the user elsewhere first (enrolment when a second factor is required and none is set)
      const target = redirect ? browserTarget(redirect, here.origin) : null;
      if (target && !target.hard && !target.to.startsWith('/login')) return { type: 'navigate', ...target };
      return { type: 'navigate', to: withReturnTo('/login?aal=aal2', here.location), hard: false };
    }
    case 'session_already_available':
      return { type: 'navigate', to: safeReturnTo(here.returnTo), hard: false };
    case 'session_refresh_required':
      return redirect
        ? { type: 'navigate', ...browserTarget(redirect, here.origin) }
        : { type: 'navigate', to: withReturnTo('/login?refresh=true', here.location), hard: false };
    case 'browser_location_change_required':
      if (redirect) return { type: 'navigate', ...browserTarget(redirect, here.origin) };
      break;
    case 'session_inactive':
      // signed out meanwhile; on the sign-in page itself (a second step or a refresh) a plain sign-in follows
      if (here.kind === 'login') {
        const back = safeReturnTo(here.returnTo);
        return { type: 'navigate', to: back === '/' ? '/login' : withReturnTo('/login', back), hard: false };
      }
      return { type: 'navigate', to: withReturnTo('/login', here.location), hard: false };
    case 'self_service_flow_return_to_forbidden':
      return { type: 'restart', toast: FLOW_ERROR_TOASTS.returnToForbidden, dropReturnTo: true };
    case 'self_service_flow_expired':
      return { type: 'restart', toast: FLOW_ERROR_TOASTS.expired, flowId };
    case 'security_csrf_violation':
      return { type: 'restart', toast: FLOW_ERROR_TOASTS.csrf };
    case 'security_identity_mismatch':
      return { type: 'restart' };
  }
  // an expired flow without an id (410), or one the server no longer knows (a stale ?flow= in the address bar)
  if (err.status === 410) return { type: 'restart', toast: FLOW_ERROR_TOASTS.expired, flowId };
  if (err.status === 404) return { type: 'restart' };
  return { type: 'unhandled', error: err };
}
