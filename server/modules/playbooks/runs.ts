import type pg from 'pg';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../lib/errors.js';
import { publishChange } from '../../lib/events.js';
import { inTransaction } from '../../lib/tx.js';
import { isSealed, sealSecret, secretsKey } from '../../lib/secret-box.js';
import { parseGoDuration } from '../health/schedule.js';
import {
  FINAL_RUN_STATUSES, getRunForUpdate, insertAction, insertApproval, listActions, listApprovals, memberTeams,
  resolveApprovers, wakeEngines, type RunRow,
} from './engine-queries.js';

/**
 * The run lifecycle (issue 14 "Engine"): create, approve, cancel, retry from the failed action. Used by the
 * /api/playbook routes, the triggers and the webhooks; the engine (executor.ts) takes runs from here on. Every change
 * is published on 'playbook_runs' and wakes the engines (NOTIFY on ENGINE_CHANNEL).
 */

type Db = pg.Pool;

/** The default run timeout (30 min) in nanoseconds, as the reference stores it. */
export const DEFAULT_RUN_TIMEOUT_NS = 1_800_000_000_000n;

export interface PlaybookRowInput {
  id: string;
  spec: Record<string, unknown>;
  [column: string]: unknown;
}

export interface CreateRunInput {
  playbook: PlaybookRowInput;
  params: Record<string, unknown>;
  checkId?: string | null;
  configId?: string | null;
  componentId?: string | null;
  request?: Record<string, unknown> | null;
  /** The person asking (the System person for triggers). */
  createdBy: string;
  parentId?: string | null;
  agentId?: string | null;
  notificationSendId?: string | null;
  /** When it should start (default now). */
  startsAt?: Date;
  /**
   * The queued event that starts this run (triggers): recorded with it (0108), and a second run of the playbook for
   * the same event is refused with EventAlreadyStartedError.
   */
  triggerEvent?: string;
  /** The key `secret` params are sealed with: secretsKey(config). Default: SECRETS_KEY or DATA_DIR's key file. */
  secretsKey?: Buffer;
}

/** createRun for a trigger event that already started a run of this playbook (nothing was stored). */
export class EventAlreadyStartedError extends Error {
  constructor(readonly playbookId: string, readonly event: string) {
    super(`playbook ${playbookId} already ran for event ${event}`);
  }
}

