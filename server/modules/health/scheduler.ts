import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type pg from 'pg';
import { dependenciesOf, dependsOnOf, inDependencyOrder, outputOf, transitiveDependencies } from './depends-on.js';
import { Limiter } from './limiter.js';
import { recordJob, startJob } from '../../lib/job-history.js';
import { canariesSignature, loadSchedulable, type SchedulableCanary } from './queries.js';
import { CACHED_WINDOWS, refreshSummaryCache } from './read-queries.js';
import { runRetention, type RetentionOptions } from './retention.js';
import { runAndRecord, type Outcome, type Recorded, type RunnableCheck } from './runner.js';
import { intervalMs, nextRun, parseSchedule, spreadOffset, type Schedule } from './schedule.js';
import type { ConnectionResolver } from './connections.js';
import type { ValueFromResolver } from '../../lib/value-from.js';

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
  /** Called with the ids of checks that have new results (as each check of a run finishes). */
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
  /** Checks of this canary still running: an occurrence due meanwhile skips them, and only them. */
  running: Set<string>;
  /** A digest of the spec and its checks: a change runs the canary again at once. */
  version: string;
  /** The next run is a first run (on load or after a change), not a regular occurrence. */
  first: boolean;
}

const LAG_SAMPLES = 4_096;
/** A canary run shows as RUNNING on the Job History page once it has taken this long (job-history.ts says why). */
const SHOW_RUNNING_AFTER_MS = 2_000;
/**
 * First runs (a canary loaded, created or changed) are spread at this many checks per second per main-lane slot,
 * over at most FIRST_RUN_SPREAD_MAX_MS: a handful of canaries run at once, 10,000 checks at a concurrency of 64 over
 * ~20 s, so neither the limiter's queue nor the targets get them all in one go and scheduled runs keep their slots.
 */
const FIRST_RUNS_PER_SLOT_PER_S = 8;
const FIRST_RUN_SPREAD_MAX_MS = 60_000;
/** After a first run the regular schedule resumes, skipping an occurrence closer than half an interval (1 min at most). */
const FIRST_RUN_GAP_MAX_MS = 60_000;
/** Check types whose results arrive by push, not by a run. */
const PUSHED_TYPES = new Set(['webhook']);

