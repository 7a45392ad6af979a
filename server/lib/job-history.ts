import { hostname } from 'node:os';
import type pg from 'pg';
import { z } from 'zod';
import { publishChange } from './events.js';

/** job_history.status as the reference writes it (duty models: RUNNING, SUCCESS, WARNING, FAILED, STALE, SKIPPED). */
export const JobStatus = z.enum(['RUNNING', 'SUCCESS', 'WARNING', 'FAILED', 'STALE', 'SKIPPED']);
export type JobStatus = z.infer<typeof JobStatus>;

/** Kinds of resource a job runs for, as the Job History page filters them (and the jobs of the console itself). */
export const JOB_RESOURCE_TYPES = ['canary', 'topology', 'config_scraper'] as const;

/**
 * A RUNNING row older than this was left by a process that died mid-run (a finished run always completes its row):
 * the sweep marks it STALE, the reference's status for a run that never reported back.
 */
export const STALE_AFTER_MS = 3_600_000;

type Q = Pick<pg.Pool, 'query'>;

/** What a job is and what it runs for. */
export interface JobStart {
  /** The job's name as the page lists it (`Canary`, `CheckStatusRetention`, a scraper's job name). */
  name: string;
  resourceType: string;
  resourceId: string;
  /** The agent that ran it; the local one (the column's default) when absent. */
  agentId?: string;
}

/** How a job ended. */
export interface JobEnd {
  status: Exclude<JobStatus, 'RUNNING'>;
  successCount: number;
  errorCount: number;
  /** `{errors, scrape_summary, summary}` as the reference's details dialog reads them; never secrets. */
  details?: unknown;
}

export interface JobOptions {
  /**
   * Write the RUNNING row only once the job has run this long (0: at once). A job that ends sooner writes one
   * complete row instead of an insert and an update: for a fleet of second-long checks that halves the writes, and
   * a RUNNING row that lives for milliseconds is never seen by anyone.
   */
  showRunningAfterMs?: number;
}

/** A job under way: `finish` completes its row (or writes it whole), `abandon` leaves a started row STALE. */
export interface RunningJob {
  readonly start: Date;
  finish(end: JobEnd): Promise<void>;
  /** The run was cut short (shutdown) and has nothing to report: a RUNNING row already shown becomes STALE. */
  abandon(): Promise<void>;
}

const INSERT = `INSERT INTO job_history (name, resource_type, resource_id, agent_id, hostname, status, time_start,
                  success_count, error_count, details, time_end, duration_millis)
                VALUES ($1, $2, $3, coalesce($4::uuid, '00000000-0000-0000-0000-000000000000'), $5, $6, $7,
                        $8, $9, $10, $11, $12)
                RETURNING id`;

const COMPLETE = `UPDATE job_history SET status = $2, success_count = $3, error_count = $4, details = $5, time_end = $6,
                    duration_millis = $7
                  WHERE id = $1`;

/**
 * Starts a job's row in job_history: RUNNING now (or after `showRunningAfterMs`), completed by `finish` with its
 * status, counts, details, end time and duration. Used by every job the console runs (canary runs, retention; scrapers,
 * topologies and playbooks as they come).
 */
export function startJob(db: Q, job: JobStart, opts: JobOptions = {}): RunningJob {
  const start = new Date();
  const host = hostname();
  const base = [job.name, job.resourceType, job.resourceId, job.agentId ?? null, host];
  let row: Promise<string | null> | null = null;
  const insertRunning = () => {
    row = db.query<{ id: string }>(INSERT, [...base, 'RUNNING', start, null, null, null, null, null])
      .then((r) => changed(db, r.rows[0].id))
      // the run goes on without its RUNNING row; finish() then writes the whole row
      .catch(() => null);
  };
  const delay = opts.showRunningAfterMs ?? 0;
  const timer = delay > 0 ? setTimeout(insertRunning, delay) : null;
  if (delay <= 0) insertRunning();
  timer?.unref();
  let done = false;

  return {
    start,
    async finish(end) {
      if (done) return;
      done = true;
      // read the clock before any await: the next run may start as soon as this one's work is over
      const timeEnd = new Date();
      if (timer) clearTimeout(timer);
      const duration = Math.max(0, timeEnd.getTime() - start.getTime());
      const details = end.details === undefined ? null : JSON.stringify(end.details);
      const values = [end.status, end.successCount, end.errorCount, details, timeEnd, duration];
      const id = row ? await row : null;
      if (id && (await db.query(COMPLETE, [id, ...values])).rowCount) return void (await changed(db, id));
      const { rows } = await db.query<{ id: string }>(INSERT, [...base, end.status, start, end.successCount, end.errorCount, details, timeEnd, duration]);
      await changed(db, rows[0].id);
    },
    async abandon() {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      const id = row ? await row : null;
      if (!id) return;
      await db.query(`UPDATE job_history SET status = 'STALE', time_end = now() WHERE id = $1`, [id]);
      await changed(db, id);
    },
  };
}

/** Tells open Job History pages (live updates of `['db', 'job_history']`); a lost event costs a stale view only. */
async function changed(db: Q, id: string): Promise<string> {
  await publishChange(db, { relation: 'job_history', ids: [id] });
  return id;
}

/** Writes a job that has no duration (a refusal, a configuration error) as one complete row. */
export async function recordJob(db: Q, job: JobStart & JobEnd): Promise<void> {
  const t = new Date();
  const { rows } = await db.query<{ id: string }>(INSERT, [job.name, job.resourceType, job.resourceId, job.agentId ?? null,
    hostname(), job.status, t, job.successCount, job.errorCount, job.details === undefined ? null : JSON.stringify(job.details), t, 0]);
  await changed(db, rows[0].id);
}

/** Marks RUNNING rows older than `olderThanMs` STALE (left by a process that died mid-run); answers how many. */
export async function markStaleJobs(db: Q, olderThanMs = STALE_AFTER_MS): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE job_history SET status = 'STALE'
     WHERE status = 'RUNNING' AND time_start < now() - make_interval(secs => $1::double precision / 1000)`,
    [olderThanMs],
  );
  if (rowCount) await publishChange(db, { relation: 'job_history' });
  return rowCount ?? 0;
}
