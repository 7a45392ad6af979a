import type { FastifyPluginAsync } from 'fastify';
import { ConfigSummaryRequest, type CatalogChangesSearchRequest, type RelationshipsQuery } from '../../../contracts/catalog-api.js';
import { parseBody, parseId } from '../../../lib/validation.js';
import { requireFeature } from '../../auth/features.js';
import { searchChanges } from './changes.js';
import { relationships } from './relationships.js';
import { configSummary } from './summary.js';

const READ = { access: { resource: 'database', action: 'read' } } as const;

/**
 * /api/catalog: the catalog's own read routes (server/contracts/catalog-api.ts). Every role reads (`database:read`);
 * feature `config` disabled closes them all with 403, as /api/config does.
 */
export const catalogApiRoutes: FastifyPluginAsync = async (app) => {
  app.addHook('preHandler', async () => {
    await requireFeature(app.db, 'config');
  });

  app.post('/summary', { config: READ }, async (req) => configSummary(app.db, parseBody(ConfigSummaryRequest, req.body)));

  app.post('/changes', { config: READ }, async (req) => searchChanges(app.db, (req.body ?? {}) as CatalogChangesSearchRequest));
  app.get('/changes', { config: READ }, async (req) => searchChanges(app.db, req.query as CatalogChangesSearchRequest));

  app.get<{ Params: { id: string } }>('/:id/relationships', { config: READ }, async (req) =>
    relationships(app.db, parseId(req.params.id, 'config id'), req.query as RelationshipsQuery));
};
