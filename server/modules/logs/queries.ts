import type pg from 'pg';

type Db = Pick<pg.Pool, 'query'>;

export interface LogComponent {
  id: string;
  name: string;
  external_id: string;
  namespace: string | null;
  log_selectors: unknown;
}

/** A live component (not deleted) with its log selectors. */
export async function componentForLogs(db: Db, id: string): Promise<LogComponent | undefined> {
  const { rows } = await db.query<LogComponent>(
    'SELECT id, name, external_id, namespace, log_selectors FROM components WHERE id = $1 AND deleted_at IS NULL', [id],
  );
  return rows[0];
}

export interface BackendRow {
  id: string;
  name: string;
  namespace: string | null;
  spec: unknown;
}

/** Live logging_backends rows, oldest first (the first whose route matches serves a search). */
export async function loggingBackends(db: Db): Promise<BackendRow[]> {
  const { rows } = await db.query<BackendRow>(
    'SELECT id, name, namespace, spec FROM logging_backends WHERE deleted_at IS NULL ORDER BY created_at, id',
  );
  return rows;
}
