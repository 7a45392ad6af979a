import nodemailer from 'nodemailer';
import type pg from 'pg';
import type { Config } from '../../../config.js';
import type { LeaderScheduler } from '../../../lib/leader-scheduled.js';
import { smtpOptions } from '../../notifications/senders/email.js';
import { claimDue, markFailed, markSent } from './queries.js';

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

/** The SMTP_* system mail as the notification sender's transport options take them, or null when not configured. */
export function smtpTransportOf(config: Config, timeoutMs: number) {
  if (!config.SMTP_HOST) return null;
  const options = smtpOptions({
    host: config.SMTP_HOST, port: config.SMTP_PORT, username: config.SMTP_USER, password: config.SMTP_PASSWORD,
    encryptionMethod: config.SMTP_ENCRYPTION,
  }, timeoutMs);
  const from = config.SMTP_FROM || `console@${config.SMTP_HOST.includes('.') ? config.SMTP_HOST : 'localhost'}`;
  return { options, from };
}

/** The text of an SMTP error without anything the server echoed of our credentials. */
function errorText(err: unknown, config: Config): string {
  let text = err instanceof Error ? err.message : String(err);
  for (const s of [config.SMTP_PASSWORD, config.SMTP_USER]) if (s) text = text.split(s).join('***');
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
    const smtp = smtpTransportOf(config, s.timeoutMs);
    if (!smtp) return 0; // no mail server: mail stays queued until one is configured (and the app restarted)
    const rows = await claimDue(db, s.batch, s.leaseMs);
    if (!rows.length) return 0;
    const transport = nodemailer.createTransport(smtp.options);
    try {
      for (const row of rows) {
        if (stopped) break;
        try {
          const info = await transport.sendMail({
            from: smtp.from, to: row.recipient, subject: row.subject, text: await open(row.body_text),
            ...(row.body_html && { html: await open(row.body_html) }),
          });
          if (info.rejected.length && !info.accepted.length) throw new Error(`the recipient was rejected: ${info.rejected.join(', ')}`);
          await markSent(db, row.id);
        } catch (err) {
          const sends = row.send_count + 1;
          const abandon = sends >= s.maxSends;
          const retryIn = Math.min(s.retryBaseMs * 2 ** row.send_count, s.retryMaxMs);
          await markFailed(db, row.id, errorText(err, config), retryIn, abandon);
          log.warn({ courierMessage: row.id, template: row.template, sends, abandon, err: errorText(err, config) }, 'courier: send failed');
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
