import type { FastifyPluginAsync } from 'fastify';
import { scrapeConfigJsonSchema } from './spec.js';

/**
 * `GET /api/schemas/scrape_config.schema.json`: the ScrapeConfig spec as JSON Schema (draft-07) for the scraper
 * editor's Monaco, built from the zod the server validates with. For any signed-in user, as canary.schema.json.
 */
export const catalogSchemaRoutes: FastifyPluginAsync = async (app) => {
  const schema = scrapeConfigJsonSchema();
  app.get('/scrape_config.schema.json', { config: { access: 'authenticated' } }, async (_req, reply) =>
    reply.header('cache-control', 'private, max-age=300').type('application/schema+json').send(JSON.stringify(schema)));
};
