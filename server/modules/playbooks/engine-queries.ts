import type pg from 'pg';
import { EVENTS_CHANNEL } from '../../lib/events.js';
import type { FinalLogBatch } from './log-writer.js';

/** The playbook engine's SQL (issue 14 "Engine"): claims, leases, action rows, approvals. Parameterised only. */

type Queryable = Pick<pg.Pool | pg.PoolClient | pg.Client, 'query'>;

/** The channel the engines LISTEN on: `wake` (a run became due) and `cancel:{run_id}`. */
export const ENGINE_CHANNEL = 'playbook_engine';

/** Run statuses after which nothing more happens. */
export const FINAL_RUN_STATUSES = ['completed', 'failed', 'cancelled', 'timed_out'] as const;
/** Action statuses after which the action is done. */
export const FINAL_ACTION_STATUSES = ['completed', 'failed', 'skipped'] as const;

export interface RunRow {
  id: string;
  playbook_id: string;
  spec: Record<string, unknown> | null;
  status: string;
  created_at: Date;
  start_time: Date | null;
  scheduled_time: Date;
  end_time: Date | null;
  timeout: string | null;
  created_by: string | null;
  check_id: string | null;
  config_id: string | null;
  component_id: string | null;
  parameters: Record<string, unknown> | null;
  request: Record<string, unknown> | null;
  agent_id: string | null;
  parent_id: string | null;
  notification_send_id: string | null;
  error: string | null;
  lease_owner: string | null;
  lease_expires_at: Date | null;
}

export interface ActionRow {
  id: string;
  name: string;
  status: string;
  retry_count: number | null;
  playbook_run_id: string;
  start_time: Date | null;
  scheduled_time: Date;
  end_time: Date | null;
  result: Record<string, unknown> | null;
  error: string | null;
  agent_id: string | null;
  lease_owner: string | null;
  lease_expires_at: Date | null;
}

export async function wakeEngines(db: Queryable, payload = 'wake'): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [ENGINE_CHANNEL, payload]);
}

// The engine's hot statements are named (prepared once per connection: no parse and plan per run, a fifth of
// PostgreSQL's time here before) and list their columns rather than `*`: a prepared statement whose result columns
// change under it (a migration while an older replica runs) fails with "cached plan must not change result type".
const RUN_COLUMNS = `r.id, r.playbook_id, r.spec, r.status, r.created_at, r.start_time, r.scheduled_time, r.end_time,
  r.timeout::text AS timeout, r.created_by, r.check_id, r.config_id, r.component_id, r.parameters, r.request, r.agent_id,
  r.parent_id, r.notification_send_id, r.error, r.lease_owner, r.lease_expires_at`;
const ACTION_COLUMNS = `id, name, status, retry_count, playbook_run_id, start_time, scheduled_time, end_time, result, is_pushed,
  agent_id, error, lease_owner, lease_expires_at`;

/** Set on a claimed run that has no action rows yet (the engine need not read them). */
export const NO_ACTIONS = Symbol('no action rows');
/** The versions (xmin) of the run's playbook and person at the claim, to reuse rows this replica already read. */
export const ROW_VERSIONS = Symbol('row versions');
export type ClaimedRun = RunRow & { [NO_ACTIONS]?: boolean; [ROW_VERSIONS]?: RowVersions };
export interface RowVersions {
  playbooks: string | null;
  people: string | null;
}

/**
 * Claims up to `limit` due runs for `owner`: scheduled/sleeping/retrying ones whose time has come, waiting ones
 * (an action waiting for another agent) whose action or run timeout has come, and running ones whose lease has
 * expired (their replica stopped). The claim is the lease; the run is `running` while held.
 */
export async function claimDueRuns(db: Queryable, owner: string, limit: number, leaseMs: number): Promise<ClaimedRun[]> {
  const { rows } = await db.query<RunRow & { _fresh: boolean; _playbook_v: string | null; _person_v: string | null }>({
    name: 'playbooks-claim',
    text: `UPDATE playbook_runs r
        SET status = 'running', lease_owner = $1, lease_expires_at = now() + $3 * interval '1 millisecond',
            start_time = coalesce(r.start_time, now())
      WHERE r.id IN (
        SELECT id FROM playbook_runs
         WHERE status IN ('scheduled', 'running', 'sleeping', 'retrying', 'waiting')
           AND scheduled_time <= now()
           AND (status <> 'running' OR lease_expires_at IS NULL OR lease_expires_at < now())
         ORDER BY scheduled_time
         LIMIT $2
         FOR UPDATE SKIP LOCKED)
      RETURNING ${RUN_COLUMNS},
                NOT EXISTS (SELECT 1 FROM playbook_run_actions a WHERE a.playbook_run_id = r.id) AS _fresh,
                (SELECT p.xmin::text FROM playbooks p WHERE p.id = r.playbook_id) AS _playbook_v,
                (SELECT x.xmin::text FROM people x WHERE x.id = r.created_by) AS _person_v`,
    values: [owner, limit, leaseMs],
  });
  return rows.map(({ _fresh, _playbook_v, _person_v, ...run }) =>
    Object.assign(run, { [NO_ACTIONS]: _fresh, [ROW_VERSIONS]: { playbooks: _playbook_v, people: _person_v } }));
}

