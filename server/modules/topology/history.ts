import type pg from 'pg';
import type { HistoryResponse } from '../../contracts/topology-extra.js';
import { parseLongDuration } from '../../lib/cel.js';
import { BadRequestError, NotFoundError } from '../../lib/errors.js';
import { startJob } from '../../lib/job-history.js';
import { componentNow, deleteHistoryBefore, transitionsFrom, type Transition } from './history-queries.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** How long transitions are kept (issue 13: 30 days); `since` may not reach further back. */
export const HISTORY_DAYS = 30;
/** The strip: 28 segments of 6 hours (7 days), aligned to 00, 06, 12 and 18 UTC, the last holding now. */
const BUCKET_MS = 6 * HOUR;
const BUCKETS = 28;
const RETENTION_BATCH = 10_000;

// worst first; unknown outranks healthy (a segment partly unknown is not shown as fine)
const RANK = ['unhealthy', 'warning', 'unknown', 'healthy', 'info'];
const rank = (s: string) => { const i = RANK.indexOf(s); return i < 0 ? RANK.indexOf('unknown') : i; };

// months and years as the reference UI's Time Range offers them (1mo … 5y): 30 and 365 days
const CALENDAR = /^(\d{1,3})(mo|y)$/;

/**
 * A query's time: a duration back from `now` (`15m`, `1h`, `7d`, `2w`, `1mo`, `5y`) or an RFC 3339 timestamp;
 * anything else is a 400 naming the parameter.
 */
export function parseTime(param: string, text: string, now: Date): Date {
  const t = text.trim();
  const cal = CALENDAR.exec(t);
  const ms = cal ? Number(cal[1]) * (cal[2] === 'mo' ? 30 : 365) * DAY
    : /^\d/.test(t) && !/^\d{4}-/.test(t) ? parseLongDuration(t) : null;
  if (ms !== null && ms >= 0) return new Date(now.getTime() - ms);
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(t)) {
    const d = new Date(t);
    if (!Number.isNaN(d.getTime())) return d;
  }
  throw new BadRequestError(`${param}: "${t.slice(0, 64)}" is neither a duration (15m, 1h, 7d) nor an RFC 3339 time`);
}

/** GET /api/topology/{id}/history: transitions since `since` (default 7d, at most 30d) and the 7-day strip. */
export async function componentHistory(db: pg.Pool, id: string, sinceText: string | undefined, now = new Date()): Promise<HistoryResponse> {
  const since = parseTime('since', sinceText ?? '7d', now);
  if (now.getTime() - since.getTime() > HISTORY_DAYS * DAY + HOUR) {
    throw new BadRequestError(`since: at most ${HISTORY_DAYS}d (transitions are kept ${HISTORY_DAYS} days)`);
  }
  const component = await componentNow(db, id);
  if (!component) throw new NotFoundError('component', id);
  const last = Math.floor(now.getTime() / BUCKET_MS) * BUCKET_MS;
  const first = last - (BUCKETS - 1) * BUCKET_MS;
  const from = new Date(Math.min(first, since.getTime()));
  const { before, after } = await transitionsFrom(db, id, from);
  return {
    status: component.status,
    transitions: after.filter((t) => t.at >= since).reverse().map((t) => ({ status: t.status, previous: t.previous, at: t.at.toISOString() })),
    buckets: strip(component.status, component.created_at.getTime(), before, after, first),
  };
}

/** The worst status held in each segment, from the transitions (oldest first) and the status before them. */
function strip(current: string, createdAt: number, before: Transition | null, after: Transition[], first: number): HistoryResponse['buckets'] {
  // the status at a time: the last transition at or before it; before the first, that one's previous (or today's)
  const opening = before?.status ?? after[0]?.previous ?? current;
  const at = (t: number) => {
    let s = opening;
    for (const x of after) { if (x.at.getTime() > t) break; s = x.status; }
    return s;
  };
  const out: HistoryResponse['buckets'] = [];
  for (let i = 0; i < BUCKETS; i++) {
    const start = first + i * BUCKET_MS;
    const end = start + BUCKET_MS;
    if (createdAt >= end) { out.push({ start: new Date(start).toISOString(), status: null }); continue; }
    const from = Math.max(start, createdAt);
    let worst = at(from);
    for (const x of after) {
      const t = x.at.getTime();
      if (t > from && t < end && rank(x.status) < rank(worst)) worst = x.status;
    }
    out.push({ start: new Date(start).toISOString(), status: worst });
  }
  return out;
}

/** Deletes transitions older than 30 days, in batches; one job_history row (ComponentStatusHistoryRetention). */
export async function pruneStatusHistory(db: pg.Pool, now = new Date()): Promise<number> {
  const job = startJob(db, { name: 'ComponentStatusHistoryRetention', resourceType: 'topology', resourceId: 'component_status_history' });
  const cutoff = new Date(now.getTime() - HISTORY_DAYS * DAY);
  try {
    let deleted = 0;
    for (;;) {
      const n = await deleteHistoryBefore(db, cutoff, RETENTION_BATCH);
      deleted += n;
      if (n < RETENTION_BATCH) break;
    }
    await job.finish({ status: 'SUCCESS', successCount: deleted, errorCount: 0, details: { deleted: { component_status_history: deleted } } });
    return deleted;
  } catch (err) {
    await job.finish({ status: 'FAILED', successCount: 0, errorCount: 1, details: { errors: [String((err as Error).message ?? err)] } })
      .catch(() => undefined);
    throw err;
  }
}

interface Leadership { isLeader(): boolean; onChange(fn: (leads: boolean) => void): () => void }

/**
 * Runs the retention hourly (first a minute after start) while this replica leads, as the health scheduler runs the
 * check-status retention. Answers a stop function.
 */
export function scheduleHistoryRetention(db: pg.Pool, leadership: Leadership | null, onError: (err: unknown) => void,
  everyMs = HOUR): () => void {
  let timers: NodeJS.Timeout[] = [];
  const run = () => void pruneStatusHistory(db).catch(onError);
  const follow = (leads: boolean) => {
    timers.forEach(clearTimeout);
    timers = [];
    if (!leads) return;
    const first = setTimeout(run, Math.min(60_000, everyMs));
    const every = setInterval(run, everyMs);
    first.unref();
    every.unref();
    timers = [first, every];
  };
  const off = leadership ? leadership.onChange(follow) : () => {};
  follow(leadership ? leadership.isLeader() : true);
  return () => { off(); follow(false); };
}
