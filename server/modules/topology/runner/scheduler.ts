import { createHash } from 'node:crypto';
import type pg from 'pg';
import { featureStates } from '../../../contracts/rbac.js';
import { recordJob } from '../../../lib/job-history.js';
import { propertyMap } from '../../auth/queries.js';
import { nextRun, parseSchedule, type Schedule } from '../../health/schedule.js';
import { liveTopologies, topologiesSignature, type TopologyRecord } from './queries.js';
import type { TopologyRunner } from './runner.js';

/** A topology without a schedule runs every ten minutes (canary-checker's default topology schedule). */
export const DEFAULT_TOPOLOGY_SCHEDULE = '@every 10m';
/** Shortest interval between scheduled runs of a topology: a faster schedule is raised to this. */
export const MIN_TOPOLOGY_INTERVAL_MS = 30_000;

export interface TopologySchedulerOptions {
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  tickMs?: number;
  /** How often topologies are polled for changes made elsewhere (another replica, a CR sync). */
  reloadMs?: number;
  /** Whether scheduled runs may start (the `topology` feature); due runs wait while it answers false. */
  enabled?: () => Promise<boolean>;
}

/** The `topology` feature flag (`topology.disable`), read on each call. */
export async function topologyFeatureOn(db: pg.Pool): Promise<boolean> {
  return featureStates(await propertyMap(db)).topology;
}

/** A topology's schedule: the spec's, else the row's, else every 10 minutes; never faster than every 30 s. */
export function topologySchedule(t: Pick<TopologyRecord, 'spec' | 'schedule'>): Schedule {
  const spec = t.spec ?? {};
  const text = typeof spec.schedule === 'string' && spec.schedule.trim() ? spec.schedule
    : t.schedule?.trim() ? t.schedule : DEFAULT_TOPOLOGY_SCHEDULE;
  const s = parseSchedule(text);
  if (s.kind === 'every' && s.everyMs < MIN_TOPOLOGY_INTERVAL_MS) return { ...s, everyMs: MIN_TOPOLOGY_INTERVAL_MS };
  if (s.kind === 'cron' && s.periodMs < MIN_TOPOLOGY_INTERVAL_MS) return { kind: 'every', text: s.text, everyMs: MIN_TOPOLOGY_INTERVAL_MS };
  return s;
}

interface Entry { topology: TopologyRecord; schedule: Schedule; next: number | null; version: string }
const versionOf = (t: TopologyRecord) => createHash('sha1').update(JSON.stringify([t.name, t.namespace, t.labels, t.spec, t.schedule])).digest('base64');

/**
 * Runs each live topology on its schedule, on the leader only (index.ts starts one on gaining the lead). A topology
 * runs as soon as it is loaded, created or changed (a save in the console, a CR applied), then on its schedule;
 * `@never` only by Run Now. One still running when due skips that occurrence. While `enabled` answers false
 * (topology.disable) nothing starts; what fell due meanwhile runs once it is back on.
 */
export class TopologyScheduler {
  private readonly entries = new Map<string, Entry>();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly reported = new Map<string, string>();
  private signature = '';
  private loading: Promise<void> | null = null;
  private again = false;
  private started = false;
  private ticking = false;

  constructor(private readonly db: pg.Pool, private readonly runner: TopologyRunner, private readonly opts: TopologySchedulerOptions) {}

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.reload();
    const every = (ms: number, fn: () => void) => {
      const t = setInterval(fn, ms);
      t.unref();
      this.timers.push(t);
    };
    every(this.opts.tickMs ?? 1_000, () => this.tick());
    every(this.opts.reloadMs ?? 3_000, () => void this.poll());
  }

  async stop(): Promise<void> {
    this.started = false;
    for (const t of this.timers) clearInterval(t);
    this.timers.length = 0;
    await this.loading?.catch(() => undefined);
  }

  /** Re-reads topologies now (a change announced on the bus). */
  reload(): Promise<void> {
    this.signature = '';
    return this.poll();
  }

  private poll(): Promise<void> {
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    this.loading = (async () => {
      do {
        this.again = false;
        const sig = await topologiesSignature(this.db);
        if (sig !== this.signature) {
          this.apply(await liveTopologies(this.db));
          this.signature = sig;
        }
      } while (this.again && this.started);
    })().catch((err) => {
      if (this.started) this.opts.log.warn({ err }, 'topology scheduler: reload failed');
    }).finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private apply(topologies: TopologyRecord[]): void {
    const now = Date.now();
    const seen = new Set<string>();
    for (const t of topologies) {
      const version = versionOf(t);
      let schedule: Schedule;
      try {
        schedule = topologySchedule(t);
      } catch (err) {
        void this.reportInvalid(t, version, (err as Error).message);
        continue;
      }
      if (schedule.kind === 'never') continue;
      seen.add(t.id);
      const e = this.entries.get(t.id);
      if (e && e.version === version) continue;
      // new or changed: runs at once, then on its schedule (@never: by Run Now only, as a scraper)
      this.entries.set(t.id, { topology: t, schedule, next: now, version });
    }
    for (const id of this.entries.keys()) if (!seen.has(id)) this.entries.delete(id);
  }

  /** A stored topology whose schedule does not parse (a CR from before validation): one FAILED job per version. */
  private async reportInvalid(t: TopologyRecord, version: string, error: string) {
    this.entries.delete(t.id);
    if (this.reported.get(t.id) === version) return;
    this.reported.set(t.id, version);
    await recordJob(this.db, {
      name: 'TopologyRun', resourceType: 'topology', resourceId: t.id, status: 'FAILED', successCount: 0, errorCount: 1,
      details: { errors: [`spec.schedule: ${error}`] },
    }).catch(() => undefined);
  }

  private tick(): void {
    if (!this.started || this.ticking) return;
    const now = Date.now();
    if (![...this.entries.values()].some((e) => e.next !== null && e.next <= now)) return;
    this.ticking = true;
    void (this.opts.enabled ? this.opts.enabled() : Promise.resolve(true)).catch(() => false).then((on) => {
      if (!on || !this.started) return;
      for (const e of this.entries.values()) {
        if (e.next === null || e.next > now) continue;
        e.next = nextRun(e.schedule, now, e.topology.id);
        if (this.runner.isRunning(e.topology.id)) continue;
        void this.runner.run(e.topology).catch((err) => this.opts.log.error({ err, topology: e.topology.id }, 'topology: run failed'));
      }
    }).finally(() => {
      this.ticking = false;
    });
  }
}
