import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import type pg from 'pg';
import { Limiter } from './limiter.js';
import { canariesSignature, insertJobHistory, loadSchedulable, type SchedulableCanary } from './queries.js';
import { CACHED_WINDOWS, refreshSummaryCache } from './read-queries.js';
import { runRetention, type RetentionOptions } from './retention.js';
import { runAndRecord, type Outcome, type Recorded, type RunnableCheck } from './runner.js';
import { intervalMs, nextRun, parseSchedule, type Schedule } from './schedule.js';
import type { ConnectionResolver } from './connections.js';
import type { ValueFromResolver } from './value-from.js';

export interface SchedulerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface SchedulerOptions {
  log: SchedulerLog;
  /** Checks running at once in the main lane (a hung one moves to the slow lane after slowAfterMs). */
  concurrency?: number;
  slowAfterMs?: number;
  /** How often due canaries are looked for. */
  tickMs?: number;
  /** How often the canaries table is polled for changes made elsewhere (another replica, /api/db). */
  reloadMs?: number;
  defaultTimeoutMs?: number;
  /** Refresh the precomputed summary windows (false in tests that arrange their own). */
  summaryCache?: boolean;
  /** Retention job period; 0 disables it. */
  retentionEveryMs?: number;
  retention?: RetentionOptions;
  /** Called with the ids of checks that have new results (at most once per canary run). */
  onResults?: (checkIds: string[]) => void;
  /** Called with every outcome once stored (custom check metrics: check-metrics.ts). */
  onOutcome?: (check: RunnableCheck, outcome: Outcome) => void;
  /** Resolves `valueFrom` in check specs from the canary's namespace (app.kube.valueFrom). */
  valueFrom?: ValueFromResolver;
  /** Merges `connection://` references in check specs (rows of `connections`). */
  connections?: ConnectionResolver;
  now?: () => number;
}

interface Entry {
  canary: SchedulableCanary;
  schedule: Schedule;
  next: number | null;
  running: boolean;
}

const LAG_SAMPLES = 4_096;
/** Check types whose results arrive by push, not by a run. */
const PUSHED_TYPES = new Set(['webhook']);

/**
 * Runs canaries on their schedules: each canary at a stable place in its interval, never two runs of one canary at
 * once (a run still going when the next is due skips that occurrence), checks bounded by a Limiter and each by its
 * timeout. Changes are picked up by polling a cheap signature of the canaries table every `reloadMs` and at once
 * through `reload()` after a change made here.
 *
 * One replica only should run this: electing a leader (a Lease) is left for when several replicas are deployed.
 */
export class HealthScheduler {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly limiter: Limiter;
  private readonly stopSignal = new AbortController();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly reportedInvalid = new Map<string, string>();
  private signature = '';
  private loading: Promise<void> | null = null;
  private reloadAgain = false;
  private started = false;
  private readonly lags: number[] = [];
  private counters = { runs: 0, skipped: 0, checks: 0 };
  private readonly now: () => number;

  constructor(private readonly db: pg.Pool, private readonly opts: SchedulerOptions) {
    this.limiter = new Limiter(opts.concurrency ?? 64, (opts.concurrency ?? 64) * 4, opts.slowAfterMs ?? 2_000);
    this.now = opts.now ?? Date.now;
    // every running check listens for shutdown on this one signal
    setMaxListeners(0, this.stopSignal.signal);
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.reload().catch((err) => this.opts.log.error({ err }, 'health scheduler: initial load failed'));
    const every = (ms: number, fn: () => void) => {
      const t = setInterval(fn, ms);
      t.unref();
      this.timers.push(t);
    };
    every(this.opts.tickMs ?? 200, () => this.tick());
    every(this.opts.reloadMs ?? 3_000, () => void this.poll());
    if (this.opts.summaryCache !== false) {
      for (const w of CACHED_WINDOWS) {
        this.track(this.refreshCache(w.windowMs));
        every(w.everyMs, () => this.track(this.refreshCache(w.windowMs)));
      }
    }
    const retentionMs = this.opts.retentionEveryMs ?? 3_600_000;
    if (retentionMs > 0) {
      const first = setTimeout(() => this.track(this.retention()), Math.min(60_000, retentionMs));
      first.unref();
      this.timers.push(first);
      every(retentionMs, () => this.track(this.retention()));
    }
  }

