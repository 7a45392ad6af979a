import type pg from 'pg';
import type { PushTable } from './tables.js';

/**
 * Parameterised SQL of the upstream module. Table and column names come from the PUSH_TABLES registry (constants),
 * never from a request; every value is a bound parameter.
 */

type Q = Pick<pg.Pool | pg.PoolClient, 'query'>;

export const LOCAL_AGENT = '00000000-0000-0000-0000-000000000000';

const recordDef = (t: PushTable) => Object.entries(t.columns).map(([c, type]) => `${c} ${type}`).join(', ');

/**
 * Of the given keys (single-column upsert keys), those stored under another agent, with that agent's name: a push
 * may not take them over.
 */
export async function foreignRows(
  c: Q, t: PushTable, ids: string[], agentId: string,
): Promise<Array<{ id: string; agent: string | null }>> {
  if (!ids.length) return [];
  const key = t.conflict[0];
  const { rows } = await c.query(
    `SELECT x.${key}::text AS id, a.name AS agent FROM ${t.table} x LEFT JOIN agents a ON a.id = x.agent_id
     WHERE x.${key} = ANY($1::uuid[]) AND x.agent_id <> $2`,
    [ids, agentId],
  );
  return rows;
}

/** Which of the ids exist in the parent table, and whose they are. */
export async function parentOwners(c: Q, parent: PushTable, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const { rows } = await c.query<{ id: string; agent_id: string }>(
    `SELECT ${parent.conflict[0]}::text AS id, agent_id::text FROM ${parent.table} WHERE ${parent.conflict[0]} = ANY($1::uuid[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.agent_id]));
}

/**
 * Upserts rows by the table's key in one statement: `agent_id` forced for owned tables (and a stored row of another
 * agent left alone: the caller refuses those first), the agent's properties under the row's labels, and a row equal
 * to the stored one not rewritten, so a replayed batch changes nothing (not even updated_at). Returns rows written.
 */
export async function upsertRows(c: Q, t: PushTable, rows: unknown[], agentId: string, properties: Record<string, string> | null): Promise<number> {
  const cols = Object.keys(t.columns);
  const params: unknown[] = [JSON.stringify(rows)];
  const expr = (col: string) => {
    if (col === 'labels' && t.labels) {
      params.push(properties ? JSON.stringify(properties) : null);
      return `nullif(coalesce($${params.length}::jsonb, '{}') || coalesce(r.labels, '{}'), '{}')`;
    }
    const fb = t.fallback?.[col];
    return fb ? `coalesce(r.${col}, ${fb})` : `r.${col}`;
  };
  const values = cols.map(expr);
  const insertCols = [...cols];
  if (t.owned) {
    params.push(agentId);
    insertCols.push('agent_id');
    values.push(`$${params.length}::uuid`);
  }
  // created_at and updated_at are the upstream's own once stored (its trigger stamps updated_at)
  const updatable = cols.filter((col) => !t.conflict.includes(col) && col !== 'created_at' && col !== 'updated_at');
  const where = [
    t.owned ? `t.agent_id = $${params.length}::uuid` : null,
    t.replaceWhen ? `(${t.replaceWhen})` : null,
    `(${updatable.map((col) => `t.${col}`).join(', ')}) IS DISTINCT FROM (${updatable.map((col) => `EXCLUDED.${col}`).join(', ')})`,
  ].filter(Boolean).join(' AND ');
  const res = await c.query(
    `INSERT INTO ${t.table} AS t (${insertCols.join(', ')})
     SELECT ${values.join(', ')} FROM jsonb_to_recordset($1::jsonb) AS r(${recordDef(t)})
     ON CONFLICT (${t.conflict.join(', ')}) DO UPDATE SET ${updatable.map((col) => `${col} = EXCLUDED.${col}`).join(', ')}
     WHERE ${where}`,
    params,
  );
  return res.rowCount ?? 0;
}

/**
 * The CTEs folding the inserted results of a batch into the hourly and daily rollups, a row per (check, bucket). The
 * results are aggregated once, per (check, hour, latency bucket); the hourly rows and the daily ones are built from
 * that (a day's histogram re-grouped by bucket first), so the batch is scanned once, not once per rollup and part.
 * The latency histogram is the `{"<bucket>": [count, sum_ms]}` latency_add builds one result at a time.
 */
function rollups(): string {
  const upsert = (table: 'check_statuses_1h' | 'check_statuses_1d', from: string) => `
    INSERT INTO ${table} AS t (check_id, created_at, duration, total, passed, failed, latency, last_pass, last_fail)
    SELECT check_id, b, sum(d)::bigint, sum(n)::bigint, sum(p)::bigint, sum(f)::bigint, jsonb_object_agg(lb::text, jsonb_build_array(n, s)),
           max(last_pass), max(last_fail)
    FROM ${from} GROUP BY check_id, b
    ON CONFLICT (check_id, created_at) DO UPDATE SET duration = t.duration + EXCLUDED.duration, total = t.total + EXCLUDED.total,
      passed = t.passed + EXCLUDED.passed, failed = t.failed + EXCLUDED.failed, latency = latency_merge_step(t.latency, EXCLUDED.latency),
      last_pass = greatest(t.last_pass, EXCLUDED.last_pass), last_fail = greatest(t.last_fail, EXCLUDED.last_fail)
    RETURNING check_id`;
  return `agg AS (
    SELECT check_id, date_trunc('hour', time, 'UTC') AS b, latency_bucket(duration) AS lb, count(*) AS n,
           coalesce(sum(duration), 0)::double precision AS s, coalesce(sum(duration), 0) AS d,
           count(*) FILTER (WHERE status) AS p, count(*) FILTER (WHERE NOT status) AS f,
           max(time) FILTER (WHERE status) AS last_pass, max(time) FILTER (WHERE NOT status) AS last_fail
    FROM ins GROUP BY 1, 2, 3
  ),
  dagg AS (
    SELECT check_id, date_trunc('day', b, 'UTC') AS b, lb, sum(n)::bigint AS n, sum(s) AS s, sum(d) AS d, sum(p) AS p, sum(f) AS f,
           max(last_pass) AS last_pass, max(last_fail) AS last_fail
    FROM agg GROUP BY 1, 2, 3
  ),
  hour AS (${upsert('check_statuses_1h', 'agg')}),
  day AS (${upsert('check_statuses_1d', 'dagg')})`;
}

/**
 * Stores pushed results as the health module stores a run's (queries.ts recordResult), set-based for a whole batch:
 * the raw rows (a result already stored is ignored, so a replay adds nothing), the hourly and daily rollups of the
 * new ones, the latest state when newer than the stored one, and the check's status when it changed (a trigger
 * then moves last_transition_time). Returns the ids of checks that got new results.
 */
export async function ingestStatuses(c: Q, t: PushTable, rows: unknown[]): Promise<string[]> {
  const { rows: out } = await c.query<{ check_id: string }>(
    `WITH ins AS (
       INSERT INTO check_statuses (check_id, time, duration, status, invalid, message, error, details, severity, created_at, is_pushed)
       SELECT r.check_id, r.time, r.duration, coalesce(r.status, false), r.invalid, r.message, r.error, r.details, r.severity,
              coalesce(r.created_at, now()), true
       FROM jsonb_to_recordset($1::jsonb) AS r(${recordDef(t)})
       ON CONFLICT (check_id, time) DO NOTHING
       RETURNING check_id, time, duration, status, message, error
     ),
     ${rollups()},
     latest AS (SELECT DISTINCT ON (check_id) * FROM ins ORDER BY check_id, time DESC),
     unl AS (
       INSERT INTO checks_unlogged AS u (check_id, canary_id, status, last_runtime, last_duration, last_message, last_error)
       SELECT l.check_id, ch.canary_id, CASE WHEN l.status THEN 'healthy' ELSE 'unhealthy' END, l.time, l.duration, l.message, l.error
       FROM latest l JOIN checks ch ON ch.id = l.check_id
       ON CONFLICT (check_id) DO UPDATE SET status = EXCLUDED.status, last_runtime = EXCLUDED.last_runtime,
         last_duration = EXCLUDED.last_duration, last_message = EXCLUDED.last_message, last_error = EXCLUDED.last_error,
         updated_at = now()
       WHERE u.last_runtime IS NULL OR u.last_runtime <= EXCLUDED.last_runtime
       RETURNING check_id, status
     ),
     chk AS (
       UPDATE checks ch SET status = unl.status FROM unl WHERE ch.id = unl.check_id AND ch.status IS DISTINCT FROM unl.status
       RETURNING ch.id
     )
     SELECT DISTINCT check_id::text FROM ins`,
    [JSON.stringify(rows)],
  );
  return out.map((r) => r.check_id);
}

/** Hard-deletes the agent's rows of an owned table by id. */
export async function deleteOwned(c: Q, t: PushTable, ids: string[], agentId: string): Promise<number> {
  if (!ids.length) return 0;
  const res = await c.query(
    `DELETE FROM ${t.table} WHERE ${t.conflict[0]} = ANY($1::uuid[]) AND agent_id = $2`, [ids, agentId],
  );
  return res.rowCount ?? 0;
}

/**
 * Hard-deletes rows of a table without agent_id (latest state, results, item changes and insights, relationships) by
 * key, when every row they point at (check, config item, both ends of a relationship; a null optional one aside) is
 * the agent's. A nullable part of a key (a relationship's scraper_id or selector_id) matches null-safe.
 */
export async function deleteByParent(
  c: Q, t: PushTable, parents: Array<{ column: string; table: string }>, keys: Array<Record<string, unknown>>, agentId: string,
  nullable: (col: string) => boolean = () => false,
): Promise<number> {
  if (!keys.length) return 0;
  const def = t.conflict.map((col) => `${col} ${t.columns[col]}`).join(', ');
  const match = t.conflict.map((col) => (nullable(col) ? `x.${col} IS NOT DISTINCT FROM k.${col}` : `x.${col} = k.${col}`)).join(' AND ');
  const owned = parents.map((p, i) => {
    const mine = `EXISTS (SELECT 1 FROM ${p.table} p${i} WHERE p${i}.id = x.${p.column} AND p${i}.agent_id = $2)`;
    return i === 0 ? mine : `(x.${p.column} IS NULL OR ${mine})`;
  }).join(' AND ');
  const res = await c.query(
    `DELETE FROM ${t.table} x USING jsonb_to_recordset($1::jsonb) AS k(${def})
     WHERE ${match} AND ${owned}`,
    [JSON.stringify(keys), agentId],
  );
  return res.rowCount ?? 0;
}

/**
 * The pushing agent's properties and name, with last_received = now() in the same statement (one round trip: the
 * push's transaction undoes it when the batch is refused); undefined for a deleted agent.
 */
export async function receiveFrom(c: Q, agentId: string): Promise<{ name: string; properties: Record<string, string> | null } | undefined> {
  const { rows } = await c.query(
    'UPDATE agents SET last_received = now() WHERE id = $1 AND deleted_at IS NULL RETURNING name, properties', [agentId]);
  return rows[0];
}

/** A ping: last_seen, the version when told, and a telemetry row (metrics null without telemetry). */
export async function recordPing(c: Q, agentId: string, v: {
  lagMs?: number; bufferRows?: number; droppedRows?: number; version?: string; topology?: string;
}): Promise<void> {
  await c.query(
    `WITH a AS (UPDATE agents SET last_seen = now(), version = coalesce($6, version) WHERE id = $1)
     INSERT INTO agent_telemetry (agent_id, time, push_lag_ms, buffer_rows, dropped_rows, version, topology)
     VALUES ($1, clock_timestamp(), $2, $3, $4, $6, $5) ON CONFLICT DO NOTHING`,
    [agentId, v.lagMs ?? null, v.bufferRows ?? null, v.droppedRows ?? null, v.topology ?? null, v.version ?? null],
  );
}

/** Drops telemetry older than the kept window (the timeline shows 24 h). */
export async function trimTelemetry(c: Q, keepHours: number): Promise<void> {
  await c.query(`DELETE FROM agent_telemetry WHERE time < now() - make_interval(hours => $1)`, [keepHours]);
}

/**
 * The agent's canaries changed in (since, before], deleted ones included. `before` is a moment far enough back
 * (settleMs) that a transaction still open at the read cannot later commit a change stamped before it.
 */
export async function pullCanaries(c: Q, agentId: string, since: string | null, settleMs: number) {
  const { rows } = await c.query(
    `WITH b AS (SELECT now() - make_interval(secs => $3::double precision / 1000) AS before)
     SELECT (SELECT before FROM b) AS before, coalesce(json_agg(json_build_object(
              'id', x.id, 'name', x.name, 'namespace', x.namespace, 'labels', x.labels, 'annotations', x.annotations,
              'spec', x.spec, 'source', x.source, 'created_at', x.created_at, 'updated_at', x.updated_at,
              'deleted_at', x.deleted_at) ORDER BY x.updated_at, x.id) FILTER (WHERE x.id IS NOT NULL), '[]') AS canaries
     FROM b LEFT JOIN canaries x ON x.agent_id = $1 AND x.updated_at <= b.before
       AND ($2::timestamptz IS NULL OR x.updated_at > $2::timestamptz)`,
    [agentId, since, settleMs],
  );
  return rows[0] as { before: Date; canaries: unknown[] };
}
