import nodemailer from 'nodemailer';
import { NotificationAction } from '../../../contracts/playbook-actions/notification.js';
import type { HydratedConnection } from '../../../lib/connection-hydrate.js';
import { isConnectionRef } from '../../../lib/connection-ref.js';
import { fromAddress, transportOptions } from '../../incidents/mailer.js';
import { abortable, abortError, masked, remainingMs, useConnection } from './support.js';
import type { ActionContext, PlaybookActionType } from './types.js';

/**
 * The `notification` action (issue 14): sends `title` and `message` (and `properties`) once, through a connection or
 * a URL. Until the notifications module (issue 15) brings its senders, two kinds are sent here:
 * - email: an `smtp://` / `smtps://` URL (shoutrrr's form: `smtp://user:pass@host:port/?from=…&to=a,b`) or a
 *   connection of type email/smtp (its url, or properties host/port/from/to), through nodemailer as the incidents
 *   mailer does; the title is the subject, the message the body, properties listed under it, `attachments` with
 *   `content` attached.
 * - webhook: an http(s) URL, a `generic+http(s)://` URL (shoutrrr's generic service: `MessageKey`, `TitleKey`,
 *   `RequestMethod` honoured) or a connection of type generic_webhook/webhook/generic/http: the JSON
 *   `{title, message, properties}` POSTed; a non-2xx answer fails the action.
 * Any other type (slack, teams…) fails: "notification type slack is not supported yet". The result is
 * `{type, to?, messageId?, code?}` (the reference's action returns nothing).
 */
const EMAIL_TYPES = new Set(['email', 'smtp']);
const WEBHOOK_TYPES = new Set(['generic_webhook', 'webhook', 'generic', 'http']);

type Target = { kind: 'email'; conn: HydratedConnection } | { kind: 'webhook'; url: string; secrets: string[] };

function bareConnection(url: string): HydratedConnection {
  return { name: 'url', namespace: 'action', type: 'url', url, username: '', password: '', certificate: '', insecure_tls: false, properties: {}, secrets: [] };
}

function fromUrl(url: string, ctx: ActionContext): Target {
  const scheme = url.slice(0, Math.max(0, url.indexOf('://'))).toLowerCase();
  if (scheme === 'smtp' || scheme === 'smtps') {
    const u = new URL(url);
    if (u.password) ctx.addSecret(decodeURIComponent(u.password));
    const conn = bareConnection(url);
    conn.username = decodeURIComponent(u.username);
    conn.password = decodeURIComponent(u.password);
    for (const [k, v] of u.searchParams) conn.properties[k] = v;
    return { kind: 'email', conn };
  }
  if (scheme === 'http' || scheme === 'https' || scheme === 'generic+http' || scheme === 'generic+https') {
    const u = new URL(url.replace(/^generic\+/i, ''));
    const secrets = u.password ? [decodeURIComponent(u.password)] : [];
    for (const s of secrets) ctx.addSecret(s);
    return { kind: 'webhook', url: url, secrets };
  }
  throw new Error(`notification type ${scheme || url} is not supported yet`);
}

