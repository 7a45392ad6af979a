import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { EnvVar, envValue } from './lib/env-var.js';
import { InvalidSpecError, invalidResult } from './lib/result.js';
import type { CheckResult, CheckType } from './types.js';

/** Text bodies kept, as the reference (10 KiB); JSON bodies up to MAX_JSON_BYTES. */
export const MAX_CONTENT_BYTES = 10 * 1024;
export const MAX_JSON_BYTES = 1024 * 1024;
/** Headers never stored: they carry the caller's credentials. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'webhook-token', 'x-api-key']);

export const WebhookCheckSpec = z.looseObject({
  /** Shared secret the pusher must send (`?token=` or the `Webhook-Token` header); unset = no authentication. */
  token: EnvVar.optional(),
});
export type WebhookCheckSpec = z.infer<typeof WebhookCheckSpec>;

/** What the route hands over for one push. */
export const WebhookPayload = z.object({
  /** Request headers (lower- or mixed-case names; arrays are joined). */
  headers: z.record(z.string(), z.union([z.string(), z.array(z.string())]).optional()).default({}),
  /** The parsed body when the request was `application/json`. */
  json: z.unknown().optional(),
  /** The raw body otherwise. */
  content: z.string().optional(),
});
export type WebhookPayload = z.input<typeof WebhookPayload>;

/**
 * Whether `provided` (from `?token=` or the `Webhook-Token` header) is the spec's token; true when the spec sets
 * none. Constant-time. Throws InvalidSpecError when the token is a valueFrom that was not resolved.
 */
export function webhookTokenMatches(spec: WebhookCheckSpec, provided: string | undefined | null): boolean {
  const expected = envValue(spec.token, 'token');
  if (!expected) return true;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(expected), digest(provided ?? ''));
}

/**
 * The token a webhook request carries: `?token=` first, then the `Webhook-Token` header (reference order).
 */
export function webhookToken(query: Record<string, unknown>, headers: Record<string, unknown>): string | undefined {
  const q = query.token;
  if (typeof q === 'string' && q) return q;
  const h = headers['webhook-token'] ?? headers['Webhook-Token'];
  return typeof h === 'string' && h ? h : undefined;
}

/**
 * Turns one pushed request into the webhook check's result. As in the reference the push itself is a pass; the
 * check's `test` / `display` expressions (applied by the caller, as for any check) judge it from `data` =
 * `{ headers, json, content }`. Credentials headers are left out; a body above the limits fails the push.
 * Pure: no I/O, never throws. (The spec is used for the token today; it stays in the signature for the type's
 * own options.)
 */
export function resultFromWebhook(spec: WebhookCheckSpec, payload: WebhookPayload): CheckResult {
  const parsed = WebhookPayload.safeParse(payload);
  if (!parsed.success) return { pass: false, invalid: true, duration: 0, error: 'malformed webhook payload', data: {} };
  const { json, content } = parsed.data;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(parsed.data.headers)) {
    if (v === undefined) continue;
    headers[k.toLowerCase()] = SECRET_HEADERS.has(k.toLowerCase()) ? '***' : Array.isArray(v) ? v.join(', ') : v;
  }
  if (json !== undefined) {
    let size: number;
    try {
      size = Buffer.byteLength(JSON.stringify(json) ?? '');
    } catch {
      return { pass: false, duration: 0, error: 'webhook JSON body cannot be serialised', data: { headers } };
    }
    if (size > MAX_JSON_BYTES) {
      return { pass: false, duration: 0, error: `webhook JSON body too large: ${size} bytes (limit ${MAX_JSON_BYTES})`, data: { headers } };
    }
  }
  const data: Record<string, unknown> = { headers };
  if (json !== undefined) data.json = json;
  if (content !== undefined) data.content = truncateBytes(content, MAX_CONTENT_BYTES);
  return { pass: true, duration: 0, data, detail: data };
}

function truncateBytes(s: string, max: number): string {
  const b = Buffer.from(s, 'utf8');
  return b.length <= max ? s : b.subarray(0, max).toString('utf8').replace(/\uFFFD$/, '');
}

/**
 * The `webhook` type. Its results are pushed (POST /api/canary/webhook/:id → resultFromWebhook), so a scheduled or
 * "run now" run has nothing to do and says so; the scheduler should skip this type.
 */
export const webhookCheck: CheckType<WebhookCheckSpec> = {
  type: 'webhook',
  schema: WebhookCheckSpec,
  run: async (spec) => {
    const start = performance.now();
    try {
      envValue(spec.token, 'token');
    } catch (err) {
      if (err instanceof InvalidSpecError) return invalidResult(start, err.message);
    }
    return invalidResult(start, 'webhook checks are not run on a schedule: results are pushed to POST /api/canary/webhook/:id');
  },
};
