import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../../config.js';
import { leaderScheduled } from '../../../lib/leader-scheduled.js';
import { topologyRunRoutes } from '../run-routes.js';
import { TopologyRunner } from './runner.js';
import { TopologyScheduler, topologyFeatureOn, type TopologySchedulerOptions } from './scheduler.js';
import type { Pusher } from './push.js';
import type { LinkStep, LookupRunner } from './types.js';

export interface TopologyEngineOptions {
  /** The console's config: only MODE console schedules (default console). */
  config?: Pick<Config, 'MODE'>;
  /** Scheduler settings (tests shorten them); false never starts one. */
  scheduler?: Partial<Omit<TopologySchedulerOptions, 'log'>> | false;
  lookupTimeoutMs?: number;
}

/**
 * The run engine (issue 13 "Runs"): Run Now on any replica, the scheduler on the leader only (a new one on each gain
 * of the lead), reloaded at once when a topology is saved anywhere (`topologies` on the events bus), paused while
 * topology.disable. The lookup runner and the link steps are loaded on the first run.
 */
export const topologyEngine: FastifyPluginAsync<TopologyEngineOptions> = async (app, opts) => {
  const stopping = new AbortController();
  const kube = app.hasDecorator('kube') ? app.kube : undefined;
  const parts = async (): Promise<{ lookup: LookupRunner; linkSteps: LinkStep[]; push: Pusher }> => {
    const [{ createLookupRunner }, { LINK_STEPS }, { createPusher }] = await Promise.all([
      import('./lookup/index.js'), import('./links/index.js'), import('./push.js'),
    ]);
    return {
      lookup: createLookupRunner({ db: app.db, valueFrom: kube?.valueFrom, kubeConfig: () => kube?.cluster?.kc }),
      linkSteps: LINK_STEPS,
      push: createPusher({ db: app.db, valueFrom: kube?.valueFrom }),
    };
  };
  const runner = new TopologyRunner({
    db: app.db, log: app.log, kube: kube?.cluster?.kc, signal: stopping.signal, lookupTimeoutMs: opts.lookupTimeoutMs, parts,
  });
  await app.register(topologyRunRoutes, { runner });

  const runs = opts.scheduler !== false && (opts.config?.MODE ?? 'console') === 'console';
  if (runs) {
    leaderScheduled(app, {
      name: 'topology scheduler', relation: 'topologies',
      create: () => new TopologyScheduler(app.db, runner, { enabled: () => topologyFeatureOn(app.db), ...(opts.scheduler || {}), log: app.log }),
    });
  }
  app.addHook('onClose', async () => {
    stopping.abort();
    await runner.idle();
  });
};