async function targetOf(spec: NotificationAction, ctx: ActionContext): Promise<Target> {
  const ref = spec.connection?.trim();
  if (!ref || (!isConnectionRef(ref) && /^[a-z+]+:\/\//i.test(ref))) return fromUrl(spec.url || ref!, ctx);
  const conn = await useConnection(ctx, ref);
  const type = conn.type.toLowerCase();
  if (EMAIL_TYPES.has(type)) {
    // the email type's url carries from/to as query parameters (shoutrrr); properties may hold them instead
    if (conn.url) {
      try {
        for (const [k, v] of new URL(conn.url).searchParams) conn.properties[k] ??= v;
      } catch {
        // not a URL: transportOptions says so
      }
    }
    return { kind: 'email', conn };
  }
  if (WEBHOOK_TYPES.has(type)) {
    const url = conn.url || conn.properties.url;
    if (!url) throw new Error(`connection ${ref} has no url`);
    return { kind: 'webhook', url, secrets: conn.secrets };
  }
  throw new Error(`notification type ${conn.type} is not supported yet`);
}

async function sendEmail(conn: HydratedConnection, spec: NotificationAction, ctx: ActionContext): Promise<Record<string, unknown>> {
  const to = (conn.properties.to ?? '').split(/[,;]/).map((s) => s.trim()).filter(Boolean);
  if (!to.length) throw new Error('notification: no recipient (the smtp url\'s `to` parameter or the connection\'s `to` property)');
  for (const [i, a] of (spec.attachments ?? []).entries()) {
    if (a.content === undefined) throw new Error(`notification: attachments[${i}] needs content (files of the console's host are not attached)`);
  }
  const options = transportOptions(conn);
  const timeout = remainingMs(ctx);
  const transport = nodemailer.createTransport({ ...options, connectionTimeout: Math.min(timeout, 10_000), socketTimeout: timeout });
  const props = Object.entries(spec.properties ?? {});
  const text = `${spec.message ?? ''}${props.length ? `\n\n${props.map(([k, v]) => `${k}: ${v}`).join('\n')}` : ''}\n`;
  try {
    const info = await abortable(transport.sendMail({
      from: conn.properties.fromName ? { name: conn.properties.fromName, address: fromAddress(conn, options.host ?? 'localhost') } : fromAddress(conn, options.host ?? 'localhost'),
      to,
      subject: spec.title,
      text,
      attachments: (spec.attachments ?? []).map((a, i) => ({ filename: a.name ?? `attachment-${i + 1}.txt`, content: a.content! })),
    }), ctx.signal);
    if (info.rejected.length && !info.accepted.length) throw new Error(`every recipient was rejected: ${info.rejected.join(', ')}`);
    ctx.log('stdout', `sent to ${to.join(', ')}\n`);
    return { type: 'email', to, messageId: info.messageId };
  } finally {
    transport.close();
  }
}

async function sendWebhook(target: { url: string }, spec: NotificationAction, ctx: ActionContext): Promise<Record<string, unknown>> {
  const generic = /^generic\+/i.test(target.url);
  const u = new URL(target.url.replace(/^generic\+/i, ''));
  let messageKey = 'message';
  let titleKey = 'title';
  let method = 'POST';
  if (generic) {
    // shoutrrr's own parameters are read, not sent on
    const take = (k: string) => {
      const v = u.searchParams.get(k);
      u.searchParams.delete(k);
      return v || undefined;
    };
    messageKey = take('MessageKey') ?? messageKey;
    titleKey = take('TitleKey') ?? titleKey;
    method = (take('RequestMethod') ?? method).toUpperCase();
    take('ContentType');
    if (take('DisableTLS') === 'true') u.protocol = 'http:';
  }
  const payload = { [titleKey]: spec.title, [messageKey]: spec.message ?? '', properties: spec.properties ?? {} };
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (u.username) {
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`;
    u.username = '';
    u.password = '';
  }
  const res = await fetch(u, {
    method, headers, body: method === 'GET' ? undefined : JSON.stringify(payload),
    signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(remainingMs(ctx))]), redirect: 'follow',
  });
  const body = (await res.text()).slice(0, 1000);
  if (!res.ok) throw new Error(`notification: the webhook answered ${res.status}${body ? `: ${body}` : ''}`);
  ctx.log('stdout', `${method} ${u.origin}${u.pathname} → ${res.status}\n`);
  return { type: 'webhook', code: res.status };
}

async function runNotification(block: Record<string, unknown>, ctx: ActionContext): Promise<Record<string, unknown>> {
  const spec = NotificationAction.parse(block);
  const target = await targetOf(spec, ctx);
  const secrets = target.kind === 'email' ? [...target.conn.secrets, target.conn.password] : target.secrets;
  try {
    return target.kind === 'email' ? await sendEmail(target.conn, spec, ctx) : await sendWebhook(target, spec, ctx);
  } catch (err) {
    if (ctx.signal.aborted) throw abortError(ctx.signal);
    const e = err as Error;
    throw new Error(masked(e.message.startsWith('notification') ? e.message : `notification: ${e.message}`, secrets.filter(Boolean)));
  }
}

export const notificationAction: PlaybookActionType = { type: 'notification', run: runNotification };
