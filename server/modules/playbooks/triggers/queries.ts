import type pg from 'pg';

type Q = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** An event_queue row as a consumer holds it. */
export interface QueuedEvent {
  id: string;
  name: string;
  event_id: string | null;
  properties: Record<string, unknown> | null;
  attempts: number;
  created_at: Date;
}

/**
 * Locks the next due event among `names` for the caller's transaction (FOR UPDATE SKIP LOCKED: another consumer
 * takes the next one). Due: fewer than `maxAttempts` attempts, and a failed one waited `retryMs` × 2^(attempts-1).
 */
export async function lockNextEvent(c: pg.PoolClient, names: readonly string[], maxAttempts: number, retryMs: number): Promise<QueuedEvent | null> {
  const { rows } = await c.query<QueuedEvent>(
    `SELECT id, name, event_id, properties, coalesce(attempts, 0) AS attempts, created_at FROM event_queue
      WHERE name = ANY($1::text[]) AND coalesce(attempts, 0) < $2
        AND (last_attempt IS NULL
             OR last_attempt <= now() - make_interval(secs => $3::float8 / 1000 * power(2, greatest(coalesce(attempts, 0) - 1, 0))))
        AND (delay IS NULL OR created_at + make_interval(secs => delay::float8 / 1000) <= now())
      ORDER BY priority DESC, created_at
      LIMIT 1
      FOR UPDATE SKIP LOCKED`,
    [names, maxAttempts, retryMs],
  );
  return rows[0] ?? null;
}

/** A consumed event is gone: a replay of the queue cannot act on it again. */
export async function deleteEvent(c: Q, id: string): Promise<void> {
  await c.query('DELETE FROM event_queue WHERE id = $1', [id]);
}

/** A failed attempt: the row stays, with its error, the attempt counted and its time. */
export async function recordAttemptFailure(c: Q, id: string, error: string): Promise<void> {
  await c.query(
    'UPDATE event_queue SET attempts = coalesce(attempts, 0) + 1, error = $2, last_attempt = now() WHERE id = $1',
    [id, error.slice(0, 4000)],
  );
}

/** A live playbook as the triggers read it. */
export interface TriggerPlaybook {
  id: string;
  name: string;
  namespace: string;
  title: string;
  spec: Record<string, unknown>;
  [column: string]: unknown;
}

/** Live playbooks with an `on.<key>` trigger (canary, schedule…). */
export async function playbooksWithTrigger(c: Q, key: string): Promise<TriggerPlaybook[]> {
  const { rows } = await c.query<TriggerPlaybook>(
    `SELECT * FROM playbooks
      WHERE deleted_at IS NULL AND jsonb_typeof(spec -> 'on' -> $1) IS NOT NULL
        AND spec -> 'on' -> $1 NOT IN ('null'::jsonb, '[]'::jsonb, '{}'::jsonb)
      ORDER BY id`,
    [key],
  );
  return rows;
}

/** The live playbook whose `on.webhook.path` is `path`. */
export async function playbookByWebhookPath(c: Q, path: string): Promise<TriggerPlaybook | null> {
  const { rows } = await c.query<TriggerPlaybook>(
    `SELECT * FROM playbooks WHERE deleted_at IS NULL AND spec -> 'on' -> 'webhook' ->> 'path' = $1
      ORDER BY created_at LIMIT 1`,
    [path],
  );
  return rows[0] ?? null;
}

/** A check and its canary as CEL filters and templates see them (the check's labels over its canary's). */
export async function checkWithCanary(c: Q, checkId: string): Promise<{ check: Record<string, unknown>; canary: Record<string, unknown> } | null> {
  const { rows } = await c.query<{ check: Record<string, unknown>; canary: Record<string, unknown> }>(
    `SELECT to_jsonb(k) - 'spec' || jsonb_build_object('labels', coalesce(n.labels, '{}'::jsonb) || coalesce(k.labels, '{}'::jsonb),
              'last_runtime', u.last_runtime, 'last_error', u.last_error, 'last_message', u.last_message) AS check,
            to_jsonb(n) - 'spec' AS canary
       FROM checks k JOIN canaries n ON n.id = k.canary_id
       LEFT JOIN checks_unlogged u ON u.check_id = k.id
      WHERE k.id = $1`,
    [checkId],
  );
  return rows[0] ?? null;
}
