import { z } from 'zod';
import {
  SECRET_MASK,
  secretReferenceProblem,
  type ConnectionColumn,
  type ConnectionField,
  type ConnectionTypeDescriptor,
  type FieldValues,
} from './connection-fields.js';
import { SYSTEM_CONNECTION_TYPES } from './connection-types.js';
import { NOTIFICATION_CONNECTION_TYPES } from './notification-connection-types.js';

export * from './connection-fields.js';
export { PASSWORD, USERNAME } from './notification-connection-types.js';

/**
 * Connections (spec 001 §3 "Connection"): the type registry, one descriptor per type, and the conversions between a
 * type's form and the row. Shared by the server (validation, masking, tests, senders) and the web (the form).
 */

/** Every type, system types first, then notification types (§3 order). */
export const CONNECTION_DESCRIPTORS: readonly ConnectionTypeDescriptor[] = [...SYSTEM_CONNECTION_TYPES, ...NOTIFICATION_CONNECTION_TYPES];

/** The type names a connection row may hold (jmeter included: it exists but is hidden). */
export const CONNECTION_TYPES = CONNECTION_DESCRIPTORS.map((t) => t.type) as [string, ...string[]];
export const ConnectionTypeName = z.enum(CONNECTION_TYPES);

/** The notification targets (their `url` is built from their fields). */
export const NOTIFICATION_TYPES = NOTIFICATION_CONNECTION_TYPES.map((t) => t.type);

const BY_TYPE = new Map(CONNECTION_DESCRIPTORS.map((t) => [t.type, t]));

/** A type's descriptor, or undefined for an unknown type. */
export function connectionType(type: string): ConnectionTypeDescriptor | undefined {
  return BY_TYPE.get(type);
}

/** The tiles of 'Select Connection Type': every type but the hidden ones, by label. */
export function selectableConnectionTypes(): ConnectionTypeDescriptor[] {
  return CONNECTION_DESCRIPTORS.filter((t) => !t.hidden).sort((a, b) => a.label.localeCompare(b.label));
}

/** The `properties` keys of a type that hold secret-capable values (masked like the secret columns). */
export function secretPropertyKeys(type: string): string[] {
  return (connectionType(type)?.fields ?? [])
    .filter((f) => f.kind === 'secret' && f.store.startsWith('properties.'))
    .map((f) => f.store.slice('properties.'.length));
}

/** A person as `created_by(id,name,avatar,email)` embeds them. */
export const ConnectionPerson = z.object({
  id: z.string(),
  name: z.string().nullish(),
  avatar: z.string().nullish(),
  email: z.string().nullish(),
});

/** A row of `/api/db/connections`: static secrets read `***`, references as written. */
export const Connection = z.object({
  id: z.string(),
  name: z.string(),
  namespace: z.string().nullish(),
  type: z.string(),
  url: z.string().nullish(),
  username: z.string().nullish(),
  password: z.string().nullish(),
  certificate: z.string().nullish(),
  insecure_tls: z.boolean().nullish(),
  properties: z.record(z.string(), z.unknown()).nullish(),
  source: z.string().nullish(),
  created_by: z.union([ConnectionPerson, z.string()]).nullish(),
  created_at: z.string().nullish(),
  updated_at: z.string().nullish(),
});
export type Connection = z.infer<typeof Connection>;

/** What a form writes: the row's editable columns. */
export const ConnectionWrite = z.object({
  name: z.string(),
  namespace: z.string(),
  type: z.string(),
  url: z.string().nullable(),
  username: z.string().nullable(),
  password: z.string().nullable(),
  certificate: z.string().nullable(),
  insecure_tls: z.boolean(),
  properties: z.record(z.string(), z.unknown()),
});
export type ConnectionWrite = z.infer<typeof ConnectionWrite>;

/** `POST /api/connection/test[/{id}]` on success. */
export const ConnectionTestResult = z.object({ message: z.string(), payload: z.unknown().optional() });
export type ConnectionTestResult = z.infer<typeof ConnectionTestResult>;

/** One thing that names a connection (`GET /api/connection/{id}/usage`): a check, notification, playbook, scraper. */
export const ConnectionUsageItem = z.object({ kind: z.string(), id: z.string().nullish(), name: z.string() });
export const ConnectionUsage = z.array(ConnectionUsageItem);
export type ConnectionUsage = z.infer<typeof ConnectionUsage>;

/** Whether a field shows (and is sent) for these values. */
export function fieldVisible(f: ConnectionField, values: FieldValues): boolean {
  return !f.when || String(values[f.when.field] ?? '') === f.when.equals;
}

