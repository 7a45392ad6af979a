/**
 * What every sender's calls go through: one HTTP request with the attempt's signal, a per-host concurrency limit (a
 * host that hangs holds only its own slots, so it delays nobody else), and errors that say whether another attempt
 * may help (network errors, timeouts, 5xx, 429) without quoting a URL (URLs carry tokens).
 */

/** Requests to one host at a time, across every delivery of this process. */
let perHostLimit = 4;
const hosts = new Map<string, { active: number; waiting: Array<() => void> }>();

export function setPerHostLimit(n: number): void {
  perHostLimit = Math.max(1, Math.floor(n));
}

export class SendError extends Error {
  constructor(message: string, readonly retryable: boolean, readonly status?: number) {
    super(message);
  }
}

/** Runs `fn` holding one of `host`'s slots; waiting for a slot ends with the signal. */
export async function withHost<T>(host: string, signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
  let h = hosts.get(host);
  if (!h) hosts.set(host, (h = { active: 0, waiting: [] }));
  const slot = h;
  if (slot.active >= perHostLimit) {
    await new Promise<void>((resolve, reject) => {
      const go = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = slot.waiting.indexOf(go);
        if (i >= 0) slot.waiting.splice(i, 1);
        reject(new SendError(`${host} is busy (no free connection before the timeout)`, true));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      slot.waiting.push(go);
    });
  }
  slot.active += 1;
  try {
    return await fn();
  } finally {
    slot.active -= 1;
    const next = slot.waiting.shift();
    if (next) next();
    else if (slot.active === 0) hosts.delete(host);
  }
}

export interface HttpInit {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as application/json. */
  json?: unknown;
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, string | undefined>;
  /** Sent as is (with its own content-type header). */
  body?: string;
}

export interface HttpAnswer {
  status: number;
  text: string;
  json?: unknown;
}

const short = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}…` : s);

/** One request; a non-2xx answer throws a SendError (retryable for 5xx and 429). */
export async function httpCall(url: string, init: HttpInit, signal: AbortSignal): Promise<HttpAnswer> {
  const u = new URL(url);
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined = init.body;
  if (init.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(init.json);
  } else if (init.form) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    const f = new URLSearchParams();
    for (const [k, v] of Object.entries(init.form)) if (v !== undefined) f.set(k, v);
    body = f.toString();
  }
  return withHost(u.host, signal, async () => {
    let res: Response;
    try {
      res = await fetch(u, { method: init.method ?? 'POST', headers, body, signal, redirect: 'follow' });
    } catch (err) {
      if (signal.aborted) throw new SendError(`${u.host} did not answer in time`, true);
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new SendError(`${u.host} unreachable: ${cause?.code ?? cause?.message ?? (err as Error).message}`, true);
    }
    let text: string;
    try {
      text = await res.text();
    } catch {
      throw new SendError(`${u.host} did not finish its answer in time`, true);
    }
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const retryable = res.status >= 500 || res.status === 429;
      throw new SendError(`${u.host} answered ${res.status}${text ? `: ${short(text)}` : ''}`, retryable, res.status);
    }
    return { status: res.status, text, json };
  });
}
