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

const SILENCE_SELECT = `id::text, name, check_id::text, canary_id::text, component_id::text, config_id::text, recursive,
  filter, selectors, "from", until`;

/** Silences active at `at`: not deleted, from ≤ at < until (no until: indefinitely), oldest first. */
export async function activeSilences(db: Q, at: Date): Promise<SilenceRow[]> {
  const { rows } = await db.query<SilenceRow>(
    `SELECT ${SILENCE_SELECT} FROM notification_silences
      WHERE deleted_at IS NULL AND ("from" IS NULL OR "from" <= $1) AND (until IS NULL OR until > $1)
      ORDER BY created_at, id`, [at]);
  return rows;
}

/** Silences not deleted whose until has not passed (active now or later), oldest first: the pipeline's cache. */
export async function liveSilences(db: Q): Promise<SilenceRow[]> {
  const { rows } = await db.query<SilenceRow>(
    `SELECT ${SILENCE_SELECT} FROM notification_silences
      WHERE deleted_at IS NULL AND (until IS NULL OR until > now())
      ORDER BY created_at, id`);
  return rows;
}

/** Whether a silence row is active at `at` (from ≤ at < until), as activeSilences selects them. */
export function silenceActiveAt(s: Pick<SilenceRow, 'from' | 'until'>, at: Date): boolean {
  const t = at.getTime();
  return (!s.from || new Date(s.from).getTime() <= t) && (!s.until || new Date(s.until).getTime() > t);
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

/** The columns of a rule a person writes (the rest are the server's: id, source, error, stamps). */
export const RULE_COLUMNS = [
  'name', 'namespace', 'events', 'title', 'template', 'filter', 'properties', 'repeat_interval', 'labels', 'person_id',
  'team_id', 'custom_services', 'playbook_id', 'inhibitions', 'wait_for', 'wait_for_eval_period', 'group_by',
  'group_by_interval', 'watchdog_schedule', 'fallback_delay', 'fallback_custom_services', 'fallback_playbook_id',
  'fallback_person_id', 'fallback_team_id', 'quiet_hours',
] as const;

/** The columns of a silence a person writes. */
export const SILENCE_COLUMNS = [
  'name', 'namespace', 'description', 'filter', 'selectors', 'from', 'until', 'recursive', 'check_id', 'canary_id',
  'config_id', 'component_id', 'labels',
] as const;

const JSON_COLUMNS = new Set(['properties', 'labels', 'custom_services', 'inhibitions', 'fallback_custom_services', 'quiet_hours', 'selectors', 'spec']);
const WRITABLE = new Set<string>([...RULE_COLUMNS, ...SILENCE_COLUMNS, 'id', 'created_by', 'error', 'error_at']);
type Table = 'notifications' | 'notification_silences';
type Row = Record<string, unknown>;

/** Column names checked against the constants above; values bound, JSON columns as JSON text. */
function columnsOf(row: Row): { cols: string[]; values: unknown[] } {
  const cols = Object.keys(row).filter((c) => WRITABLE.has(c));
  const values = cols.map((c) => (JSON_COLUMNS.has(c) && row[c] !== null && row[c] !== undefined ? JSON.stringify(row[c]) : row[c]));
  return { cols, values };
}
const quote = (c: string) => `"${c}"`;

/** A live (not deleted) row. */
export async function liveRow(db: Q, table: Table, id: string): Promise<Row | null> {
  const { rows } = await db.query<Row>(`SELECT * FROM ${table} WHERE id = $1::uuid AND deleted_at IS NULL`, [id]);
  return rows[0] ?? null;
}

export async function insertRow(db: Q, table: Table, row: Row): Promise<string> {
  const { cols, values } = columnsOf(row);
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO ${table} (source${cols.map((c) => `, ${quote(c)}`).join('')}) VALUES ('UI'${cols.map((_c, i) => `, $${i + 1}`).join('')})
     RETURNING id::text`, values);
  return rows[0].id;
}

export async function updateRow(db: Q, table: Table, id: string, row: Row): Promise<void> {
  const { cols, values } = columnsOf(row);
  if (!cols.length) return;
  await db.query(`UPDATE ${table} SET ${cols.map((c, i) => `${quote(c)} = $${i + 1}`).join(', ')} WHERE id = $${cols.length + 1}::uuid`,
    [...values, id]);
}

export async function deleteRow(db: Q, table: Table, id: string): Promise<void> {
  await db.query(`UPDATE ${table} SET deleted_at = now() WHERE id = $1::uuid AND deleted_at IS NULL`, [id]);
}

/**
 * Service entries written back as read (`slack://***@C0123`, a secret property `***`): an entry whose masked URL or
 * property equals the stored entry's masked form keeps the stored value (same index first, then any entry).
 */
export async function keepMaskedServices(db: Q, incoming: unknown, stored: unknown): Promise<unknown> {
  if (!Array.isArray(incoming) || !Array.isArray(stored) || !JSON.stringify(incoming).includes('***')) return incoming;
  const { rows } = await db.query<{ m: unknown[] }>('SELECT notification_services_masked($1::jsonb) AS m', [JSON.stringify(stored)]);
  const masked = rows[0].m as Row[];
  const raw = stored as Row[];
  return incoming.map((e: unknown, i: number) => {
    if (!e || typeof e !== 'object') return e;
    const entry = { ...(e as Row) };
    const order = [i, ...masked.keys()].filter((j, k, a) => j < masked.length && a.indexOf(j) === k);
    if (typeof entry.url === 'string' && entry.url.includes('***')) {
      const j = order.find((k) => masked[k]?.url === entry.url);
      if (j !== undefined) entry.url = raw[j].url;
    }
    if (entry.properties && typeof entry.properties === 'object') {
      const props = { ...(entry.properties as Row) };
      for (const [k, v] of Object.entries(props)) {
        if (v !== '***') continue;
        const j = order.find((x) => (masked[x]?.properties as Row | undefined)?.[k] === '***' && (raw[x]?.properties as Row | undefined)?.[k] !== undefined);
        if (j !== undefined) props[k] = (raw[j].properties as Row)[k];
      }
      entry.properties = props;
    }
    return entry;
  });
}

/** A send history row with its resource (kind, type, tags, jsonb) and body_markdown (the stored markdown body). */
export async function sendHistoryById(db: Q, id: string): Promise<Row | null> {
  const { rows } = await db.query<Row>(
    `SELECT s.*, s.body AS body_markdown FROM notification_send_history_summary s WHERE s.id = $1::uuid`, [id]);
  return rows[0] ?? null;
}
