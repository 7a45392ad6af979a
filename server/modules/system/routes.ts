import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../config.js';
import type { About } from '../../contracts/system.js';

/** Probes and version: /healthz (process), /readyz (database reachable and migrated), /api/about. */
export const systemRoutes: FastifyPluginAsync<{ config: Config }> = async (app, { config }) => {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_req, reply) => {
    try {
      await app.db.query('SELECT 1');
    } catch {
      return reply.status(503).send({ status: 'unavailable', database: false, migrations: app.migrated });
    }
    if (!app.migrated) return reply.status(503).send({ status: 'unavailable', database: true, migrations: false });
    return { status: 'ok', database: true, migrations: true };
  });

  app.get('/api/about', { config: { access: 'public' } }, async (): Promise<About> => ({
    appVersion: config.appVersion,
    chartVersion: process.env.CHART_VERSION ?? null,
    mode: config.MODE,
  }));
};
