import { Limiter } from '../../health/limiter.js';
import { runScraper, type RunDeps, type RunOutcome, type ScraperRow } from './run.js';

/** Scraper runs at once, fleet-wide on the leader: extractors are I/O-bound, but a save of 10,000 items is not free. */
export const SCRAPE_CONCURRENCY = 4;

/**
 * Runs scrapers for the scheduler and for Run Now alike: never two runs of one scraper at once (Run Now during a
 * scheduled run waits for it, then runs), at most `concurrency` runs in all.
 */
export class ScrapeRunner {
  private readonly running = new Map<string, Promise<RunOutcome>>();
  private readonly limiter: Limiter;

  constructor(private readonly deps: RunDeps, concurrency = SCRAPE_CONCURRENCY) {
    // no slow lane: a run that hangs holds its slot until its timeout
    this.limiter = new Limiter(concurrency, 0);
  }

  isRunning(id: string): boolean {
    return this.running.has(id);
  }

  /** Runs the scraper once, after any run of it under way; resolves with this run's outcome. */
  run(scraper: ScraperRow): Promise<RunOutcome> {
    const before = this.running.get(scraper.id);
    const mine: Promise<RunOutcome> = (before ? before.catch(() => undefined) : Promise.resolve())
      .then(() => this.limiter.run(() => runScraper(this.deps, scraper)))
      .finally(() => {
        if (this.running.get(scraper.id) === mine) this.running.delete(scraper.id);
      });
    this.running.set(scraper.id, mine);
    return mine;
  }

  /** Waits for the runs under way (they end early once the deps' signal is aborted). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.running.values()]);
  }
}
