import type pg from 'pg';
import { inTransaction } from '../../lib/tx.js';

/** Read-side SQL of the health module: summary, history, graph, check detail. */

type Q = Pick<pg.Pool | pg.PoolClient, 'query'>;

export interface SummaryRow {
  id: string;
  canary_id: string;
  canary_name: string;
  canary_namespace: string;
  agent_id: string;
  name: string;
  type: string;
  namespace: string | null;
  description: string | null;
  icon: string | null;
  labels: Record<string, string>;
  status: 'healthy' | 'unhealthy' | null;
  severity: string | null;
  owner: string | null;
  passed: number;
  failed: number;
  last_pass: string | null;
  last_fail: string | null;
  p95: number | null;
  p97: number | null;
  p99: number | null;
  avg: number | null;
  last_transition_time: string | null;
  last_runtime: string | null;
  next_runtime: string | null;
  created_at: string | null;
  updated_at: string | null;
  deleted_at: string | null;
  silenced_at: string | null;
}

export interface SummaryFilter {
  since: Date;
  /** Read the precomputed stats of this window (check_summary_cache) instead of computing them. */
  cachedWindowMs?: number;
  checkId?: string;
  canaryId?: string;
  labels?: Record<string, string>;
  deleteFrom?: Date;
  /** By name; unsorted when absent (the console sorts and groups on its side). */
  sort?: 'asc' | 'desc';
}

/** The summary's columns, joins and filters; `$1`..`$6` as bound by summaryParams. */
const SUMMARY_FROM = `
       SELECT ch.id, ch.canary_id, ca.name AS canary_name, ca.namespace AS canary_namespace, ch.agent_id, ch.name, ch.type,
              ch.namespace, ch.description, ch.icon, coalesce(ca.labels, '{}'::jsonb) || coalesce(ch.labels, '{}'::jsonb) AS labels,
              ch.status, ch.severity, ch.owner, coalesce(s.passed, 0) AS passed, coalesce(s.failed, 0) AS failed,
              s.last_pass, s.last_fail, s.p95, s.p97, s.p99, s.avg, ch.last_transition_time, u.last_runtime, u.next_runtime,
              ch.created_at, ch.updated_at, ch.deleted_at, ch.silenced_at
       FROM checks ch
       JOIN canaries ca ON ca.id = ch.canary_id
       LEFT JOIN checks_unlogged u ON u.check_id = ch.id
       LEFT JOIN (
         SELECT * FROM check_window_stats($1, $3) WHERE $6::bigint IS NULL
         UNION ALL
         SELECT check_id, passed, failed, last_pass, last_fail, p95, p97, p99, avg FROM check_summary_cache WHERE window_ms = $6
         UNION ALL
         -- checks that first ran after the last refresh of the precomputed stats (a new check): computed now, so a
         -- check never shows its fresh status beside "no runs" for up to a minute; few rows, one lookup each
         SELECT w.* FROM checks_unlogged nu CROSS JOIN LATERAL check_window_stats($1, nu.check_id) w
         WHERE $6::bigint IS NOT NULL AND nu.last_runtime >= $1
           AND NOT EXISTS (SELECT 1 FROM check_summary_cache k WHERE k.window_ms = $6 AND k.check_id = nu.check_id)
       ) s ON s.check_id = ch.id
       WHERE (ch.deleted_at IS NULL OR ch.deleted_at > $2::timestamptz)
         AND ($3::uuid IS NULL OR ch.id = $3) AND ($4::uuid IS NULL OR ch.canary_id = $4)
         AND ($5::jsonb IS NULL OR coalesce(ca.labels, '{}'::jsonb) || coalesce(ch.labels, '{}'::jsonb) @> $5::jsonb)`;

const summaryOrder = (f: SummaryFilter) => (f.sort ? `ORDER BY x.name ${f.sort === 'desc' ? 'DESC' : 'ASC'}, x.id` : '');

const summaryParams = (f: SummaryFilter) => [
  f.since, f.deleteFrom ?? null, f.checkId ?? null, f.canaryId ?? null, f.labels ? JSON.stringify(f.labels) : null,
  f.cachedWindowMs ?? null,
];

/**
 * One row per check with uptime and latency over the window, from the rollups and the latest-state table
 * (check_window_stats), never the raw history. Timestamps come back as ISO text.
 */
export async function summaryRows(c: Q, f: SummaryFilter): Promise<SummaryRow[]> {
  // The rows are built as one JSON text in SQL: for 10,000 checks one JSON.parse is several times cheaper than
  // the driver converting 280,000 fields one by one.
  const { rows } = await c.query<{ rows: string }>(
    `SELECT coalesce(json_agg(x ${summaryOrder(f)}), '[]')::text AS rows FROM (${SUMMARY_FROM}) x`,
    summaryParams(f),
  );
  return JSON.parse(rows[0].rows);
}

