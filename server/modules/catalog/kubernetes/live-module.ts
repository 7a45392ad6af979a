import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../../config.js';
import { saveResult } from '../engine/save.js';
import { configFeatureOn } from '../engine/scheduler.js';
import { KubernetesLive } from './live.js';

export interface KubernetesLiveModuleOptions {
  config: Config;
  /** How often the kubernetes scrapers are re-read besides the live-update bus (tests shorten it). */
  pollMs?: number;
}

/**
 * The live side of the kubernetes scraper in the console: on the leader, each kubernetes scraper's kinds are watched
 * and every change is saved through the engine's saveResult (the schedule's runs reconcile). One register line in
 * app.ts, after the catalog module.
 */
export const kubernetesLiveModule: FastifyPluginAsync<KubernetesLiveModuleOptions> = async (app, opts) => {
  if (opts.config.MODE !== 'console') return;
  const leadership = app.hasDecorator('leadership') ? app.leadership : null;
  const live = new KubernetesLive({
    db: app.db,
    kube: app.hasDecorator('kube') ? app.kube.cluster?.kc : undefined,
    log: app.log.child({ module: 'catalog-live' }),
    isLeader: () => (leadership ? leadership.isLeader() : true),
    // `config` disabled pauses the catalog: a refused save keeps its marks and is retried, so the changes land once
    // the feature is back on (the informers keep their caches meanwhile)
    save: async (id, result) => {
      if (!(await configFeatureOn(app.db))) throw new Error('the catalog (feature config) is disabled');
      return saveResult(app.db, id, result);
    },
    pollMs: opts.pollMs,
  });
  // a scraper saved anywhere (CR sync, /api/db) is watched, re-watched or dropped at once, not at the next poll
  const off = app.hasDecorator('events')
    ? app.events.bus.subscribe((event) => {
      if (event.type === 'resync' || (event.type === 'change' && event.relation === 'config_scrapers')) void live.refresh();
    })
    : () => true;
  let offLead = () => {};
  app.addHook('onReady', async () => {
    live.start();
    offLead = leadership ? leadership.onChange(() => void live.refresh()) : offLead;
  });
  app.addHook('onClose', async () => {
    off();
    offLead();
    await live.stop();
  });
};
