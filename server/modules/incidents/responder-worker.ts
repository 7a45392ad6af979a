import type pg from 'pg';
import { sendEmail } from './mailer.js';
import { claimPending, finishDelivery, findSmtpConnection, type ClaimedResponder } from './queries.js';

export interface ResponderWorkerOptions {
  db: pg.Pool;
  publicUrl: string;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** Sweep for pending responders this often even without a live event (missed events, rows written by SQL). */
  sweepMs?: number;
  /** A responder left `sending` this long (its replica died mid-send) is claimed again. */
  staleSeconds?: number;
}

const BATCH = 20;
const str = (v: unknown) => (typeof v === 'string' ? v : '');

/**
 * Delivers team responders' notifications off the request path: a POST /responders returns at once, and this worker
 * (woken by the responders change event, and by a periodic sweep) claims pending rows, sends email responders through
 * the SMTP connection, records other types as requests, and writes the outcome on the row. Claims are exclusive
 * across replicas; a delivery is attempted once per claim (a crash mid-send may retry it after `staleSeconds`).
 */
export class ResponderWorker {
  private running: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;

  constructor(private readonly opts: ResponderWorkerOptions) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.timer = setInterval(() => this.kick(), this.opts.sweepMs ?? 30_000);
    this.timer.unref();
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Runs a sweep now, or right after the one in progress. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.sweep()
      .catch((err) => this.opts.log.warn({ err }, 'responders: delivery sweep failed'))
      .finally(() => {
        this.running = null;
        if (this.again && !this.stopped) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Resolves when no sweep is running (tests and shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async sweep(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const batch = await claimPending(this.opts.db, BATCH, this.opts.staleSeconds ?? 600);
      for (const r of batch) await this.deliver(r);
      if (batch.length < BATCH) return;
    }
  }

  private async deliver(r: ClaimedResponder): Promise<void> {
    const type = str(r.properties?.responderType);
    try {
      if (type !== 'email') {
        // no client for this system here: the request (type and fields) stays on the row for a person to act on
        await finishDelivery(this.opts.db, r.id, 'recorded', null, null);
        return;
      }
      const conn = await findSmtpConnection(this.opts.db, str(r.client?.connection) || null);
      if (!conn) {
        const named = str(r.client?.connection);
        throw new Error(named
          ? `SMTP connection ${named} not found`
          : 'No SMTP connection: add a connection of type smtp, or name one in the team\'s responder_clients.email.connection');
      }
      const messageId = await sendEmail(conn, {
        to: str(r.properties?.to),
        subject: str(r.properties?.subject),
        body: str(r.properties?.body),
        incidentDisplayId: r.incident_display_id,
        incidentTitle: r.incident_title,
        incidentUrl: `${this.opts.publicUrl}/incidents/${r.incident_id}`,
      });
      await finishDelivery(this.opts.db, r.id, 'sent', null, messageId);
      this.opts.log.info({ responder: r.id, team: r.team_name }, 'responders: email sent');
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.opts.log.warn({ responder: r.id, error: message }, 'responders: delivery failed');
      await finishDelivery(this.opts.db, r.id, 'failed', message.slice(0, 1000), null).catch(() => undefined);
    }
  }
}
