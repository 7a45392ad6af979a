import type pg from 'pg';
import { isConnectionRef, parseConnectionRef, type ConnectionRef, type ConnectionTarget } from '../../lib/connection-ref.js';
import { checkTypeOf } from '../../lib/checks/index.js';
import { InvalidSpecError } from '../../lib/checks/lib/result.js';
import { hydrateConnection } from '../../lib/connection-hydrate.js';
import type { ValueFromResolver } from '../../lib/value-from.js';

/**
 * `connection: connection://<namespace>/<name>` on a check, as canary-checker reads it: right before the check runs,
 * the named row of `connections` (a Connection CR, or one written through /api/db) fills in the check's url and
 * credentials.
 *
 * Forms: `connection://<namespace>/<name>`; `connection://<name>` (the canary's namespace); and the reference's older
 * `connection://<type>/<name>`, taken only when no connection `<namespace>/<name>` exists: the connection of that
 * type (case-insensitive) and name in the canary's namespace, else the only one of that type and name anywhere.
 * Deleted rows never count.
 *
 * Inline fields of the check win over the connection's (the reference does the same): a check that has its own `url`
 * (or `endpoint` for http, `addr` for redis, `host` for prometheus) keeps it, one with its own username or password
 * keeps that, an http check that sets `tlsConfig.insecureSkipVerify` keeps it. So one connection can hold the
 * credentials while checks name different paths of it.
 *
 * A connection's url/username/password may be `secret://<name>/<key>` or `configmap://<name>/<key>` (written by the
 * console) or EnvVars `valueFrom` a Secret or ConfigMap in its spec (Connection CRs): the hydrator
 * (server/lib/connection-hydrate.ts) reads those from the CONNECTION's namespace with the ValueFromResolver (so a
 * rotated Secret reaches the next run within VALUE_FROM_CACHE_SECONDS), fills `$(username)`/`$(password)` in the url,
 * and, like an inline password, hands them back as secrets for the runner to mask in what the check reports.
 *
 * Rows are cached for `ttlMs` (10 s) by reference and canary namespace, so a changed or new connection reaches checks
 * within that time, and thousands of checks a minute naming one connection make one query per 10 s.
 */

/**
 * Whether a check type takes `connection` (its schema declares the field: ConnectionFields, or http's own). Types
 * without it (tcp, dns, exec...) ignore the field, as their schemas do.
 */
export function takesConnection(type: string): boolean {
  const shape = (checkTypeOf(type)?.schema as { shape?: Record<string, unknown> } | undefined)?.shape;
  return !!shape && 'connection' in shape;
}

/** The fields that say where a check connects, by type: any of them set inline means the connection's url is not used. */
const ADDRESS_FIELDS: Record<string, string[]> = {
  http: ['url', 'endpoint'],
  redis: ['url', 'addr'],
  prometheus: ['url', 'host'],
};

export interface ConnectionRow extends ConnectionTarget {
  certificate: string | null;
  properties: Record<string, unknown> | null;
  /** The CR's spec (EnvVars with valueFrom live here; the columns then hold only a `secret://name/key` label). */
  spec: Record<string, unknown> | null;
}

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

export interface ConnectionResolverOptions {
  db: Queryable;
  /** Reads `valueFrom` in a connection's spec (app.kube.valueFrom); without one such a connection is refused. */
  valueFrom?: ValueFromResolver;
  /** How long rows (and a reference that matched nothing) are reused; default 10 s. */
  ttlMs?: number;
  /** Cached references kept at most (oldest dropped first); default 5,000. */
  maxEntries?: number;
  now?: () => number;
}

/** The check spec with the connection merged in, and the credential values to mask in its outcome. */
export interface MergedSpec {
  spec: Record<string, unknown>;
  secrets: string[];
}

interface CacheEntry {
  /** Until when the entry is used; Infinity while its query is in flight. */
  expires: number;
  rows: Promise<ConnectionRow[]>;
}

const DEFAULT_TTL_MS = 10_000;
const DEFAULT_MAX_ENTRIES = 5_000;
const COLS = 'id, name, namespace, type, url, username, password, certificate, insecure_tls, properties, spec';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a check sets an EnvVar field itself: a non-empty string, a non-empty `value`, or a `valueFrom`. */
function isSet(v: unknown): boolean {
  if (typeof v === 'string') return v.trim() !== '';
  if (!isObject(v)) return false;
  return (typeof v.value === 'string' && v.value !== '') || isObject(v.valueFrom);
}

export class ConnectionResolver {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(private readonly opts: ConnectionResolverOptions) {
    this.ttlMs = opts.ttlMs ?? DEFAULT_TTL_MS;
    this.maxEntries = Math.max(1, opts.maxEntries ?? DEFAULT_MAX_ENTRIES);
    this.now = opts.now ?? Date.now;
  }

  /** Whether a check of this type and spec names a connection this resolver must merge. */
  static applies(type: string, spec: Record<string, unknown>): boolean {
    return isConnectionRef(spec.connection) && takesConnection(type);
  }