  /** Stops scheduling, aborts running checks and waits (briefly) for them to record their outcome. */
  async stop(): Promise<void> {
    this.started = false;
    for (const t of this.timers) clearInterval(t); // clears timeouts too
    this.timers.length = 0;
    this.stopSignal.abort();
    const all = Promise.allSettled([...this.inFlight, this.loading]);
    await Promise.race([all, new Promise((r) => setTimeout(r, 3_000).unref())]);
  }

  /** Re-reads every canary now (after a change made through this replica). */
  reload(): Promise<void> {
    this.signature = '';
    return this.poll();
  }

  /** Scheduled canaries, runs, skipped occurrences, and the dispatch lag (ms late against the plan). */
  stats() {
    const sorted = [...this.lags].sort((a, b) => a - b);
    const q = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] : 0);
    return {
      scheduled: [...this.entries.values()].filter((e) => e.next !== null).length,
      ...this.counters, running: this.limiter.running, waiting: this.limiter.waiting,
      lagP50: q(0.5), lagP99: q(0.99), lagMax: sorted.at(-1) ?? 0,
    };
  }

  /** When a canary runs next (epoch ms), or null when it is not scheduled. */
  nextRunOf(canaryId: string): number | null {
    return this.entries.get(canaryId)?.next ?? null;
  }

  private poll(): Promise<void> {
    if (this.loading) {
      this.reloadAgain = true;
      return this.loading;
    }
    this.loading = (async () => {
      do {
        this.reloadAgain = false;
        const sig = await canariesSignature(this.db);
        if (sig !== this.signature) {
          await this.apply(await loadSchedulable(this.db));
          this.signature = sig;
        }
      } while (this.reloadAgain && this.started);
    })().catch((err) => {
      if (!this.stopSignal.signal.aborted) this.opts.log.warn({ err }, 'health scheduler: reload failed');
    }).finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async apply(canaries: SchedulableCanary[]): Promise<void> {
    const now = this.now();
    const seen = new Set<string>();
    for (const loaded of canaries) {
      // results of webhook checks are pushed (POST /api/canary/webhook/:id): never scheduled
      const c = { ...loaded, checks: loaded.checks.filter((ch) => !PUSHED_TYPES.has(ch.type)) };
      const replicas = typeof c.spec.replicas === 'number' ? c.spec.replicas : 1;
      if (replicas === 0 || c.checks.length === 0) continue;
      let schedule: Schedule;
      try {
        schedule = parseSchedule(c.spec.schedule as string | undefined, c.spec.interval as number | undefined);
      } catch (err) {
        await this.reportInvalid(c, (err as Error).message);
        continue;
      }
      if (schedule.kind === 'never') continue;
      seen.add(c.id);
      const e = this.entries.get(c.id);
      if (!e) {
        this.entries.set(c.id, { canary: c, schedule, next: nextRun(schedule, now, c.id), running: false });
        continue;
      }
      // the same entry object, so a run in progress still clears `running` on it when it ends
      e.canary = c;
      if (e.schedule.text !== schedule.text || e.next === null) {
        e.schedule = schedule;
        e.next = nextRun(schedule, now, c.id);
      }
    }
    for (const id of this.entries.keys()) if (!seen.has(id)) this.entries.delete(id);
  }

  /** A stored canary whose schedule no longer parses: one FAILED job history row per version of it. */
  private async reportInvalid(c: SchedulableCanary, error: string) {
    if (this.reportedInvalid.get(c.id) === c.updated_at) return;
    this.reportedInvalid.set(c.id, c.updated_at);
    this.opts.log.warn({ canary: c.id, error }, 'health scheduler: canary not scheduled');
    const t = new Date();
    await insertJobHistory(this.db, {
      name: 'Canary', resourceType: 'canary', resourceId: c.id, status: 'FAILED', successCount: 0, errorCount: 1,
      details: { error }, hostname: hostname(), start: t, end: t,
    }).catch(() => undefined);
  }

  private tick(): void {
    if (!this.started) return;
    const now = this.now();
    for (const e of this.entries.values()) {
      if (e.next === null || e.next > now) continue;
      const planned = e.next;
      e.next = nextRun(e.schedule, now, e.canary.id);
      if (e.running) {
        this.counters.skipped++;
        continue;
      }
      this.lags.push(now - planned);
      if (this.lags.length > LAG_SAMPLES) this.lags.splice(0, this.lags.length - LAG_SAMPLES);
      this.track(this.runCanary(e));
    }
  }

  private async runCanary(e: Entry): Promise<void> {
    e.running = true;
    this.counters.runs++;
    const canary = e.canary;
    const start = new Date();
    const next = e.next === null ? null : new Date(e.next);
    const maxTimeoutMs = intervalMs(e.schedule) ?? undefined;
    const severity = typeof canary.spec.severity === 'string' ? canary.spec.severity.toLowerCase() : null;
    try {
      const results = await Promise.all(canary.checks.map((ch) => this.limiter.run(() => {
        if (this.stopSignal.signal.aborted) return Promise.resolve(null);
        this.counters.checks++;
        return runAndRecord(this.db, {
          id: ch.id, canaryId: canary.id, type: ch.type, name: ch.name, spec: ch.spec, namespace: canary.namespace,
          severity: typeof ch.spec.severity === 'string' ? ch.spec.severity.toLowerCase() : severity,
        }, {
          signal: this.stopSignal.signal, maxTimeoutMs, defaultTimeoutMs: this.opts.defaultTimeoutMs, nextRuntime: next,
          valueFrom: this.opts.valueFrom, connections: this.opts.connections,
        });
      }).catch((err): Recorded | null => {
        if (!this.stopSignal.signal.aborted) this.opts.log.warn({ err, check: ch.id }, 'health: could not record a result');
        return null;
      })));
      results.forEach((r, i) => {
        if (r) this.opts.onOutcome?.({ ...canary.checks[i], canaryId: canary.id, namespace: canary.namespace }, r.outcome);
      });
      const done = results.filter((r): r is Recorded => r !== null);
      if (!done.length) return;
      const failed = done.filter((r) => !r.outcome.pass);
      this.opts.onResults?.(canary.checks.map((c) => c.id));
      await insertJobHistory(this.db, {
        name: 'Canary', resourceType: 'canary', resourceId: canary.id, status: failed.length ? 'FAILED' : 'SUCCESS',
        successCount: done.length - failed.length, errorCount: failed.length, hostname: hostname(), start, end: new Date(),
        details: failed.length ? { errors: failed.slice(0, 10).map((r) => r.outcome.error ?? 'failed') } : null,
      });
    } catch (err) {
      if (!this.stopSignal.signal.aborted) this.opts.log.warn({ err, canary: canary.id }, 'health: canary run failed');
    } finally {
      e.running = false;
    }
  }

  /** Remembers work under way, so stop() can wait for it. */
  private track(p: Promise<void>): void {
    const tracked = p.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  private async refreshCache(windowMs: number): Promise<void> {
    if (!this.started) return;
    try {
      await refreshSummaryCache(this.db, windowMs);
    } catch (err) {
      if (!this.stopSignal.signal.aborted) this.opts.log.warn({ err, windowMs }, 'health: summary refresh failed');
    }
  }

  private async retention(): Promise<void> {
    if (!this.started) return;
    try {
      await runRetention(this.db, this.opts.retention);
    } catch (err) {
      this.opts.log.warn({ err }, 'health: retention failed');
    }
  }
}
