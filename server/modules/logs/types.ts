import type { KubeConfig } from '@kubernetes/client-node';
import type { LogLine } from '../../contracts/logs.js';
import { ApiError } from '../../lib/errors.js';

/** What the text of a search is: plain (substring) or a regular expression (`/…/`). */
export interface TextQuery {
  source: string;
  regex: boolean;
  /** For in-process matching (kubernetes, console): case-insensitive. */
  re: RegExp;
}

/** One search as a backend sees it. Times in ms since the epoch. */
export interface BackendQuery {
  /** The component's external_id. */
  externalId: string;
  /** The selector's type. */
  type: string;
  /** The selector's labels with the request's over them. */
  labels: Record<string, string>;
  text: TextQuery | null;
  startMs: number;
  endMs: number;
  limit: number;
  /** The opaque page token of a previous answer (the backend's own). */
  page?: string;
  signal: AbortSignal;
}

/** Where a backend reaches out: the console's cluster and knobs (tests shorten them). */
export interface BackendContext {
  kube: KubeConfig | null;
  /** Per backend request. */
  timeoutMs: number;
  /** Live tail polling (loki, opensearch). */
  pollMs: number;
  /** Lines of the first streamed batch (the rest come in larger ones). */
  firstBatch: number;
  batch: number;
}

/** What a search ends with. */
export interface SearchEnd {
  total?: number;
  nextPage?: string;
}

/**
 * A backend type (registered one line each in backends/index.ts). `config` is the backend's block of the spec, its
 * credentials resolved (`url`, `username`, `password` plain values). `search` yields batches of lines, NEWEST FIRST,
 * as they arrive; `follow` yields new lines oldest first until the signal aborts.
 */
export interface LogBackend {
  search(ctx: BackendContext, config: Record<string, unknown>, q: BackendQuery): AsyncGenerator<LogLine[], SearchEnd>;
  follow(ctx: BackendContext, config: Record<string, unknown>, q: BackendQuery, after: LogLine | null): AsyncGenerator<LogLine[], void>;
}

/** A backend failed (502) or did not answer in time (504); the message names the backend. */
export class BackendError extends ApiError {
  constructor(backend: string, message: string, timeout = false) {
    super(timeout ? 504 : 502, timeout ? 'backend_timeout' : 'backend_error', `${backend} backend: ${message}`);
  }
}

/** Whether err is an abort (the client went away or a new search began). */
export function isAbort(err: unknown, signal?: AbortSignal): boolean {
  return !!signal?.aborted || (err instanceof Error && (err.name === 'AbortError' || err.name === 'RequestAbortedError'));
}

/** A signal aborted by `signal` or after `ms`; `timedOut()` tells which. */
export function withTimeout(signal: AbortSignal, ms: number): { signal: AbortSignal; timedOut(): boolean; clear(): void } {
  const c = new AbortController();
  let fired = false;
  const t = setTimeout(() => { fired = true; c.abort(new Error('timeout')); }, ms);
  const onAbort = () => c.abort(signal.reason);
  if (signal.aborted) c.abort(signal.reason);
  else signal.addEventListener('abort', onAbort, { once: true });
  return {
    signal: c.signal,
    timedOut: () => fired,
    clear: () => { clearTimeout(t); signal.removeEventListener('abort', onAbort); },
  };
}

/**
 * fetch with the backend's timeout: 504 on timeout, 502 on a network error or a non-2xx answer (its text cut), the
 * caller's abort passed through as an AbortError.
 */
export async function fetchJson(backend: string, url: string, init: RequestInit & { timeoutMs: number; signal: AbortSignal }): Promise<unknown> {
  const t = withTimeout(init.signal, init.timeoutMs);
  try {
    const res = await fetch(url, { ...init, signal: t.signal });
    const text = await res.text();
    if (!res.ok) throw new BackendError(backend, `HTTP ${res.status}: ${text.slice(0, 300).trim()}`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new BackendError(backend, 'the answer is not JSON');
    }
  } catch (err) {
    if (err instanceof BackendError) throw err;
    if (t.timedOut()) throw new BackendError(backend, `no answer within ${init.timeoutMs / 1000}s`, true);
    if (isAbort(err, init.signal)) throw err;
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new BackendError(backend, cause?.code ?? cause?.message ?? (err as Error).message);
  } finally {
    t.clear();
  }
}

/** Basic auth header when a username or password is set. */
export function basicAuth(config: Record<string, unknown>): Record<string, string> {
  const u = typeof config.username === 'string' ? config.username : '';
  const p = typeof config.password === 'string' ? config.password : '';
  return u || p ? { authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` } : {};
}

/** Page tokens: base64url JSON, opaque to clients. */
export function encodePage(v: unknown): string {
  return Buffer.from(JSON.stringify(v)).toString('base64url');
}
export function decodePage<T>(backend: string, page: string | undefined): T | undefined {
  if (!page) return undefined;
  try {
    return JSON.parse(Buffer.from(page, 'base64url').toString()) as T;
  } catch {
    throw new ApiError(400, 'invalid', `page: not a page of the ${backend} backend`);
  }
}

/** Resolves after ms, or at once when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
