import type pg from 'pg';
import { encodeChange, publishChange } from '../../lib/events.js';
import { SecretMasker } from '../../lib/secret-mask.js';
import type { ValueFromResolver } from '../../lib/value-from.js';
import { parseGoDuration } from '../health/schedule.js';
import { ActionFailedError, type ActionOptions, type PlaybookActionType } from './actions/types.js';
import {
  FINAL_ACTION_STATUSES, agentIdByName, failInterrupted, failWaitingActions, finishAction, insertAction, insertAgentData, listActions,
  NO_ACTIONS, startAction, updateHeldRun, type ActionRow, type ClaimedRun, type RowCache,
} from './engine-queries.js';
import { buildTemplateEnv, RunSetupError } from './executor-env.js';
import { ActionLogWriter } from './log-writer.js';
import { evalActionIf, evalDelay, renderTemplates, type RunActions, type TemplateEnv } from './templates.js';

/**
 * One claimed run, taken action by action in spec order until it ends, sleeps, waits or is released (issue 14
 * "Engine"). The claim (the run's lease) is held throughout; every write is conditioned on still holding it, so a
 * cancel or a lost lease stops this replica from writing over what happened meanwhile.
 */

/** Changes of one run announced together (see RunProcessor.publish). */
export const PUBLISH_COALESCE_MS = 50;

export const LOCAL_AGENT_ID = '00000000-0000-0000-0000-000000000000';

/** Why an action's signal was aborted. */
export type AbortReason = 'cancel' | 'action-timeout' | 'run-timeout' | 'stopping';

export interface EngineContext {
  db: pg.Pool;
  /** The lease owner (unique per engine instance) and the replica's name (in "interrupted" messages). */
  owner: string;
  leaseMs: number;
  actionTypes: ReadonlyMap<string, PlaybookActionType>;
  options: ActionOptions;
  valueFrom?: ValueFromResolver;
  key: () => Buffer;
  /** The replica's playbook and person rows by version (see RowCache). */
  rows?: RowCache;
  log: { warn(obj: object, msg: string): void };
  /** How long an aborted action may take to wind down before the engine moves on without it. */
  abortGraceMs: number;
  stopping(): boolean;
}

/** The engine's handle on one run in progress: the current action's controller, for cancel and shutdown. */
export interface RunSlot {
  runId: string;
  controller: AbortController | null;
  reason: AbortReason | null;
  abort(reason: AbortReason): void;
}

export function newSlot(runId: string): RunSlot {
  const slot: RunSlot = {
    runId, controller: null, reason: null,
    abort(reason) {
      if (!slot.controller || slot.controller.signal.aborted) return;
      slot.reason = reason;
      slot.controller.abort(new Error(reason));
    },
  };
  return slot;
}

type Action = Record<string, unknown> & { name: string };
const META_KEYS = new Set(['name', 'if', 'delay', 'timeout', 'retry', 'runsOn', 'templatesOn', 'contentType', 'description', 'filters']);
interface Prepared {
  type: PlaybookActionType;
  block: Record<string, unknown>;
}
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isFinal = (a: ActionRow) => (FINAL_ACTION_STATUSES as readonly string[]).includes(a.status);
const msg = (err: unknown) => (err instanceof Error ? err.message : String(err));

function duration(v: unknown, field: string): number {
  if (typeof v !== 'string' || !v.trim()) return 0;
  try {
    return parseGoDuration(v);
  } catch {
    throw new Error(`${field}: invalid duration "${v}"`);
  }
}

/** The wait before retry `attempt` (1-based): duration × multiplier^(attempt-1); null past the limit. */
export function retryDelayMs(action: Action, attempt: number): number | null {
  const r = isObject(action.retry) ? action.retry : null;
  const limit = r && typeof r.limit === 'number' ? r.limit : 0;
  if (!r || attempt > limit) return null;
  const base = duration(r.duration, 'retry.duration');
  const mult = isObject(r.exponent) && typeof r.exponent.multiplier === 'number' ? r.exponent.multiplier : 1;
  return Math.round(base * Math.pow(mult, attempt - 1));
}

/** The last row of each action name. */
function latest(rows: ActionRow[]): Map<string, ActionRow> {
  const m = new Map<string, ActionRow>();
  for (const r of rows) {
    const prev = m.get(r.name);
    if (!prev || (r.retry_count ?? 0) >= (prev.retry_count ?? 0)) m.set(r.name, r);
  }
  return m;
}

