import nodemailer from 'nodemailer';
import type pg from 'pg';
import type { Config } from '../../../config.js';
import type { LeaderScheduler } from '../../../lib/leader-scheduled.js';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { parseNotificationUrl } from '../../../contracts/notification-connections.js';
import { smtpOptions } from '../../notifications/senders/email.js';
import { resolveTarget, systemConnectionId } from '../../notifications/senders/target.js';
import { claimDue, markFailed, markSent } from './queries.js';

type Db = pg.Pool | pg.PoolClient;

/** The courier's timing, env-free so tests can use short ones (configureCourier in ./index.ts). */
export interface CourierSettings {
  /** How often the leader looks for due mail (a queued mail also wakes it at once). */
  intervalMs: number;
  batch: number;
  /** How long a claimed mail is its sender's; after that another tick (or replica) takes it again. */
  leaseMs: number;
  /** Back-off after a failed send: base × 2^(sends so far), at most max. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Sends tried before a mail is abandoned. */
  maxSends: number;
  /** SMTP connect, greeting and socket timeout. */
  timeoutMs: number;
}

export interface MailRoute {
  options: SMTPTransport.Options;
  from: string;
  fromName?: string;
  /** where it came from: the `system` email connection (its id) or the SMTP_* settings */
  source: { connectionId: string } | 'env';
  /** secrets to keep out of logged errors */
  secrets: string[];
}

const fromFor = (from: unknown, host: string | undefined) =>
  (typeof from === 'string' && from.trim()) || `console@${host?.includes('.') ? host : 'localhost'}`;

/**
 * The system mail, resolved as the notifications' system email is (server/modules/notifications/senders/target.ts,
 * systemEmailTarget): the email connection named `system` when there is one (its URL with credentials filled in,
 * `secret://` values read), else the SMTP_* settings; null with neither. Read at every pass, so a connection added or
 * changed applies without a restart.
 */
export async function systemMailRoute(db: Db, config: Config, timeoutMs: number): Promise<MailRoute | null> {
  const id = await systemConnectionId(db);
  if (id) {
    const target = await resolveTarget(db, { connection: id });
    const parsed = parseNotificationUrl(target.url);
    if (!parsed || parsed.type !== 'email') throw new Error('the `system` connection is no email (smtp://) connection');
    const v = parsed.values as Record<string, unknown>;
    const options = smtpOptions(v, timeoutMs);
    return {
      options, from: fromFor(v.from, options.host), fromName: typeof v.fromName === 'string' && v.fromName ? v.fromName : undefined,
      source: { connectionId: id }, secrets: [v.password, v.username].filter((x): x is string => typeof x === 'string' && x !== ''),
    };
  }
  const smtp = smtpTransportOf(config, timeoutMs);
  return smtp && { ...smtp, source: 'env', secrets: [config.SMTP_PASSWORD, config.SMTP_USER].filter((x): x is string => !!x) };
}

/** The SMTP_* system mail as the notification sender's transport options take them, or null when not configured. */
export function smtpTransportOf(config: Config, timeoutMs: number) {
  if (!config.SMTP_HOST) return null;
  const options = smtpOptions({
    host: config.SMTP_HOST, port: config.SMTP_PORT, username: config.SMTP_USER, password: config.SMTP_PASSWORD,
    encryptionMethod: config.SMTP_ENCRYPTION,
  }, timeoutMs);
  return { options, from: fromFor(config.SMTP_FROM, config.SMTP_HOST) };
}

/** The text of an SMTP error without anything the server echoed of our credentials. */
function errorText(err: unknown, config: Config, more: string[] = []): string {
  let text = err instanceof Error ? err.message : String(err);
  for (const s of [config.SMTP_PASSWORD, config.SMTP_USER, ...more]) if (s) text = text.split(s).join('***');
  return text;
}

/**
 * The outbox sender (leader only): claims due mail, sends each through SMTP, marks it sent or queues it again with
 * back-off (abandoned after maxSends). One pass at a time; `reload()` (a queued mail's change event) runs one now.
 */
export function createCourierSender(
  db: pg.Pool, config: Config, settings: () => CourierSettings,
  open: (sealed: string) => Promise<string>, log: { warn(o: object, m: string): void },
): LeaderScheduler {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const schedule = (ms: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => void pass(), ms);
  };

  async function sendBatch(): Promise<number> {
    const s = settings();
    const smtp = await systemMailRoute(db, config, s.timeoutMs);
    if (!smtp) return 0; // no mail server: mail stays queued until one is configured
    const rows = await claimDue(db, s.batch, s.leaseMs);
    if (!rows.length) return 0;
    const transport = nodemailer.createTransport(smtp.options);
    try {
      for (const row of rows) {
        if (stopped) break;
        try {
          const info = await transport.sendMail({
            from: smtp.fromName ? { name: smtp.fromName, address: smtp.from } : smtp.from, to: row.recipient, subject: row.subject, text: await open(row.body_text),
            ...(row.body_html && { html: await open(row.body_html) }),
          });
          if (info.rejected.length && !info.accepted.length) throw new Error(`the recipient was rejected: ${info.rejected.join(', ')}`);
          await markSent(db, row.id);
        } catch (err) {
          const sends = row.send_count + 1;
          const abandon = sends >= s.maxSends;
          const retryIn = Math.min(s.retryBaseMs * 2 ** row.send_count, s.retryMaxMs);
          const text = errorText(err, config, smtp.secrets);
          await markFailed(db, row.id, text, retryIn, abandon);
          log.warn({ courierMessage: row.id, template: row.template, sends, abandon, err: text, via: smtp.source }, 'courier: send failed');
        }
      }
    } finally {
      transport.close();
    }
    return rows.length;
  }

  function pass(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    clearTimeout(timer);
    running = (async () => {
      let full = false;
      try {
        full = (await sendBatch()) >= settings().batch;
      } catch (err) {
        log.warn({ err: errorText(err, config) }, 'courier: pass failed');
      } finally {
        running = undefined;
      }
      if (again || full) {
        again = false;
        schedule(0);
      } else {
        schedule(settings().intervalMs);
      }
    })();
    return running;
  }

  return {
    async start() {
      stopped = false;
      void pass();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
    async reload() {
      void pass();
    },
  };
}