export interface CreatedRun {
  run_id: string;
  starts_at: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string' && s !== '') : []);

function defaultKey(): Buffer {
  return secretsKey({ SECRETS_KEY: process.env.SECRETS_KEY || undefined, DATA_DIR: process.env.DATA_DIR || './data' });
}

/** The params with every `secret`-typed one sealed (already sealed values are kept). */
export function sealSecretParams(spec: Record<string, unknown>, params: Record<string, unknown>, key: () => Buffer): Record<string, unknown> {
  const out = { ...params };
  const defs = Array.isArray(spec.parameters) ? spec.parameters : [];
  for (const d of defs) {
    if (!isObject(d) || d.type !== 'secret' || typeof d.name !== 'string') continue;
    const v = out[d.name];
    if (v === undefined || v === null || v === '' || isSealed(v)) continue;
    out[d.name] = sealSecret(String(v), key());
  }
  return out;
}

/** The spec's `timeout` ("15m") in nanoseconds, else the default 30 min. */
export function runTimeoutNs(spec: Record<string, unknown>): bigint {
  if (typeof spec.timeout === 'string' && spec.timeout.trim()) {
    try {
      return BigInt(Math.round(parseGoDuration(spec.timeout) * 1e6));
    } catch {
      // validated at save; an unparsable one keeps the default
    }
  }
  return DEFAULT_RUN_TIMEOUT_NS;
}

interface Approval {
  type: 'any' | 'all';
  people: string[];
  teams: string[];
}

function approvalOf(spec: Record<string, unknown> | null): Approval | null {
  const a = spec?.approval;
  if (!isObject(a)) return null;
  const approvers = isObject(a.approvers) ? a.approvers : {};
  const people = strings(approvers.people);
  const teams = strings(approvers.teams);
  if (!people.length && !teams.length) return null;
  return { type: a.type === 'all' ? 'all' : 'any', people, teams };
}

/**
 * Records `personId`'s approval in every capacity they are listed in (themselves, their listed teams) and says
 * whether the run's approval is now satisfied. Throws ForbiddenError when they are not an approver.
 */
async function approveAs(c: pg.PoolClient, run: RunRow, approval: Approval, personId: string): Promise<boolean> {
  const listed = await resolveApprovers(c, approval.people, approval.teams);
  const direct = listed.people.some((p) => p.id === personId);
  const teams = await memberTeams(c, personId, listed.teams.map((t) => t.id));
  if (!direct && !teams.length) throw new ForbiddenError('not an approver of this playbook run');
  const existing = await listApprovals(c, run.id);
  if (direct && !existing.some((e) => e.person_id === personId && e.team_id === null)) await insertApproval(c, run.id, personId, null);
  for (const t of teams) {
    if (!existing.some((e) => e.team_id === t)) await insertApproval(c, run.id, personId, t);
  }
  const all = await listApprovals(c, run.id);
  if (approval.type === 'any') return all.length > 0;
  // all: every listed person (themselves) and every listed team (any member of it)
  return listed.people.every((p) => all.some((a) => a.person_id === p.id && a.team_id === null))
    && listed.teams.every((t) => all.some((a) => a.team_id === t.id));
}

async function announce(db: Db, runId: string): Promise<void> {
  await publishChange(db, { relation: 'playbook_runs', ids: [runId] });
}

/** Creates a run of a playbook: its own copy of the spec, sealed secret params; pending approval or scheduled. */
export async function createRun(db: Db, input: CreateRunInput): Promise<CreatedRun> {
  const spec = input.playbook.spec ?? {};
  const params = sealSecretParams(spec, input.params ?? {}, () => input.secretsKey ?? defaultKey());
  const approval = approvalOf(spec);
  const run = await inTransaction(db, async (c) => {
    const { rows } = await c.query<RunRow>(
      `INSERT INTO playbook_runs (playbook_id, spec, status, scheduled_time, timeout, created_by, check_id, config_id,
                                  component_id, parameters, request, agent_id, parent_id, notification_send_id)
       VALUES ($1, $2, $3, coalesce($4, now()), $5, $6, $7, $8, $9, $10, $11,
               coalesce($12, '00000000-0000-0000-0000-000000000000'::uuid), $13, $14)
       RETURNING *`,
      [input.playbook.id, spec, approval ? 'pending_approval' : 'scheduled', input.startsAt ?? null,
        runTimeoutNs(spec).toString(), input.createdBy, input.checkId ?? null, input.configId ?? null,
        input.componentId ?? null, params, input.request ?? null, input.agentId ?? null, input.parentId ?? null,
        input.notificationSendId ?? null],
    );
    const r = rows[0];
    if (input.triggerEvent) {
      const { rowCount } = await c.query(
        `INSERT INTO playbook_trigger_events (playbook_id, event_key, run_id) VALUES ($1, $2, $3)
         ON CONFLICT (playbook_id, event_key) DO NOTHING`, [input.playbook.id, input.triggerEvent, r.id]);
      if (!rowCount) throw new EventAlreadyStartedError(input.playbook.id, input.triggerEvent);
    }
    if (approval) {
      let approved = false;
      try {
        approved = await approveAs(c, r, approval, input.createdBy);
      } catch (err) {
        if (!(err instanceof ForbiddenError)) throw err;
      }
      if (approved) {
        const u = await c.query<RunRow>(
          "UPDATE playbook_runs SET status = 'scheduled', scheduled_time = greatest(scheduled_time, now()) WHERE id = $1 RETURNING *",
          [r.id]);
        return u.rows[0];
      }
    }
    return r;
  });
  if (run.status === 'scheduled') await wakeEngines(db).catch(() => undefined);
  await announce(db, run.id);
  return { run_id: run.id, starts_at: new Date(run.scheduled_time).toISOString() };
}

/** Approves a pending run as `personId` (403 when not a listed approver, directly or through a team). */
export async function approveRun(db: Db, runId: string, personId: string): Promise<{ status: string }> {
  const status = await inTransaction(db, async (c) => {
    const run = await getRunForUpdate(c, runId);
    if (!run) throw new NotFoundError('playbook run', runId);
    const approval = approvalOf(run.spec);
    if (!approval) throw new BadRequestError('this playbook run needs no approval');
    if (run.status !== 'pending_approval') throw new BadRequestError(`playbook run is ${run.status}, not pending approval`);
    if (!(await approveAs(c, run, approval, personId))) return run.status;
    await c.query("UPDATE playbook_runs SET status = 'scheduled', scheduled_time = greatest(scheduled_time, now()) WHERE id = $1", [runId]);
    return 'scheduled';
  });
  if (status === 'scheduled') await wakeEngines(db).catch(() => undefined);
  await announce(db, runId);
  return { status };
}

/**
 * Cancels a run that has not ended (400 when it has): the run `cancelled`, its unfinished actions failed "cancelled";
 * the replica running its action hears the NOTIFY and aborts it (exec kills the process group).
 */
export async function cancelRun(db: Db, runId: string, _personId: string): Promise<{ status: string }> {
  await inTransaction(db, async (c) => {
    const run = await getRunForUpdate(c, runId);
    if (!run) throw new NotFoundError('playbook run', runId);
    if ((FINAL_RUN_STATUSES as readonly string[]).includes(run.status)) {
      throw new BadRequestError(`playbook run is already ${run.status}`);
    }
    await c.query(
      `UPDATE playbook_runs SET status = 'cancelled', end_time = now(), lease_owner = NULL, lease_expires_at = NULL
        WHERE id = $1`, [runId]);
    await c.query(
      `UPDATE playbook_run_actions SET status = 'failed', error = 'cancelled', end_time = now(), lease_owner = NULL,
              lease_expires_at = NULL
        WHERE playbook_run_id = $1 AND status IN ('scheduled', 'running', 'sleeping', 'waiting')`, [runId]);
    await wakeEngines(c, `cancel:${runId}`);
  });
  await announce(db, runId);
  return { status: 'cancelled' };
}

/**
 * A child run of a failed (or timed out) run: same playbook, spec copy, params and resource, `parent_id` = the run;
 * the actions that completed or were skipped before the first failed one are copied with their results, so the
 * engine starts at the failed action.
 */
export async function retryFromFailed(db: Db, runId: string, personId: string): Promise<CreatedRun> {
  const child = await inTransaction(db, async (c) => {
    const run = await getRunForUpdate(c, runId);
    if (!run) throw new NotFoundError('playbook run', runId);
    if (run.status !== 'failed' && run.status !== 'timed_out') {
      throw new BadRequestError(`only a failed run can be retried from its failed action (this one is ${run.status})`);
    }
    const actions = await listActions(c, runId);
    const specActions = Array.isArray(run.spec?.actions) ? (run.spec.actions as Record<string, unknown>[]) : [];
    const keep: typeof actions = [];
    for (const a of specActions) {
      const rows = actions.filter((r) => r.name === a.name);
      const last = rows[rows.length - 1];
      if (!last || (last.status !== 'completed' && last.status !== 'skipped')) break;
      keep.push(last);
    }
    const { rows } = await c.query<RunRow>(
      `INSERT INTO playbook_runs (playbook_id, spec, status, scheduled_time, timeout, created_by, check_id, config_id,
                                  component_id, parameters, request, agent_id, parent_id, notification_send_id)
       SELECT playbook_id, spec, 'scheduled', now(), timeout, $2, check_id, config_id, component_id, parameters, request,
              agent_id, id, notification_send_id
         FROM playbook_runs WHERE id = $1
       RETURNING *`,
      [runId, personId],
    );
    const r = rows[0];
    for (const a of keep) {
      const copy = await insertAction(c, { runId: r.id, name: a.name, status: a.status, retryCount: a.retry_count ?? 0, end: true });
      await c.query(
        'UPDATE playbook_run_actions SET result = $2, start_time = $3, end_time = $4, scheduled_time = $5 WHERE id = $1',
        [copy.id, a.result, a.start_time, a.end_time, a.scheduled_time]);
    }
    return r;
  });
  await wakeEngines(db).catch(() => undefined);
  await announce(db, child.id);
  return { run_id: child.id, starts_at: new Date(child.scheduled_time).toISOString() };
}