/** Renews the leases this replica holds on its runs and running actions; the ids of the runs it still holds. */
export async function renewLeases(db: Queryable, owner: string, runIds: string[], leaseMs: number): Promise<Set<string>> {
  if (!runIds.length) return new Set();
  const { rows } = await db.query<{ id: string }>({
    name: 'playbooks-renew-leases',
    text: `WITH r AS (UPDATE playbook_runs SET lease_expires_at = now() + $3 * interval '1 millisecond'
                 WHERE id = ANY($2::uuid[]) AND lease_owner = $1 AND status = 'running' RETURNING id),
          a AS (UPDATE playbook_run_actions SET lease_expires_at = now() + $3 * interval '1 millisecond'
                 WHERE playbook_run_id IN (SELECT id FROM r) AND lease_owner = $1 AND status = 'running')
     SELECT id FROM r`,
    values: [owner, runIds, leaseMs],
  });
  return new Set(rows.map((r) => r.id));
}

export async function getRun(db: Queryable, id: string): Promise<RunRow | null> {
  const { rows } = await db.query<RunRow>('SELECT *, timeout::text AS timeout FROM playbook_runs WHERE id = $1', [id]);
  return rows[0] ?? null;
}

export async function getRunForUpdate(db: Queryable, id: string): Promise<RunRow | null> {
  const { rows } = await db.query<RunRow>('SELECT *, timeout::text AS timeout FROM playbook_runs WHERE id = $1 FOR UPDATE', [id]);
  return rows[0] ?? null;
}

export async function listActions(db: Queryable, runId: string): Promise<ActionRow[]> {
  const { rows } = await db.query<ActionRow>(
    `SELECT * FROM playbook_run_actions WHERE playbook_run_id = $1
      ORDER BY coalesce(start_time, scheduled_time), coalesce(retry_count, 0), id`,
    [runId],
  );
  return rows;
}

/**
 * Updates a run this replica holds; false when it no longer does (cancelled meanwhile, or lease lost). `notify`: a
 * change of the run announced by the same statement (EVENTS_CHANNEL payload), sent whether or not it was still held.
 */
export async function updateHeldRun(
  db: Queryable, runId: string, owner: string,
  set: { status: string; scheduled_time?: Date | null; error?: string | null; end?: boolean; release?: boolean; notify?: string | null },
): Promise<boolean> {
  const { rows } = await db.query<{ n: number }>({
    name: 'playbooks-update-held-run',
    text: `WITH upd AS (
       UPDATE playbook_runs SET status = $3,
              scheduled_time = coalesce($4, scheduled_time),
              error = CASE WHEN $5::boolean THEN $6 ELSE error END,
              end_time = CASE WHEN $7::boolean THEN now() ELSE end_time END,
              lease_owner = CASE WHEN $8::boolean THEN NULL ELSE lease_owner END,
              lease_expires_at = CASE WHEN $8::boolean THEN NULL ELSE lease_expires_at END
        WHERE id = $1 AND lease_owner = $2 AND status = 'running' RETURNING 1)
     SELECT (SELECT count(*) FROM upd)::int AS n, CASE WHEN $9::text IS NOT NULL THEN pg_notify($10, $9) END`,
    values: [runId, owner, set.status, set.scheduled_time ?? null, set.error !== undefined, set.error ?? null, !!set.end,
      !!set.release, set.notify ?? null, EVENTS_CHANNEL],
  });
  return rows[0].n > 0;
}

