import { parseNotificationUrl } from '../../../contracts/notification-connections.js';
import { isSecretProperty } from '../../../lib/connection-hydrate.js';
import type { DeliveryResult, DeliveryTarget, NotificationMessage } from '../types.js';
import { httpCall, SendError } from './http.js';
import { senderSettings } from './settings.js';
import { channelOf } from './target.js';
import type { Sender } from './types.js';

export interface DeliverOptions {
  /** Ends waiting and retrying (a shutdown). */
  signal?: AbortSignal;
  /** Attempts in all (default 4). */
  attempts?: number;
  /** The first retry's wait, doubled each time (default 1000 ms). */
  backoffMs?: number;
  /** One attempt's limit (default 10 000 ms). */
  timeoutMs?: number;
  /** Files attached to an email (the playbook notification action's `attachments`); other services ignore them. */
  attachments?: Array<{ filename: string; content: string }>;
  /** Base URLs by service, over NOTIFICATION_ENDPOINTS (tests). */
  endpoints?: Record<string, string>;
}

/** Values that must never appear in an error: the URL's credentials and tokens, secret-like properties. */
function secretsOf(target: DeliveryTarget, values: Record<string, unknown>): string[] {
  const out: string[] = [];
  const add = (v: unknown) => {
    if (typeof v === 'string' && v.length >= 3) out.push(v, encodeURIComponent(v));
  };
  add(values.password);
  try {
    const u = new URL(target.url);
    add(decodeURIComponent(u.username));
    add(decodeURIComponent(u.password));
    if (!['http:', 'https:'].includes(u.protocol)) add(u.hostname);
    for (const s of u.pathname.split('/')) if (s.length >= 16) add(decodeURIComponent(s));
    for (const [k, v] of u.searchParams) if (k === 'key' || k === 'token' || isSecretProperty(k)) add(v);
  } catch {
    // not a URL: nothing more to take
  }
  for (const [k, v] of Object.entries(target.properties ?? {})) if (isSecretProperty(k)) add(v);
  return [...new Set(out)].sort((a, b) => b.length - a.length);
}

const masked = (s: string, secrets: string[]) => secrets.reduce((m, x) => m.split(x).join('***'), s);

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Sends one message to one target with the service's sender: attempts until one succeeds, a failure is permanent
 * (a 4xx, a bad URL) or `attempts` are spent; network errors, timeouts, 5xx and 429 are retried after
 * backoffMs·2^(n-1). Never throws: the result says ok or the (masked) error.
 */
export async function deliverWith(senders: Record<string, Sender>, target: DeliveryTarget, message: NotificationMessage, opts: DeliverOptions = {}): Promise<DeliveryResult> {
  const started = Date.now();
  const channel = channelOf(target.url);
  const parsed = parseNotificationUrl(target.url);
  const sender = parsed ? senders[parsed.type] : undefined;
  if (!parsed || !sender) {
    return { ok: false, channel, error: `unsupported notification url (${channel})`, durationMs: Date.now() - started, attempts: 0 };
  }
  const secrets = secretsOf(target, parsed.values);
  const endpoints = { ...senderSettings().endpoints, ...opts.endpoints };
  const attempts = Math.max(1, opts.attempts ?? 4);
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const backoffMs = opts.backoffMs ?? 1000;
  let error = '';
  let n = 0;
  while (n < attempts) {
    n += 1;
    const signal = opts.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
    let url: URL;
    try {
      url = new URL(target.url.trim());
    } catch {
      return { ok: false, channel, error: 'the notification url does not parse', durationMs: Date.now() - started, attempts: n };
    }
    try {
      await sender.send({
        url, values: parsed.values, message, properties: target.properties ?? {}, signal, timeoutMs, attachments: opts.attachments ?? [],
        base: (publicBase) => (endpoints[parsed.type] ?? publicBase).replace(/\/+$/, ''),
        http: (u, init) => httpCall(u, init, signal),
      });
      return { ok: true, channel, durationMs: Date.now() - started, attempts: n };
    } catch (err) {
      const retryable = err instanceof SendError ? err.retryable : false;
      error = masked(err instanceof Error ? err.message : String(err), secrets);
      if (!retryable || opts.signal?.aborted) break;
      if (n < attempts) await sleep(backoffMs * 2 ** (n - 1), opts.signal);
      if (opts.signal?.aborted) break;
    }
  }
  return { ok: false, channel, error: n > 1 ? `${error} (after ${n} attempts)` : error, durationMs: Date.now() - started, attempts: n };
}
