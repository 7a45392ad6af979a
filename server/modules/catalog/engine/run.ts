import type { KubeConfig } from '@kubernetes/client-node';
import type pg from 'pg';
import { REFERENCE_SCRAPER_KEYS, RetentionSpec } from '../../../contracts/catalog.js';
import { parseLongDuration } from '../../../lib/cel.js';
import { startJob } from '../../../lib/job-history.js';
import type { JobStatus } from '../../../lib/job-history.js';
import { parseGoDuration } from '../../health/schedule.js';
import type { ValueFromResolver } from '../../../lib/value-from.js';
import { SCRAPER_TYPES } from '../scrapers.js';
import { specPathText } from '../spec.js';
import { emptyResult, type ScrapeContext, type ScrapeResult, type ScrapeSummary } from '../types.js';
import { writeRunStatus } from './cr-status.js';
import { applyRetention } from './retention.js';
import { DEFAULT_STALE_ITEM_AGE_MS, saveResult } from './save.js';

/** A scraper as the engine runs it (a config_scrapers row). */
export interface ScraperRow {
  id: string;
  name: string | null;
  namespace: string | null;
  spec: Record<string, unknown>;
}

export interface RunDeps {
  db: pg.Pool;
  kube?: KubeConfig;
  valueFrom?: ValueFromResolver;
  log: ScrapeContext['log'] & { error(obj: object, msg: string): void };
  /** Aborted when the console stops: every run under way ends. */
  signal?: AbortSignal;
}

export interface RunOutcome {
  job_history_id: string | null;
  status: Exclude<JobStatus, 'RUNNING'>;
  errors: string[];
  scrape_summary: ScrapeSummary;
}

/** A run longer than this (or the spec's `timeout`) is aborted: its result is partial and deletes nothing. */
export const DEFAULT_RUN_TIMEOUT_MS = 15 * 60_000;
/** Errors kept in a job's details: enough to see what went wrong, not a copy of a broken source. */
const MAX_ERRORS = 50;

/** Advisory-lock class (the first key of the two-key form) of scraper runs; the second key is hashtext(scraper id). */
export const SCRAPE_LOCK_CLASS = 72_401_183;
/** How often a run waiting for another replica's run of the same scraper tries the lock again. */
export const SCRAPE_LOCK_RETRY_MS = 200;

const message = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 1_000);

function timeoutOf(spec: Record<string, unknown>): number {
  if (typeof spec.timeout !== 'string') return DEFAULT_RUN_TIMEOUT_MS;
  try {
    return parseGoDuration(spec.timeout);
  } catch {
    return DEFAULT_RUN_TIMEOUT_MS;
  }
}

/** Every block of every scraper key, merged into one result: deletion judges the scraper's items as a whole. */
async function extract(deps: RunDeps, scraper: ScraperRow, signal: AbortSignal): Promise<ScrapeResult> {
  const merged = emptyResult();
  merged.deleteMissing = true;
  const analyzed = new Set<string>();
  const ctx: ScrapeContext = {
    db: deps.db, scraperId: scraper.id, namespace: scraper.namespace ?? 'default', signal, kube: deps.kube,
    valueFrom: deps.valueFrom, log: deps.log,
  };
  for (const [key, value] of Object.entries(scraper.spec)) {
    const type = Object.hasOwn(SCRAPER_TYPES, key) ? SCRAPER_TYPES[key] : undefined;
    if (!type) {
      if ((REFERENCE_SCRAPER_KEYS as readonly string[]).includes(key)) {
        // a CR written before validation, or by hand: the scraper runs what it can and says what it cannot
        merged.errors.push(`spec.${key}: the ${key} scraper is not supported; supported: ${Object.keys(SCRAPER_TYPES).join(', ')}`);
      }
      continue;
    }
    const blocks = Array.isArray(value) ? value : [];
    for (const [i, block] of blocks.entries()) {
      if (signal.aborted) break;
      let res: ScrapeResult;
      try {
        res = await type.scrape(ctx, (block ?? {}) as Record<string, unknown>);
      } catch (err) {
        merged.errors.push(`${specPathText([key, i])}: ${message(err)}`);
        merged.complete = false;
        continue;
      }
      merged.items.push(...res.items);
      merged.changes.push(...res.changes);
      merged.analysis.push(...res.analysis);
      merged.relationships.push(...res.relationships);
      merged.errors.push(...res.errors.map((e) => `${specPathText([key, i])}: ${e}`));
      merged.complete &&= res.complete;
      merged.deleteMissing &&= res.deleteMissing === true;
      for (const t of res.analyzedTypes ?? []) analyzed.add(t);
    }
  }
  if (signal.aborted) {
    merged.complete = false;
    merged.errors.push(signal.reason instanceof Error && signal.reason.name === 'TimeoutError'
      ? `the run took longer than its timeout (${Math.round(timeoutOf(scraper.spec) / 1000)}s)` : 'the run was stopped');
  }
  merged.analyzedTypes = [...analyzed];
  return merged;
}

