import type { FastifyPluginAsync } from 'fastify';
import { connectionUsage } from './service.js';

const READ = { access: { resource: 'connections', action: 'read' } } as const;

/**
 * The connections API beyond /api/db (rows are read and written there): which checks, notifications, playbooks and
 * scrapers name a connection, for its form and its delete confirmation ("Used by"). Connections read.
 */
export const connectionRoutes: FastifyPluginAsync = async (app) => {
  app.get<{ Params: { id: string } }>('/api/connection/:id/usage', { config: READ }, async (req) => connectionUsage(app.db, req.params.id));
};
