import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { ValueFromResolver } from '../../lib/value-from.js';
import { ACTION_TYPES } from './actions/index.js';
import type { ActionOptions, PlaybookActionType } from './actions/types.js';
import { claimDueRuns, ENGINE_CHANNEL, renewLeases, RowCache } from './engine-queries.js';
import { newSlot, RunProcessor, type EngineContext, type RunSlot } from './executor-run.js';

/**
 * The playbook run engine (issue 14 "Engine"), one on every console replica. A small queue on the run rows: due runs
 * are claimed with FOR UPDATE SKIP LOCKED under a lease (30 s, renewed by a heartbeat), woken by NOTIFY on
 * ENGINE_CHANNEL and by a 1 s sweep; up to `concurrency` runs (one action each at a time) are in progress. A run whose
 * replica died is claimed again once its lease expires, and its running action fails "interrupted: replica … stopped".
 * stop(): no more claims, `graceMs` for what is running, then those actions are failed as interrupted and released.
 */

export interface ExecutorOptions {
  db: pg.Pool;
  /** For the dedicated LISTEN connection. */
  connectionString: string;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** This replica's name (POD_NAME or the host name), shown in "interrupted" messages. */
  replica?: string;
  concurrency?: number;
  leaseMs?: number;
  sweepMs?: number;
  /** SIGTERM grace before running actions are interrupted (10 s). */
  graceMs?: number;
  actionTypes?: ReadonlyMap<string, PlaybookActionType>;
  actionOptions: ActionOptions;
  valueFrom?: ValueFromResolver;
  secretsKey: () => Buffer;
}

export const DEFAULT_LEASE_MS = 30_000;
export const DEFAULT_SWEEP_MS = 1_000;
export const DEFAULT_GRACE_MS = 10_000;

export class PlaybookExecutor {
  readonly owner: string;
  private readonly slots = new Map<string, { slot: RunSlot; done: Promise<void> }>();
  private readonly ctx: EngineContext;
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private stopped = true;
  private stopping = false;
  private claiming: Promise<void> | null = null;
  private again = false;
  private listener: pg.Client | null = null;
  private timers: NodeJS.Timeout[] = [];
  private reconnect: NodeJS.Timeout | null = null;

  constructor(private readonly opts: ExecutorOptions) {
    const replica = opts.replica || process.env.POD_NAME || hostname();
    // unique per engine: two engines in one process (tests) or a restarted replica never share a lease
    this.owner = `${replica}#${randomBytes(4).toString('hex')}`;
    this.concurrency = Math.max(1, opts.concurrency ?? 8);
    this.leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
    this.ctx = {
      db: opts.db, owner: this.owner, leaseMs: this.leaseMs,
      actionTypes: opts.actionTypes ?? ACTION_TYPES, options: opts.actionOptions, valueFrom: opts.valueFrom,
      key: opts.secretsKey, rows: new RowCache(), log: opts.log, abortGraceMs: 5_000, stopping: () => this.stopping,
    };
  }

  /** Runs in progress on this engine. */
  get active(): number {
    return this.slots.size;
  }

  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    this.stopping = false;
    await this.listen();
    this.timers.push(setInterval(() => this.kick(), this.opts.sweepMs ?? DEFAULT_SWEEP_MS));
    this.timers.push(setInterval(() => void this.heartbeat(), Math.max(100, Math.floor(this.leaseMs / 3))));
    for (const t of this.timers) t.unref();
    this.kick();
  }

  /** Stops claiming; waits `graceMs` for running actions, then interrupts them (failed, retried if they retry). */
  async stop(graceMs = this.opts.graceMs ?? DEFAULT_GRACE_MS): Promise<void> {
    if (this.stopped) return;
    this.stopping = true;
    await this.claiming;
    const all = () => Promise.all([...this.slots.values()].map((s) => s.done));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all(), new Promise((r) => { timer = setTimeout(r, graceMs); })]);
    clearTimeout(timer);
    for (const { slot } of this.slots.values()) slot.abort('stopping');
    await all();
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    if (this.reconnect) clearTimeout(this.reconnect);
    const l = this.listener;
    this.listener = null;
    await l?.end().catch(() => undefined);
  }

  /** Looks for due runs now (or right after the claim in progress). */
  kick(): void {
    if (this.stopped || this.stopping) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    this.claiming = this.claim()
      .catch((err) => this.opts.log.warn({ err }, 'playbooks: claiming runs failed'))
      .finally(() => {
        this.claiming = null;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async claim(): Promise<void> {
    for (;;) {
      const free = this.concurrency - this.slots.size;
      if (free <= 0 || this.stopping) return;
      const runs = await claimDueRuns(this.opts.db, this.owner, free, this.leaseMs);
      for (const run of runs) {
        const slot = newSlot(run.id);
        const done = new RunProcessor(this.ctx, run, slot).process()
          .catch((err) => this.opts.log.warn({ err, run: run.id }, 'playbooks: run failed in the engine'))
          .finally(() => {
            this.slots.delete(run.id);
            this.kick();
          });
        this.slots.set(run.id, { slot, done });
      }
      if (runs.length < free) return;
    }
  }

  private async heartbeat(): Promise<void> {
    const ids = [...this.slots.keys()];
    if (!ids.length) return;
    try {
      const held = await renewLeases(this.opts.db, this.owner, ids, this.leaseMs);
      // a run no longer held was cancelled (a NOTIFY this replica missed) or taken over: stop its action
      for (const id of ids) if (!held.has(id)) this.slots.get(id)?.slot.abort('cancel');
    } catch (err) {
      this.opts.log.warn({ err }, 'playbooks: lease renewal failed');
    }
  }

  private onNotify(payload: string | undefined): void {
    if (!payload || payload === 'wake') return this.kick();
    if (payload.startsWith('cancel:')) this.slots.get(payload.slice('cancel:'.length))?.slot.abort('cancel');
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.opts.connectionString });
    const retry = () => {
      if (this.listener === client) this.listener = null;
      client.end().catch(() => undefined);
      if (this.stopped || this.reconnect) return;
      this.reconnect = setTimeout(() => {
        this.reconnect = null;
        void this.listen();
      }, 1_000);
      this.reconnect.unref();
    };
    client.on('error', (err) => {
      this.opts.log.warn({ err }, 'playbooks: engine LISTEN connection lost');
      retry();
    });
    client.on('notification', (n) => this.onNotify(n.payload));
    try {
      await client.connect();
      await client.query(`LISTEN ${ENGINE_CHANNEL}`);
      if (this.stopped) {
        await client.end();
        return;
      }
      this.listener = client;
      client.on('end', retry);
      this.kick(); // what was announced while not listening
    } catch (err) {
      this.opts.log.warn({ err }, 'playbooks: engine could not LISTEN; the sweep still runs');
      retry();
    }
  }
}
