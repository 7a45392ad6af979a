import { z } from 'zod';

/**
 * The pieces a connection type is declared with (spec 001 §3 "Connection"): the secret-value model and the field
 * descriptor. Pure, zod only: the server (validation, masking, tests, senders) and the web (forms) share it.
 */

/** What `/api/db/connections` shows for a stored static secret, and what a client sends back to keep it. */
export const SECRET_MASK = '***';

/** Where a secret-capable field's value comes from (spec 001 §4: the form switches between the three). */
export const SecretSource = z.enum(['static', 'secret', 'configmap']);
export type SecretSource = z.infer<typeof SecretSource>;

/** A secret-capable value, parsed: a literal, or a key of a Secret or ConfigMap in the connection's namespace. */
export const SecretValue = z.discriminatedUnion('source', [
  z.object({ source: z.literal('static'), value: z.string() }),
  z.object({ source: z.enum(['secret', 'configmap']), name: z.string(), key: z.string() }),
]);
export type SecretValue = z.infer<typeof SecretValue>;

// a Kubernetes object name (DNS subdomain) and a data key ([-._a-zA-Z0-9]+)
const REF = /^(secret|configmap):\/\/([^/]*)\/(.*)$/s;
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const DATA_KEY = /^[-._a-zA-Z0-9]+$/;

/** `secret://name/key` → `{source: 'secret', name, key}`; anything else (null too) is a static value. */
export function parseSecretValue(raw: string | null | undefined): SecretValue {
  const m = REF.exec(raw ?? '');
  if (!m) return { source: 'static', value: raw ?? '' };
  return { source: m[1] as 'secret' | 'configmap', name: m[2], key: m[3] };
}

/** The stored form: the literal, or `secret://name/key` / `configmap://name/key`. */
export function formatSecretValue(v: SecretValue): string {
  return v.source === 'static' ? v.value : `${v.source}://${v.name}/${v.key}`;
}

/** Whether a stored value is a reference (shown as written) rather than a literal (shown as `***`). */
export function isSecretReference(raw: string | null | undefined): boolean {
  return REF.test(raw ?? '');
}

/**
 * Why a reference is unusable, or null: a reference needs both a name and a key (spec 001 "Bad input"). The message
 * names what is missing, for the form and for the server's 400.
 */
export function secretReferenceProblem(raw: string | null | undefined): string | null {
  const v = parseSecretValue(raw);
  if (v.source === 'static') return null;
  const what = v.source === 'secret' ? 'Secret' : 'ConfigMap';
  if (!v.name) return `${what} name is required`;
  if (!OBJECT_NAME.test(v.name) || v.name.length > 253) return `${what} name must be a Kubernetes object name`;
  if (!v.key) return `${what} key is required`;
  if (!DATA_KEY.test(v.key) || v.key.length > 253) return `${what} key may hold only letters, digits, '-', '_' and '.'`;
  return null;
}

/** How a field is edited. `secret` is a text with the Static / Secret / ConfigMap switch. */
export const FieldKind = z.enum(['text', 'secret', 'number', 'boolean', 'select', 'textarea']);
export type FieldKind = z.infer<typeof FieldKind>;

/** The columns a field can live in; everything else goes under `properties.<key>`. */
export const CONNECTION_COLUMNS = ['url', 'username', 'password', 'certificate', 'insecure_tls'] as const;
export type ConnectionColumn = (typeof CONNECTION_COLUMNS)[number];

/** Where a field's value is stored on the connection row. */
export const FieldStore = z.union([
  z.enum(CONNECTION_COLUMNS),
  z.templateLiteral(['properties.', z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/)]),
]);
export type FieldStore = z.infer<typeof FieldStore>;

/** One field of a connection type's form. */
export const ConnectionField = z.object({
  /** The form's key; unique within the type. */
  name: z.string(),
  label: z.string(),
  kind: FieldKind,
  required: z.boolean().default(false),
  default: z.union([z.string(), z.number(), z.boolean()]).optional(),
  options: z.array(z.object({ value: z.string(), label: z.string() })).optional(),
  hint: z.string().optional(),
  /** A secret holding a long text (a certificate, a kubeconfig, an SSH key): a multi-line box. */
  multiline: z.boolean().optional(),
  /** Shown (and sent) only while another field of the form holds this value (git: Basic or SSH). */
  when: z.object({ field: z.string(), equals: z.string() }).optional(),
  store: FieldStore,
});
export type ConnectionField = z.infer<typeof ConnectionField>;

/** A form's values by field name, as the builders see them. */
export type FieldValues = Record<string, string | number | boolean | null | undefined>;

/** A connection type: tile, form and, for notification types, the URL its senders read. */
export const ConnectionTypeInfo = z.object({
  /** The row's `type`. */
  type: z.string(),
  label: z.string(),
  /** An icon name from the console's set (the web maps it to a glyph). */
  icon: z.string(),
  fields: z.array(ConnectionField),
  /** Exists, but is not offered as a tile (jmeter). */
  hidden: z.boolean().default(false),
  /** A notification target: the `url` column is built from the fields (shoutrrr-style). */
  notification: z.boolean().default(false),
});

/**
 * A type's descriptor. `buildUrl` (notification types) returns the shoutrrr-style URL stored in `url`, with
 * `$(username)` / `$(password)` placeholders the hydrator fills from the (possibly referenced) columns, so a secret
 * never sits in the URL itself.
 */
export type ConnectionTypeDescriptor = z.infer<typeof ConnectionTypeInfo> & { buildUrl?: (v: FieldValues) => string };

type FieldOptions = Partial<Omit<ConnectionField, 'name' | 'label' | 'kind' | 'store'>>;

const make = (name: string, label: string, kind: FieldKind, store: FieldStore, o: FieldOptions = {}): ConnectionField =>
  ConnectionField.parse({ name, label, kind, store, ...o });

/** Field constructors: one line per field in the type tables. */
export const field = {
  url: (label = 'URL', o: FieldOptions = { required: true }) => make('url', label, 'text', 'url', o),
  username: (label = 'Username', o: FieldOptions = {}, kind: FieldKind = 'secret') => make('username', label, kind, 'username', o),
  password: (label = 'Password', o: FieldOptions = {}) => make('password', label, 'secret', 'password', o),
  certificate: (label = 'Certificate', o: FieldOptions = {}) =>
    make('certificate', label, 'secret', 'certificate', { multiline: true, ...o }),
  insecureTls: (label = 'Insecure TLS') => make('insecure_tls', label, 'boolean', 'insecure_tls', { default: false }),
  /** A value under `properties.<name>`. */
  prop: (name: string, label: string, kind: FieldKind = 'text', o: FieldOptions = {}) =>
    make(name, label, kind, `properties.${name}`, o),
};

export const REQUIRED = { required: true } as const;

/** A value for a URL: placeholders and empty values as they are, the rest percent-encoded. */
export function enc(v: FieldValues[string]): string {
  return v === undefined || v === null ? '' : encodeURIComponent(String(v));
}

/** A query string from pairs, leaving out empty values (`?a=1&b=2`, or '' when none). */
export function query(pairs: [string, FieldValues[string]][]): string {
  const parts = pairs.filter(([, v]) => v !== undefined && v !== null && v !== '').map(([k, v]) => `${k}=${enc(v)}`);
  return parts.length ? `?${parts.join('&')}` : '';
}
