import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
// Arbitrary but fixed: every replica that starts at once queues on the same lock.
const MIGRATION_LOCK_KEY = 7_240_118_331;

export interface Migration {
  version: string;
  name: string;
  sql: string;
  checksum: string;
}

/** Reads `NNNN_name.sql` files in version order. */
export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
  return Promise.all(
    files.map(async (file) => {
      const sql = await readFile(dir + file, 'utf8');
      return {
        version: file.slice(0, 4),
        name: file.slice(5, -4),
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
      };
    }),
  );
}

/**
 * Applies pending migrations in one transaction under an advisory lock, so replicas starting together apply them
 * once. Returns the versions applied by this call. A migration whose file changed after it was applied is an error.
 */
export async function migrate(pool: pg.Pool, migrations?: Migration[]): Promise<string[]> {
  const all = migrations ?? (await loadMigrations());
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: string; checksum: string }>(
      'SELECT version, checksum FROM schema_migrations',
    );
    const applied = new Map(rows.map((r) => [r.version, r.checksum]));
    const done: string[] = [];
    for (const m of all) {
      const previous = applied.get(m.version);
      if (previous !== undefined) {
        if (previous !== m.checksum) throw new Error(`migration ${m.version}_${m.name} changed after it was applied`);
        continue;
      }
      await client.query(m.sql);
      await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
        m.version, m.name, m.checksum,
      ]);
      done.push(m.version);
    }
    await client.query('COMMIT');
    return done;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
