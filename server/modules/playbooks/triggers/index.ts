import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { leaderScheduled } from '../../../lib/leader-scheduled.js';
import { canaryEventHandler, CHECK_EVENTS } from './canary-trigger.js';
import { EventConsumer, type EventHandler } from './consumer.js';
import { playbookScheduler } from './schedule.js';

/**
 * Playbook triggers (issue 14 "Triggers"): the event_queue consumer on every replica (check.failed/check.passed →
 * on.canary), woken by the events bus, and on.schedule on the leader. Config and component events are not consumed
 * yet: their rows (once something writes them) stay in the queue.
 */
export const playbookTriggers: FastifyPluginAsync = fp(async (app) => {
  const handler = canaryEventHandler(app.db, app.log);
  const handlers = new Map<string, EventHandler[]>(Object.keys(CHECK_EVENTS).map((name) => [name, [handler]]));
  const consumer = new EventConsumer({ db: app.db, handlers, log: app.log });
  const off = app.hasDecorator('events')
    ? app.events.bus.subscribe((event) => {
      if (event.type === 'resync' || (event.type === 'change' && event.relation === 'event_queue')) consumer.sweeper.kick();
    })
    : () => true;
  app.addHook('onReady', async () => consumer.sweeper.start());
  app.addHook('onClose', async () => {
    off();
    await consumer.sweeper.stop();
  });
  leaderScheduled(app, {
    name: 'playbook schedules',
    relation: 'playbooks',
    create: () => playbookScheduler({ db: app.db, log: app.log }),
  });
}, { name: 'playbook-triggers' });
