import type pg from 'pg';
import { claimEvents, deleteEvent, nextDueInMs, recordAttemptFailure, retrySettings, type RetrySettings } from './queries.js';
import type { EventHandler, QueuedEvent } from './types.js';

export interface EventConsumerOptions {
  db: pg.Pool;
  /** Handlers by event name, read at every pass (registered while plugins load); rows of other names are left alone. */
  handlers: ReadonlyMap<string, readonly EventHandler[]>;
  log: { warn(obj: object, msg: string): void; debug?(obj: object, msg: string): void };
  /** Over the properties (events.retry.base, events.retry.exponent, events.max_attempts) and their defaults. */
  retry?: Partial<RetrySettings>;
  /** Rows claimed per transaction. */
  batchSize?: number;
  /** An event whose handlers take longer fails its attempt (and its handler's client refuses further queries). */
  timeoutMs?: number;
  /** The sweep for rows no NOTIFY announced (written while this replica was down, retries and delays coming due). */
  sweepMs?: number;
  /** Batches this replica handles at once (each on its own connection): a slow handler holds up its batch only. */
  concurrency?: number;
}

const DEFAULTS = { batchSize: 20, timeoutMs: 60_000, sweepMs: 5_000, concurrency: 4 };

class HandlerTimeout extends Error {
  constructor(ms: number) {
    super(`timed out after ${ms} ms`);
  }
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The event_queue consumer every console replica runs (issue 15 "Events"): woken by the events bus (a NOTIFY from
 * the queue's trigger), a sweep and a timer for the next delayed or retried row. A pass claims batches of due rows
 * with FOR UPDATE SKIP LOCKED (replicas share the queue and never take the same row) in one transaction, runs each
 * row's handlers inside a SAVEPOINT, then deletes the row; a failure (a throw or the timeout) rolls back that row's
 * writes only and records the attempt (attempts+1, error, last_attempt; due again after base · attempts^exponent).
 * A crash before the commit leaves every claimed row in the queue: at least once.
 */
export class EventConsumer {
  private readonly o: typeof DEFAULTS;
  private timer: NodeJS.Timeout | null = null;
  private sweep: NodeJS.Timeout | null = null;
  private stopped = true;
  private again = false;
  private readonly workers = new Set<Promise<void>>();

  constructor(private readonly opts: EventConsumerOptions) {
    this.o = {
      batchSize: opts.batchSize ?? DEFAULTS.batchSize,
      timeoutMs: opts.timeoutMs ?? DEFAULTS.timeoutMs,
      sweepMs: opts.sweepMs ?? DEFAULTS.sweepMs,
      concurrency: opts.concurrency ?? DEFAULTS.concurrency,
    };
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.sweep = setInterval(() => this.kick(), this.o.sweepMs);
    this.sweep.unref();
    this.kick();
  }

  /** Stops the timers and waits for the batches in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.sweep) clearInterval(this.sweep);
    this.timer = this.sweep = null;
    while (this.workers.size) await Promise.all([...this.workers]);
  }

  /**
   * Wakes the consumer: a worker starts when fewer than `concurrency` run (each claims its own rows: SKIP LOCKED),
   * else the next one to finish looks again.
   */
  kick(): void {
    if (this.stopped) return;
    if (this.workers.size >= this.o.concurrency) {
      this.again = true;
      return;
    }
    this.again = false;
    const w: Promise<void> = this.work()
      .catch((err) => this.opts.log.warn({ err }, 'event queue: consumer pass failed'))
      .finally(() => {
        this.workers.delete(w);
        if (this.stopped) return;
        if (this.again) this.kick();
        else if (!this.workers.size) void this.armNextDue().catch(() => undefined);
      });
    this.workers.add(w);
  }

  /** A worker: batches until none is due; a full batch wakes another worker, so a burst is shared out. */
  private async work(): Promise<void> {
    const names = this.names();
    if (!names.length) return;
    const s = await this.settings();
    while (!this.stopped) {
      const handled = await this.batch(names, s);
      if (handled < this.o.batchSize) break;
      if (this.workers.size < this.o.concurrency) this.kick();
    }
  }

  private names(): string[] {
    return [...this.opts.handlers].filter(([, hs]) => hs.length).map(([name]) => name);
  }

  private async settings(): Promise<RetrySettings> {
    return { ...(await retrySettings(this.opts.db)), ...this.opts.retry };
  }

  /** Consumes due rows, batch after batch, until none is due (or the consumer stops); resolves with the count handled. */
  async drain(stopped: () => boolean = () => false): Promise<number> {
    const names = this.names();
    if (!names.length) return 0;
    const s = await this.settings();
    let n = 0;
    while (!stopped()) {
      const handled = await this.batch(names, s);
      n += handled;
      if (handled < this.o.batchSize) break;
    }
    return n;
  }

  /** A timer for the next row that comes due before the sweep would find it. */
  private async armNextDue(): Promise<void> {
    const names = this.names();
    if (!names.length) return;
    const ms = await nextDueInMs(this.opts.db, names, await this.settings());
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (ms === null || ms >= this.o.sweepMs) return;
    this.timer = setTimeout(() => this.kick(), Math.ceil(ms) + 5);
    this.timer.unref();
  }

  /** One transaction: claims up to batchSize due rows and handles each in its own savepoint. */
  private async batch(names: string[], s: RetrySettings): Promise<number> {
    const client = await this.opts.db.connect();
    let lost: QueuedEvent | null = null;
    try {
      await client.query('BEGIN');
      // a handler's statement cannot outlast its event's timeout either
      await client.query(`SELECT set_config('statement_timeout', $1, true)`, [String(this.o.timeoutMs)]);
      const events = await claimEvents(client, names, s, this.o.batchSize);
      for (const event of events) {
        if (!(await this.handle(client, event))) {
          lost = event;
          break;
        }
      }
      if (lost) return 0;
      await client.query('COMMIT');
      return events.length;
    } catch (err) {
      lost ??= { id: '', name: '', event_id: null, properties: null, attempts: 0, created_at: new Date() };
      throw err;
    } finally {
      if (lost) {
        // not awaited: the connection may be stuck behind the handler's query; closing it aborts the transaction
        client.release(true);
        if (lost.id) await this.failOutside(lost);
      } else client.release();
    }
  }

  /** The attempt of an event whose batch was dropped, recorded in a transaction of its own (best effort). */
  private async failOutside(event: QueuedEvent): Promise<void> {
    try {
      await this.opts.db.query(
        `UPDATE event_queue SET attempts = coalesce(attempts, 0) + 1, error = $2, last_attempt = now()
          WHERE id = $1 AND coalesce(attempts, 0) = $3`,
        [event.id, `timed out after ${this.o.timeoutMs} ms`, event.attempts]);
    } catch (err) {
      this.opts.log.warn({ err, event: event.id }, 'event queue: recording a timed-out attempt failed');
    }
  }

  /** Runs one row's handlers in a savepoint; false when the connection can no longer be trusted (the batch is dropped). */
  private async handle(client: pg.PoolClient, event: QueuedEvent): Promise<boolean> {
    await client.query('SAVEPOINT event');
    const guard = guarded(client);
    let timer: NodeJS.Timeout | undefined;
    try {
      const work = (async () => {
        for (const handler of this.opts.handlers.get(event.name) ?? []) await handler(event, guard.client);
      })();
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new HandlerTimeout(this.o.timeoutMs)), this.o.timeoutMs);
      });
      await Promise.race([work, timeout]);
      await client.query('RELEASE SAVEPOINT event');
      await deleteEvent(client, event.id);
      return true;
    } catch (err) {
      guard.revoke();
      const error = message(err);
      this.opts.log.warn({ event: event.id, name: event.name, attempt: event.attempts + 1, error }, 'event queue: handling an event failed');
      if (err instanceof HandlerTimeout && guard.busy()) return false; // a query of the handler still runs on this connection
      try {
        await client.query('ROLLBACK TO SAVEPOINT event');
        await recordAttemptFailure(client, event.id, error);
        return true;
      } catch {
        return false;
      }
    } finally {
      clearTimeout(timer);
      guard.revoke();
    }
  }
}

/**
 * The client a handler gets: its queries go to the consumer's transaction until the handler is done or abandoned
 * (timed out); after that they throw, so a hanging handler that wakes up later cannot write into another row's
 * savepoint. `busy()`: one of its queries is still in flight.
 */
function guarded(client: pg.PoolClient): { client: pg.PoolClient; revoke(): void; busy(): boolean } {
  let revoked = false;
  let inFlight = 0;
  const query = (...args: unknown[]) => {
    if (revoked) return Promise.reject(new Error('event queue: the handler is no longer running (timed out)'));
    inFlight++;
    const p = (client.query as (...a: unknown[]) => Promise<unknown>)(...args);
    return p.finally(() => inFlight--);
  };
  const proxy = new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === 'query') return query;
      if (prop === 'release') return () => undefined; // the consumer releases it
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { client: proxy, revoke: () => void (revoked = true), busy: () => inFlight > 0 };
}
