import http from 'node:http';
import https from 'node:https';
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

/**
 * GET a JSON document with the backend's timeout: 504 on timeout, 502 on a network error or a non-2xx answer (its
 * text cut), the caller's abort passed through as an AbortError. node:http, not fetch: aborting must close the
 * connection, so the backend sees the request cancelled (fetch may keep the socket for reuse).
 */
export function fetchJson(backend: string, url: string, init: { headers?: Record<string, string>; timeoutMs: number; signal: AbortSignal }): Promise<unknown> {
  return new Promise((resolve, reject) => {
    if (init.signal.aborted) return reject(abortError());
    const u = new URL(url);
    const mod = u.protocol === 'https:' ? https : http;
    let timedOut = false;
    const req = mod.request(u, { method: 'GET', headers: init.headers, agent: false });
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy();
    }, init.timeoutMs);
    const onAbort = () => req.destroy();
    init.signal.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      clearTimeout(timer);
      init.signal.removeEventListener('abort', onAbort);
    };
    req.on('error', (err: NodeJS.ErrnoException) => {
      done();
      if (timedOut) return reject(new BackendError(backend, `no answer within ${init.timeoutMs / 1000}s`, true));
      if (init.signal.aborted) return reject(abortError());
      reject(new BackendError(backend, err.code ?? err.message));
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', () => {});
      res.on('end', () => {
        done();
        const text = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 299) return reject(new BackendError(backend, `HTTP ${status}: ${text.slice(0, 300).trim()}`));
        try {
          resolve(JSON.parse(text) as unknown);
        } catch {
          reject(new BackendError(backend, 'the answer is not JSON'));
        }
      });
    });
    req.end();
  });
}

function abortError(): Error {
  return Object.assign(new Error('aborted'), { name: 'AbortError' });
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