/** Where `f` is stored on a row-shaped object. */
function readStore(f: ConnectionField, row: Partial<Connection>): unknown {
  if (f.store.startsWith('properties.')) return row.properties?.[f.store.slice('properties.'.length)];
  return row[f.store as ConnectionColumn];
}

function initial(f: ConnectionField): string | boolean {
  if (f.kind === 'boolean') return f.default === true;
  return f.default === undefined ? '' : String(f.default);
}

/** The form's values for a new connection of `type` (§5's defaults) or for an existing row. */
export function connectionFormValues(desc: ConnectionTypeDescriptor, row?: Partial<Connection>): FieldValues {
  const values: FieldValues = { name: row?.name ?? '', namespace: row?.namespace ?? 'default' };
  for (const f of desc.fields) {
    const stored = row ? readStore(f, row) : undefined;
    if (stored === undefined || stored === null) values[f.name] = initial(f);
    else values[f.name] = f.kind === 'boolean' ? stored === true || stored === 'true' : String(stored);
  }
  return values;
}

function toNumber(v: FieldValues[string]): number | null {
  if (v === undefined || v === null || v === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/**
 * The row a form writes. Hidden fields (git's other authentication) are cleared; empty text is null; properties
 * the form does not know (a CR's extras) are kept from `previous`. A notification type's `url` is built from the
 * fields with `$(…)` placeholders.
 */
export function connectionWriteBody(
  desc: ConnectionTypeDescriptor,
  values: FieldValues,
  previous?: Record<string, unknown> | null,
): ConnectionWrite {
  const body: ConnectionWrite = {
    name: String(values.name ?? '').trim(),
    namespace: String(values.namespace ?? '').trim() || 'default',
    type: desc.type,
    url: null,
    username: null,
    password: null,
    certificate: null,
    // secure unless the form says otherwise (the table's default is true)
    insecure_tls: false,
    properties: { ...(previous ?? {}) },
  };
  for (const f of desc.fields) {
    const shown = fieldVisible(f, values);
    const raw = values[f.name];
    const value =
      f.kind === 'boolean' ? raw === true : f.kind === 'number' ? toNumber(raw) : raw === undefined || raw === null || raw === '' ? null : String(raw);
    if (f.store.startsWith('properties.')) {
      const key = f.store.slice('properties.'.length);
      if (shown && value !== null) body.properties[key] = value;
      else delete body.properties[key];
    } else if (f.store === 'insecure_tls') {
      body.insecure_tls = shown && value === true;
    } else {
      body[f.store as Exclude<ConnectionColumn, 'insecure_tls'>] = shown && value !== null ? String(value) : null;
    }
  }
  if (desc.buildUrl) body.url = desc.buildUrl(values);
  return body;
}

export const FIELD_REQUIRED = 'This field is required';
export const FIELD_NUMBER = 'This field must be a number';
const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * The form's schema for a type (§5: 'This field is required', 'This field must be a number'; a reference needs a
 * name and a key). `editing` allows `***` (the stored static secret, sent back untouched); a new connection may not
 * hold it.
 */
export function connectionFormSchema(desc: ConnectionTypeDescriptor, editing: boolean) {
  const shape: Record<string, z.ZodType<FieldValues[string]>> = {
    name: z.string().trim().min(1, FIELD_REQUIRED).max(255, 'Name is too long'),
    namespace: z
      .string()
      .trim()
      .min(1, FIELD_REQUIRED)
      .max(63, 'Namespace is too long')
      .regex(NAMESPACE, 'Namespace must be lowercase letters, digits and -'),
  };
  for (const f of desc.fields) {
    shape[f.name] = f.kind === 'boolean' ? z.boolean() : z.union([z.string(), z.number()]).nullish();
  }
  return z.object(shape).superRefine((values, ctx) => {
    const v = values as FieldValues;
    for (const f of desc.fields) {
      if (f.kind === 'boolean' || !fieldVisible(f, v)) continue;
      const text = v[f.name] === undefined || v[f.name] === null ? '' : String(v[f.name]).trim();
      const issue = (message: string) => ctx.addIssue({ code: 'custom', path: [f.name], message });
      if (!text) {
        if (f.required) issue(FIELD_REQUIRED);
        continue;
      }
      if (f.kind === 'number' && !Number.isFinite(Number(text))) issue(FIELD_NUMBER);
      if (f.kind === 'secret') {
        const problem = secretReferenceProblem(text);
        if (problem) issue(problem);
        if (text === SECRET_MASK && !editing) issue(FIELD_REQUIRED);
      }
      if (f.kind === 'select' && f.options && !f.options.some((o) => o.value === text)) issue(`Choose one of ${f.options.map((o) => o.label).join(', ')}`);
    }
  });
}
