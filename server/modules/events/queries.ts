import type pg from 'pg';
import type { NewEvent, Q, QueuedEvent } from './types.js';

/** How failed events are retried (the reference's defaults: 60 s · attempts^5, 3 attempts). */
export interface RetrySettings {
  /** Seconds before the second attempt (base · attempts^exponent after each failed attempt). */
  baseSeconds: number;
  exponent: number;
  maxAttempts: number;
}

export const RETRY_DEFAULTS: RetrySettings = { baseSeconds: 60, exponent: 5, maxAttempts: 3 };

/** The properties that change RETRY_DEFAULTS (values: seconds, or a duration such as `500ms`, `2m`). */
export const RETRY_PROPERTIES = { baseSeconds: 'events.retry.base', exponent: 'events.retry.exponent', maxAttempts: 'events.max_attempts' } as const;

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };

/** `60`, `60s`, `500ms`, `2m`, `1h` → seconds; null when it is none of those. */
export function parseSeconds(v: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(v);
  return m ? Number(m[1]) * UNIT_SECONDS[m[2] ?? 's'] : null;
}

/** The retry settings: properties over the defaults (a value that does not parse keeps the default). */
export async function retrySettings(q: Q): Promise<RetrySettings> {
  const { rows } = await q.query<{ name: string; value: string }>(
    'SELECT name, value FROM properties WHERE deleted_at IS NULL AND name = ANY($1::text[])', [Object.values(RETRY_PROPERTIES)]);
  const byName = new Map(rows.map((r) => [r.name, r.value]));
  const base = parseSeconds(byName.get(RETRY_PROPERTIES.baseSeconds) ?? '');
  const exponent = Number(byName.get(RETRY_PROPERTIES.exponent) ?? NaN);
  const max = Number(byName.get(RETRY_PROPERTIES.maxAttempts) ?? NaN);
  return {
    baseSeconds: base ?? RETRY_DEFAULTS.baseSeconds,
    exponent: Number.isFinite(exponent) && exponent >= 0 ? exponent : RETRY_DEFAULTS.exponent,
    maxAttempts: Number.isInteger(max) && max > 0 ? max : RETRY_DEFAULTS.maxAttempts,
  };
}

/**
 * Writes an event: an upsert on (name, event_id) as the reference's triggers do, so a pending event of the same name
 * and resource is replaced (properties, delay, priority) with its attempts reset. `delay` is stored in milliseconds.
 */
export async function enqueueEvent(q: Q, e: NewEvent): Promise<void> {
  await q.query(
    `INSERT INTO event_queue (name, event_id, properties, delay, priority) VALUES ($1, $2, $3, $4, coalesce($5, 100))
     ON CONFLICT (name, event_id) DO UPDATE
       SET properties = EXCLUDED.properties, delay = EXCLUDED.delay, priority = EXCLUDED.priority,
           attempts = 0, error = NULL, last_attempt = NULL, created_at = now()`,
    [e.name, e.event_id, e.properties ?? null, e.delay_ms ?? null, e.priority ?? null],
  );
}

/** What makes a row due: a handled name, attempts left, its delay over, its retry wait over. */
const DUE = `name = ANY($1::text[]) AND coalesce(attempts, 0) < $2
    AND (delay IS NULL OR created_at + make_interval(secs => delay::float8 / 1000) <= now())
    AND (last_attempt IS NULL OR coalesce(attempts, 0) = 0
         OR last_attempt + make_interval(secs => $3::float8 * power(attempts, $4::float8)) <= now())`;

/**
 * Locks up to `limit` due events among `names` for the caller's transaction (FOR UPDATE SKIP LOCKED: other replicas
 * take others), highest priority, then oldest, first.
 */
export async function claimEvents(c: pg.PoolClient, names: readonly string[], s: RetrySettings, limit: number): Promise<QueuedEvent[]> {
  const { rows } = await c.query<QueuedEvent>(
    `SELECT id, name, event_id, properties, coalesce(attempts, 0) AS attempts, created_at FROM event_queue
      WHERE ${DUE}
      ORDER BY priority DESC, created_at
      LIMIT $5
      FOR UPDATE SKIP LOCKED`,
    [names, s.maxAttempts, s.baseSeconds, s.exponent, limit],
  );
  return rows;
}

