import type pg from 'pg';
import type { RetentionSpec } from '../../../contracts/catalog.js';
import { parseLongDuration } from '../../../lib/cel.js';
import type { z } from 'zod';

type Retention = z.infer<typeof RetentionSpec>;
type Q = Pick<pg.Pool, 'query'>;

/** Rows removed per statement: long purges go in steps so other writers are never held up for long. */
const RETENTION_BATCH = 5_000;

export interface RetentionOutcome {
  /** config_changes rows deleted (by age or beyond the count kept per item). */
  changes: number;
  /** Items soft-deleted by createdAge / updatedAge. */
  deleted: number;
  /** Items removed for good by deletedAge (with their changes, insights and links). */
  purged: number;
}

const ageMs = (text: string | undefined) => (text ? parseLongDuration(text) : null);

async function repeat(step: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await step();
    total += n;
    if (n < RETENTION_BATCH) return total;
  }
}

/**
 * A scraper's `spec.retention`, over its own items: `changes[{name, age, count}]` deletes changes of that type older
 * than `age` and beyond the newest `count` per item; `types[{name, createdAge, updatedAge, deletedAge}]` deletes items of
 * that type created or last updated longer ago (deleted_at, reason `retention`), and removes for good those deleted
 * longer than `deletedAge` ago. `staleItemAge` is the save's (save.ts). Runs after each scrape, in batches.
 */
export async function applyRetention(db: Q, scraperId: string, retention: Retention | undefined, now = new Date()): Promise<RetentionOutcome> {
  const out: RetentionOutcome = { changes: 0, deleted: 0, purged: 0 };
  if (!retention) return out;
  const before = (ms: number) => new Date(now.getTime() - ms);

  for (const rule of retention.changes ?? []) {
    const age = ageMs(rule.age);
    if (age !== null) {
      out.changes += await repeat(async () => (await db.query(
        `DELETE FROM config_changes WHERE id IN (
           SELECT cc.id FROM config_changes cc JOIN config_items ci ON ci.id = cc.config_id
           WHERE ci.scraper_id = $1 AND cc.change_type = $2 AND cc.created_at < $3 LIMIT $4)`,
        [scraperId, rule.name, before(age), RETENTION_BATCH])).rowCount ?? 0);
    }
    if (rule.count !== undefined) {
      out.changes += await repeat(async () => (await db.query(
        `DELETE FROM config_changes WHERE id IN (
           SELECT id FROM (
             SELECT cc.id, row_number() OVER (PARTITION BY cc.config_id ORDER BY cc.created_at DESC, cc.id DESC) AS n
             FROM config_changes cc JOIN config_items ci ON ci.id = cc.config_id
             WHERE ci.scraper_id = $1 AND cc.change_type = $2) ranked
           WHERE n > $3 LIMIT $4)`,
        [scraperId, rule.name, rule.count, RETENTION_BATCH])).rowCount ?? 0);
    }
  }

  for (const rule of retention.types ?? []) {
    for (const [column, text] of [['created_at', rule.createdAge], ['updated_at', rule.updatedAge]] as const) {
      const age = ageMs(text);
      if (age === null) continue;
      // the column name comes from the pair above, never from the spec
      out.deleted += await repeat(async () => (await db.query(
        `UPDATE config_items SET deleted_at = $3, delete_reason = 'retention' WHERE id IN (
           SELECT id FROM config_items WHERE scraper_id = $1 AND type = $2 AND deleted_at IS NULL AND ${column} < $4 LIMIT $5)`,
        [scraperId, rule.name, now, before(age), RETENTION_BATCH])).rowCount ?? 0);
    }
    const deletedAge = ageMs(rule.deletedAge);
    if (deletedAge !== null) out.purged += await repeat(() => purge(db, scraperId, rule.name, before(deletedAge)));
  }
  return out;
}

/** Removes one batch of items deleted before `cutoff`; their children (if any are left) lose the parent link. */
async function purge(db: Q, scraperId: string, type: string, cutoff: Date): Promise<number> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT ci.id FROM config_items ci
     WHERE ci.scraper_id = $1 AND ci.type = $2 AND ci.deleted_at < $3
       AND NOT EXISTS (SELECT 1 FROM playbook_runs pr WHERE pr.config_id = ci.id)
     LIMIT $4`, [scraperId, type, cutoff, RETENTION_BATCH]);
  if (!rows.length) return 0;
  const ids = rows.map((r) => r.id);
  await db.query('UPDATE config_items SET parent_id = NULL WHERE parent_id = ANY($1::uuid[]) AND NOT (id = ANY($1::uuid[]))', [ids]);
  const { rowCount } = await db.query('DELETE FROM config_items WHERE id = ANY($1::uuid[])', [ids]);
  // a batch that could not shrink (rows locked elsewhere) ends the purge rather than looping
  return rowCount === rows.length ? rowCount : Math.min(rowCount ?? 0, RETENTION_BATCH - 1);
}