  /**
   * The spec of a check of `type` in a canary of `namespace` with its `connection://` merged in (a copy; the spec is
   * returned as is when it names none). Throws InvalidSpecError for what the spec's author must fix (a reference that
   * matches nothing, a connection without a url, a Secret it names that is missing) and a plain Error when the
   * database or the API server could not answer. Messages name the reference, never a value.
   */
  async resolve(type: string, spec: Record<string, unknown>, namespace: string): Promise<MergedSpec> {
    if (!ConnectionResolver.applies(type, spec)) return { spec, secrets: [] };
    const text = (spec.connection as string).trim();
    const ref = parseConnectionRef(text);
    if (!ref) throw new InvalidSpecError(`connection ${text} is not a valid reference (expected connection://<namespace>/<name>)`);
    const ns = namespace || 'default';
    const row = pick(text, ref, ns, await this.rows(ref, ns));
    const values = await this.values(text, row);

    const out: Record<string, unknown> = { ...spec };
    delete out.connection;
    const secrets = [...values.secrets];
    const hasAddress = (ADDRESS_FIELDS[type] ?? ['url']).some((f) => typeof spec[f] === 'string' && (spec[f] as string).trim() !== '');
    if (!hasAddress) {
      // an empty url matters only when the check has none of its own (a connection may hold just credentials)
      if (!values.url) throw new InvalidSpecError(`connection ${text} has no url`);
      out.url = values.url;
    }
    if (!isSet(spec.username) && values.username) out.username = values.username;
    if (!isSet(spec.password) && values.password) out.password = values.password;
    if (type === 'http' && typeof row.insecure_tls === 'boolean') {
      const tls = isObject(spec.tlsConfig) ? spec.tlsConfig : {};
      if (tls.insecureSkipVerify === undefined) out.tlsConfig = { ...tls, insecureSkipVerify: row.insecure_tls };
    }
    return { spec: out, secrets };
  }

  /** Forgets every cached row (tests). */
  clear(): void {
    this.cache.clear();
  }

  /** The candidate rows of a reference: by namespace and name, and (two segments) by type and name. */
  private rows(ref: ConnectionRef, canaryNs: string): Promise<ConnectionRow[]> {
    const key = `${canaryNs}\u0000${ref.namespace ?? ''}\u0000${ref.name}`;
    const now = this.now();
    const hit = this.cache.get(key);
    if (hit && hit.expires > now) return hit.rows;
    if (hit) this.cache.delete(key);
    if (this.cache.size >= this.maxEntries) {
      for (const [k, e] of this.cache) if (e.expires <= now) this.cache.delete(k);
      // still full of live entries: drop the oldest (a Map iterates in insertion order)
      for (const k of this.cache.keys()) {
        if (this.cache.size < this.maxEntries) break;
        this.cache.delete(k);
      }
    }
    const rows = ref.namespace === null
      ? this.opts.db.query<ConnectionRow>(
        `SELECT ${COLS} FROM connections WHERE deleted_at IS NULL AND name = $1 AND namespace = $2`, [ref.name, canaryNs],
      )
      : this.opts.db.query<ConnectionRow>(
        `SELECT ${COLS} FROM connections
         WHERE deleted_at IS NULL AND name = $1 AND (namespace = $2 OR lower(type) = lower($2))
         ORDER BY created_at`,
        [ref.name, ref.namespace],
      );
    const entry: CacheEntry = { expires: Infinity, rows: rows.then((r) => r.rows) };
    this.cache.set(key, entry);
    entry.rows.then(
      () => { entry.expires = this.now() + this.ttlMs; },
      // a database error is not remembered: the next run asks again
      () => { if (this.cache.get(key) === entry) this.cache.delete(key); },
    );
    return entry.rows;
  }

  /**
   * The connection's url, username and password through the one hydrator (server/lib/connection-hydrate.ts):
   * `secret://`/`configmap://` in its columns and valueFrom in its spec read from its own namespace.
   */
  private async values(text: string, row: ConnectionRow): Promise<{ url?: string; username?: string; password?: string; secrets: string[] }> {
    let h;
    try {
      h = await hydrateConnection(row, { valueFrom: this.opts.valueFrom });
    } catch (err) {
      // the hydrator names `connection <ns>/<name>`; the check's author wrote `text`
      const message = `connection ${text}: ${(err instanceof Error ? err.message : String(err)).replace(/^connection [^:]*: /, '')}`;
      throw err instanceof InvalidSpecError ? new InvalidSpecError(message) : new Error(message);
    }
    const some = (v: string) => (v !== '' ? v : undefined);
    return { url: some(h.url), username: some(h.username), password: some(h.password), secrets: h.secrets };
  }
}

/** The row a reference means among its candidates (see the module comment for the order). */
function pick(text: string, ref: ConnectionRef, canaryNs: string, rows: ConnectionRow[]): ConnectionRow {
  if (ref.namespace === null) {
    if (rows[0]) return rows[0];
    throw new InvalidSpecError(`connection ${text} not found (looked for ${canaryNs}/${ref.name})`);
  }
  const exact = rows.find((r) => r.namespace === ref.namespace);
  if (exact) return exact;
  const typed = rows.filter((r) => r.type.toLowerCase() === ref.namespace!.toLowerCase());
  const here = typed.find((r) => r.namespace === canaryNs);
  if (here) return here;
  if (typed.length === 1) return typed[0];
  if (typed.length > 1) {
    throw new InvalidSpecError(
      `connection ${text} is ambiguous: ${typed.length} connections of type ${ref.namespace} are named ${ref.name} `
      + `(${typed.map((r) => r.namespace).join(', ')}); write connection://<namespace>/${ref.name}`,
    );
  }
  throw new InvalidSpecError(`connection ${text} not found`);
}
