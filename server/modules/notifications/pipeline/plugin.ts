import type { FastifyPluginAsync } from 'fastify';
import type pg from 'pg';
import type { Config } from '../../../config.js';
import { NOTIFICATION_SEND_EVENT } from '../../../contracts/notifications.js';
import { Sweeper } from '../../incidents/sweeper.js';
import { knownEvents } from '../../events/sources/index.js';
import { matchHandler, RuleCache } from './match.js';
import { sendHandler } from './send.js';
import { releaseDue } from './wait-for.js';

export interface PipelineOptions {
  config: Config;
  /** Longest wait between sweeps of held sends (ms); the sweeper also wakes at the next not_before and on new ones. */
  sweepMs?: number;
  /** The rule cache's lifetime (ms) when no change of notifications arrives. */
  ruleCacheMs?: number;
}

/** When the earliest held send is due (ms from now), or null when none is held. */
async function nextDueMs(db: pg.Pool): Promise<number | null> {
  const { rows } = await db.query<{ ms: number | null }>(
    `SELECT extract(epoch FROM min(not_before) - now()) * 1000 AS ms FROM notification_send_history WHERE status = 'pending'`);
  return rows[0]?.ms === null || rows[0]?.ms === undefined ? null : Number(rows[0].ms);
}

/**
 * The send pipeline (issue 15 "Rules"), on every replica: a handler for every event a source writes (match rules,
 * enqueue one notification.send per recipient), the notification.send handler (silence, repeat, hold, render,
 * deliver, record) and the sweeper that releases held sends (wait_for, digests, quiet hours).
 */
export const notificationPipeline: FastifyPluginAsync<PipelineOptions> = async (app, opts) => {
  const sweepMs = opts.sweepMs ?? 10_000;
  const rules = new RuleCache(app.db, opts.ruleCacheMs ?? 60_000);
  const onEvent = matchHandler(rules);
  for (const name of knownEvents()) app.eventQueue.on(name, onEvent);
  app.eventQueue.on(NOTIFICATION_SEND_EVENT, sendHandler({ publicUrl: opts.config.publicUrl }));

  let wake: NodeJS.Timeout | null = null;
  const sweeper = new Sweeper(async () => {
    if ((await releaseDue(app.db)) > 0) app.eventQueue.kick();
    const next = await nextDueMs(app.db);
    if (wake) clearTimeout(wake);
    wake = next !== null && next < sweepMs ? setTimeout(() => sweeper.kick(), Math.max(next, 0) + 20) : null;
    wake?.unref();
  }, sweepMs, (err) => app.log.warn({ err }, 'notifications: releasing held sends failed'));

  const off = app.hasDecorator('events')
    ? app.events.bus.subscribe((event) => {
      if (event.type === 'resync') rules.invalidate();
      if (event.type !== 'change') return;
      if (event.relation === 'notifications') rules.invalidate();
      if (event.relation === 'notification_send_history') sweeper.kick();
    })
    : () => true;
  app.addHook('onReady', async () => sweeper.start());
  app.addHook('onClose', async () => {
    off();
    if (wake) clearTimeout(wake);
    await sweeper.stop();
  });
};
