import { z } from 'zod';
import type { FieldValues } from './connection-fields.js';
import { NOTIFICATION_CONNECTION_TYPES } from './notification-connection-types.js';

/**
 * The shoutrrr-style URLs of the notification connection types (spec 001 §3, §5), both ways: `buildNotificationUrl`
 * (the type's builder in notification-connection-types.ts) and `parseNotificationUrl`, its inverse, which the
 * connection dialog uses to fill its fields from a stored URL and the senders use to read a (filled-in) URL. Pure.
 */

/** The URL scheme each notification type writes (and the schemes a sender also reads). */
export const NOTIFICATION_SCHEMES: Record<string, string[]> = {
  discord: ['discord'],
  email: ['smtp', 'smtps'],
  google_chat: ['googlechat', 'hangouts'],
  ifttt: ['ifttt'],
  mattermost: ['mattermost'],
  matrix: ['matrix'],
  ntfy: ['ntfy'],
  opsgenie: ['opsgenie'],
  pushbullet: ['pushbullet'],
  pushover: ['pushover'],
  rocketchat: ['rocketchat'],
  slack: ['slack'],
  teams: ['teams'],
  telegram: ['telegram'],
  zulip_chat: ['zulip'],
  generic_webhook: ['generic', 'generic+http', 'generic+https', 'http', 'https'],
};

/** Spec 001 §5's defaults of the notification connection form. */
export const NOTIFICATION_DEFAULTS = {
  email: { port: 587, encryptionMethod: 'Auto', authMethod: 'Unknown' },
  generic_webhook: { requestMethod: 'POST', contentType: 'application/json', key: 'message', titleKey: 'title' },
  ntfy: { host: 'ntfy.sh' },
  opsgenie: { host: 'api.opsgenie.com', port: 443 },
  teams: { host: 'outlook.office.com' },
} as const satisfies Record<string, FieldValues>;

export const NotificationType = z.enum(Object.keys(NOTIFICATION_SCHEMES) as [string, ...string[]]);

/** The notification type a URL is for (`slack://…` → slack, `generic+https://…` → generic_webhook); null when none. */
export function notificationTypeOf(url: string): string | null {
  const m = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url.trim());
  if (!m) return null;
  const scheme = m[1].toLowerCase();
  for (const [type, schemes] of Object.entries(NOTIFICATION_SCHEMES)) if (schemes.includes(scheme)) return type;
  return null;
}

/** The URL a type's form values build (placeholders `$(username)`/`$(password)` for the column fields). */
export function buildNotificationUrl(type: string, values: FieldValues): string {
  const t = NOTIFICATION_CONNECTION_TYPES.find((d) => d.type === type);
  if (!t?.buildUrl) throw new Error(`unknown notification type ${type}`);
  const defaults: FieldValues = (NOTIFICATION_DEFAULTS as Record<string, FieldValues>)[type] ?? {};
  const filled: FieldValues = { ...defaults };
  for (const [k, v] of Object.entries(values)) if (v !== undefined && v !== null && v !== '') filled[k] = v;
  return t.buildUrl(filled);
}

const dec = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};
const bool = (v: string | null) => v === 'true' || v === 'yes' || v === '1';
/** Query values by lower-cased key (shoutrrr reads its parameters case-insensitively). */
const params = (u: URL) => {
  const m = new Map<string, string>();
  for (const [k, v] of u.searchParams) m.set(k.toLowerCase(), v);
  return m;
};
const segments = (u: URL) => u.pathname.split('/').filter(Boolean).map(dec);
const portOf = (u: URL, fallback: number | undefined) => (u.port ? Number(u.port) : fallback);
/** Drops undefined and empty values, so a round trip compares what a form holds. */
const clean = (v: FieldValues): FieldValues =>
  Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined && x !== null && x !== ''));

type Parser = (u: URL, q: Map<string, string>) => FieldValues;