/** An action row inserted; `notify`: a change of the run announced by the same statement (EVENTS_CHANNEL payload). */
export async function insertAction(
  db: Queryable,
  a: { runId: string; name: string; status: string; retryCount?: number; scheduledTime?: Date; owner?: string | null;
    leaseMs?: number; error?: string | null; agentId?: string | null; end?: boolean; notify?: string | null },
): Promise<ActionRow> {
  const running = a.status === 'running';
  const { rows } = await db.query<ActionRow & { _notified?: unknown }>({
    name: 'playbooks-insert-action',
    text: `WITH ins AS (
       INSERT INTO playbook_run_actions (playbook_run_id, name, status, retry_count, scheduled_time, start_time, end_time,
                                         lease_owner, lease_expires_at, error, agent_id)
       VALUES ($1, $2, $3, $4, coalesce($5, now()), CASE WHEN $6::boolean THEN now() END, CASE WHEN $7::boolean THEN now() END,
               $8, CASE WHEN $6::boolean THEN now() + $9 * interval '1 millisecond' END, $10,
               coalesce($11, '00000000-0000-0000-0000-000000000000'::uuid))
       RETURNING ${ACTION_COLUMNS})
     SELECT ins.*, CASE WHEN $12::text IS NOT NULL THEN pg_notify($13, $12) END AS _notified FROM ins`,
    values: [a.runId, a.name, a.status, a.retryCount ?? 0, a.scheduledTime ?? null, running, !!a.end,
      running ? a.owner ?? null : null, a.leaseMs ?? 30_000, a.error ?? null, a.agentId ?? null, a.notify ?? null, EVENTS_CHANNEL],
  });
  const { _notified: _n, ...row } = rows[0];
  return row;
}

/** Fails a run's actions still waiting for another agent (the run or the action timed out waiting). */
export async function failWaitingActions(db: Queryable, runId: string, error: string, actionId?: string): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE playbook_run_actions SET status = 'failed', error = $2, end_time = now()
      WHERE playbook_run_id = $1 AND status = 'waiting' AND ($3::uuid IS NULL OR id = $3)`,
    [runId, error, actionId ?? null],
  );
  return rowCount ?? 0;
}

/** Starts a scheduled or sleeping action row this replica's run holds. */
export async function startAction(db: Queryable, actionId: string, owner: string, leaseMs: number): Promise<boolean> {
  const { rowCount } = await db.query({
    name: 'playbooks-start-action',
    text: `UPDATE playbook_run_actions SET status = 'running', start_time = now(), lease_owner = $2,
            lease_expires_at = now() + $3 * interval '1 millisecond'
      WHERE id = $1 AND status IN ('scheduled', 'sleeping')`,
    values: [actionId, owner, leaseMs],
  });
  return (rowCount ?? 0) > 0;
}

/**
 * Ends a running action held by `owner` (false when it was ended meanwhile: cancelled). `logs`: the action's last
 * lines, stored and announced by the same statement (whether or not the action was still held, as a separate flush
 * would); `notify`: a change of the run announced with it (EVENTS_CHANNEL payload).
 */
export async function finishAction(
  db: Queryable, actionId: string, owner: string,
  status: 'completed' | 'failed', result: Record<string, unknown> | null, error: string | null,
  extra: { logs?: FinalLogBatch | null; notify?: string | null } = {},
): Promise<boolean> {
  const { logs, notify } = extra;
  if (!logs && !notify) {
    const { rowCount } = await db.query({
      name: 'playbooks-finish-action',
      text: `UPDATE playbook_run_actions SET status = $3, result = $4, error = $5, end_time = now(),
              lease_owner = NULL, lease_expires_at = NULL
        WHERE id = $1 AND lease_owner = $2 AND status = 'running'`,
      values: [actionId, owner, status, result, error],
    });
    return (rowCount ?? 0) > 0;
  }
  const { rows } = await db.query<{ n: number }>({
    name: 'playbooks-finish-action-logs',
    text: `WITH ins AS (
       INSERT INTO playbook_run_action_logs (action_id, seq, run_id, stream, text)
       SELECT $1, $6 + ord - 1, $7, s, t FROM unnest($8::text[], $9::text[]) WITH ORDINALITY AS u(s, t, ord)),
     upd AS (
       UPDATE playbook_run_actions SET status = $3, result = $4, error = $5, end_time = now(),
              lease_owner = NULL, lease_expires_at = NULL
        WHERE id = $1 AND lease_owner = $2 AND status = 'running' RETURNING 1)
     SELECT (SELECT count(*) FROM upd)::int AS n,
            CASE WHEN $10::text IS NOT NULL THEN pg_notify($12, $10) END,
            CASE WHEN $11::text IS NOT NULL THEN pg_notify($12, $11) END`,
    values: [actionId, owner, status, result, error, logs?.first ?? 0, logs?.runId ?? null, logs?.streams ?? [],
      logs?.texts ?? [], logs?.notify ?? null, notify ?? null, EVENTS_CHANNEL],
  });
  return rows[0].n > 0;
}

/** Fails a running action whose replica is gone (lease expired, or this replica stopping). */
export async function failInterrupted(db: Queryable, actionId: string, message: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE playbook_run_actions SET status = 'failed', error = $2, end_time = now(), lease_owner = NULL,
            lease_expires_at = NULL
      WHERE id = $1 AND status = 'running'`,
    [actionId, message],
  );
  return (rowCount ?? 0) > 0;
}

