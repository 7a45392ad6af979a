import type { FastifyPluginAsync } from 'fastify';
import type pg from 'pg';
import type { Config } from '../../../config.js';
import { NOTIFICATION_SEND_EVENT } from '../../../contracts/notifications.js';
import { Sweeper } from '../../incidents/sweeper.js';
import { knownEvents } from '../../events/sources/index.js';
import { SilenceCache } from '../silences/cache.js';
import { matchHandler, RuleCache } from './match.js';
import { DeliveryPool, deliverRows, FinishBatcher, type DeliverOptions } from './delivery.js';
import { renewLease, retakeExpired } from './queries.js';
import { ResourceMemo } from './resource-memo.js';
import { sendHandler } from './send.js';
import { releaseDue } from './wait-for.js';

export interface PipelineOptions {
  config: Config;
  /** Longest wait between sweeps of held sends (ms); the sweeper also wakes at the next not_before and on new ones. */
  sweepMs?: number;
  /** The rule cache's lifetime (ms) when no change of notifications arrives. */
  ruleCacheMs?: number;
  /** Deliveries running at once on this replica (default 32). */
  deliveryConcurrency?: number;
  /** On close, how long deliveries in flight may finish (ms, default 5 s); the rest stay `sending` for the sweeper. */
  closeGraceMs?: number;
  /** Passed to deliver() (tests: fewer attempts, shorter backoff). */
  deliver?: DeliverOptions['deliver'];
}

/** When the earliest held send is due (ms from now), or null when none is held. */
async function nextDueMs(db: pg.Pool): Promise<number | null> {
  const { rows } = await db.query<{ ms: number | null }>(
    `SELECT extract(epoch FROM min(not_before) - now()) * 1000 AS ms FROM notification_send_history WHERE status IN ('pending', 'sending')`);
  return rows[0]?.ms === null || rows[0]?.ms === undefined ? null : Number(rows[0].ms);
}

/**
 * The send pipeline (issue 15 "Rules"), on every replica: a handler for every event a source writes (match rules,
 * enqueue one notification.send per recipient), the notification.send handler (silence, repeat, hold, render,
 * hand `sending` rows to the delivery pool), the pool (render, deliver, record outside any transaction) and the
 * sweeper that releases held sends (wait_for, digests, quiet hours) and re-takes `sending` rows whose lease expired.
 */
export const notificationPipeline: FastifyPluginAsync<PipelineOptions> = async (app, opts) => {
  const sweepMs = opts.sweepMs ?? 10_000;
  const rules = new RuleCache(app.db, opts.ruleCacheMs ?? 60_000);
  const silences = new SilenceCache(app.db);
  const resources = new ResourceMemo();
  const onEvent = matchHandler(rules, resources);
  for (const name of knownEvents()) app.eventQueue.on(name, onEvent);
  const leaseMs = opts.config.NOTIFICATION_DELIVERY_LEASE_SECONDS * 1000;
  const deliverOpts: DeliverOptions = { publicUrl: opts.config.publicUrl, deliver: opts.deliver };
  // outcomes written together: one UPDATE and one NOTIFY per flush
  const finisher = new FinishBatcher(app.db);
  const pool = new DeliveryPool(app.db, (ids, hint) => deliverRows(app.db, ids, deliverOpts, hint, finisher),
    (err) => app.log.warn({ err }, 'notifications: a delivery failed'), {
      concurrency: opts.deliveryConcurrency, renewMs: leaseMs / 3, renew: (ids) => renewLease(app.db, ids, leaseMs),
    });
  app.eventQueue.on(NOTIFICATION_SEND_EVENT, sendHandler({ pool, leaseMs, rules, silences, resources }));

  let wake: NodeJS.Timeout | null = null;
  let historyKick: NodeJS.Timeout | null = null;
  const sweeper = new Sweeper(async () => {
    if ((await releaseDue(app.db)) > 0) app.eventQueue.kick();
    for (const ids of await retakeExpired(app.db, leaseMs, 200)) pool.submit(ids);
    const next = await nextDueMs(app.db);
    if (wake) clearTimeout(wake);
    wake = next !== null && next < sweepMs ? setTimeout(() => sweeper.kick(), Math.max(next, 0) + 20) : null;
    wake?.unref();
  }, sweepMs, (err) => app.log.warn({ err }, 'notifications: releasing held sends failed'));

  const off = app.hasDecorator('events')
    ? app.events.bus.subscribe((event) => {
      if (event.type === 'resync') {
        rules.invalidate();
        silences.invalidate();
      }
      if (event.type !== 'change') return;
      if (event.relation === 'notifications') rules.invalidate();
      if (event.relation === 'notification_silences') silences.invalidate();
      // a new held row may be due before the next sweep: look again, at most once a second (every send writes
      // history several times; a sweep per write kept a replica busy under load)
      if (event.relation === 'notification_send_history' && !historyKick) {
        historyKick = setTimeout(() => { historyKick = null; sweeper.kick(); }, 1_000);
        historyKick.unref();
      }
    })
    : () => true;
  app.addHook('onReady', async () => sweeper.start());
  app.addHook('onClose', async () => {
    off();
    if (wake) clearTimeout(wake);
    if (historyKick) clearTimeout(historyKick);
    await sweeper.stop();
    await pool.close(opts.closeGraceMs ?? 5_000);
    await finisher.flush();
    resources.clear();
  });
};