/**
 * An action as templates and CEL see it (getAction, getLastAction): the reference's PlaybookRunAction.AsMap (id, name,
 * status, result, error, times), with its result's fields on top as well (`(getAction "a").stdout`).
 */
function actionView(r: ActionRow): Record<string, unknown> {
  return {
    ...(r.result ?? {}), id: r.id, name: r.name, status: r.status, result: r.result ?? {}, error: r.error,
    start_time: r.start_time ? new Date(r.start_time).toISOString() : null,
    end_time: r.end_time ? new Date(r.end_time).toISOString() : null,
  };
}

/** The run's actions so far, but `exclude` (the action being rendered): each name's latest row, and the last to run. */
function runActions(rows: ActionRow[], exclude?: string): RunActions {
  const others = exclude ? rows.filter((r) => r.id !== exclude) : rows;
  const byName = latest(others);
  // rows come ordered by when they started (listActions); the last one that started is the last action
  const ran = others.filter((r) => r.start_time);
  const last = ran.length ? ran[ran.length - 1] : undefined;
  return {
    byName: (name) => {
      const r = byName.get(name);
      return r ? actionView(r) : undefined;
    },
    last: last ? actionView(last) : undefined,
  };
}

export class RunProcessor {
  private readonly masker = new SecretMasker();
  private publishTimer: NodeJS.Timeout | null = null;
  private env: TemplateEnv | null = null;
  private readonly deadline: number;
  private readonly spec: Record<string, unknown>;

  constructor(private readonly ctx: EngineContext, private readonly run: ClaimedRun, private readonly slot: RunSlot) {
    this.spec = run.spec ?? {};
    // a run claimed with no action rows yet (most): nothing to read
    if (run[NO_ACTIONS]) this.rows = [];
    const timeoutMs = run.timeout ? Number(BigInt(run.timeout) / 1_000_000n) : 1_800_000;
    this.deadline = new Date(run.start_time ?? Date.now()).getTime() + (timeoutMs > 0 ? timeoutMs : 1_800_000);
  }

  /**
   * Announces a change of the run or its actions (not awaited: a lost event costs a refetch, not the run). Changes
   * within PUBLISH_COALESCE_MS are announced once (a fast run makes ~10 changes; each was a statement of its own);
   * what is pending is announced at once when the engine lets go of the run. The engine's action inserts and run
   * updates announce themselves (and what is pending) in their own statement: see inlineNotify.
   */
  private publish(): void {
    if (this.publishTimer) return;
    this.publishTimer = setTimeout(() => this.flushPublish(), PUBLISH_COALESCE_MS);
  }

  /** The announcement a write of the run carries in its own statement; what was pending goes with it. */
  private inlineNotify(): string {
    if (this.publishTimer) clearTimeout(this.publishTimer);
    this.publishTimer = null;
    return encodeChange({ relation: 'playbook_runs', ids: [this.run.id] });
  }

  private flushPublish(): void {
    if (this.publishTimer) clearTimeout(this.publishTimer);
    this.publishTimer = null;
    void publishChange(this.ctx.db, { relation: 'playbook_runs', ids: [this.run.id] });
  }

  /** The run's action rows, read once and kept up to date by this engine's own writes; null: read them again. */
  private rows: ActionRow[] | null = null;

  /** Inserts an action row (announced by the same statement). */
  private async insert(a: Parameters<typeof insertAction>[1]): Promise<ActionRow> {
    const row = await insertAction(this.ctx.db, { ...a, notify: this.inlineNotify() });
    this.rows?.push(row);
    return row;
  }

  private async setRun(status: string, extra: { scheduled_time?: Date; error?: string; end?: boolean; release?: boolean } = {}): Promise<void> {
    await updateHeldRun(this.ctx.db, this.run.id, this.ctx.owner, { status, ...extra, notify: this.inlineNotify() });
  }

  /** Takes the run as far as it can go now. */
  async process(): Promise<void> {
    try {
      await this.step();
    } finally {
      if (this.publishTimer) this.flushPublish();
    }
  }

