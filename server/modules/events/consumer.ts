import type pg from 'pg';
import { claimEvents, deleteEvents, nextDueInMs, recordAttemptFailure, relockEvents, retrySettings, type RetrySettings } from './queries.js';
import { runInEventScope } from './scope.js';
import type { EventHandler, EventTx, QueuedEvent } from './types.js';

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

const DEFAULTS = { batchSize: 50, timeoutMs: 60_000, sweepMs: 5_000, concurrency: 4 };

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
 * row's handlers, deletes the handled rows in one statement and commits; a failure (a throw or the timeout) rolls the
 * transaction back, records that row's attempt (attempts+1, error, last_attempt; due again after
 * base · attempts^exponent) and runs the others again. A crash before the commit leaves every claimed row in the
 * queue: at least once.
 */
export class EventConsumer {
  private readonly o: typeof DEFAULTS;
  private timer: NodeJS.Timeout | null = null;
  private sweep: NodeJS.Timeout | null = null;
  private stopped = true;
  private again = false;
  private readonly workers = new Set<Promise<void>>();
  private retryRead: { at: number; settings: Promise<RetrySettings> } | null = null;

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

  /** The retry settings, read at most every 5 s (a burst's workers each read them once per pass). */
  private async settings(): Promise<RetrySettings> {
    const now = Date.now();
    if (!this.retryRead || now - this.retryRead.at > 5_000) {
      this.retryRead = { at: now, settings: retrySettings(this.opts.db) };
      this.retryRead.settings.catch(() => { this.retryRead = null; });
    }
    return { ...(await this.retryRead.settings), ...this.opts.retry };
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

  /**
   * One transaction: claims up to batchSize due rows and runs their handlers one after another with no savepoint (a
   * savepoint and its release per event were a third of a send's round trips); the handled rows are deleted in one
   * statement at commit, then the handlers' after-commit callbacks run. When a handler fails, the transaction is rolled
   * back, that row's attempt is recorded on its own, and the other rows (their writes undone with it) are taken again
   * and run once more in a new transaction: a failing row's writes never commit, and every other row commits once.
   */
  private async batch(names: string[], s: RetrySettings): Promise<number> {
    const client = await this.opts.db.connect();
    let drop = false;
    let lost: QueuedEvent | null = null;
    try {
      await this.begin(client);
      let events = await claimEvents(client, names, s, this.o.batchSize);
      let done = 0;
      while (events.length) {
        const tx = new BatchTx();
        let failed: { event: QueuedEvent; error: string } | null = null;
        for (const event of events) {
          const r = await this.handle(client, event, tx);
          if (r === true) continue;
          if (r === 'lost') {
            lost = event;
            drop = true;
            return done;
          }
          failed = { event, error: r.error };
          break;
        }
        if (!failed) {
          await deleteEvents(client, events.map((e) => e.id));
          await client.query('COMMIT');
          tx.committed(this.opts.log);
          return done + events.length;
        }
        // the failing row's writes go with the whole transaction; its attempt is recorded by itself
        await client.query('ROLLBACK');
        await this.recordFailure(failed.event, failed.error);
        done++;
        const rest = events.filter((e) => e.id !== failed!.event.id).map((e) => e.id);
        if (!rest.length) return done;
        await this.begin(client);
        // the others again (a row another replica took meanwhile is its now)
        events = await relockEvents(client, rest);
      }
      await client.query('COMMIT');
      return done;
    } catch (err) {
      drop = true;
      throw err;
    } finally {
      if (drop) {
        // not awaited: the connection may be stuck behind the handler's query; closing it aborts the transaction
        client.release(true);
        if (lost) await this.failOutside(lost, `timed out after ${this.o.timeoutMs} ms`);
      } else client.release();
    }
  }

  /** BEGIN and the transaction's statement timeout, one round trip (a handler's statement cannot outlast its event's timeout either). */
  private async begin(client: pg.PoolClient): Promise<void> {
    await client.query(`BEGIN; SET LOCAL statement_timeout = ${Math.max(1, Math.floor(this.o.timeoutMs))}`);
  }

  /** A failed attempt, recorded in a transaction of its own: attempts+1 unless another replica counted it already. */
  private async recordFailure(event: QueuedEvent, error: string): Promise<void> {
    try {
      await recordAttemptFailure(this.opts.db, event.id, error, event.attempts);
    } catch (err) {
      this.opts.log.warn({ err, event: event.id }, 'event queue: recording a failed attempt failed');
    }
  }

  /** The attempt of an event whose batch was dropped (best effort). */
  private async failOutside(event: QueuedEvent, error: string): Promise<void> {
    await this.recordFailure(event, error);
  }

  /**
   * Runs one row's handlers: true when they succeeded, the error when one failed (the caller rolls back), 'lost' when
   * the connection can no longer be trusted (a timed-out handler's query still runs on it: the batch is dropped).
   */
  private async handle(client: pg.PoolClient, event: QueuedEvent, tx: BatchTx): Promise<true | 'lost' | { error: string }> {
    const guard = guarded(client);
    let timer: NodeJS.Timeout | undefined;
    const mark = tx.mark();
    try {
      const work = runInEventScope(async () => {
        for (const handler of this.opts.handlers.get(event.name) ?? []) await handler(event, guard.client, tx.forHandler(guard));
      });
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new HandlerTimeout(this.o.timeoutMs)), this.o.timeoutMs);
      });
      await Promise.race([work, timeout]);
      return true;
    } catch (err) {
      guard.revoke();
      tx.rewind(mark);
      const error = message(err);
      this.opts.log.warn({ event: event.id, name: event.name, attempt: event.attempts + 1, error }, 'event queue: handling an event failed');
      if (err instanceof HandlerTimeout && guard.busy()) return 'lost';
      return { error };
    } finally {
      clearTimeout(timer);
      guard.revoke();
    }
  }
}

/** The after-commit callbacks of one batch's transaction (run once it has committed; dropped when it rolls back). */
class BatchTx {
  private readonly callbacks: (() => void)[] = [];

  mark(): number {
    return this.callbacks.length;
  }

  rewind(mark: number): void {
    this.callbacks.length = mark;
  }

  /** What a handler gets: registrations after its guard is revoked (a timed-out handler waking up) are ignored. */
  forHandler(guard: { revoked(): boolean }): EventTx {
    return { afterCommit: (fn) => { if (!guard.revoked()) this.callbacks.push(fn); } };
  }

  committed(log: EventConsumerOptions['log']): void {
    for (const fn of this.callbacks.splice(0)) {
      try {
        fn();
      } catch (err) {
        log.warn({ err }, 'event queue: an after-commit callback failed');
      }
    }
  }
}

/**
 * The client a handler gets: its queries go to the consumer's transaction until the handler is done or abandoned
 * (timed out); after that they throw, so a hanging handler that wakes up later cannot write into another row's
 * savepoint. `busy()`: one of its queries is still in flight.
 */
function guarded(client: pg.PoolClient): { client: pg.PoolClient; revoke(): void; revoked(): boolean; busy(): boolean } {
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
  return { client: proxy, revoke: () => void (revoked = true), revoked: () => revoked, busy: () => inFlight > 0 };
}
