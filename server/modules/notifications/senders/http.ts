import http from 'node:http';
import https from 'node:https';
/**
 * What every sender's calls go through: one HTTP request with the attempt's signal, concurrency limits per host and
 * per destination (host and path: one webhook), and errors that say whether another attempt may help (network
 * errors, timeouts, 5xx, 429) without quoting a URL (URLs carry tokens).
 *
 * A host has at most `perHostLimit` requests in flight, so a host that hangs holds only its own slots and delays no
 * other host. Within a host, a destination whose last request timed out is suspect: it gets one request in flight
 * until one of its requests answers, so a dead webhook on a shared host (many rules' hooks on one server, or one
 * loopback sink) takes one of the host's slots, not all of them, and the host's other destinations go on.
 */

/** Requests to one host at a time, across every delivery of this process. */
let perHostLimit = 8;
/** Requests in flight to a destination whose last request timed out. */
const SUSPECT_LIMIT = 1;
/** How long a timeout keeps a destination suspect when no request of it answers meanwhile. */
const SUSPECT_MS = 5 * 60_000;

interface Slots { active: number; waiting: Array<() => void> }
const hosts = new Map<string, Slots>();
const destinations = new Map<string, Slots>();
/** destination → until when it is suspect (ms). */
const suspects = new Map<string, number>();

export function setPerHostLimit(n: number): void {
  perHostLimit = Math.max(1, Math.floor(n));
}

export class SendError extends Error {
  constructor(message: string, readonly retryable: boolean, readonly status?: number) {
    super(message);
  }
}

function suspect(destination: string): boolean {
  const until = suspects.get(destination);
  if (until === undefined) return false;
  if (until > Date.now()) return true;
  suspects.delete(destination);
  return false;
}

/** Takes a slot of `map[key]` (at most limit() in flight), waiting until one is free or the signal ends. */
async function acquire(map: Map<string, Slots>, key: string, limit: () => number, signal: AbortSignal, busy: string): Promise<() => void> {
  let s = map.get(key);
  if (!s) map.set(key, (s = { active: 0, waiting: [] }));
  const slot = s;
  while (slot.active >= limit()) {
    await new Promise<void>((resolve, reject) => {
      const go = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = slot.waiting.indexOf(go);
        if (i >= 0) slot.waiting.splice(i, 1);
        reject(new SendError(busy, true));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      slot.waiting.push(go);
    });
  }
  slot.active += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    slot.active -= 1;
    // wake every waiter that may now fit (a destination's limit can grow back when it answers again)
    const free = Math.max(0, limit() - slot.active);
    for (const next of slot.waiting.splice(0, free)) next();
    if (slot.active === 0 && !slot.waiting.length) map.delete(key);
  };
}

/**
 * Runs `fn` holding a slot of `destination` (host and path) and one of its host's; waiting for a slot ends with the
 * signal. A timeout of `fn` (the signal aborted) makes the destination suspect; an answer clears it.
 */
export async function withHost<T>(host: string, signal: AbortSignal, fn: () => Promise<T>, destination = host): Promise<T> {
  const busy = `${host} is busy (no free connection before the timeout)`;
  const releaseDestination = await acquire(destinations, destination, () => (suspect(destination) ? SUSPECT_LIMIT : perHostLimit), signal, busy);
  let releaseHost: (() => void) | undefined;
  try {
    releaseHost = await acquire(hosts, host, () => perHostLimit, signal, busy);
    const out = await fn();
    suspects.delete(destination);
    return out;
  } catch (err) {
    if (releaseHost && signal.aborted && !(err instanceof SendError && err.status !== undefined)) suspects.set(destination, Date.now() + SUSPECT_MS);
    else if (err instanceof SendError && err.status !== undefined) suspects.delete(destination); // it answered
    throw err;
  } finally {
    releaseHost?.();
    releaseDestination();
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

/**
 * Keep-alive agents, one per protocol (connections to a host are reused across sends; node's http client costs a
 * fraction of fetch's per call, which at thousands of sends a minute was a sixth of a replica's CPU).
 */
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

interface RawAnswer { status: number; text: string }

/** The answer started but did not finish (aborted or broken mid-body). */
class BodyError extends Error {}

const MAX_REDIRECTS = 5;

/** One HTTP exchange, redirects followed as fetch does (303, and 301/302 after a POST, become a GET without a body). */
async function request(u: URL, method: string, headers: Record<string, string>, body: string | undefined, signal: AbortSignal,
  hops = 0): Promise<RawAnswer> {
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw Object.assign(new Error(`unsupported protocol ${u.protocol}`), { code: 'ERR_INVALID_PROTOCOL' });
  const res = await new Promise<RawAnswer & { location?: string }>((resolve, reject) => {
    const h: Record<string, string> = { accept: '*/*', ...headers };
    if (body !== undefined) h['content-length'] = String(Buffer.byteLength(body));
    const req = (u.protocol === 'https:' ? https : http).request(u, { method, headers: h, agent: agents[u.protocol as 'http:'], signal }, (r) => {
      const chunks: Buffer[] = [];
      let ended = false;
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => {
        ended = true;
        resolve({ status: r.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), location: r.headers.location });
      });
      r.on('error', () => reject(new BodyError('body')));
      r.on('close', () => { if (!ended) reject(new BodyError('body')); });
    });
    req.on('error', reject);
    req.end(body);
  });
  if (res.status >= 300 && res.status < 400 && res.location && res.status !== 304) {
    if (hops >= MAX_REDIRECTS) throw Object.assign(new Error('too many redirects'), { code: 'ERR_TOO_MANY_REDIRECTS' });
    const next = new URL(res.location, u);
    const toGet = res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST');
    const nextHeaders = { ...headers };
    if (toGet) for (const k of Object.keys(nextHeaders)) if (/^content-/i.test(k)) delete nextHeaders[k];
    // credentials stay with their origin
    if (next.origin !== u.origin) for (const k of Object.keys(nextHeaders)) if (/^(authorization|cookie)$/i.test(k)) delete nextHeaders[k];
    return request(next, toGet ? 'GET' : method, nextHeaders, toGet ? undefined : body, signal, hops + 1);
  }
  return res;
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
    let res: RawAnswer;
    try {
      res = await request(u, init.method ?? 'POST', headers, body, signal);
    } catch (err) {
      if (err instanceof BodyError) throw new SendError(`${u.host} did not finish its answer in time`, true);
      if (signal.aborted) throw new SendError(`${u.host} did not answer in time`, true);
      const e = err as { code?: string; message?: string };
      throw new SendError(`${u.host} unreachable: ${e.code ?? e.message ?? String(err)}`, true);
    }
    const text = res.text;
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (res.status < 200 || res.status > 299) {
      const retryable = res.status >= 500 || res.status === 429;
      throw new SendError(`${u.host} answered ${res.status}${text ? `: ${short(text)}` : ''}`, retryable, res.status);
    }
    return { status: res.status, text, json };
  }, `${u.host}${u.pathname}`);
}
