import { parseConnectionRef } from '../../lib/connection-ref.js';
import type { Q } from '../events/types.js';

/**
 * SQL of part E (rules and silences validation, silence matching, /api/notification routes). Every value is a bound
 * parameter; identifiers are constants of this file.
 */

export interface SilenceRow {
  id: string;
  name: string;
  check_id: string | null;
  canary_id: string | null;
  component_id: string | null;
  config_id: string | null;
  recursive: boolean | null;
  filter: string | null;
  selectors: unknown;
  from: Date | null;
  until: Date | null;
}

const SILENCE_COLUMNS = `id::text, name, check_id::text, canary_id::text, component_id::text, config_id::text, recursive,
  filter, selectors, "from", until`;

/** Silences active at `at`: not deleted, from ≤ at < until (no until: indefinitely), oldest first. */
export async function activeSilences(db: Q, at: Date): Promise<SilenceRow[]> {
  const { rows } = await db.query<SilenceRow>(
    `SELECT ${SILENCE_COLUMNS} FROM notification_silences
      WHERE deleted_at IS NULL AND ("from" IS NULL OR "from" <= $1) AND (until IS NULL OR until > $1)
      ORDER BY created_at, id`, [at]);
  return rows;
}

const PATH_TABLES = { component: 'components', config: 'config_items' } as const;

/** The ancestors of a component or config item (its dotted `path` of ids, else its parent chain), nearest last. */
export async function resourcePath(db: Q, kind: string, id: string): Promise<string[]> {
  const table = PATH_TABLES[kind as keyof typeof PATH_TABLES];
  if (!table) return [];
  const { rows } = await db.query<{ ids: string[] | null }>(
    `WITH RECURSIVE up(id, parent_id, depth) AS (
       SELECT id, parent_id, 0 FROM ${table} WHERE id = $1::uuid
       UNION ALL SELECT t.id, t.parent_id, up.depth + 1 FROM ${table} t JOIN up ON t.id = up.parent_id WHERE up.depth < 64)
     SELECT array(SELECT id::text FROM up WHERE depth > 0 ORDER BY depth DESC)
       || coalesce((SELECT string_to_array(nullif(path, ''), '.') FROM ${table} WHERE id = $1::uuid), '{}') AS ids`, [id]);
  return [...new Set(rows[0]?.ids ?? [])];
}

/** Which of the ids exist (not deleted) in people or teams. */
export async function existing(db: Q, table: 'people' | 'teams' | 'connections', ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const { rows } = await db.query<{ id: string }>(
    `SELECT id::text AS id FROM ${table} WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL`, [ids]);
  return new Set(rows.map((r) => r.id));
}

/** Whether a connection exists by `connection://namespace/name`, `connection://name`, bare name or id. */
export async function connectionExists(db: Q, ref: string): Promise<boolean> {
  const r = parseConnectionRef(ref);
  if (!r) return false;
  const { rows } = await db.query(
    `SELECT 1 FROM connections WHERE deleted_at IS NULL
        AND (name = $1 OR id::text = $1) AND ($2::text IS NULL OR coalesce(namespace, '') = $2 OR type = $2) LIMIT 1`,
    [r.name, r.namespace]);
  return rows.length > 0;
}