/**
 * Holds the scraper's run lock (a session advisory lock on a client of its own, across replicas on one database)
 * for `fn`: a run already under way elsewhere is waited for, as ScrapeRunner waits for one in this process. Resolves
 * null, without running `fn`, when the signal aborts while waiting.
 */
async function withRunLock<T>(db: pg.Pool, scraperId: string, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T | null> {
  const client = await db.connect();
  let held = false;
  try {
    while (!signal?.aborted) {
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [SCRAPE_LOCK_CLASS, scraperId]);
      if ((held = rows[0].ok)) break;
      await new Promise((r) => setTimeout(r, SCRAPE_LOCK_RETRY_MS));
    }
    if (!held) return null;
    return await fn();
  } finally {
    let broken: Error | undefined;
    if (held) {
      await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [SCRAPE_LOCK_CLASS, scraperId])
        .catch((err: Error) => (broken = err)); // a destroyed connection drops its locks with it
    }
    client.release(broken);
  }
}

/**
 * One run of a scraper: every block of its spec through its extractor (SCRAPER_TYPES), one save, the spec's retention,
 * and one job_history row (`Scraper`, `config_scraper`, the scraper's id): SUCCESS, WARNING when there were errors but
 * items were saved, FAILED when nothing was. Never throws: a failure is the run's status.
 *
 * One run per scraper across replicas: the run holds the scraper's advisory lock, and a Run Now on another replica
 * waits for it and then runs (as one on this replica does), so each caller gets the outcome of a run that began after
 * its request. A scraper from a ScrapeConfig CR then gets the run on the CR's status (cr-status.ts).
 */
export async function runScraper(deps: RunDeps, scraper: ScraperRow): Promise<RunOutcome> {
  const fail = (error: string): RunOutcome => ({ job_history_id: null, status: 'FAILED', errors: [error], scrape_summary: { config_types: {} } });
  try {
    return (await withRunLock(deps.db, scraper.id, deps.signal, () => runLocked(deps, scraper))) ?? fail('the run was stopped');
  } catch (err) {
    // only the lock's own queries get here (runLocked never throws): the database is out of reach
    deps.log.warn({ err, scraper: scraper.id }, 'catalog: scraper run could not start');
    return fail(message(err));
  }
}

async function runLocked(deps: RunDeps, scraper: ScraperRow): Promise<RunOutcome> {
  const job = startJob(deps.db, { name: 'Scraper', resourceType: 'config_scraper', resourceId: scraper.id });
  const signals = [AbortSignal.timeout(timeoutOf(scraper.spec)), ...(deps.signal ? [deps.signal] : [])];
  const signal = AbortSignal.any(signals);
  let errors: string[] = [];
  let summary: ScrapeSummary = { config_types: {} };
  let saved = 0;
  let failed = false;
  try {
    const result = await extract(deps, scraper, signal);
    errors = result.errors;
    const retention = RetentionSpec.safeParse(scraper.spec.retention ?? {});
    const stale = retention.success && retention.data.staleItemAge ? parseLongDuration(retention.data.staleItemAge) : null;
    summary = await saveResult(deps.db, scraper.id, result, { staleItemAgeMs: stale ?? DEFAULT_STALE_ITEM_AGE_MS, startedAt: job.start });
    saved = result.items.length;
    if (retention.success) {
      try {
        await applyRetention(deps.db, scraper.id, retention.data);
      } catch (err) {
        errors.push(`retention: ${message(err)}`);
      }
    }
  } catch (err) {
    failed = true;
    errors.push(message(err));
    deps.log.warn({ err, scraper: scraper.id }, 'catalog: scraper run failed');
  }
  const status = failed || (errors.length && !saved) ? 'FAILED' : errors.length ? 'WARNING' : 'SUCCESS';
  const details = { errors: errors.slice(0, MAX_ERRORS), scrape_summary: summary };
  let id: string | null = null;
  try {
    await job.finish({ status, successCount: saved, errorCount: errors.length, details });
    // the row is this run's: one run at a time per scraper, and its start time is ours
    const { rows } = await deps.db.query<{ id: string }>(
      `SELECT id FROM job_history WHERE resource_type = 'config_scraper' AND resource_id = $1 AND name = 'Scraper'
         AND time_start = $2 ORDER BY created_at DESC LIMIT 1`, [scraper.id, job.start]);
    id = rows[0]?.id ?? null;
  } catch (err) {
    deps.log.warn({ err, scraper: scraper.id }, 'catalog: could not record a scraper run');
  }
  await writeRunStatus(deps, scraper.id, { status, saved, errors, finishedAt: new Date() });
  return { job_history_id: id, status, errors: details.errors, scrape_summary: summary };
}
