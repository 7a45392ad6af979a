import { navigate } from 'wouter/use-browser-location';
import { toast } from './toast';

/** Spec 001, section 8: what the user reads when a call never got an answer. */
export const MESSAGES = {
  timeout: 'Request timed out. Please try again.',
  network: 'Network Error. Please try again.',
  offline: 'No internet connection. Please try again.',
  generic: 'An error occurred',
} as const;

export const REQUEST_TIMEOUT_MS = 30_000;

/**
 * The one error every API call rejects with. `status` is 0 when no answer came back (`code` is then `timeout`,
 * `network` or `offline`); otherwise it carries the server's `{code, message}` (either of its two error shapes).
 */
export class ApiError extends Error {
  /** True when the client already showed a toast for it (timeouts, network errors). */
  notified = false;
  /** The answer's parsed body, for callers that show more than `message` (a playbook run's `error`). */
  body: unknown = undefined;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The message to show for any error: the server's, else the spec's generic text. */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError || (err instanceof Error && err.message)) return err.message;
  return MESSAGES.generic;
}

interface Schema<T> {
  parse(value: unknown): T;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions<T> {
  method?: Method;
  /** Query string; undefined and null values are left out. */
  query?: Record<string, QueryValue | QueryValue[]>;
  /** Sent as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * A zod contract that checks the answer; its output is what the call returns. Or a function loading it
   * (`() => import('@contracts/…').then((m) => m.X)`): called as the request starts, so the contract's code (and
   * zod) download alongside the request instead of sitting in the start-up bundle.
   */
  schema?: Schema<T> | (() => Promise<Schema<T>>);
  /** TanStack Query's abort signal: an aborted call rejects quietly. */
  signal?: AbortSignal;
  timeoutMs?: number;
  /** For the sign-in forms: a 401 is their answer, not a reason to leave the page. */
  allowUnauthorized?: boolean;
  /** Public writes (login, registration, logout) need no CSRF token; skip fetching one. */
  csrf?: boolean;
  /** Sees the answer's headers (a paged read's `Content-Range` total) before the body is parsed. */
  onHeaders?: (headers: Headers) => void;
}

const WRITES = new Set<Method>(['POST', 'PUT', 'PATCH', 'DELETE']);

// The CSRF token of the current session: handed out by login and registration, fetched again after a reload.
let csrfToken: string | null = null;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

async function ensureCsrfToken(refresh = false): Promise<string | null> {
  if (csrfToken && !refresh) return csrfToken;
  try {
    const res = await fetch('/api/auth/csrf', { credentials: 'include', headers: { accept: 'application/json' } });
    if (res.ok) csrfToken = ((await res.json()) as { csrf_token?: string }).csrf_token ?? null;
  } catch {
    // the write below reports the failure
  }
  return csrfToken;
}

function url(path: string, query?: RequestOptions<unknown>['query']): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v !== undefined && v !== null) params.append(key, String(v));
    }
  }
  const qs = params.toString();
  return qs ? `${path}${path.includes('?') ? '&' : '?'}${qs}` : path;
}

/** The sign-in page, keeping the place the user was at (spec 001, section 8). */
export function loginPath(returnTo = window.location.pathname + window.location.search): string {
  return returnTo === '/' || returnTo.startsWith('/login') ? '/login' : `/login?return_to=${encodeURIComponent(returnTo)}`;
}

// Hosted mode (AUTH_MODE=oidc) sends a signed-out tab to /auth-state-checker (a silent round trip to the provider)
// instead of the sign-in form. The sign-in page and the session gate learn the mode from /api/auth/config and
// remember it here, for the tab's lifetime and its reloads.
const HOSTED_KEY = 'auth.hosted';
let hostedAuth: boolean | null = null;

export function setHostedAuth(hosted: boolean): void {
  hostedAuth = hosted;
  try {
    if (hosted) sessionStorage.setItem(HOSTED_KEY, '1');
    else sessionStorage.removeItem(HOSTED_KEY);
  } catch {
    // storage disabled: the flag lasts as long as the page
  }
}

