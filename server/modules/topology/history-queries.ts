import type pg from 'pg';

type Q = Pick<pg.Pool, 'query'>;

export interface Transition { status: string; previous: string | null; at: Date }

/** A live component's status and creation time; null when there is none. */
export async function componentNow(db: Q, id: string): Promise<{ name: string; status: string; created_at: Date } | null> {
  const { rows } = await db.query(
    'SELECT name, status, created_at FROM components WHERE id = $1 AND deleted_at IS NULL', [id]);
  return rows[0] ?? null;
}

/** Transitions at or after `since`, oldest first, and the last one before it (the status the window opens with). */
export async function transitionsFrom(db: Q, id: string, since: Date): Promise<{ before: Transition | null; after: Transition[] }> {
  const { rows } = await db.query<Transition & { before: boolean }>(
    `(SELECT status, previous, at, true AS before FROM component_status_history
        WHERE component_id = $1 AND at < $2 ORDER BY at DESC LIMIT 1)
     UNION ALL
     (SELECT status, previous, at, false FROM component_status_history
        WHERE component_id = $1 AND at >= $2 ORDER BY at)`,
    [id, since]);
  const before = rows.find((r) => r.before) ?? null;
  return {
    before: before && { status: before.status, previous: before.previous, at: before.at },
    after: rows.filter((r) => !r.before).map(({ status, previous, at }) => ({ status, previous, at })),
  };
}

/** Deletes one batch of transitions older than `cutoff`; answers how many went. */
export async function deleteHistoryBefore(db: Q, cutoff: Date, batch: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM component_status_history WHERE ctid = ANY (ARRAY(
       SELECT ctid FROM component_status_history WHERE at < $1 LIMIT $2))`, [cutoff, batch]);
  return rowCount ?? 0;
}