/** Milliseconds until the next row among `names` comes due (its delay or retry wait); null when none will. */
export async function nextDueInMs(q: Q, names: readonly string[], s: RetrySettings): Promise<number | null> {
  // greatest() skips NULLs, so an empty queue's NULL min() is kept outside it: greatest(0, NULL) is 0, which had an
  // idle consumer re-arming itself every 5 ms (a fifth of a 2-core machine, for nothing)
  const { rows } = await q.query<{ ms: number | null }>(
    `SELECT CASE WHEN due IS NULL THEN NULL ELSE greatest(0, extract(epoch FROM due - now()) * 1000)::float8 END AS ms
       FROM (SELECT min(greatest(
               CASE WHEN delay IS NULL THEN now() ELSE created_at + make_interval(secs => delay::float8 / 1000) END,
               CASE WHEN last_attempt IS NULL OR coalesce(attempts, 0) = 0 THEN now()
                    ELSE last_attempt + make_interval(secs => $3::float8 * power(attempts, $4::float8)) END)) AS due
               FROM event_queue WHERE name = ANY($1::text[]) AND coalesce(attempts, 0) < $2) next`,
    [names, s.maxAttempts, s.baseSeconds, s.exponent],
  );
  return rows[0]?.ms ?? null;
}

/** A consumed event is gone: a replay of the queue cannot act on it again. */
export async function deleteEvent(c: Q, id: string): Promise<void> {
  await deleteEvents(c, [id]);
}

/** A batch's consumed events, one statement at its commit. */
export async function deleteEvents(c: Q, ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  await c.query({ name: 'event_queue_delete', text: 'DELETE FROM event_queue WHERE id = ANY($1::uuid[])', values: [ids] });
}

/**
 * Locks again rows of a batch that was rolled back (one of its handlers failed), as they are now; rows another
 * replica took meanwhile (locked, or consumed and gone) are left out.
 */
export async function relockEvents(c: pg.PoolClient, ids: readonly string[]): Promise<QueuedEvent[]> {
  const { rows } = await c.query<QueuedEvent>(
    `SELECT id, name, event_id, properties, coalesce(attempts, 0) AS attempts, created_at FROM event_queue
      WHERE id = ANY($1::uuid[])
      ORDER BY priority DESC, created_at
      FOR UPDATE SKIP LOCKED`, [ids]);
  return rows;
}

/**
 * A failed attempt: the row stays, with its error, the attempt counted and its time. `attempts`: the count the
 * attempt started from; when given, a row whose count moved on (another replica recorded it) is left alone.
 */
export async function recordAttemptFailure(c: Q, id: string, error: string, attempts?: number): Promise<void> {
  await c.query(
    `UPDATE event_queue SET attempts = coalesce(attempts, 0) + 1, error = $2, last_attempt = now()
      WHERE id = $1 AND ($3::int IS NULL OR coalesce(attempts, 0) = $3::int)`,
    [id, error.slice(0, 4000), attempts ?? null],
  );
}

/** An event_queue row as GET /api/notification/events lists it. */
export interface QueueRow {
  id: string;
  name: string;
  event_id: string | null;
  properties: Record<string, unknown> | null;
  error: string | null;
  attempts: number;
  delay: number | null;
  priority: number;
  created_at: Date;
  last_attempt: Date | null;
}

/** The newest `perName` rows of every event name in the queue (pending, retrying or failed for good). */
export async function latestEventsPerName(q: Q, perName: number): Promise<QueueRow[]> {
  const { rows } = await q.query<QueueRow>(
    `SELECT id, name, event_id, properties, error, coalesce(attempts, 0) AS attempts, delay::float8 AS delay, priority,
            created_at, last_attempt
       FROM (SELECT *, row_number() OVER (PARTITION BY name ORDER BY created_at DESC, id DESC) AS n FROM event_queue) e
      WHERE n <= $1
      ORDER BY name, created_at DESC, id DESC`,
    [perName],
  );
  return rows;
}
