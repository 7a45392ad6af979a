import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { errorText, statusOf, withTimeout } from '../modules/kubernetes/objects.js';
import { InvalidSpecError } from './checks/lib/result.js';

/**
 * EnvVar `valueFrom` in check specs, as the reference (duty's EnvVar, canary-checker) resolves it: right before a check
 * runs, every `{ valueFrom: { secretKeyRef | configMapKeyRef: { name, key } } }` in its spec becomes `{ value }`, read
 * from the canary's namespace. Resolving at run time (not when the canary is loaded) is what makes a rotated Secret
 * reach the check; a short cache keeps thousands of checks a minute from reading the same object each time.
 *
 * The values live only in the spec handed to the check type and in this cache: never stored, logged or returned.
 * `helmRef` and `serviceAccount` sources are refused as unsupported; `connection://` references are not resolved here.
 */

export type KeyRefKind = 'secret' | 'configmap';

/** Why an object could not be read: `status` is the API server's HTTP status when there is one. */
export class KeyRefReadError extends Error {
  constructor(message: string, readonly status: number | null) {
    super(message);
  }
}

/** Reads the key/value map of one Secret (data, base64-decoded) or ConfigMap (data, then binaryData). */
export type KeyRefReader = (kind: KeyRefKind, namespace: string, name: string) => Promise<Record<string, string>>;

export interface ValueFromOptions {
  /** How values are read; null when there is no cluster connection (every valueFrom is then refused with `unavailable`). */
  reader: KeyRefReader | null;
  /** The error for a valueFrom when `reader` is null. */
  unavailable?: string;
  /** How long a read object is reused (default 60 s; 0 reads it for every run). */
  ttlMs?: number;
  /** How long a failed read is remembered (default 10 s, at most ttlMs). */
  errorTtlMs?: number;
  now?: () => number;
}

/** A spec with every valueFrom replaced, and the Secret values put in it (to mask them in what the check reports). */
export interface ResolvedSpec {
  spec: Record<string, unknown>;
  secrets: string[];
}

interface CacheEntry {
  /** Until when the entry is used; Infinity while its read is in flight. */
  expires: number;
  data: Promise<Record<string, string>>;
}

const DEFAULT_TTL_MS = 60_000;
const DEFAULT_ERROR_TTL_MS = 10_000;
/** Past this many cached objects, expired entries are dropped on the next read. */
const SWEEP_AT = 2_000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether anything in `spec` is an EnvVar with a `valueFrom` (cheap: most specs have none and are passed as they are). */
export function hasValueFrom(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(hasValueFrom);
  if (!isObject(v)) return false;
  if (isObject(v.valueFrom)) return true;
  for (const k in v) if (hasValueFrom(v[k])) return true;
  return false;
}

