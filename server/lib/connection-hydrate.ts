import { InvalidSpecError } from './checks/lib/result.js';
import { hasValueFrom, ValueFromResolver } from './value-from.js';

/**
 * A row of `connections` made ready to use: every `secret://<name>/<key>` / `configmap://<name>/<key>` in its
 * secret-capable columns and properties, and every EnvVar `valueFrom` of a Connection CR's spec, read from the
 * CONNECTION's namespace (through the ValueFromResolver, so a rotated Secret reaches the next use within its cache
 * time), and `$(username)`, `$(password)`, `$(<property>)` in the url filled in. One code path for health's
 * `connection://`, the incidents mailer and the connection test.
 *
 * The values live only in what this returns: never stored, logged or put in an error. `secrets` lists what a caller
 * must mask in anything it reports (Secret values, static passwords and certificates, secret-like properties, a
 * password in the url's userinfo).
 */

/** What a static secret is shown as by /api/db and `connection_details`; writing it back keeps the stored value. */
export const MASK = '***';

/** Columns that may hold a secret (a static value, or a reference). */
export const SECRET_COLUMNS = ['username', 'password', 'certificate'] as const;

/** Reference schemes shown as written (not masked): what they hold is a pointer, not the secret. */
export const REFERENCE_SCHEMES = ['secret://', 'configmap://', 'helm://', 'serviceaccount://'] as const;

/**
 * Property keys whose static values are secrets (an API token, a webhook key, a private key...). The same pattern
 * masks them in SQL (server/modules/db), so it is written in the subset of regex both engines read alike.
 */
export const SECRET_PROPERTY_PATTERN = '(password|passwd|secret|token|apikey|api_key|accesskey|access_key|privatekey|private_key|credential|webhook)';
const SECRET_PROPERTY = new RegExp(SECRET_PROPERTY_PATTERN, 'i');

export const isSecretProperty = (key: string): boolean => SECRET_PROPERTY.test(key);

/** Whether a value is one of the reference forms (shown as written). */
export function isReference(v: unknown): boolean {
  return typeof v === 'string' && REFERENCE_SCHEMES.some((s) => v.toLowerCase().startsWith(s));
}

export interface KeyRef {
  kind: 'secret' | 'configmap';
  name: string;
  key: string;
}

/**
 * What is wrong with a reference (`secret://foo` has no key, `secret:///k` no name), or null when it is well formed
 * or not a reference at all. Says the expected form, never the value.
 */
export function referenceProblem(v: unknown): string | null {
  if (typeof v !== 'string' || !isReference(v)) return null;
  const scheme = REFERENCE_SCHEMES.find((s) => v.toLowerCase().startsWith(s))!;
  const rest = v.slice(scheme.length);
  if (scheme === 'serviceaccount://') return rest.trim() ? null : 'expected serviceaccount://<name>';
  const parts = rest.split('/');
  if (parts.length !== 2 || !parts[0].trim() || !parts[1].trim()) return `expected ${scheme}<name>/<key>`;
  return null;
}

/** The Secret or ConfigMap key a `secret://name/key` or `configmap://name/key` names; null for anything else. */
export function parseKeyRef(v: unknown): KeyRef | null {
  if (typeof v !== 'string' || !isReference(v) || referenceProblem(v)) return null;
  const lower = v.toLowerCase();
  const kind = lower.startsWith('secret://') ? 'secret' : lower.startsWith('configmap://') ? 'configmap' : null;
  if (!kind) return null;
  const [name, key] = v.slice(`${kind}://`.length).split('/');
  return { kind, name: name.trim(), key: key.trim() };
}

/** A row of `connections` (or an unsaved body of the same shape), secrets as stored. */
export interface ConnectionInput {
  id?: string;
  name: string;
  namespace?: string | null;
  type: string;
  url?: string | null;
  username?: string | null;
  password?: string | null;
  certificate?: string | null;
  insecure_tls?: boolean | null;
  properties?: Record<string, unknown> | null;
  /** A Connection CR's spec: EnvVars with `valueFrom` here win over the column's label. */
  spec?: Record<string, unknown> | null;
}

export interface HydratedConnection {
  id?: string;
  name: string;
  namespace: string;
  type: string;
  url: string;
  username: string;
  password: string;
  certificate: string;
  insecure_tls: boolean;
  /** Scalars as text (a port may be stored as a number); objects as JSON. */
  properties: Record<string, string>;
  /** Values to mask in anything reported about a use of the connection. */
  secrets: string[];
}

