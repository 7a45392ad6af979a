import { Limiter } from '../../health/limiter.js';
import type { Pusher } from './push.js';
import type { TopologyRecord } from './queries.js';
import { runTopology, type RunDeps, type RunOutcome } from './run.js';
import { LookupError, type LinkStep, type LookupRunner } from './types.js';

/** Topology runs at once on the leader: lookups are I/O-bound, a save of thousands of components is not free. */
export const TOPOLOGY_CONCURRENCY = 2;

/** Until a lookup runner is given, a lookup fails its component with this (the rest of the topology builds). */
export const noLookups: LookupRunner = async () => {
  throw new LookupError('lookups are not available');
};

export type RunnerDeps = Omit<RunDeps, 'lookup' | 'linkSteps'> & {
  /** The lookup runner and link steps, resolved on the first run (they import the check types and the selectors). */
  parts: () => Promise<{ lookup: LookupRunner; linkSteps: LinkStep[]; push?: Pusher }>;
};

/**
 * Runs topologies for the scheduler and for Run Now alike: never two runs of one topology at once (Run Now during a
 * scheduled run waits for it, then runs, so its answer is a run that began after the request), at most
 * TOPOLOGY_CONCURRENCY runs in all.
 */
export class TopologyRunner {
  private readonly running = new Map<string, Promise<RunOutcome>>();
  private readonly limiter = new Limiter(TOPOLOGY_CONCURRENCY, 0);
  private resolved: Promise<{ lookup: LookupRunner; linkSteps: LinkStep[]; push?: Pusher }> | null = null;

  constructor(private readonly deps: RunnerDeps) {}

  isRunning(id: string): boolean {
    return this.running.has(id);
  }

  run(topology: TopologyRecord): Promise<RunOutcome> {
    const before = this.running.get(topology.id);
    const mine: Promise<RunOutcome> = (before ? before.catch(() => undefined) : Promise.resolve())
      .then(() => this.limiter.run(async () => {
        this.resolved ??= this.deps.parts();
        const { parts: _p, ...deps } = this.deps;
        return runTopology({ ...deps, ...await this.resolved }, topology);
      }))
      .finally(() => {
        if (this.running.get(topology.id) === mine) this.running.delete(topology.id);
      });
    this.running.set(topology.id, mine);
    return mine;
  }

  async idle(): Promise<void> {
    await Promise.allSettled([...this.running.values()]);
  }
}