export async function insertAgentData(
  db: Queryable, d: { actionId: string; playbookId: string; runId: string; spec: unknown; env: unknown },
): Promise<void> {
  await db.query(
    `INSERT INTO playbook_action_agent_data (action_id, playbook_id, run_id, spec, env) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (action_id) DO NOTHING`,
    [d.actionId, d.playbookId, d.runId, JSON.stringify(d.spec), JSON.stringify(d.env)],
  );
}

export async function agentIdByName(db: Queryable, name: string): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM agents WHERE name = $1 AND deleted_at IS NULL ORDER BY created_at LIMIT 1', [name]);
  return rows[0]?.id ?? null;
}

/** The rows templates see of the run's resource and its people; null where absent. */
type RowTable = 'checks' | 'canaries' | 'config_items' | 'components' | 'people' | 'playbooks';

export async function loadRow(db: Queryable, table: RowTable, id: string | null): Promise<Record<string, unknown> | null> {
  if (!id) return null;
  const { rows } = await db.query(`SELECT * FROM ${table} WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

const ROW_CACHE_MAX = 1_000;

/**
 * Rows a replica's runs read again and again (their playbook, the person who asked), by id and row version (xmin,
 * new with every committed update): a claim reads the versions, and a row is read from the table only when the
 * version differs from the one kept. Two statements fewer for most runs.
 */
export class RowCache {
  private readonly rows = new Map<string, { version: string; row: Record<string, unknown> }>();

  async load(db: Queryable, table: 'people' | 'playbooks', id: string | null, version: string | null | undefined): Promise<Record<string, unknown> | null> {
    if (!id) return null;
    const key = `${table}:${id}`;
    const kept = version ? this.rows.get(key) : undefined;
    // a shallow copy: a run's templates may not change what the next run sees
    if (kept && kept.version === version) return { ...kept.row };
    const { rows } = await db.query(`SELECT *, xmin::text AS "__version" FROM ${table} WHERE id = $1`, [id]);
    const found = rows[0] as Record<string, unknown> | undefined;
    if (!found) {
      this.rows.delete(key);
      return null;
    }
    const { __version, ...row } = found;
    this.rows.delete(key);
    if (this.rows.size >= ROW_CACHE_MAX) this.rows.delete(this.rows.keys().next().value!);
    this.rows.set(key, { version: String(__version), row });
    return { ...row };
  }
}

// --- approvals -------------------------------------------------------------------------------------------------

export interface Approvers {
  /** people listed by email: their ids */
  people: { id: string; email: string }[];
  /** teams listed by name: their ids */
  teams: { id: string; name: string }[];
}

export async function resolveApprovers(db: Queryable, emails: string[], teamNames: string[]): Promise<Approvers> {
  const [p, t] = await Promise.all([
    emails.length
      ? db.query<{ id: string; email: string }>(
        'SELECT id, email FROM people WHERE lower(email) = ANY($1::text[]) AND deleted_at IS NULL',
        [emails.map((e) => e.toLowerCase())])
      : { rows: [] },
    teamNames.length
      ? db.query<{ id: string; name: string }>('SELECT id, name FROM teams WHERE name = ANY($1::text[]) AND deleted_at IS NULL', [teamNames])
      : { rows: [] },
  ]);
  return { people: p.rows, teams: t.rows };
}

/** The listed teams `personId` belongs to. */
export async function memberTeams(db: Queryable, personId: string, teamIds: string[]): Promise<string[]> {
  if (!teamIds.length) return [];
  const { rows } = await db.query<{ team_id: string }>(
    'SELECT team_id FROM team_members WHERE person_id = $1 AND team_id = ANY($2::uuid[])', [personId, teamIds]);
  return rows.map((r) => r.team_id);
}

export async function insertApproval(db: Queryable, runId: string, personId: string | null, teamId: string | null): Promise<void> {
  await db.query('INSERT INTO playbook_approvals (run_id, person_id, team_id) VALUES ($1, $2, $3)', [runId, personId, teamId]);
}

export async function listApprovals(db: Queryable, runId: string): Promise<{ person_id: string | null; team_id: string | null }[]> {
  const { rows } = await db.query<{ person_id: string | null; team_id: string | null }>(
    'SELECT person_id, team_id FROM playbook_approvals WHERE run_id = $1', [runId]);
  return rows;
}