function isHostedAuth(): boolean {
  if (hostedAuth === null) {
    try {
      hostedAuth = sessionStorage.getItem(HOSTED_KEY) === '1';
    } catch {
      hostedAuth = false;
    }
  }
  return hostedAuth;
}

const SIGN_IN_PAGES = /^\/(login|registration|recovery|verification|error|auth-state-checker)(\/|$)/;

export function redirectToLogin(): void {
  if (SIGN_IN_PAGES.test(window.location.pathname)) return;
  if (isHostedAuth()) {
    const here = window.location.pathname + window.location.search;
    navigate(here === '/' ? '/auth-state-checker' : `/auth-state-checker?return_to=${encodeURIComponent(here)}`, { replace: true });
    return;
  }
  navigate(loginPath(), { replace: true });
}

/**
 * The error id of a Kratos-shaped answer (`{error: {id}}`): the session checks' 403s carry one (session_aal2_required,
 * session_refresh_required), a role denial does not.
 */
export function sessionErrorId(body: unknown): string | null {
  const error = (body as { error?: unknown } | null)?.error;
  const id = typeof error === 'object' && error !== null ? (error as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : null;
}

/**
 * A session at the first factor whose person has a second one (or must enrol one): to the second step, coming back
 * here after it; or where the server sends it (the enrolment page when a second factor is required and none is set).
 */
export function redirectToSecondFactor(body: unknown): void {
  if (SIGN_IN_PAGES.test(window.location.pathname)) return;
  const here = window.location.pathname + window.location.search;
  const to = (body as { redirect_browser_to?: unknown } | null)?.redirect_browser_to;
  if (typeof to === 'string') {
    const url = new URL(to, window.location.origin);
    if (url.origin === window.location.origin && !url.pathname.startsWith('/login') && !url.pathname.startsWith('/api/')) {
      if (url.pathname !== window.location.pathname) navigate(url.pathname + url.search, { replace: true });
      return;
    }
  }
  navigate(`/login?aal=aal2&return_to=${encodeURIComponent(here)}`, { replace: true });
}

function unreachable(code: 'timeout' | 'network' | 'offline'): ApiError {
  const err = new ApiError(0, code, MESSAGES[code]);
  toast.error(err.message);
  err.notified = true;
  return err;
}

async function send(path: string, opts: RequestOptions<unknown>, csrf: string | null): Promise<Response> {
  const method = opts.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (csrf && WRITES.has(method)) headers['x-csrf-token'] = csrf;

  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), opts.timeoutMs ?? REQUEST_TIMEOUT_MS);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout.signal]) : timeout.signal;
  try {
    return await fetch(url(path, opts.query), {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      credentials: 'include',
      signal,
    });
  } catch (err) {
    if (opts.signal?.aborted) throw err; // the caller gave up: not an error to report
    if (timeout.signal.aborted) throw unreachable('timeout');
    throw unreachable(navigator.onLine === false ? 'offline' : 'network');
  } finally {
    clearTimeout(timer);
  }
}