  private async step(): Promise<void> {
    const actions = (Array.isArray(this.spec.actions) ? this.spec.actions : []).filter(
      (a): a is Action => isObject(a) && typeof a.name === 'string');
    for (;;) {
      if (this.ctx.stopping()) return this.setRun('scheduled', { release: true });
      if (Date.now() >= this.deadline) {
        // an action still waiting for another agent ends with the run
        this.rows = null;
        if (await failWaitingActions(this.ctx.db, this.run.id, 'playbook run timed out')) this.publish();
        return this.setRun('timed_out', { end: true, release: true, error: 'playbook run timed out' });
      }
      const rows = this.rows ?? (this.rows = await listActions(this.ctx.db, this.run.id));
      const last = latest(rows);
      const failed = [...last.values()].some((r) => r.status === 'failed');
      const timedOut = [...last.values()].some((r) => r.status === 'failed' && r.error?.startsWith('action timed out'));
      const next = actions.find((a) => !last.get(a.name) || !isFinal(last.get(a.name)!));
      if (!next) {
        return this.setRun(timedOut ? 'timed_out' : failed ? 'failed' : 'completed', { end: true, release: true });
      }
      const row = last.get(next.name);
      if (row) {
        // the rare paths (interrupted, waiting, sleeping, retrying) read the rows again afterwards
        this.rows = null;
        if (row.status === 'running') {
          // its replica stopped (or this one's earlier claim did): fail it, retry when it has a retry
          await this.interrupted(next, row);
          continue;
        }
        if (row.status === 'waiting') {
          if (await this.waitingTimedOut(next, row)) continue;
          return this.setRun('waiting', { release: true, scheduled_time: this.waitUntil(next, row) });
        }
        if (new Date(row.scheduled_time).getTime() > Date.now()) {
          return this.setRun(row.status === 'sleeping' ? 'sleeping' : 'retrying', { scheduled_time: row.scheduled_time, release: true });
        }
        if (!(await startAction(this.ctx.db, row.id, this.ctx.owner, this.ctx.leaseMs))) continue;
        this.publish();
        if (!(await this.execute(next, row, null))) return;
        continue;
      }
      const env = await this.templateEnv(rows.length === 0);
      if (!env) return;
      let runs: boolean;
      let delayMs = 0;
      try {
        runs = evalActionIf(typeof next.if === 'string' ? next.if : undefined, env, { failed, timedOut, actions: runActions(rows) });
        if (runs) delayMs = evalDelay(typeof next.delay === 'string' ? next.delay : undefined, env);
      } catch (err) {
        await this.insert({ runId: this.run.id, name: next.name, status: 'failed', error: this.masker.mask(msg(err)), end: true });
        continue;
      }
      if (!runs) {
        await this.insert({ runId: this.run.id, name: next.name, status: 'skipped', end: true });
        continue;
      }
      if (delayMs > 0) {
        await this.insert({ runId: this.run.id, name: next.name, status: 'sleeping', scheduledTime: new Date(Date.now() + delayMs) });
        continue;
      }
      if (await this.delegated(next, env)) return;
      let prepared: Prepared;
      try {
        prepared = await this.prepare(next, env, rows);
      } catch (err) {
        // a template or type that cannot run: before any action it is the run's error ('Initialization')
        if (rows.length === 0) return this.setRun('failed', { error: this.masker.mask(msg(err)), end: true, release: true });
        await this.insert({ runId: this.run.id, name: next.name, status: 'failed', error: this.masker.mask(msg(err)), end: true });
        continue;
      }
      const started = await this.insert({
        runId: this.run.id, name: next.name, status: 'running', owner: this.ctx.owner, leaseMs: this.ctx.leaseMs,
      });
      if (!(await this.execute(next, started, prepared))) return;
    }
  }

  /** The template env, built once; a failure here fails the run before any action (run.error). */
  private async templateEnv(first: boolean): Promise<TemplateEnv | null> {
    if (this.env) return this.env;
    try {
      this.env = await buildTemplateEnv(this.ctx.db, this.run, {
        key: this.ctx.key, masker: this.masker, valueFrom: this.ctx.valueFrom, rows: this.ctx.rows,
      });
      return this.env;
    } catch (err) {
      if (!(err instanceof RunSetupError) && !first) throw err;
      await this.setRun('failed', { error: this.masker.mask(msg(err)), end: true, release: true });
      return null;
    }
  }

