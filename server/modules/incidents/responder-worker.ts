import type pg from 'pg';
import type { ValueFromResolver } from '../../lib/value-from.js';
import { sendEmail } from './mailer.js';
import { Sweeper } from './sweeper.js';
import { claimPending, finishDelivery, findSmtpConnection, type ClaimedResponder } from './queries.js';

export interface ResponderWorkerOptions {
  db: pg.Pool;
  publicUrl: string;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** Sweep for pending responders this often even without a live event (missed events, rows written by SQL). */
  sweepMs?: number;
  /** A responder left `sending` this long (its replica died mid-send) is claimed again. */
  staleSeconds?: number;
  /** Reads the SMTP connection's secret:// and configmap:// values (the kube plugin's); none: such a connection fails. */
  valueFrom?: ValueFromResolver;
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
  private readonly sweeper: Sweeper;

  constructor(private readonly opts: ResponderWorkerOptions) {
    this.sweeper = new Sweeper((stopped) => this.sweep(stopped), opts.sweepMs ?? 30_000,
      (err) => opts.log.warn({ err }, 'responders: delivery sweep failed'));
  }

  start(): void {
    this.sweeper.start();
  }

  stop(): Promise<void> {
    return this.sweeper.stop();
  }

  /** Looks for pending responders now (or right after the pass in progress). */
  kick(): void {
    this.sweeper.kick();
  }

  private async sweep(stopped: () => boolean): Promise<void> {
    for (;;) {
      if (stopped()) return;
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
      }, { valueFrom: this.opts.valueFrom });
      await finishDelivery(this.opts.db, r.id, 'sent', null, messageId);
      this.opts.log.info({ responder: r.id, team: r.team_name }, 'responders: email sent');
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.opts.log.warn({ responder: r.id, error: message }, 'responders: delivery failed');
      await finishDelivery(this.opts.db, r.id, 'failed', message.slice(0, 1000), null).catch(() => undefined);
    }
  }
}