async function readBody(res: Response): Promise<unknown> {
  if (res.status === 204) return undefined;
  const text = await res.text();
  if (!text) return undefined;
  if ((res.headers.get('content-type') ?? '').includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

function toApiError(status: number, body: unknown): ApiError {
  // the server answers {error, code, message, details} or, under /api/db, PostgREST's {code, message, details, hint}
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  // the sign-in flows (/api/.ory) answer as Kratos does: {error: {id, code, status, reason, message}}
  const kratos = typeof b.error === 'object' && b.error !== null ? (b.error as Record<string, unknown>) : {};
  const message =
    (typeof b.message === 'string' && b.message) ||
    (typeof b.error === 'string' && b.error) ||
    (typeof kratos.reason === 'string' && kratos.reason) ||
    (typeof kratos.message === 'string' && kratos.message) ||
    (typeof body === 'string' && body.length < 300 && body) ||
    `${MESSAGES.generic} (HTTP ${status})`;
  const code = (typeof b.code === 'string' && b.code) || (typeof kratos.id === 'string' && kratos.id) || `http_${status}`;
  const err = new ApiError(status, code, message, b.details ?? kratos.details ?? null);
  err.body = body;
  return err;
}

/**
 * Sends with the CSRF token a write needs (fetching the current one and trying once more when the server refused a
 * stale one) and turns an answer that is not 2xx into an ApiError (a 401 also goes to the login page).
 */
async function sendChecked(path: string, opts: RequestOptions<unknown>): Promise<Response> {
  const write = WRITES.has(opts.method ?? 'GET') && opts.csrf !== false;
  let res = await send(path, opts, write ? await ensureCsrfToken() : null);
  // a token from before a restart or a second tab's login: fetch the current one and try once more
  if (write && res.status === 403) {
    const body = await readBody(res.clone());
    if (JSON.stringify(body ?? '').includes('CSRF')) res = await send(path, opts, await ensureCsrfToken(true));
  }
  if (res.ok) return res;
  const body = await readBody(res);
  const err = toApiError(res.status, body);
  if (res.status === 401 && !opts.allowUnauthorized) {
    setCsrfToken(null);
    redirectToLogin();
  }
  // the session check (spec 001 §8): 403 or 422 naming session_aal2_required goes to the second step; the sign-in
  // forms (allowUnauthorized) handle their own answers
  if ((res.status === 403 || res.status === 422) && !opts.allowUnauthorized && sessionErrorId(body) === 'session_aal2_required') {
    redirectToSecondFactor(body);
  }
  throw err;
}

/** Calls the console's API. Every component reaches the server through feature hooks built on this. */
export async function apiRequest<T = unknown>(path: string, opts: RequestOptions<T> = {}): Promise<T> {
  const schema = typeof opts.schema === 'function' ? opts.schema() : opts.schema;
  // a failed contract load surfaces when the answer is parsed, not as an unhandled rejection before
  if (schema instanceof Promise) schema.catch(() => undefined);
  const res = await sendChecked(path, opts as RequestOptions<unknown>);
  const body = await readBody(res);
  opts.onHeaders?.(res.headers);
  return schema ? (await schema).parse(body) : (body as T);
}

type Opts<T> = Omit<RequestOptions<T>, 'method' | 'body'>;

/** The total of a `Prefer: count=exact` read, from `Content-Range: 0-49/1234`; null when the server gave none. */
export function contentRangeTotal(headers: Headers): number | null {
  const total = headers.get('content-range')?.split('/')[1];
  const n = total === undefined || total === '*' ? NaN : Number(total);
  return Number.isFinite(n) ? n : null;
}

/** Shorthands over `apiRequest`. */
export const api = {
  get: <T = unknown>(path: string, opts?: Opts<T>) => apiRequest<T>(path, { ...opts, method: 'GET' }),
  post: <T = unknown>(path: string, body?: unknown, opts?: Opts<T>) => apiRequest<T>(path, { ...opts, method: 'POST', body }),
  put: <T = unknown>(path: string, body?: unknown, opts?: Opts<T>) => apiRequest<T>(path, { ...opts, method: 'PUT', body }),
  patch: <T = unknown>(path: string, body?: unknown, opts?: Opts<T>) => apiRequest<T>(path, { ...opts, method: 'PATCH', body }),
  delete: <T = unknown>(path: string, opts?: Opts<T>) => apiRequest<T>(path, { ...opts, method: 'DELETE' }),
};

/**
 * A call whose answer is read as it streams (NDJSON): apiRequest's CSRF handling and errors, the body left unread
 * for the caller. An answer that is not 2xx rejects with the ApiError apiRequest would.
 */
export function apiStream(path: string, opts: RequestOptions<unknown> = {}): Promise<Response> {
  return sendChecked(path, { timeoutMs: REQUEST_TIMEOUT_MS, ...opts });
}