/**
 * One `checks_summary` element as JSON text per row of SUMMARY_FROM (`x`), built by PostgreSQL and meant to be sent as
 * is, never parsed in Node. Like the reference (Go's omitempty), optional fields that are null are left out: icon,
 * description, severity, owner, the times, uptime.last_pass/last_fail and latency percentiles; that is also about a
 * fifth of the 10,000-check answer. namespace, status, created_at and updated_at are always present (null when
 * unknown), as the contract says. row_to_json over the row types of 0011_health_summary.sql writes compact JSON.
 */
const SUMMARY_ELEMENT = `
  left(json_strip_nulls(row_to_json((SELECT r FROM (SELECT
      x.id, x.canary_id, x.canary_name, x.canary_namespace, x.agent_id, x.name, x.type, x.description, x.icon, x.labels,
      x.severity, x.owner,
      ROW(x.passed, x.failed, x.last_pass, x.last_fail)::health_summary_uptime AS uptime,
      ROW(x.p95, x.p97, x.p99, x.avg, 0)::health_summary_latency AS latency,
      x.last_transition_time, x.last_runtime, x.next_runtime, x.deleted_at, x.silenced_at) r)))::text, -1)
  || ',"namespace":' || coalesce(to_json(x.namespace)::text, 'null')
  || ',"status":' || coalesce(to_json(x.status)::text, 'null')
  || ',"created_at":' || coalesce(to_json(x.created_at)::text, 'null')
  || ',"updated_at":' || coalesce(to_json(x.updated_at)::text, 'null') || '}'`;

/** The `checks_summary` array as JSON text (elements as SUMMARY_ELEMENT writes them). */
export async function summaryJson(c: Q, f: SummaryFilter): Promise<string> {
  const { rows } = await c.query<{ body: string }>(
    `SELECT '[' || coalesce(string_agg(${SUMMARY_ELEMENT}, ',' ${summaryOrder(f)}), '') || ']' AS body
     FROM (${SUMMARY_FROM}) x`,
    summaryParams(f),
  );
  return rows[0].body;
}

/**
 * The same `checks_summary` elements as summaryJson, as comma-joined runs of `CHUNK` elements (no brackets), in
 * order: for the whole fleet, so neither the driver nor Node ever holds the 6-9 MB answer as one message or string
 * (the driver would grow its receive buffer by doubling to hold it, and each build would leave ~3x the body behind).
 */
export async function summaryJsonChunks(c: Q, f: SummaryFilter): Promise<string[]> {
  const { rows } = await c.query<{ part: string }>(
    `SELECT string_agg(z.j, ',' ORDER BY z.n) AS part
     FROM (
       SELECT ${SUMMARY_ELEMENT} AS j, row_number() OVER (${summaryOrder(f)}) - 1 AS n
       FROM (${SUMMARY_FROM}) x
     ) z
     GROUP BY z.n / ${CHUNK} ORDER BY z.n / ${CHUNK}`,
    summaryParams(f),
  );
  return rows.map((r) => r.part);
}
const CHUNK = 200;

/**
 * Summary windows kept precomputed, and how often: 1h (the default) every minute, 1d and 7d every five. Stats older
 * than three periods are not used (the scheduler is not running here, or is behind).
 */
export const CACHED_WINDOWS: ReadonlyArray<{ windowMs: number; everyMs: number }> = [
  { windowMs: 3_600_000, everyMs: 60_000 },
  { windowMs: 86_400_000, everyMs: 300_000 },
  { windowMs: 7 * 86_400_000, everyMs: 300_000 },
];

/** Recomputes the precomputed stats of one window for every check. */
export async function refreshSummaryCache(db: pg.Pool, windowMs: number): Promise<void> {
  await inTransaction(db, async (c) => {
    await c.query('DELETE FROM check_summary_cache WHERE window_ms = $1', [windowMs]);
    await c.query(
      `INSERT INTO check_summary_cache (window_ms, check_id, passed, failed, last_pass, last_fail, p95, p97, p99, avg)
       SELECT $1, s.* FROM check_window_stats(now() - $1 * interval '1 millisecond') s`,
      [windowMs],
    );
    await c.query(
      `INSERT INTO check_summary_cache_state (window_ms, refreshed_at) VALUES ($1, now())
       ON CONFLICT (window_ms) DO UPDATE SET refreshed_at = now()`,
      [windowMs],
    );
  });
}

/** Whether the precomputed stats of a window are fresh enough to serve. */
export async function cacheIsFresh(c: Q, windowMs: number): Promise<boolean> {
  const w = CACHED_WINDOWS.find((x) => x.windowMs === windowMs);
  if (!w) return false;
  const { rowCount } = await c.query(
    `SELECT 1 FROM check_summary_cache_state WHERE window_ms = $1 AND refreshed_at > now() - $2 * interval '1 millisecond'`,
    [windowMs, w.everyMs * 3],
  );
  return (rowCount ?? 0) > 0;
}

export interface HistoryFilter {
  checkId: string;
  since: Date;
  /** The end of an absolute window; none: up to now. */
  until?: Date;
  status?: boolean;
  minDuration?: number;
  limit: number;
  offset: number;
}

