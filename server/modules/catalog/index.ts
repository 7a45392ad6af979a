import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../config.js';
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
  // the scrape schedule runs in the console only (an agent's comes with the agent issue; a check runner has none)
  const runs = opts.scheduler !== false && opts.config.MODE === 'console';
  let scheduler: CatalogScheduler | undefined;

  await app.register(configRoutes, { prefix: '/api/config', runner });

  if (runs) {
    // Only the leader schedules (as the health scheduler: app.leadership from the kube plugin). A scheduler does not
    // restart after stop(), so each gain of the lead starts a new one.
    const leadership = app.hasDecorator('leadership') ? app.leadership : null;
    let closing = false;
    let change = Promise.resolve();
    const follow = (leads: boolean) => {
      change = change.then(async () => {
        if (leads && !scheduler && !closing) {
          // config.disable pauses the scheduled runs (Run Now is refused by the routes), and they resume when it is lifted
          scheduler = new CatalogScheduler(app.db, runner, { enabled: () => configFeatureOn(app.db), ...(opts.scheduler || {}), log: app.log });
          await scheduler.start();
        } else if (!leads && scheduler) {
          const s = scheduler;
          scheduler = undefined;
          await s.stop();
        }
      }).catch((err) => app.log.error({ err }, 'catalog scheduler: start/stop failed'));
      return change;
    };
    // a scraper saved here or anywhere (CR sync, another replica's /api/db write) is reloaded at once, not at the next poll
    const off = app.hasDecorator('events')
      ? app.events.bus.subscribe((event) => {
        if (event.type === 'resync' || (event.type === 'change' && event.relation === 'config_scrapers')) void scheduler?.reload();
      })
      : () => true;
    let offLead = () => {};
    app.addHook('onReady', async () => {
      offLead = leadership ? leadership.onChange(follow) : offLead;
      await follow(leadership ? leadership.isLeader() : true);
    });
    app.addHook('onClose', async () => {
      closing = true;
      off();
      offLead();
      await follow(false);
    });
  }
  app.addHook('onClose', async () => {
    stopping.abort();
    await runner.idle();
  });
};
