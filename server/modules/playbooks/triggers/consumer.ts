import type pg from 'pg';
import { inTransaction } from '../../../lib/tx.js';
import { Sweeper } from '../../incidents/sweeper.js';
import { deleteEvent, lockNextEvent, recordAttemptFailure, type QueuedEvent } from './queries.js';

/**
 * What acts on an event_queue row (starting playbook runs; the notifications issue adds its own for the same names).
 * Throwing fails the attempt: the row stays with the error and is tried again, up to `maxAttempts` in all. A handler
 * must be idempotent over retries of the same row (see canary-trigger.ts: a run already started for it is not
 * started again), since a crash between its work and the row's delete, or another handler's failure, retries it.
 */
export type EventHandler = (event: QueuedEvent) => Promise<void>;

export interface EventConsumerOptions {
  db: pg.Pool;
  /** Handlers by event name (check.failed…); rows of other names are left for whoever consumes them. */
  handlers: ReadonlyMap<string, readonly EventHandler[]>;
  log: { warn(obj: object, msg: string): void; debug?(obj: object, msg: string): void };
  /** Attempts before a row is left alone with its error (the reference's 3). */
  maxAttempts?: number;
  /** The wait before the second attempt; doubles after each failure. */
  retryMs?: number;
  /** The sweep for rows no NOTIFY announced (written while this replica was down, retries coming due). */
  sweepMs?: number;
}

const DEFAULTS = { maxAttempts: 3, retryMs: 5_000, sweepMs: 5_000 };

/**
 * The event_queue consumer every console replica runs: woken by the events bus (a NOTIFY from the queue's trigger)
 * and by a sweep, it locks one row at a time with FOR UPDATE SKIP LOCKED (so replicas share the queue and never take
 * the same row), runs the row's handlers while holding the lock, then deletes the row, or records the failed attempt.
 */
export class EventConsumer {
  /** The passes: start() (onReady), stop() (onClose), kick() on a wake-up. */
  readonly sweeper: Sweeper;
  private readonly names: string[];
  private readonly o: typeof DEFAULTS;

  constructor(private readonly opts: EventConsumerOptions) {
    this.o = {
      maxAttempts: opts.maxAttempts ?? DEFAULTS.maxAttempts,
      retryMs: opts.retryMs ?? DEFAULTS.retryMs,
      sweepMs: opts.sweepMs ?? DEFAULTS.sweepMs,
    };
    this.names = [...opts.handlers.keys()];
    this.sweeper = new Sweeper(async (stopped) => void (await this.drain(stopped)), this.o.sweepMs,
      (err) => opts.log.warn({ err }, 'event queue: consumer pass failed'));
  }

  /** Consumes due rows until none is left (or the consumer stops). */
  async drain(stopped: () => boolean = () => false): Promise<number> {
    let n = 0;
    while (!stopped() && this.names.length && (await this.one())) n++;
    return n;
  }

  /** Takes one due row; false when none is due. */
  private one(): Promise<boolean> {
    return inTransaction(this.opts.db, async (client) => {
      const event = await lockNextEvent(client, this.names, this.o.maxAttempts, this.o.retryMs);
      if (!event) return false;
      try {
        for (const handle of this.opts.handlers.get(event.name) ?? []) await handle(event);
        await deleteEvent(client, event.id);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        this.opts.log.warn({ event: event.id, name: event.name, attempt: event.attempts + 1, error: message },
          'event queue: handling an event failed');
        await recordAttemptFailure(client, event.id, message);
      }
      return true;
    });
  }
}