  /** runsOn another agent: the action waits for it (the agent side comes with issue 16). */
  private async delegated(action: Action, env: TemplateEnv): Promise<boolean> {
    const names = Array.isArray(action.runsOn) ? action.runsOn.filter((n): n is string => typeof n === 'string') : [];
    const remote = names.find((n) => n !== 'local' && n !== '');
    if (!remote) return false;
    const agentId = await agentIdByName(this.ctx.db, remote);
    if (!agentId) {
      await this.insert({ runId: this.run.id, name: action.name, status: 'failed', error: `runsOn: agent ${remote} not found`, end: true });
      return false;
    }
    if (agentId === LOCAL_AGENT_ID) return false;
    const row = await this.insert({ runId: this.run.id, name: action.name, status: 'waiting', agentId });
    await insertAgentData(this.ctx.db, { actionId: row.id, playbookId: this.run.playbook_id, runId: this.run.id, spec: action, env: { params: this.masker.maskDeep(env.params), env: {} } });
    await this.setRun('waiting', { release: true, scheduled_time: this.waitUntil(action, row) });
    return true;
  }

  /** When a waiting action's own `timeout` ends (counted from when it began waiting); Infinity without one. */
  private waitingDeadline(action: Action, row: ActionRow): number {
    let ms = 0;
    try {
      ms = duration(action.timeout, 'timeout');
    } catch {
      ms = 0;
    }
    return ms > 0 ? new Date(row.scheduled_time).getTime() + ms : Infinity;
  }

  /** The run is claimed again (by the sweep of any replica) when the action's or the run's timeout comes. */
  private waitUntil(action: Action, row: ActionRow): Date {
    return new Date(Math.min(this.waitingDeadline(action, row), this.deadline));
  }

  /** A waiting action past its own timeout fails ("action timed out after X"; retried when it has a retry). */
  private async waitingTimedOut(action: Action, row: ActionRow): Promise<boolean> {
    if (Date.now() < this.waitingDeadline(action, row)) return false;
    if (await failWaitingActions(this.ctx.db, this.run.id, `action timed out after ${action.timeout} waiting for its agent`, row.id)) {
      await this.scheduleRetry(action, row);
    }
    this.publish();
    return true;
  }

  /** Fails an action whose replica stopped; schedules its retry when it has one. */
  private async interrupted(action: Action, row: ActionRow): Promise<void> {
    const message = `interrupted: replica ${row.lease_owner?.split('#')[0] ?? 'unknown'} stopped`;
    if (await failInterrupted(this.ctx.db, row.id, message)) await this.scheduleRetry(action, row);
    this.publish();
  }

  private async scheduleRetry(action: Action, row: ActionRow): Promise<void> {
    const attempt = (row.retry_count ?? 0) + 1;
    let wait: number | null;
    try {
      wait = retryDelayMs(action, attempt);
    } catch {
      wait = null;
    }
    if (wait === null) return;
    const scheduledTime = new Date(Date.now() + wait);
    const agentId = await this.remoteAgentId(action);
    if (agentId) {
      // the retry of an action that runs on another agent waits for that agent again
      const retry = await this.insert({ runId: this.run.id, name: action.name, status: 'waiting', retryCount: attempt, scheduledTime, agentId });
      const env = await this.templateEnv(false);
      await insertAgentData(this.ctx.db, { actionId: retry.id, playbookId: this.run.playbook_id, runId: this.run.id, spec: action, env: { params: this.masker.maskDeep(env?.params ?? {}), env: {} } });
      return;
    }
    await this.insert({
      runId: this.run.id, name: action.name, status: 'scheduled', retryCount: attempt, scheduledTime,
    });
  }

  /** The agent a `runsOn` names when it is another (known) agent than this console; null otherwise. */
  private async remoteAgentId(action: Action): Promise<string | null> {
    const names = Array.isArray(action.runsOn) ? action.runsOn.filter((n): n is string => typeof n === 'string') : [];
    const remote = names.find((n) => n !== 'local' && n !== '');
    if (!remote) return null;
    const agentId = await agentIdByName(this.ctx.db, remote);
    return agentId && agentId !== LOCAL_AGENT_ID ? agentId : null;
  }

  /** The action's type and its block rendered (getAction, getLastAction: the run's other actions; `self`: its own row). */
  private async prepare(action: Action, env: TemplateEnv, rows?: ActionRow[], self?: string): Promise<Prepared> {
    const types = this.ctx.actionTypes;
    const typeKey = Object.keys(action).find((k) => types.has(k)) ?? Object.keys(action).find((k) => !META_KEYS.has(k));
    const type = typeKey ? types.get(typeKey) : undefined;
    if (!typeKey || !type) throw new Error(typeKey ? `action type ${typeKey} is not available` : 'the action has no type (exec, http, sql…)');
    const actions = runActions(rows ?? (await listActions(this.ctx.db, this.run.id)), self);
    const block = renderTemplates(action[typeKey] ?? {}, env, actions.byName, undefined, actions.last);
    if (!isObject(block)) throw new Error(`${typeKey}: expected an object`);
    return { type, block };
  }

