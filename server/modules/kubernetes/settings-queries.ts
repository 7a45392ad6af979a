import type pg from 'pg';

/**
 * The SQL of the settings writer (./settings-writer.ts). The table and column names come from its SETTINGS_TABLES
 * registry (the caller passes only those); every value is a bound parameter, objects as JSON text.
 */

type Row = Record<string, unknown>;

const param = (v: unknown) => (v !== null && typeof v === 'object' ? JSON.stringify(v) : v);
const quoted = (cols: string[]) => cols.map((c) => `"${c}"`);

/** The live row (all columns, hidden ones included: never returned to a caller). */
export async function liveSettingsRow(db: pg.Pool, table: string, id: string): Promise<Row | undefined> {
  const { rows } = await db.query(`SELECT * FROM ${table} WHERE id = $1 AND deleted_at IS NULL`, [id]);
  return rows[0];
}

export async function insertSettingsRow(db: pg.Pool, table: string, values: Row): Promise<string> {
  const cols = Object.keys(values);
  const { rows } = await db.query(
    `INSERT INTO ${table} (${quoted(cols).join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`,
    cols.map((c) => param(values[c])),
  );
  return rows[0].id as string;
}

export async function updateSettingsRow(db: pg.Pool, table: string, id: string, values: Row): Promise<void> {
  const cols = Object.keys(values);
  await db.query(
    `UPDATE ${table} SET ${quoted(cols).map((c, i) => `${c} = $${i + 1}`).join(', ')} WHERE id = $${cols.length + 1} AND deleted_at IS NULL`,
    [...cols.map((c) => param(values[c])), id],
  );
}

export async function softDeleteSettingsRow(db: pg.Pool, table: string, id: string): Promise<void> {
  await db.query(`UPDATE ${table} SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL`, [id]);
}
