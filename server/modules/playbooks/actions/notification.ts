import { NotificationAction } from '../../../contracts/playbook-actions/notification.js';
import { parseNotificationUrl } from '../../../contracts/notification-connections.js';
import { isConnectionRef } from '../../../lib/connection-ref.js';
import { deliver, resolveTarget } from '../../notifications/senders/index.js';
import type { NotificationMessage } from '../../notifications/types.js';
import { abortError, masked, remainingMs, valueFromResolver } from './support.js';
import type { ActionContext, PlaybookActionType } from './types.js';

/**
 * The `notification` action (issue 14, senders of issue 15): sends `title` and `message` (and `properties`) once,
 * through a connection (`connection://ns/name`, a name or an id) or a service URL, with the notification senders'
 * deliver(): every service of server/modules/notifications/senders (slack, teams, email, generic webhook…).
 * - the title is the subject / title, the message the body with the properties listed under it (`key: value`);
 * - the properties also go to the target (a generic webhook receives them as extra JSON fields; `to` is an email's
 *   recipients);
 * - `attachments` with `content` are attached to an email (files of the console's host are not).
 * One attempt within the action's time left (at most 10 s): the playbook's own retry policy decides about another.
 * The result is `{type, to?}` (the reference's action returns nothing).
 */
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function messageOf(spec: NotificationAction): NotificationMessage {
  const props = Object.entries(spec.properties ?? {});
  const text = `${spec.message ?? ''}${props.length ? `\n\n${props.map(([k, v]) => `${k}: ${v}`).join('\n')}` : ''}\n`;
  return { title: spec.title, markdown: spec.message ?? '', text, html: `<p>${esc(text.trim()).replace(/\n/g, '<br>')}</p>` };
}

async function runNotification(block: Record<string, unknown>, ctx: ActionContext): Promise<Record<string, unknown>> {
  const spec = NotificationAction.parse(block);
  for (const [i, a] of (spec.attachments ?? []).entries()) {
    if (a.content === undefined) throw new Error(`notification: attachments[${i}] needs content (files of the console's host are not attached)`);
  }
  const ref = spec.connection?.trim();
  const byConnection = !!ref && (isConnectionRef(ref) || !/^[a-z][a-z0-9+.-]*:\/\//i.test(ref));
  let target;
  try {
    target = await resolveTarget(ctx.db, byConnection ? { connection: ref, properties: spec.properties } : { url: spec.url || ref, properties: spec.properties }, { valueFrom: valueFromResolver(ctx) });
  } catch (err) {
    throw new Error(`notification: ${(err as Error).message}`);
  }
  // what the URL holds as credentials is masked in anything the run shows
  const values = parseNotificationUrl(target.url)?.values ?? {};
  const secrets = [values.password, (() => {
    try {
      return decodeURIComponent(new URL(target.url).password);
    } catch {
      return '';
    }
  })()].filter((s): s is string => typeof s === 'string' && s.length > 0);
  for (const s of secrets) ctx.addSecret(s);
  const result = await deliver(target, messageOf(spec), {
    signal: ctx.signal, attempts: 1, timeoutMs: Math.min(remainingMs(ctx), 10_000),
    attachments: (spec.attachments ?? []).map((a, i) => ({ filename: a.name ?? `attachment-${i + 1}.txt`, content: a.content! })),
  });
  if (ctx.signal.aborted) throw abortError(ctx.signal);
  if (!result.ok) throw new Error(masked(`notification: ${result.error ?? 'not sent'}`, secrets));
  const to = result.channel === 'email' ? String(target.properties?.to || values.to || '').split(/[,;]/).map((s) => s.trim()).filter(Boolean) : undefined;
  ctx.log('stdout', `sent by ${result.channel}${to?.length ? ` to ${to.join(', ')}` : ''}\n`);
  return { type: result.channel, ...(to ? { to } : {}) };
}

export const notificationAction: PlaybookActionType = { type: 'notification', run: runNotification };
