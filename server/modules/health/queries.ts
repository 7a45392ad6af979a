import type pg from 'pg';
import type { CheckDef } from './spec.js';

/** Parameterised SQL of the health module. Identifiers are fixed here; every value is a bound parameter. */

type Q = Pick<pg.Pool | pg.PoolClient, 'query'>;

export const LOCAL_AGENT = '00000000-0000-0000-0000-000000000000';

export interface CanaryRow {
  id: string;
  name: string;
  namespace: string;
  labels: Record<string, string> | null;
  spec: Record<string, unknown>;
  source: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

const CANARY_COLS = `id, name, namespace, labels, spec, source, created_at, updated_at, deleted_at`;

export async function insertCanary(
  c: Q, v: { name: string; namespace: string; labels: Record<string, string> | null; spec: unknown; source: string; createdBy: string | null },
): Promise<CanaryRow> {
  const { rows } = await c.query<CanaryRow>(
    `INSERT INTO canaries (name, namespace, labels, spec, source, created_by) VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING ${CANARY_COLS}`,
    [v.name, v.namespace, v.labels, v.spec, v.source, v.createdBy],
  );
  return rows[0];
}

export async function lockCanary(c: Q, id: string): Promise<CanaryRow | undefined> {
  const { rows } = await c.query<CanaryRow>(
    `SELECT ${CANARY_COLS} FROM canaries WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`, [id],
  );
  return rows[0];
}

export async function getCanary(c: Q, id: string): Promise<CanaryRow | undefined> {
  const { rows } = await c.query<CanaryRow>(`SELECT ${CANARY_COLS} FROM canaries WHERE id = $1`, [id]);
  return rows[0];
}

export async function updateCanary(
  c: Q, id: string, v: { name: string; namespace: string; labels: Record<string, string> | null; spec: unknown },
): Promise<CanaryRow> {
  const { rows } = await c.query<CanaryRow>(
    `UPDATE canaries SET name = $2, namespace = $3, labels = $4, spec = $5 WHERE id = $1 RETURNING ${CANARY_COLS}`,
    [id, v.name, v.namespace, v.labels, v.spec],
  );
  return rows[0];
}

/** Soft-deletes a canary and its checks. */
export async function softDeleteCanary(c: Q, id: string): Promise<void> {
  await c.query('UPDATE checks SET deleted_at = now() WHERE canary_id = $1 AND deleted_at IS NULL', [id]);
  await c.query('UPDATE canaries SET deleted_at = now() WHERE id = $1', [id]);
}

/**
 * Makes the canary's checks rows match its spec: upserts one row per check (reviving a soft-deleted one of the same
 * type and name, so its history stays attached) and soft-deletes the rest. Returns the live checks.
 */
export async function reconcileChecks(
  c: Q, canaryId: string, namespace: string, defs: CheckDef[],
): Promise<Array<{ id: string; type: string; name: string }>> {
  const { rows } = await c.query<{ id: string; type: string; name: string }>(
    `INSERT INTO checks (canary_id, type, name, namespace, description, icon, labels, severity, owner, spec)
     SELECT $1, d.type, d.name, coalesce(d.namespace, $2), d.description, d.icon,
            -- as canary-checker: a check carries its canary's labels, its own winning (label selectors match either)
            nullif(coalesce((SELECT labels FROM canaries WHERE id = $1), '{}') || coalesce(d.labels, '{}'), '{}'),
            d.severity, d.owner, d.spec
     FROM jsonb_to_recordset($3::jsonb) AS d(type text, name text, namespace text, description text, icon text,
                                             labels jsonb, severity text, owner text, spec jsonb)
     ON CONFLICT (canary_id, type, name, agent_id) DO UPDATE SET
       namespace = EXCLUDED.namespace, description = EXCLUDED.description, icon = EXCLUDED.icon,
       labels = EXCLUDED.labels, severity = EXCLUDED.severity, owner = EXCLUDED.owner, spec = EXCLUDED.spec,
       deleted_at = NULL, transformed = NULL, transformed_by = NULL, transform_delete_strategy = NULL
     RETURNING id, type, name`,
    [canaryId, namespace, JSON.stringify(defs)],
  );
  // a transformed check (transform.ts) stays while the check whose transform made it does
  await c.query(
    `UPDATE checks SET deleted_at = now() WHERE canary_id = $1 AND deleted_at IS NULL AND NOT (id = ANY($2::uuid[]))
       AND (transformed IS NOT TRUE OR transformed_by IS NULL OR NOT (transformed_by = ANY($2::uuid[])))`,
    [canaryId, rows.map((r) => r.id)],
  );
  return rows.sort((a, b) => a.type.localeCompare(b.type) || a.name.localeCompare(b.name));
}

export async function liveChecksOf(c: Q, canaryId: string): Promise<Array<{ id: string; type: string; name: string }>> {
  const { rows } = await c.query(
    'SELECT id, type, name FROM checks WHERE canary_id = $1 AND deleted_at IS NULL ORDER BY type, name', [canaryId],
  );
  return rows;
}

/** What the scheduler runs: live canaries of this (local) agent with their live checks (not transformed ones). */
export interface SchedulableCanary {
  id: string;
  name: string;
  namespace: string;
  spec: Record<string, unknown>;
  updated_at: string;
  checks: Array<{ id: string; type: string; name: string; spec: Record<string, unknown> }>;
}

export async function loadSchedulable(c: Q): Promise<SchedulableCanary[]> {
  const { rows } = await c.query<SchedulableCanary>(
    `SELECT ca.id, ca.name, ca.namespace, coalesce(ca.spec, '{}') AS spec, ca.updated_at,
            coalesce(json_agg(json_build_object('id', ch.id, 'type', ch.type, 'name', ch.name, 'spec', coalesce(ch.spec, '{}'))
                              ORDER BY ch.type, ch.name) FILTER (WHERE ch.id IS NOT NULL), '[]') AS checks
     FROM canaries ca LEFT JOIN checks ch ON ch.canary_id = ca.id AND ch.deleted_at IS NULL AND ch.transformed IS NOT TRUE
     WHERE ca.deleted_at IS NULL AND ca.agent_id = $1
     GROUP BY ca.id`,
    [LOCAL_AGENT],
  );
  return rows;
}

/** Changes whenever a canary is added, edited, soft-deleted or removed: cheap enough to poll every few seconds. */
export async function canariesSignature(c: Q): Promise<string> {
  const { rows } = await c.query<{ sig: string }>(
    `SELECT count(*)::text || '/' || coalesce(max(updated_at)::text, '') AS sig FROM canaries WHERE agent_id = $1`,
    [LOCAL_AGENT],
  );
  return rows[0].sig;
}

/** A check with its canary, for Run Now. */
export interface CheckForRun {
  id: string;
  type: string;
  name: string;
  spec: Record<string, unknown>;
  canary_id: string;
  canary_name: string;
  canary_namespace: string;
  canary_spec: Record<string, unknown>;
  deleted_at: string | null;
  /** The agent that runs the check (the local one for ours) and its name: an agent's check is never run here. */
  agent_id: string;
  agent_name: string | null;
}

export async function checkForRun(c: Q, id: string): Promise<CheckForRun | undefined> {
  const { rows } = await c.query<CheckForRun>(
    `SELECT ch.id, ch.type, ch.name, ch.spec, ch.canary_id, ca.name AS canary_name, ca.namespace AS canary_namespace,
            ca.spec AS canary_spec, ch.deleted_at, ch.agent_id, (SELECT name FROM agents WHERE id = ch.agent_id) AS agent_name
     FROM checks ch JOIN canaries ca ON ca.id = ch.canary_id
     -- a transformed check has no spec to run: Run Now runs the check whose transform made it (transform.ts)
     WHERE ch.id = (SELECT coalesce(transformed_by, id) FROM checks WHERE id = $1)`,
    [id],
  );
  return rows[0];
}

export interface ResultRow {
  checkId: string;
  canaryId: string;
  time: Date;
  duration: number;
  pass: boolean;
  invalid: boolean;
  message: string | null;
  error: string | null;
  details: unknown;
  severity: string | null;
  nextRuntime: Date | null;
}

/**
 * The CTE that folds one result ($1 check, $2 time, $3 duration, $4 pass) into an hourly or daily rollup row; table
 * and unit are constants of this module, never request input.
 */
function rollupCte(name: string, table: 'check_statuses_1h' | 'check_statuses_1d', unit: 'hour' | 'day'): string {
  return `${name} AS (
       INSERT INTO ${table} AS t (check_id, created_at, duration, total, passed, failed, latency, last_pass, last_fail)
       SELECT $1, date_trunc('${unit}', $2::timestamptz, 'UTC'), $3, 1, $4::int, (NOT $4)::int, latency_add('{}', $3),
              CASE WHEN $4 THEN $2::timestamptz END, CASE WHEN NOT $4 THEN $2::timestamptz END FROM ins
       ON CONFLICT (check_id, created_at) DO UPDATE SET duration = t.duration + EXCLUDED.duration, total = t.total + 1,
         passed = t.passed + EXCLUDED.passed, failed = t.failed + EXCLUDED.failed, latency = latency_add(t.latency, $3),
         last_pass = greatest(t.last_pass, EXCLUDED.last_pass), last_fail = greatest(t.last_fail, EXCLUDED.last_fail)
       RETURNING check_id
     )`;
}
const ROLLUP_HOUR = rollupCte('hour', 'check_statuses_1h', 'hour');
const ROLLUP_DAY = rollupCte('day', 'check_statuses_1d', 'day');

/**
 * Stores one result in one round trip: the raw row, the latest state, the hourly and daily rollups, and the check's
 * status when it changed (a trigger then moves last_transition_time). Returns the status before this result.
 */
export async function recordResult(c: Q, r: ResultRow): Promise<{ inserted: boolean; previous: string | null }> {
  const status = r.pass ? 'healthy' : 'unhealthy';
  const { rows } = await c.query<{ inserted: boolean; previous: string | null }>(
    `WITH prev AS (SELECT status FROM checks WHERE id = $1),
     ins AS (
       INSERT INTO check_statuses (check_id, time, duration, status, invalid, message, error, details, severity)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (check_id, time) DO NOTHING RETURNING check_id
     ),
     chk AS (
       UPDATE checks SET status = $10 WHERE id = $1 AND status IS DISTINCT FROM $10 AND EXISTS (SELECT 1 FROM ins)
       RETURNING id
     ),
     latest AS (
       INSERT INTO checks_unlogged AS u (check_id, canary_id, status, last_runtime, next_runtime, last_duration, last_message, last_error)
       SELECT $1, $11, $10, $2, $12, $3, $6, $7 FROM ins
       ON CONFLICT (check_id) DO UPDATE SET status = EXCLUDED.status, last_runtime = EXCLUDED.last_runtime,
         next_runtime = coalesce(EXCLUDED.next_runtime, u.next_runtime), last_duration = EXCLUDED.last_duration,
         last_message = EXCLUDED.last_message, last_error = EXCLUDED.last_error, updated_at = now()
       WHERE u.last_runtime IS NULL OR u.last_runtime <= EXCLUDED.last_runtime
       RETURNING check_id
     ),
     ${ROLLUP_HOUR},
     ${ROLLUP_DAY}
     -- data-modifying CTEs run to completion whether or not the final SELECT reads them
     SELECT EXISTS (SELECT 1 FROM ins) AS inserted, (SELECT status FROM prev) AS previous`,
    [r.checkId, r.time, r.duration, r.pass, r.invalid, r.message, r.error, r.details === undefined ? null : JSON.stringify(r.details),
      r.severity, status, r.canaryId, r.nextRuntime],
  );
  return rows[0];
}

export async function insertJobHistory(c: Q, v: {
  name: string; resourceType: string; resourceId: string; status: string; successCount: number; errorCount: number;
  details: unknown; hostname: string; start: Date; end: Date;
}): Promise<void> {
  await c.query(
    `INSERT INTO job_history (name, resource_type, resource_id, status, success_count, error_count, details, hostname,
                              duration_millis, time_start, time_end)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [v.name, v.resourceType, v.resourceId, v.status, v.successCount, v.errorCount, JSON.stringify(v.details ?? null),
      v.hostname, Math.max(0, v.end.getTime() - v.start.getTime()), v.start, v.end],
  );
}

/** Sets next_runtime of checks that have a latest-state row (the scheduler's plan, for the drawer's "Next Run"). */
export async function setNextRuntime(c: Q, checkIds: string[], next: Date | null): Promise<void> {
  if (!checkIds.length) return;
  await c.query('UPDATE checks_unlogged SET next_runtime = $2 WHERE check_id = ANY($1::uuid[])', [checkIds, next]);
}

/** A live check with what recording a pushed result needs. */
export interface PushTarget {
  id: string;
  type: string;
  name: string;
  spec: Record<string, unknown> | null;
  labels: Record<string, string> | null;
  severity: string | null;
  canary_id: string;
}

const PUSH_TARGET_COLS = 'ch.id, ch.type, ch.name, ch.spec, ch.labels, ch.severity, ch.canary_id';

/** A live webhook check by id (a UUID) or by name (the oldest of that name), with its canary's namespace. */
export async function findWebhookCheck(
  c: Q, idOrName: string, isId: boolean,
): Promise<(PushTarget & { canary_namespace: string }) | undefined> {
  const { rows } = await c.query<PushTarget & { canary_namespace: string }>(
    `SELECT ${PUSH_TARGET_COLS}, ca.namespace AS canary_namespace FROM checks ch JOIN canaries ca ON ca.id = ch.canary_id
     WHERE ${isId ? 'ch.id = $1::uuid' : 'ch.name = $1'} AND ch.type = 'webhook'
       AND ch.deleted_at IS NULL AND ca.deleted_at IS NULL
     ORDER BY ch.created_at LIMIT 1`,
    [idOrName],
  );
  return rows[0];
}

export async function findLiveCheck(c: Q, id: string): Promise<PushTarget | undefined> {
  const { rows } = await c.query<PushTarget>(
    `SELECT ${PUSH_TARGET_COLS} FROM checks ch JOIN canaries ca ON ca.id = ch.canary_id
     WHERE ch.id = $1 AND ch.deleted_at IS NULL AND ca.deleted_at IS NULL`,
    [id],
  );
  return rows[0];
}

/**
 * The live local canary of that name and namespace (any source), created (source `push`, empty spec: never
 * scheduled) when there is none. Concurrent pushes of a new name meet at the unique index: the loser reads it.
 */
export async function ensurePushCanary(c: Q, name: string, namespace: string, createdBy: string | null): Promise<string> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const { rows } = await c.query<{ id: string }>(
      `WITH found AS (
         SELECT id FROM canaries WHERE agent_id = $4 AND name = $1 AND namespace = $2 AND deleted_at IS NULL
         ORDER BY (source = 'push') DESC NULLS LAST, created_at LIMIT 1
       ), ins AS (
         INSERT INTO canaries (name, namespace, spec, source, is_pushed, created_by)
         SELECT $1, $2, '{}'::jsonb, 'push', true, $3 WHERE NOT EXISTS (SELECT 1 FROM found)
         ON CONFLICT DO NOTHING RETURNING id
       )
       SELECT id FROM found UNION ALL SELECT id FROM ins`,
      [name, namespace, createdBy, LOCAL_AGENT],
    );
    if (rows[0]) return rows[0].id;
  }
  throw new Error(`could not create canary ${namespace}/${name}`);
}

/** Creates (or revives) a pushed check in a canary; its descriptive fields follow the latest push. */
export async function upsertPushedCheck(c: Q, v: {
  canaryId: string; type: string; name: string; namespace: string; description?: string; icon?: string; owner?: string;
  severity?: string; labels?: Record<string, string>;
}): Promise<PushTarget> {
  const { rows } = await c.query<PushTarget>(
    `INSERT INTO checks AS ch (canary_id, type, name, namespace, description, icon, owner, severity, labels, is_pushed, spec)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, true, '{}'::jsonb)
     ON CONFLICT (canary_id, type, name, agent_id) DO UPDATE SET deleted_at = NULL,
       description = coalesce(EXCLUDED.description, ch.description), icon = coalesce(EXCLUDED.icon, ch.icon),
       owner = coalesce(EXCLUDED.owner, ch.owner), severity = coalesce(EXCLUDED.severity, ch.severity),
       labels = coalesce(EXCLUDED.labels, ch.labels)
     RETURNING ${PUSH_TARGET_COLS}`,
    [v.canaryId, v.type, v.name, v.namespace, v.description ?? null, v.icon ?? null, v.owner ?? null, v.severity ?? null,
      v.labels ?? null],
  );
  return rows[0];
}

/** The specs of those of the given checks that are live (check and canary not deleted): for the metrics sweep. */
export async function liveCheckSpecs(c: Q, ids: string[]): Promise<Map<string, Record<string, unknown>>> {
  const { rows } = await c.query<{ id: string; spec: Record<string, unknown> | null }>(
    `SELECT ch.id, ch.spec FROM checks ch JOIN canaries ca ON ca.id = ch.canary_id
     WHERE ch.id = ANY($1::uuid[]) AND ch.deleted_at IS NULL AND ca.deleted_at IS NULL`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.spec ?? {}]));
}