/**
 * Runs canaries on their schedules: once as soon as a canary is loaded, created or its spec changes (as the
 * reference's RunNow), then each at a stable place in its interval. Never two runs of one check at once: a check
 * still running when its canary is due again skips that occurrence while its siblings run on schedule. Checks are
 * bounded by a Limiter and each by its timeout. Changes are picked up by polling a cheap signature of the canaries
 * table every `reloadMs` and at once through `reload()` after a change made here.
 *
 * One replica only runs this: the leader (routes.ts starts one on gaining the Lease and stops it on losing it), so
 * first runs happen once per fleet, on whichever replica leads.
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
  /** runs: canary occurrences run; skipped: check runs skipped (that check still running); checks: check runs. */
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

  /** Scheduled canaries, runs, skipped check runs, and the dispatch lag (ms late against the plan). */
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
    const fresh: Entry[] = [];
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
      const version = specVersion(c);
      const e = this.entries.get(c.id);
      if (!e) {
        const entry: Entry = { canary: c, schedule, next: null, running: new Set(), version, first: true };
        this.entries.set(c.id, entry);
        fresh.push(entry);
        continue;
      }
      // the same entry object, so checks in progress still leave `running` on it when they end
      e.canary = c;
      e.schedule = schedule;
      if (e.version !== version) {
        e.version = version;
        fresh.push(e);
      } else if (e.next === null) {
        e.next = nextRun(schedule, now, c.id);
      }
    }
    for (const id of this.entries.keys()) if (!seen.has(id)) this.entries.delete(id);
    this.planFirstRuns(fresh, now);
  }

  /**
   * New and changed canaries run once soon (spread by their number of checks, see FIRST_RUNS_PER_SLOT_PER_S), or at
   * their regular time when that comes first; their schedule follows from there.
   */
  private planFirstRuns(fresh: Entry[], now: number): void {
    if (!fresh.length) return;
    const checks = fresh.reduce((n, e) => n + e.canary.checks.length, 0);
    const perSecond = this.limiter.max * FIRST_RUNS_PER_SLOT_PER_S;
    const windowMs = Math.min(FIRST_RUN_SPREAD_MAX_MS, Math.floor((checks / perSecond) * 1000));
    for (const e of fresh) {
      const first = now + spreadOffset(e.canary.id, windowMs);
      const regular = nextRun(e.schedule, now, e.canary.id) ?? first;
      e.first = first < regular;
      e.next = Math.min(first, regular);
    }
  }

  /** A stored canary whose schedule no longer parses: one FAILED job history row per version of it. */
  private async reportInvalid(c: SchedulableCanary, error: string) {
    if (this.reportedInvalid.get(c.id) === c.updated_at) return;
    this.reportedInvalid.set(c.id, c.updated_at);
    this.opts.log.warn({ canary: c.id, error }, 'health scheduler: canary not scheduled');
    await recordJob(this.db, {
      name: 'Canary', resourceType: 'canary', resourceId: c.id, status: 'FAILED', successCount: 0, errorCount: 1,
      details: { error },
    }).catch(() => undefined);
  }

  private tick(): void {
    if (!this.started) return;
    const now = this.now();
    for (const e of this.entries.values()) {
      if (e.next === null || e.next > now) continue;
      const planned = e.next;
      // a first run is not followed at once by the regular occurrence that happened to be due just after it
      const gap = e.first ? Math.min((intervalMs(e.schedule) ?? 0) / 2, FIRST_RUN_GAP_MAX_MS) : 0;
      e.first = false;
      e.next = nextRun(e.schedule, now + gap, e.canary.id);
      // a check still running (a hung target waiting out its timeout) skips this occurrence; its siblings do not (a
      // check that depends on it waits for it, so is still running too, except in a race at the timeout's edge: then
      // it runs without that output, as after a dependency that failed)
      const due = e.canary.checks.filter((ch) => !e.running.has(ch.id));
      this.counters.skipped += e.canary.checks.length - due.length;
      if (!due.length) continue;
      this.lags.push(now - planned);
      if (this.lags.length > LAG_SAMPLES) this.lags.splice(0, this.lags.length - LAG_SAMPLES);
      this.track(this.runCanary(e, due));
    }
  }

  private async runCanary(e: Entry, checks: SchedulableCanary['checks']): Promise<void> {
    this.counters.runs++;
    const canary = e.canary;
    for (const ch of checks) e.running.add(ch.id);
    const job = startJob(this.db, { name: 'Canary', resourceType: 'canary', resourceId: canary.id }, { showRunningAfterMs: SHOW_RUNNING_AFTER_MS });
    const next = e.next === null ? null : new Date(e.next);
    const maxTimeoutMs = intervalMs(e.schedule) ?? undefined;
    const severity = typeof canary.spec.severity === 'string' ? canary.spec.severity.toLowerCase() : null;
    // dependsOn: a check waits (outside the limiter) for the checks it depends on in this occurrence, then runs with
    // the outputs of those that passed; the reference runs it whatever they returned
    const deps = dependenciesOf(canary.checks);
    const ran = new Map<string, Promise<Recorded | null>>();
    const outputsFor = async (ch: SchedulableCanary['checks'][number]) => {
      // an object, even empty, so that runAndRecord does not run the dependencies itself (as for Run Now)
      if (!dependsOnOf(ch.spec).length) return undefined;
      const upstream = transitiveDependencies(ch.id, deps);
      const done = await Promise.all(upstream.map((d) => ran.get(d.id)));
      return Object.fromEntries(upstream.flatMap((d, i) => (done[i]?.outcome.pass ? [[d.name, outputOf(done[i].outcome)]] : [])));
    };
    const runOne = (ch: SchedulableCanary['checks'][number], outputs: Record<string, unknown> | undefined) => this.limiter.run(() => {
      if (this.stopSignal.signal.aborted) return Promise.resolve(null);
      this.counters.checks++;
      return runAndRecord(this.db, {
        id: ch.id, canaryId: canary.id, type: ch.type, name: ch.name, spec: ch.spec, namespace: canary.namespace,
        severity: typeof ch.spec.severity === 'string' ? ch.spec.severity.toLowerCase() : severity,
      }, {
        signal: this.stopSignal.signal, maxTimeoutMs, defaultTimeoutMs: this.opts.defaultTimeoutMs, nextRuntime: next,
        valueFrom: this.opts.valueFrom, connections: this.opts.connections, outputs,
      });
    });
    try {
      const results = await Promise.all(inDependencyOrder(checks, deps).map((ch) => {
        const run = outputsFor(ch).then((outputs) => runOne(ch, outputs)).catch((err): Recorded | null => {
          if (!this.stopSignal.signal.aborted) this.opts.log.warn({ err, check: ch.id }, 'health: could not record a result');
          return null;
        }).then((r) => {
          // each check is free to run again, and its result shown, as soon as it is done: not when its slowest sibling is
          e.running.delete(ch.id);
          if (r) {
            this.opts.onOutcome?.({ ...ch, canaryId: canary.id, namespace: canary.namespace }, r.outcome);
            this.opts.onResults?.([ch.id]);
          }
          return r;
        });
        ran.set(ch.id, run);
        return run;
      }));
      const done = results.filter((r): r is Recorded => r !== null);
      if (!done.length) return await job.abandon();
      const failed = done.filter((r) => !r.outcome.pass);
      await job.finish({
        status: failed.length ? 'FAILED' : 'SUCCESS', successCount: done.length - failed.length, errorCount: failed.length,
        details: failed.length ? { errors: failed.slice(0, 10).map((r) => r.outcome.error ?? 'failed') } : null,
      });
    } catch (err) {
      await job.abandon().catch(() => undefined);
      if (!this.stopSignal.signal.aborted) this.opts.log.warn({ err, canary: canary.id }, 'health: canary run failed');
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

/** What a canary runs: its spec and its checks' specs (not updated_at, which also moves for status-only writes). */
function specVersion(c: SchedulableCanary): string {
  const json = JSON.stringify([c.spec, c.checks.map((ch) => [ch.id, ch.type, ch.name, ch.spec])]);
  return createHash('sha1').update(json).digest('base64');
}
