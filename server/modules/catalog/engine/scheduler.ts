import { createHash } from 'node:crypto';
import type pg from 'pg';
import { featureStates } from '../../../contracts/rbac.js';
import { recordJob } from '../../../lib/job-history.js';
import { propertyMap } from '../../auth/queries.js';
import { nextRun, parseSchedule, type Schedule } from '../../health/schedule.js';
import { liveScrapers, scrapersSignature, type LiveScraper } from './queries.js';
import type { ScrapeRunner } from './runner.js';

/** A scraper without a schedule runs hourly, as config-db's default. */
export const DEFAULT_SCHEDULE = '@every 60m';
/** Shortest interval between runs of a scraper: a faster schedule is raised to this. */
export const MIN_SCRAPE_INTERVAL_MS = 30_000;

export interface CatalogSchedulerOptions {
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** How often due scrapers are looked for. */
  tickMs?: number;
  /** How often config_scrapers is polled for changes made elsewhere (another replica, a CR sync). */
  reloadMs?: number;
  now?: () => number;
  /**
   * Whether scheduled runs may start (the `config` feature, read when something is due): while it answers false,
   * due scrapers stay due and run once it answers true again.
   */
  enabled?: () => Promise<boolean>;
}

/** The `config` feature flag (`config.disable`), read on each call as requireFeature does: every replica sees a change. */
export async function configFeatureOn(db: pg.Pool): Promise<boolean> {
  return featureStates(await propertyMap(db)).config;
}

interface Entry {
  scraper: LiveScraper;
  schedule: Schedule;
  next: number | null;
  version: string;
}

/** A scraper's schedule: its spec's, `@every 60m` without one, never faster than every 30 s. Throws on a bad one. */
export function scraperSchedule(spec: Record<string, unknown>): Schedule {
  const text = typeof spec.schedule === 'string' && spec.schedule.trim() ? spec.schedule : DEFAULT_SCHEDULE;
  const s = parseSchedule(text);
  if (s.kind === 'every' && s.everyMs < MIN_SCRAPE_INTERVAL_MS) return { ...s, everyMs: MIN_SCRAPE_INTERVAL_MS };
  if (s.kind === 'cron' && s.periodMs < MIN_SCRAPE_INTERVAL_MS) return { kind: 'every', text: s.text, everyMs: MIN_SCRAPE_INTERVAL_MS };
  return s;
}

const versionOf = (s: LiveScraper) => createHash('sha1').update(JSON.stringify([s.name, s.namespace, s.spec])).digest('base64');

/**
 * Runs each live scraper of this agent on its schedule (the leader only: routes start one on gaining the lead).
 * A scraper runs once as soon as it is loaded, created or its spec changes, then on its schedule; `@never` only by
 * Run Now. A scraper still running when due skips that occurrence (ScrapeRunner: one run at a time, bounded
 * concurrency). Changes to config_scrapers are picked up from a polled signature, and at once through reload().
 * While `enabled` answers false (the `config` feature is off) nothing starts; the scrapers due meanwhile run once
 * when it is back on, then on their schedules.
 */
export class CatalogScheduler {
  private readonly entries = new Map<string, Entry>();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly reportedInvalid = new Map<string, string>();
  private signature = '';
  private loading: Promise<void> | null = null;
  private again = false;
  private started = false;
  private ticking = false;
  private paused = false;
  private readonly now: () => number;

  constructor(private readonly db: pg.Pool, private readonly runner: ScrapeRunner, private readonly opts: CatalogSchedulerOptions) {
    this.now = opts.now ?? Date.now;
  }

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

  /** Re-reads config_scrapers now (a change made through this replica, or announced on the bus). */
  reload(): Promise<void> {
    this.signature = '';
    return this.poll();
  }

  /** When a scraper runs next (epoch ms), or null when it is not scheduled. */
  nextRunOf(id: string): number | null {
    return this.entries.get(id)?.next ?? null;
  }

  private poll(): Promise<void> {
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    this.loading = (async () => {
      do {
        this.again = false;
        const sig = await scrapersSignature(this.db);
        if (sig !== this.signature) {
          this.apply(await liveScrapers(this.db));
          this.signature = sig;
        }
      } while (this.again && this.started);
    })().catch((err) => {
      if (this.started) this.opts.log.warn({ err }, 'catalog scheduler: reload failed');
    }).finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private apply(scrapers: LiveScraper[]): void {
    const now = this.now();
    const seen = new Set<string>();
    for (const s of scrapers) {
      let schedule: Schedule;
      const version = versionOf(s);
      try {
        schedule = scraperSchedule(s.spec);
      } catch (err) {
        void this.reportInvalid(s, version, (err as Error).message);
        continue;
      }
      if (schedule.kind === 'never') continue;
      seen.add(s.id);
      const e = this.entries.get(s.id);
      if (e && e.version === version) {
        e.scraper = s;
        continue;
      }
      // new or changed: runs at once, then on its schedule
      this.entries.set(s.id, { scraper: s, schedule, next: now, version });
    }
    for (const id of this.entries.keys()) if (!seen.has(id)) this.entries.delete(id);
  }

  /** A stored scraper whose schedule does not parse (a CR from before validation): one FAILED job per version. */
  private async reportInvalid(s: LiveScraper, version: string, error: string) {
    this.entries.delete(s.id);
    if (this.reportedInvalid.get(s.id) === version) return;
    this.reportedInvalid.set(s.id, version);
    this.opts.log.warn({ scraper: s.id, error }, 'catalog scheduler: scraper not scheduled');
    await recordJob(this.db, {
      name: 'Scraper', resourceType: 'config_scraper', resourceId: s.id, status: 'FAILED', successCount: 0, errorCount: 1,
      details: { errors: [`spec.schedule: ${error}`] },
    }).catch(() => undefined);
  }

  private tick(): void {
    if (!this.started || this.ticking) return;
    if (![...this.entries.values()].some((e) => e.next !== null && e.next <= this.now())) return;
    this.ticking = true;
    void this.isEnabled().then((on) => {
      if (on === null) return; // not known this tick: the due scrapers stay due for the next
      if (on === this.paused) {
        this.opts.log.warn({}, on ? 'catalog scheduler: config is enabled again, scheduled runs resume'
          : 'catalog scheduler: config is disabled (config.disable), scheduled runs wait until it is enabled');
      }
      this.paused = !on;
      if (on) this.runDue();
    }).finally(() => {
      this.ticking = false;
    });
  }

  /** The feature flag; null when it could not be read. */
  private async isEnabled(): Promise<boolean | null> {
    if (!this.opts.enabled) return true;
    try {
      return await this.opts.enabled();
    } catch (err) {
      this.opts.log.warn({ err }, 'catalog scheduler: could not read the config feature flag');
      return null;
    }
  }

  private runDue(): void {
    if (!this.started) return;
    const now = this.now();
    for (const e of this.entries.values()) {
      if (e.next === null || e.next > now) continue;
      e.next = nextRun(e.schedule, now, e.scraper.id);
      // still running from the last occurrence (or a Run Now): this one is skipped
      if (this.runner.isRunning(e.scraper.id)) continue;
      void this.runner.run(e.scraper).catch((err) => this.opts.log.error({ err, scraper: e.scraper.id }, 'catalog: scraper run failed'));
    }
  }
}
