import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';
import { upstreamRoutes } from './routes.js';

/**
 * The reference's /upstream group at /api/upstream/* (issue 16): agents ping, push and pull here with their token.
 * Console mode. Results pushed here reach the health module through the live-update bus (the `checks`,
 * `check_statuses` and `check_summary` changes it already follows), so /health and its WebSocket show them.
 */
export const upstreamModule: FastifyPluginAsync<{ config: Config }> = fp(async (app: FastifyInstance) => {
  const feed = app.hasDecorator('events') ? app.events : null;
  await app.register(upstreamRoutes, {
    prefix: '/api/upstream',
    onResults: (ids) => {
      void feed?.publish({ relation: 'check_statuses', ids }).catch(() => undefined);
      void feed?.publish({ relation: 'check_summary', ids }).catch(() => undefined);
    },
  });
}, { name: 'upstream' });