export class ValueFromResolver {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly ttlMs: number;
  private readonly errorTtlMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: ValueFromOptions) {
    this.ttlMs = opts.ttlMs ?? DEFAULT_TTL_MS;
    this.errorTtlMs = Math.min(opts.errorTtlMs ?? DEFAULT_ERROR_TTL_MS, this.ttlMs);
    this.now = opts.now ?? Date.now;
  }

  /**
   * The spec with its valueFrom fields resolved from `namespace`. Throws InvalidSpecError for what the spec's author
   * must fix (unsupported source, missing Secret or key, no permission, no cluster) and a plain Error when the API
   * server could not answer; messages name namespace/name/key, never a value.
   */
  async resolve(spec: Record<string, unknown>, namespace: string): Promise<ResolvedSpec> {
    const secrets: string[] = [];
    const ns = namespace || 'default';
    const out = (await this.walk(spec, '', ns, secrets)) as Record<string, unknown>;
    return { spec: out, secrets };
  }

  /** Forgets every cached object (tests; a way to force a re-read). */
  clear(): void {
    this.cache.clear();
  }

  private async walk(v: unknown, path: string, ns: string, secrets: string[]): Promise<unknown> {
    if (Array.isArray(v)) {
      if (!v.some(hasValueFrom)) return v;
      const out: unknown[] = [];
      for (let i = 0; i < v.length; i++) out.push(await this.walk(v[i], `${path}[${i}]`, ns, secrets));
      return out;
    }
    if (!isObject(v) || !hasValueFrom(v)) return v;
    if (isObject(v.valueFrom)) {
      const { valueFrom, ...rest } = v;
      // a literal value wins over valueFrom, as in the reference's EnvVar
      if (typeof rest.value === 'string' && rest.value !== '') return rest;
      return { ...rest, value: await this.value(valueFrom, path || 'valueFrom', ns, secrets) };
    }
    const out: Record<string, unknown> = {};
    for (const [k, child] of Object.entries(v)) out[k] = await this.walk(child, path ? `${path}.${k}` : k, ns, secrets);
    return out;
  }

  private async value(from: Record<string, unknown>, field: string, ns: string, secrets: string[]): Promise<string> {
    const kind: KeyRefKind | null = from.secretKeyRef !== undefined ? 'secret' : from.configMapKeyRef !== undefined ? 'configmap' : null;
    if (!kind) {
      const unsupported = ['helmRef', 'serviceAccount'].find((k) => from[k] !== undefined);
      if (unsupported) throw new InvalidSpecError(`${field}: valueFrom ${unsupported} is not supported`);
      throw new InvalidSpecError(`${field}: valueFrom needs secretKeyRef or configMapKeyRef`);
    }
    const refName = kind === 'secret' ? 'secretKeyRef' : 'configMapKeyRef';
    const ref = from[refName];
    const name = isObject(ref) && typeof ref.name === 'string' ? ref.name.trim() : '';
    const key = isObject(ref) && typeof ref.key === 'string' ? ref.key.trim() : '';
    if (!name || !key) throw new InvalidSpecError(`${field}: valueFrom.${refName} needs a name and a key`);
    if (!this.opts.reader) throw new InvalidSpecError(`${field}: ${this.opts.unavailable ?? 'valueFrom needs a Kubernetes cluster connection'}`);

    const what = `${kind} ${ns}/${name}`;
    let data: Record<string, string>;
    try {
      data = await this.read(kind, ns, name);
    } catch (err) {
      if (!(err instanceof KeyRefReadError)) throw err;
      // what the author can fix is an invalid spec; an API server that did not answer is a failed run
      if (err.status === 404) throw new InvalidSpecError(`${field}: ${what} not found`);
      if (err.status === 403 || err.status === 401) throw new InvalidSpecError(`${field}: not allowed to read ${what} (${err.message})`);
      throw new Error(`${field}: could not read ${what}: ${err.message}`);
    }
    if (!Object.hasOwn(data, key)) throw new InvalidSpecError(`${field}: key "${key}" not found in ${what}`);
    const value = data[key];
    if (kind === 'secret' && value) secrets.push(value);
    return value;
  }

  private read(kind: KeyRefKind, ns: string, name: string): Promise<Record<string, string>> {
    const id = `${kind}/${ns}/${name}`;
    const now = this.now();
    const hit = this.cache.get(id);
    if (hit && hit.expires > now) return hit.data;
    if (this.cache.size >= SWEEP_AT) for (const [k, e] of this.cache) if (e.expires <= now) this.cache.delete(k);
    const entry: CacheEntry = { expires: Infinity, data: this.opts.reader!(kind, ns, name) };
    this.cache.set(id, entry);
    entry.data.then(
      () => { entry.expires = this.now() + this.ttlMs; },
      () => { entry.expires = this.now() + this.errorTtlMs; },
    );
    return entry.data;
  }
}

/** How long one read of a Secret or ConfigMap may take (client-node requests have no timeout of their own). */
const READ_TIMEOUT_MS = 10_000;

/** A KeyRefReader over the console's cluster connection (needs `get` on secrets and configmaps: see the chart). */
export function kubeKeyRefReader(kc: KubeConfig): KeyRefReader {
  const api = kc.makeApiClient(CoreV1Api);
  return async (kind, namespace, name) => {
    try {
      if (kind === 'secret') {
        const s = await withTimeout(api.readNamespacedSecret({ name, namespace }), READ_TIMEOUT_MS, `secret ${namespace}/${name}`);
        // `data` is base64; stringData is write-only and never comes back from the API server
        return Object.fromEntries(Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
      }
      const c = await withTimeout(api.readNamespacedConfigMap({ name, namespace }), READ_TIMEOUT_MS, `configmap ${namespace}/${name}`);
      const binary = Object.entries(c.binaryData ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]);
      return { ...Object.fromEntries(binary), ...(c.data ?? {}) };
    } catch (err) {
      throw new KeyRefReadError(errorText(err), statusOf(err));
    }
  };
}
