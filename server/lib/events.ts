import pg from 'pg';
import { LiveMessage, type ChangeEvent } from '../contracts/events.js';

/** The PostgreSQL channel every replica LISTENs on; a NOTIFY from any of them reaches all. */
export const EVENTS_CHANNEL = 'console_events';

/** NOTIFY payloads must stay under 8000 bytes; leave room for the envelope. */
const MAX_PAYLOAD_BYTES = 7_000;
/** More ids than this and the event says "something in the relation changed" instead. */
export const MAX_EVENT_IDS = 50;

type Queryable = Pick<pg.Pool | pg.PoolClient | pg.Client, 'query'>;

/** What a module publishes: a change to a relation, with its ids when they are few. */
export interface ChangeInput {
  relation: string;
  ids?: readonly unknown[];
}

/** The NOTIFY payload of a change: ids only when few and short enough to fit. */
export function encodeChange(input: ChangeInput, at = new Date()): string {
  const base: ChangeEvent = { type: 'change', relation: input.relation.slice(0, 200), at: at.toISOString() };
  const ids = input.ids?.filter((v) => v !== null && v !== undefined).map(String);
  if (ids && ids.length > 0 && ids.length <= MAX_EVENT_IDS) {
    const withIds = JSON.stringify({ ...base, ids });
    if (Buffer.byteLength(withIds) <= MAX_PAYLOAD_BYTES) return withIds;
  }
  return JSON.stringify(base);
}

/**
 * NOTIFYs a change to every replica. Through a client inside a transaction, the notification is delivered only if
 * (and when) that transaction commits; a failure there aborts the transaction, as it should: use this inside one.
 */
export async function notifyChange(db: Queryable, input: ChangeInput): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [EVENTS_CHANNEL, encodeChange(input)]);
}

/**
 * Publishes a change that has already committed (through the pool). Never throws: the change itself happened, and
 * a lost event costs at most a stale view until the next refetch.
 */
export async function publishChange(db: Queryable, input: ChangeInput, onError?: (err: unknown) => void): Promise<boolean> {
  try {
    await notifyChange(db, input);
    return true;
  } catch (err) {
    onError?.(err);
    return false;
  }
}

/**
 * Primary keys of the rows in a PostgREST-style JSON body (the write's representation), when the key is one
 * column, every row carries it and there are few rows; else undefined ("the relation changed").
 */
export function idsFromBody(body: unknown, pk: readonly string[]): string[] | undefined {
  if (pk.length !== 1 || typeof body !== 'string' || body.length > 64 * 1024) return undefined;
  try {
    const rows: unknown = JSON.parse(body);
    if (!Array.isArray(rows) || rows.length === 0 || rows.length > MAX_EVENT_IDS) return undefined;
    const ids = rows.map((r) => (r && typeof r === 'object' ? (r as Record<string, unknown>)[pk[0]] : undefined));
    return ids.every((v) => typeof v === 'string' || typeof v === 'number') ? ids.map(String) : undefined;
  } catch {
    return undefined;
  }
}

export interface EventBusLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface EventBusOptions {
  connectionString: string;
  log: EventBusLog;
  /** First reconnect delay; doubles up to maxDelayMs. */
  minDelayMs?: number;
  maxDelayMs?: number;
}

export type EventListener = (event: LiveMessage) => void;

/**
 * The listening half of the bus: one dedicated connection that LISTENs on EVENTS_CHANNEL and hands every valid
 * event to the subscribers. When the connection drops it reconnects with exponential back-off (capped), and tells
 * subscribers to `resync`, since whatever was published meanwhile is lost.
 */
export class EventBus {
  private client: pg.Client | null = null;
  private readonly listeners = new Set<EventListener>();
  private timer: NodeJS.Timeout | null = null;
  private attempt = 0;
  private stopped = true;
  /** True while the LISTEN connection is up. */
  listening = false;
  /** The server process id of the LISTEN connection, while up (for diagnostics and tests). */
  pid: number | null = null;

  constructor(private readonly opts: EventBusOptions) {}

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscribers(): number {
    return this.listeners.size;
  }

  /** Connects and LISTENs; resolves once listening (or after the first failure, retrying in the background). */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const client = this.client;
    this.client = null;
    this.listening = false;
    this.pid = null;
    await client?.end().catch(() => undefined);
  }

  private emit(event: LiveMessage): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (err) {
        this.opts.log.warn({ err }, 'live event listener failed');
      }
    }
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.opts.connectionString, application_name: 'console-events' });
    this.client = client;
    let failed = false;
    const onLost = (err?: unknown) => {
      if (failed) return;
      failed = true;
      if (this.client === client) {
        this.client = null;
        this.listening = false;
        this.pid = null;
      }
      client.removeAllListeners('notification');
      if (!this.stopped) {
        this.opts.log.warn({ err }, 'live events: database listener lost; reconnecting');
        client.end().catch(() => undefined);
        this.schedule();
      }
    };
    // a terminated backend emits 'error' then 'end'; either means the LISTEN is gone
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (msg) => {
      if (msg.channel !== EVENTS_CHANNEL || !msg.payload) return;
      let parsed;
      try {
        parsed = LiveMessage.safeParse(JSON.parse(msg.payload));
      } catch {
        parsed = null;
      }
      if (parsed?.success) this.emit(parsed.data);
      else this.opts.log.debug({ payload: msg.payload.slice(0, 200) }, 'live events: ignored malformed notification');
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${EVENTS_CHANNEL}`);
      this.pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    } catch (err) {
      onLost(err);
      return;
    }
    if (this.stopped || failed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.listening = true;
    const recovered = this.attempt > 0; // a retry: events published while no one listened here are lost
    this.attempt = 0;
    if (recovered) {
      this.opts.log.info({}, 'live events: database listener restored');
      this.emit({ type: 'resync', reason: 'listener reconnected', at: new Date().toISOString() });
    }
  }

  private schedule(): void {
    if (this.timer || this.stopped) return;
    const min = this.opts.minDelayMs ?? 250;
    const max = this.opts.maxDelayMs ?? 30_000;
    const delay = Math.min(max, min * 2 ** this.attempt) * (0.75 + Math.random() * 0.5);
    this.attempt = Math.min(this.attempt + 1, 20);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.stopped) void this.connect();
    }, delay);
    this.timer.unref();
  }
}
