import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';
import { EventConsumer } from './consumer.js';
import { eventRoutes } from './routes.js';
import type { EventHandler, EventQueue } from './types.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The event queue: handlers by event name, this replica's consumer (issue 15 "Events"). */
    eventQueue: EventQueue;
  }
}

/**
 * The event queue (issue 15 "Events"): `app.eventQueue` (handlers by event name, one consumer per replica over
 * event_queue), the event source registry (sources/index.ts) and GET /api/notification/events. Registered in app.ts
 * before the modules that add handlers (playbooks, notifications); the consumer starts on ready, on every replica.
 */
export const eventsModule: FastifyPluginAsync<{ config: Config }> = fp(async (app: FastifyInstance) => {
  const handlers = new Map<string, EventHandler[]>();
  const consumer = new EventConsumer({ db: app.db, handlers, log: app.log });
  const queue: EventQueue = {
    on(name, handler) {
      handlers.set(name, [...(handlers.get(name) ?? []), handler]);
    },
    kick: () => consumer.kick(),
    drain: () => consumer.drain(),
  };
  app.decorate('eventQueue', queue);
  const off = app.hasDecorator('events')
    ? app.events.bus.subscribe((event) => {
      if (event.type === 'resync' || (event.type === 'change' && event.relation === 'event_queue')) consumer.kick();
    })
    : () => true;
  app.addHook('onReady', async () => consumer.start());
  app.addHook('onClose', async () => {
    off();
    await consumer.stop();
  });
  await app.register(eventRoutes);
}, { name: 'events' });