  /** Runs a started action; false when the run is no longer this replica's to go on with. */
  private async execute(action: Action, row: ActionRow, ready: Prepared | null): Promise<boolean> {
    const { ctx } = this;
    const env = await this.templateEnv(false);
    if (!env) return false;
    const controller = new AbortController();
    this.slot.controller = controller;
    this.slot.reason = null;
    const logs = new ActionLogWriter(ctx.db, this.run.id, row.id, this.masker, (err) => ctx.log.warn({ err }, 'playbooks: log lines not stored'));
    let actionTimeoutMs = 0;
    let timer: NodeJS.Timeout | null = null;
    let outcome: { status: 'completed' | 'failed'; result: Record<string, unknown> | null; error: string | null };
    try {
      actionTimeoutMs = duration(action.timeout, 'timeout');
      const actionDeadline = actionTimeoutMs > 0 ? Date.now() + actionTimeoutMs : Infinity;
      const deadline = Math.min(actionDeadline, this.deadline);
      timer = setTimeout(() => this.slot.abort(deadline === this.deadline ? 'run-timeout' : 'action-timeout'), Math.max(0, deadline - Date.now()));
      const { type, block } = ready ?? (await this.prepare(action, env, undefined, row.id));
      const running = type.run(block, {
        runId: this.run.id, actionId: row.id, name: action.name, signal: controller.signal, deadline,
        log: (stream, text) => logs.write(stream, text),
        addSecret: (v) => this.masker.add(v),
        mask: (text) => this.masker.mask(text),
        db: ctx.db, env: env.env, options: ctx.options,
      });
      running.catch(() => undefined);
      const result = await Promise.race([running, this.aborted(controller.signal)]);
      outcome = { status: 'completed', result: this.masker.maskDeep(result ?? {}), error: null };
    } catch (err) {
      const result = err instanceof ActionFailedError ? this.masker.maskDeep(err.result) : null;
      const reason = this.slot.reason;
      const error = reason === 'action-timeout' ? `action timed out after ${action.timeout}`
        : reason === 'run-timeout' ? 'playbook run timed out'
          : reason === 'cancel' ? 'cancelled'
            : reason === 'stopping' ? `interrupted: replica ${ctx.owner.split('#')[0]} stopped`
              : this.masker.mask(msg(err));
      outcome = { status: 'failed', result, error };
    } finally {
      if (timer) clearTimeout(timer);
      this.slot.controller = null;
    }
    // the last lines are stored by the statement that finishes the action
    const lastLines = await logs.closeForFinish();
    const reason = this.slot.reason;
    let finished: boolean;
    try {
      finished = await finishAction(ctx.db, row.id, ctx.owner, outcome.status, outcome.result, outcome.error, { logs: lastLines });
    } catch (err) {
      if (!lastLines) throw err;
      // the lines may be what it choked on: store them on their own (a failure there is logged), then finish
      await logs.storeFinal(lastLines);
      finished = await finishAction(ctx.db, row.id, ctx.owner, outcome.status, outcome.result, outcome.error);
    }
    if (!finished) {
      this.publish();
      return false; // cancelled meanwhile: cancelRun wrote the run and its actions
    }
    Object.assign(row, { status: outcome.status, result: outcome.result, error: outcome.error, end_time: new Date(), lease_owner: null, lease_expires_at: null });
    if (outcome.status === 'failed' && reason !== 'run-timeout' && reason !== 'cancel') await this.scheduleRetry(action, row);
    if (reason === 'run-timeout') {
      await this.setRun('timed_out', { end: true, release: true });
      return false;
    }
    if (reason === 'stopping') {
      await this.setRun('scheduled', { release: true });
      return false;
    }
    this.publish();
    return true;
  }

  /** Rejects once the signal is aborted and the action has had its grace to wind down. */
  private aborted(signal: AbortSignal): Promise<never> {
    return new Promise((_, reject) => {
      const onAbort = () => setTimeout(() => reject(signal.reason), this.ctx.abortGraceMs).unref();
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
