import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../config.js';
import { leaderScheduled } from '../../lib/leader-scheduled.js';
import { CatalogScheduler, configFeatureOn, type CatalogSchedulerOptions } from './engine/scheduler.js';
import { ScrapeRunner } from './engine/runner.js';
import { configRoutes } from './routes.js';

export interface CatalogModuleOptions {
  config: Config;
  /** Scheduler settings (tests shorten them); false never starts one. */
  scheduler?: Partial<Omit<CatalogSchedulerOptions, 'log'>> | false;
}

/**
 * The catalog: the scrape engine (scheduler on the leader, Run Now on any replica) and its routes. One register line
 * in app.ts.
 */
export const catalogModule: FastifyPluginAsync<CatalogModuleOptions> = async (app, opts) => {
  const stopping = new AbortController();
  const runner = new ScrapeRunner({
    db: app.db, log: app.log, signal: stopping.signal,
    kube: app.hasDecorator('kube') ? app.kube.cluster?.kc : undefined,
    valueFrom: app.hasDecorator('kube') ? app.kube.valueFrom : undefined,
  });
  // the scrape schedule runs in the console and in an agent (its ScrapeConfig CRs and, with AGENT_KUBERNETES_SCRAPE, its
  // cluster's kubernetes scraper: server/modules/agent-runtime/kubernetes-scraper.ts); a check runner has none
  const runs = opts.scheduler !== false && (opts.config.MODE === 'console' || opts.config.MODE === 'agent');

  await app.register(configRoutes, { prefix: '/api/config', runner });

  if (runs) {
    // Only the leader schedules (as the health scheduler); a scraper saved anywhere is reloaded at once, not at the
    // next poll. config.disable pauses the scheduled runs (Run Now is refused by the routes); they resume when lifted.
    leaderScheduled(app, {
      name: 'catalog scheduler', relation: 'config_scrapers',
      create: () => new CatalogScheduler(app.db, runner, { enabled: () => configFeatureOn(app.db), ...(opts.scheduler || {}), log: app.log }),
    });
  }
  app.addHook('onClose', async () => {
    stopping.abort();
    await runner.idle();
  });
};
