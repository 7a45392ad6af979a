import { z } from 'zod';
import { InvalidSpecError } from './result.js';

/**
 * A credential field as the reference writes it: a plain string, or an EnvVar `{ value }` /
 * `{ valueFrom: { secretKeyRef | configMapKeyRef ... } }`. The runner resolves `valueFrom` into `value` right before
 * each run (server/lib/value-from.ts, from the canary's namespace), so check types only ever see values;
 * one that still sees a `valueFrom` reports the spec as invalid instead of guessing.
 */
export const EnvVar = z.union([
  z.string(),
  z.looseObject({
    name: z.string().optional(),
    value: z.string().optional(),
    valueFrom: z.unknown().optional(),
  }),
]);
export type EnvVar = z.infer<typeof EnvVar>;

/** The static value of an EnvVar field; undefined when unset. */
export function envValue(v: EnvVar | undefined, field: string): string | undefined {
  if (v === undefined || typeof v === 'string') return v || undefined;
  if (v.value !== undefined && v.value !== '') return v.value;
  if (v.valueFrom !== undefined && v.valueFrom !== null) {
    throw new InvalidSpecError(`${field}: valueFrom was not resolved to a value before the check ran`);
  }
  return undefined;
}

/** The inline connection fields most network checks share (`connection`, `url`, `username`, `password`). */
export const ConnectionFields = {
  connection: z.string().optional(),
  url: z.string().optional(),
  username: EnvVar.optional(),
  password: EnvVar.optional(),
};

/**
 * The URL to talk to: `url`, else a `connection` that is a plain URL (the reference accepts both). A
 * `connection://ns/name` reference must have been merged into `url` by the runner (health/connections.ts).
 */
export function targetUrl(spec: { url?: string; connection?: string }, ...fallbacks: Array<string | undefined>): string {
  const candidates = [spec.url, ...fallbacks];
  for (const c of candidates) if (c && c.trim()) return c.trim();
  const conn = spec.connection?.trim();
  if (conn) {
    if (conn.startsWith('connection://')) {
      throw new InvalidSpecError(`connection ${conn} was not resolved to a url before the check ran`);
    }
    return conn;
  }
  throw new InvalidSpecError('url is required');
}

/**
 * The reference lets a connection URL carry `$(username)` / `$(password)` placeholders filled from the check's
 * username/password fields; values are URL-encoded when they land in a URL.
 */
export function interpolateCredentials(raw: string, username?: string, password?: string): string {
  const isUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw);
  const enc = (s: string) => (isUrl ? encodeURIComponent(s) : s);
  return raw.replace(/\$\(username\)/g, enc(username ?? '')).replace(/\$\(password\)/g, enc(password ?? ''));
}
