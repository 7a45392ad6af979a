import type { FastifyPluginAsync } from 'fastify';
import { propertyMap } from './queries.js';

/** `GET /api/properties`: the live properties (feature flags, settings) as a name → value map. */
export const propertiesRoutes: FastifyPluginAsync = async (app) => {
  app.get('/', { config: { access: 'authenticated' } }, async () => propertyMap(app.db));
};