export interface HydrateOptions {
  /** Reads Secrets and ConfigMaps; without one, a reference is refused (no cluster connection). */
  valueFrom?: ValueFromResolver;
}

const FIELDS = ['url', 'username', 'password', 'certificate'] as const;
type Field = (typeof FIELDS)[number];
const NO_CLUSTER = new ValueFromResolver({ reader: null });
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const text = (v: unknown): string => {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
};

/** An EnvVar reading what a column or property holds: a reference becomes a valueFrom, anything else its value. */
function envVar(v: unknown, field: string): unknown {
  const problem = referenceProblem(v);
  if (problem) throw new InvalidSpecError(`${field}: ${problem}`);
  const ref = parseKeyRef(v);
  if (ref) return { valueFrom: { [ref.kind === 'secret' ? 'secretKeyRef' : 'configMapKeyRef']: { name: ref.name, key: ref.key } } };
  if (typeof v === 'string' && isReference(v)) {
    // helm:// and serviceaccount:// are kept as written and refused here, as valueFrom refuses helmRef/serviceAccount
    const scheme = v.slice(0, v.indexOf('://'));
    throw new InvalidSpecError(`${field}: ${scheme}:// references are not supported`);
  }
  return { value: text(v) };
}

/** Fills `$(name)` placeholders from `values`; unknown names are left as written. */
export function fillPlaceholders(template: string, values: Record<string, string>): string {
  return template.replace(/\$\(([A-Za-z0-9_.-]+)\)/g, (all, name: string) => (Object.hasOwn(values, name) ? values[name] : all));
}

export async function hydrateConnection(row: ConnectionInput, opts: HydrateOptions = {}): Promise<HydratedConnection> {
  const namespace = row.namespace || 'default';
  const where = `connection ${namespace}/${row.name}`;
  const spec = isObject(row.spec) ? row.spec : {};
  const props = isObject(row.properties) ? row.properties : {};

  // One spec for the resolver: the four fields and every property, each an EnvVar
  const fields: Record<string, unknown> = {};
  const properties: Record<string, unknown> = {};
  try {
    for (const f of FIELDS) fields[f] = hasValueFrom(spec[f]) ? spec[f] : envVar(row[f], f);
    for (const [k, v] of Object.entries(props)) properties[k] = envVar(v, `properties.${k}`);
  } catch (err) {
    throw new InvalidSpecError(`${where}: ${(err as Error).message}`);
  }
  const input = { ...fields, properties };
  let resolved: Record<string, unknown> = input;
  const secrets: string[] = [];
  if (hasValueFrom(input)) {
    try {
      const r = await (opts.valueFrom ?? NO_CLUSTER).resolve(input, namespace);
      resolved = r.spec;
      secrets.push(...r.secrets);
    } catch (err) {
      const message = `${where}: ${err instanceof Error ? err.message : String(err)}`;
      throw err instanceof InvalidSpecError ? new InvalidSpecError(message) : new Error(message);
    }
  }
  const valueOf = (v: unknown) => text(isObject(v) ? v.value : v);
  const out = Object.fromEntries(FIELDS.map((f) => [f, valueOf(resolved[f])])) as Record<Field, string>;
  const outProps: Record<string, string> = {};
  for (const [k, v] of Object.entries(resolved.properties as Record<string, unknown>)) outProps[k] = valueOf(v);

  if (out.password) secrets.push(out.password);
  if (out.certificate) secrets.push(out.certificate);
  for (const [k, v] of Object.entries(outProps)) if (v && isSecretProperty(k)) secrets.push(v);

  const url = fillPlaceholders(out.url, { ...outProps, username: out.username, password: out.password });
  // a password in the url's userinfo is a secret too (written inline, or filled in from $(password))
  try {
    const p = new URL(url).password;
    if (p) secrets.push(decodeURIComponent(p));
  } catch {
    // not a URL (a DSN, host:port): nothing to take from it
  }
  return {
    ...(row.id !== undefined ? { id: row.id } : {}),
    name: row.name,
    namespace,
    type: row.type,
    url,
    username: out.username,
    password: out.password,
    certificate: out.certificate,
    insecure_tls: row.insecure_tls === true,
    properties: outProps,
    secrets: [...new Set(secrets.filter((s) => s.length > 0))],
  };
}
