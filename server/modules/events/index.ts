import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';

/**
 * The event queue (issue 15 "Events"): `app.eventQueue` (handlers by event name, one consumer per replica over
 * event_queue), the event source registry (sources/index.ts) and GET /api/notification/events. Registered in app.ts
 * before the modules that add handlers (playbooks, notifications).
 */
export const eventsModule: FastifyPluginAsync<{ config: Config }> = fp(async () => {
  // part A: decorate app.eventQueue, start/stop the consumer, the events route
}, { name: 'events' });
