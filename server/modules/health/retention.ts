import type pg from 'pg';
import { markStaleJobs, startJob } from '../../lib/job-history.js';

/** How long each kind of health data is kept, in days. */
export interface RetentionOptions {
  rawDays?: number;
  hourlyDays?: number;
  dailyDays?: number;
  /** Successful canary runs in job_history (failed ones are kept as long as other job history). */
  jobSuccessDays?: number;
  jobDays?: number;
}

export const RETENTION_DEFAULTS: Required<RetentionOptions> = {
  rawDays: 7, hourlyDays: 30, dailyDays: 365, jobSuccessDays: 3, jobDays: 30,
};

// Deletes go in batches so no statement holds locks (or bloats one transaction) for long.
const BATCH = 10_000;

type Q = Pick<pg.Pool, 'query'>;

async function deleteBatched(db: Q, sql: string, params: unknown[]): Promise<number> {
  let total = 0;
  for (;;) {
    const { rowCount } = await db.query(sql, [...params, BATCH]);
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < BATCH) return total;
  }
}

/** Deletes health data past its retention; records one job_history row. */
export async function runRetention(db: pg.Pool, opts: RetentionOptions = {}): Promise<Record<string, number>> {
  const o = { ...RETENTION_DEFAULTS, ...opts };
  const job = startJob(db, { name: 'CheckStatusRetention', resourceType: 'health', resourceId: 'check_statuses' });
  const start = job.start;
  const days = (n: number) => new Date(start.getTime() - n * 86_400_000);
  try {
    const deleted = await deleteExpired(db, o, days);
    // RUNNING rows left by a process that died mid-run (this job's own is minutes old at most)
    const stale = await markStaleJobs(db);
    await job.finish({
      status: 'SUCCESS', successCount: Object.values(deleted).reduce((a, b) => a + b, 0), errorCount: 0,
      details: { deleted, stale },
    });
    return deleted;
  } catch (err) {
    await job.finish({ status: 'FAILED', successCount: 0, errorCount: 1, details: { errors: [String((err as Error).message ?? err)] } })
      .catch(() => undefined);
    throw err;
  }
}

async function deleteExpired(db: Q, o: Required<RetentionOptions>, days: (n: number) => Date): Promise<Record<string, number>> {
  return {
    check_statuses: await deleteBatched(db,
      'DELETE FROM check_statuses WHERE ctid = ANY (ARRAY(SELECT ctid FROM check_statuses WHERE time < $1 LIMIT $2))',
      [days(o.rawDays)]),
    check_statuses_1h: await deleteBatched(db,
      'DELETE FROM check_statuses_1h WHERE ctid = ANY (ARRAY(SELECT ctid FROM check_statuses_1h WHERE created_at < $1 LIMIT $2))',
      [days(o.hourlyDays)]),
    check_statuses_1d: await deleteBatched(db,
      'DELETE FROM check_statuses_1d WHERE ctid = ANY (ARRAY(SELECT ctid FROM check_statuses_1d WHERE created_at < $1 LIMIT $2))',
      [days(o.dailyDays)]),
    job_history: await deleteBatched(db,
      `DELETE FROM job_history WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM job_history
         WHERE created_at < $1 OR (created_at < $2 AND name = 'Canary' AND status = 'SUCCESS') LIMIT $3))`,
      [days(o.jobDays), days(o.jobSuccessDays)]),
  };
}

/**
 * Recomputes the hourly and daily rollups covering [from, to] from the raw results (whole buckets), replacing what
 * is there. The runner keeps rollups current as it records; this repairs them and fills them for imported history.
 */
export async function rebuildRollups(db: Q, from: Date, to: Date): Promise<void> {
  for (const [table, unit] of [['check_statuses_1h', 'hour'], ['check_statuses_1d', 'day']] as const) {
    await db.query(
      `INSERT INTO ${table} AS t (check_id, created_at, duration, total, passed, failed, latency, last_pass, last_fail)
       SELECT check_id, date_trunc('${unit}', time, 'UTC') AS b, coalesce(sum(duration), 0), count(*),
              count(*) FILTER (WHERE status), count(*) FILTER (WHERE status IS NOT TRUE), latency_agg(duration),
              max(time) FILTER (WHERE status), max(time) FILTER (WHERE status IS NOT TRUE)
       FROM check_statuses
       WHERE time >= date_trunc('${unit}', $1::timestamptz, 'UTC')
         AND time < date_trunc('${unit}', $2::timestamptz, 'UTC') + interval '1 ${unit}'
       GROUP BY check_id, b
       ON CONFLICT (check_id, created_at) DO UPDATE SET duration = EXCLUDED.duration, total = EXCLUDED.total,
         passed = EXCLUDED.passed, failed = EXCLUDED.failed, latency = EXCLUDED.latency,
         last_pass = EXCLUDED.last_pass, last_fail = EXCLUDED.last_fail`,
      [from, to],
    );
  }
}
