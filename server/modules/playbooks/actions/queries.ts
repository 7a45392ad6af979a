import type pg from 'pg';
import { parseConnectionRef } from '../../../lib/connection-ref.js';
import type { ConnectionInput } from '../../../lib/connection-hydrate.js';

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

const COLS = 'id, name, namespace, type, url, username, password, certificate, insecure_tls, properties, spec';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The `connections` row an action names: `connection://ns/name`, `ns/name`, a bare name (any namespace, the oldest
 * first) or a row's id. The reference's older `connection://<type>/<name>` form matches a connection of that type
 * when no namespace of that name has one. Deleted rows never count.
 */
export async function findConnection(db: Queryable, ref: string): Promise<ConnectionInput | null> {
  const text = ref.trim();
  if (UUID.test(text)) {
    const { rows } = await db.query<ConnectionInput>(`SELECT ${COLS} FROM connections WHERE deleted_at IS NULL AND id = $1`, [text]);
    if (rows[0]) return rows[0];
  }
  const parsed = parseConnectionRef(text);
  if (!parsed) return null;
  const { rows } = await db.query<ConnectionInput & { exact: boolean }>(
    `SELECT ${COLS}, ($2::text IS NULL OR namespace = $2) AS exact FROM connections
     WHERE deleted_at IS NULL AND name = $1 AND ($2::text IS NULL OR namespace = $2 OR lower(type) = lower($2))
     ORDER BY exact DESC, created_at LIMIT 1`,
    [parsed.name, parsed.namespace],
  );
  if (!rows[0]) return null;
  const { exact: _exact, ...row } = rows[0];
  return row;
}
