import { buildNotificationUrl, notificationTypeOf, NOTIFICATION_SCHEMES } from '../../../contracts/notification-connections.js';
import { fillPlaceholders, hydrateConnection, isSecretProperty, type HydrateOptions } from '../../../lib/connection-hydrate.js';
import { isConnectionRef } from '../../../lib/connection-ref.js';
import { findConnection } from '../../playbooks/actions/queries.js';
import type { DeliveryTarget, Q } from '../types.js';
import { senderSettings } from './settings.js';

/** The service a URL sends to: slack, email, teams, generic_webhook…; the URL's scheme for an unknown one. */
export function channelOf(url: string): string {
  const type = notificationTypeOf(url);
  if (type) return type;
  const m = /^([a-z][a-z0-9+.-]*):/i.exec(url.trim());
  return m ? m[1].toLowerCase() : 'unknown';
}

const PLACEHOLDER = /^\$\([A-Za-z0-9_.-]+\)$/;
const hide = (s: string) => (!s || PLACEHOLDER.test(decodeURIComponent(s)) ? s : '***');

/**
 * The URL with its credentials as `***`: the userinfo (a token where there is no password: slack, discord,
 * telegram), tokens in the path (mattermost, rocketchat, opsgenie, teams), in the host (pushbullet, ifttt) and in
 * secret-like query parameters (google chat's key and token). Placeholders (`$(password)`) are shown as written.
 */
export function maskUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return url.replace(/\/\/[^/@]*@/, '//***@');
  }
  const type = notificationTypeOf(url);
  const user = u.username;
  const pass = u.password;
  const userinfo = user || pass ? `${hide(user)}${pass ? `:${hide(pass)}` : ''}@` : '';
  const host = type === 'pushbullet' || type === 'ifttt' ? hide(u.host) : u.host;
  let segs = u.pathname.split('/');
  const at = (i: number) => {
    const real = segs.map((s, j) => [s, j] as const).filter(([s]) => s !== '');
    const k = i < 0 ? real.length + i : i;
    if (real[k]) segs[real[k][1]] = hide(real[k][0]);
  };
  if (type === 'mattermost') at(0);
  if (type === 'rocketchat') [0, 1].forEach(at);
  if (type === 'opsgenie') at(-1);
  if (type === 'teams') segs = segs.map(hide);
  const q = new URLSearchParams();
  for (const [k, v] of u.searchParams) q.append(k, k === 'key' || k === 'token' || isSecretProperty(k) ? hide(v) : v);
  const search = [...q.keys()].length ? `?${q.toString().replace(/%24%28/g, '$(').replace(/%29/g, ')').replace(/%2A/g, '*')}` : '';
  return `${u.protocol}//${userinfo}${host}${segs.join('/')}${search}`;
}

/** Values as they go into a URL: percent-encoded, so a secret with `@`, `/` or `:` keeps the URL readable. */
const encoded = (values: Record<string, string>) => Object.fromEntries(Object.entries(values).map(([k, v]) => [k, encodeURIComponent(v)]));

/** Older connection types that are notification types under another name. */
const TYPE_ALIASES: Record<string, string> = { smtp: 'email', webhook: 'generic_webhook', generic: 'generic_webhook', http: 'generic_webhook' };

export interface TargetRef {
  /** `connection://ns/name`, a name or an id (a service URL here is taken as `url`). */
  connection?: string;
  url?: string;
  properties?: Record<string, string> | null;
}

/**
 * A recipient's target: the connection (hydrated through server/lib/connection-hydrate.ts, so `secret://` values are
 * read from its namespace) with its URL's `$(username)`, `$(password)` and `$(<property>)` filled in (encoded), or a
 * connection without a URL built from its properties; else the URL as given. Secrets live only in what this
 * returns. Throws when the connection is unknown or has no URL.
 */
export async function resolveTarget(db: Q, ref: TargetRef, opts: HydrateOptions = {}): Promise<DeliveryTarget> {
  const props = { ...(ref.properties ?? {}) };
  const name = ref.connection?.trim();
  if (!name || (!isConnectionRef(name) && /^[a-z][a-z0-9+.-]*:\/\//i.test(name))) {
    const url = (ref.url || name || '').trim();
    if (!url) throw new Error('no connection or url');
    return { url, properties: props, connectionId: null };
  }
  const row = await findConnection(db, name);
  if (!row) throw new Error(`connection ${name} not found`);
  const conn = await hydrateConnection(row, opts);
  let template = (row.url ?? '').trim();
  const type = TYPE_ALIASES[row.type.toLowerCase()] ?? row.type.toLowerCase();
  if (!template && NOTIFICATION_SCHEMES[type]) {
    template = buildNotificationUrl(type, { ...conn.properties, insecure_tls: conn.insecure_tls });
  }
  if (!template) throw new Error(`connection ${name} has no url`);
  const url = fillPlaceholders(template, encoded({ ...conn.properties, username: conn.username, password: conn.password }));
  return { url, properties: { ...conn.properties, ...props }, connectionId: row.id ?? null };
}

/** The id of the email connection named `system` (any namespace; the oldest), or null. The courier uses it too. */
export async function systemConnectionId(db: Q): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM connections WHERE deleted_at IS NULL AND name = 'system' AND lower(type) IN ('email', 'smtp')
     ORDER BY created_at LIMIT 1`,
  );
  return rows[0]?.id ?? null;
}

/**
 * The system email target for a person: the email connection named `system` (any namespace), else the SMTP_*
 * settings; null when there is neither.
 */
export async function systemEmailTarget(db: Q, to: string, opts: HydrateOptions = {}): Promise<DeliveryTarget | null> {
  const id = await systemConnectionId(db);
  if (id) return resolveTarget(db, { connection: id, properties: { to } }, opts);
  const smtp = senderSettings().smtp;
  if (!smtp?.host) return null;
  const e = encodeURIComponent;
  const cred = smtp.username ? `${e(smtp.username)}${smtp.password ? `:${e(smtp.password)}` : ''}@` : '';
  const q = new URLSearchParams({ from: smtp.from ?? '', Encryption: smtp.encryption ?? 'Auto' });
  if (smtp.fromName) q.set('fromName', smtp.fromName);
  return { url: `smtp://${cred}${smtp.host}:${smtp.port ?? 587}/?${q}`, properties: { to }, connectionId: null };
}