export async function historyRows(c: Q, f: HistoryFilter) {
  const where = `check_id = $1 AND time >= $2 AND ($3::boolean IS NULL OR status = $3) AND ($4::int IS NULL OR duration >= $4)
    AND ($5::timestamptz IS NULL OR time <= $5)`;
  const params = [f.checkId, f.since, f.status ?? null, f.minDuration ?? null, f.until ?? null];
  const [page, count] = await Promise.all([
    c.query<{ time: string; duration: number | null; message: string | null; error: string | null; status: boolean | null; invalid: boolean | null }>(
      `SELECT to_json(time) #>> '{}' AS time, duration, message, error, status, invalid
       FROM check_statuses WHERE ${where} ORDER BY time DESC LIMIT $6 OFFSET $7`,
      [...params, f.limit, f.offset],
    ),
    c.query<{ n: number }>(`SELECT count(*)::int AS n FROM check_statuses WHERE ${where}`, params),
  ]);
  return { data: page.rows, totalEntries: count.rows[0].n };
}

export interface GraphBucket {
  time: string;
  status: boolean;
  duration: number;
  passed: number;
  failed: number;
}

/** Raw results bucketed by `bucketSeconds` (bucket start times), plus exact percentiles over the range. */
export async function graphFromRaw(c: Q, checkId: string, from: Date, to: Date, bucketSeconds: number) {
  const [series, stats] = await Promise.all([
    c.query<GraphBucket>(
      `SELECT to_json(to_timestamp(floor(extract(epoch FROM time) / $4) * $4)) #>> '{}' AS time,
              bool_and(coalesce(status, false)) AS status, round(avg(duration))::int AS duration,
              count(*) FILTER (WHERE status)::int AS passed, count(*) FILTER (WHERE status IS NOT TRUE)::int AS failed
       FROM check_statuses WHERE check_id = $1 AND time >= $2 AND time <= $3
       GROUP BY 1 ORDER BY 1`,
      [checkId, from, to, bucketSeconds],
    ),
    c.query<{ p95: number | null; p97: number | null; p99: number | null; avg: number | null; passed: number; failed: number }>(
      `SELECT percentile_disc(0.95) WITHIN GROUP (ORDER BY duration) AS p95,
              percentile_disc(0.97) WITHIN GROUP (ORDER BY duration) AS p97,
              percentile_disc(0.99) WITHIN GROUP (ORDER BY duration) AS p99,
              round(avg(duration), 1)::float8 AS avg,
              count(*) FILTER (WHERE status)::int AS passed, count(*) FILTER (WHERE status IS NOT TRUE)::int AS failed
       FROM check_statuses WHERE check_id = $1 AND time >= $2 AND time <= $3`,
      [checkId, from, to],
    ),
  ]);
  return { series: series.rows, stats: stats.rows[0] };
}

/** Hourly rollups bucketed by `bucketSeconds`, for ranges longer than the raw history is kept. */
export async function graphFromRollups(c: Q, checkId: string, from: Date, to: Date, bucketSeconds: number) {
  const [series, stats] = await Promise.all([
    c.query<GraphBucket>(
      `SELECT to_json(to_timestamp(floor(extract(epoch FROM created_at) / $4) * $4)) #>> '{}' AS time,
              sum(failed) = 0 AS status, round(sum(duration)::numeric / nullif(sum(total), 0))::int AS duration,
              sum(passed)::int AS passed, sum(failed)::int AS failed
       FROM check_statuses_1h WHERE check_id = $1 AND created_at >= date_trunc('hour', $2::timestamptz, 'UTC') AND created_at <= $3
       GROUP BY 1 ORDER BY 1`,
      [checkId, from, to, bucketSeconds],
    ),
    c.query<{ p95: number | null; p97: number | null; p99: number | null; avg: number | null; passed: number; failed: number }>(
      `SELECT latency_percentile(latency_merge(latency), 0.95) AS p95, latency_percentile(latency_merge(latency), 0.97) AS p97,
              latency_percentile(latency_merge(latency), 0.99) AS p99,
              round((sum(duration)::numeric / nullif(sum(total), 0)), 1)::float8 AS avg,
              coalesce(sum(passed), 0)::int AS passed, coalesce(sum(failed), 0)::int AS failed
       FROM check_statuses_1h WHERE check_id = $1 AND created_at >= date_trunc('hour', $2::timestamptz, 'UTC') AND created_at <= $3`,
      [checkId, from, to],
    ),
  ]);
  return { series: series.rows, stats: stats.rows[0] };
}

export async function checkExtras(c: Q, id: string) {
  const { rows } = await c.query<{
    spec: unknown; canary: { id: string; name: string; namespace: string; spec: unknown; source: string | null };
    last_duration: number | null; last_message: string | null; last_error: string | null; has_latest: boolean;
  }>(
    `SELECT ch.spec, json_build_object('id', ca.id, 'name', ca.name, 'namespace', ca.namespace, 'spec', ca.spec, 'source', ca.source) AS canary,
            u.last_duration, u.last_message, u.last_error, u.check_id IS NOT NULL AS has_latest
     FROM checks ch JOIN canaries ca ON ca.id = ch.canary_id LEFT JOIN checks_unlogged u ON u.check_id = ch.id
     WHERE ch.id = $1`,
    [id],
  );
  return rows[0];
}
