import { hydrateConnection, type HydratedConnection } from '../../../lib/connection-hydrate.js';
import { kubeKeyRefReader, ValueFromResolver } from '../../../lib/value-from.js';
import { findConnection } from './queries.js';
import type { ActionContext } from './types.js';

/**
 * What the http, sql, notification, pod and logs actions share: the connection an action names (hydrated, its secrets
 * handed to the masker), EnvVar values read from Secrets, and the time an action has left.
 */

/** The namespace `valueFrom` and connection Secrets are read from (the run carries no namespace of its own). */
export const ACTION_NAMESPACE = 'default';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One resolver per cluster configuration, so a Secret read by many runs is read once a minute. */
const resolvers = new WeakMap<object, ValueFromResolver>();
const NO_CLUSTER = new ValueFromResolver({ reader: null, unavailable: 'valueFrom needs a Kubernetes cluster connection' });

export function valueFromResolver(ctx: ActionContext): ValueFromResolver {
  const kc = ctx.options.kube;
  if (!kc) return NO_CLUSTER;
  let r = resolvers.get(kc);
  if (!r) resolvers.set(kc, (r = new ValueFromResolver({ reader: kubeKeyRefReader(kc) })));
  return r;
}

/** A connection by reference (`connection://ns/name`, a name or an id), ready to use; its secrets are masked. */
export async function useConnection(ctx: ActionContext, ref: string): Promise<HydratedConnection> {
  const row = await findConnection(ctx.db, ref);
  if (!row) throw new Error(`connection ${ref} not found`);
  const conn = await hydrateConnection(row, { valueFrom: valueFromResolver(ctx) });
  for (const s of conn.secrets) ctx.addSecret(s);
  return conn;
}

/**
 * The value of an EnvVar field (a string, `{value}`, or `{valueFrom}` read now); a value read from a Secret, and every
 * value of a field that is a credential (`secret`), is handed to the masker. Undefined when unset.
 */
export async function envValue(ctx: ActionContext, v: unknown, field: string, secret = false): Promise<string | undefined> {
  let value: string | undefined;
  if (typeof v === 'string') value = v;
  else if (isObject(v) && isObject(v.valueFrom) && !(typeof v.value === 'string' && v.value !== '')) {
    const r = await valueFromResolver(ctx).resolve({ [field]: { valueFrom: v.valueFrom } }, ACTION_NAMESPACE);
    for (const s of r.secrets) ctx.addSecret(s);
    value = (r.spec[field] as { value: string }).value;
  } else if (isObject(v) && typeof v.value === 'string') value = v.value;
  if (value && secret) ctx.addSecret(value);
  return value === '' ? undefined : value;
}

/** Milliseconds until the action's deadline (at least 1). */
export function remainingMs(ctx: ActionContext): number {
  return Math.max(1, ctx.deadline - Date.now());
}

/** Rejects with the signal's reason (or "cancelled") as soon as it aborts; for awaits that take no signal. */
export function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  let onAbort: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([p, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

/** An Error saying why the action stopped: the abort reason's message, else "cancelled". */
export function abortError(signal: AbortSignal): Error {
  const r = signal.reason as unknown;
  if (r instanceof Error && r.name !== 'AbortError') return r;
  return new Error(typeof r === 'string' && r ? r : 'cancelled');
}

/** Text with each secret replaced by `***` (for errors built before the engine masks them, e.g. a URL in a message). */
export function masked(text: string, secrets: string[]): string {
  return secrets.reduce((t, s) => (s ? t.split(s).join('***') : t), text);
}