const PARSERS: Record<string, Parser> = {
  discord: (u) => ({ password: dec(u.username), username: dec(u.hostname) }),
  email: (u, q) => ({
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: portOf(u, u.protocol === 'smtps:' ? 465 : 587),
    insecure_tls: bool(q.get('skiptlsverify') ?? null),
    username: dec(u.username),
    password: dec(u.password),
    from: q.get('from'),
    fromName: q.get('fromname'),
    to: q.get('to'),
    encryptionMethod: q.get('encryption') ?? (u.protocol === 'smtps:' ? 'ImplicitTLS' : 'Auto'),
    authMethod: q.get('auth') ?? 'Unknown',
  }),
  google_chat: (u, q) => {
    const s = segments(u);
    const i = s.indexOf('spaces');
    return { webhook: i >= 0 ? s[i + 1] : undefined, username: q.get('key'), password: q.get('token') };
  },
  ifttt: (u, q) => ({ username: dec(u.hostname), events: q.get('events') }),
  mattermost: (u) => {
    const s = segments(u);
    return { username: dec(u.username), host: u.host, password: s[0], channel: s[1] };
  },
  matrix: (u, q) => ({
    username: dec(u.username), password: dec(u.password), host: u.host, insecure_tls: bool(q.get('disabletls') ?? null),
  }),
  ntfy: (u, q) => ({
    username: dec(u.username), password: dec(u.password), host: u.host, topic: segments(u)[0],
    insecure_tls: (q.get('scheme') ?? 'https') === 'http',
  }),
  opsgenie: (u) => ({ host: u.hostname, port: portOf(u, 443), password: segments(u).at(-1) }),
  pushbullet: (u) => ({ password: dec(u.hostname), targets: segments(u).join('/') }),
  pushover: (u) => ({ password: dec(u.password), username: dec(u.hostname) }),
  rocketchat: (u) => {
    const s = segments(u);
    return { user: dec(u.username), host: u.hostname, port: portOf(u, undefined), username: s[0], password: s[1], channel: s[2] };
  },
  slack: (u, q) => ({
    // slack://token@channel; shoutrrr's split form slack://xoxb:rest@channel joins back with its separator
    password: u.password ? `${dec(u.username)}-${dec(u.password)}` : dec(u.username),
    username: dec(u.hostname),
    BotName: q.get('botname'),
  }),
  teams: (u, q) => {
    const s = segments(u);
    return { group: dec(u.username), tenant: dec(u.hostname), altID: s[0], groupOwner: s[1], host: q.get('host') };
  },
  telegram: (u, q) => ({ password: u.password ? `${dec(u.username)}:${dec(u.password)}` : dec(u.username), username: q.get('chats') }),
  zulip_chat: (u, q) => ({
    username: dec(u.username), password: dec(u.password), host: u.host, stream: q.get('stream'), topic: q.get('topic'),
  }),
  generic_webhook: (u) => {
    const own = ['contenttype', 'messagekey', 'titlekey', 'requestmethod', 'disabletls'];
    const q = params(u);
    const target = new URL(u.toString().replace(/^generic\+/i, '').replace(/^generic:/i, 'https:'));
    for (const k of [...target.searchParams.keys()]) if (own.includes(k.toLowerCase())) target.searchParams.delete(k);
    return {
      url: target.toString(),
      contentType: q.get('contenttype'),
      requestMethod: q.get('requestmethod')?.toUpperCase(),
      key: q.get('messagekey'),
      titleKey: q.get('titlekey'),
      insecure_tls: bool(q.get('disabletls') ?? null),
    };
  },
};

/**
 * A notification URL's form values: `{type, values}` (values as the type's fields name them; the `username` and
 * `password` fields hold what the URL holds there: a placeholder, or the filled-in secret). Null when the URL is not
 * a notification URL or does not parse.
 */
export function parseNotificationUrl(url: string): { type: string; values: FieldValues } | null {
  const type = notificationTypeOf(url);
  if (!type) return null;
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return null;
  }
  const values = clean(PARSERS[type](u, params(u)));
  const defaults: FieldValues = (NOTIFICATION_DEFAULTS as Record<string, FieldValues>)[type] ?? {};
  for (const [k, v] of Object.entries(defaults)) if (values[k] === undefined) values[k] = v;
  return { type, values };
}
