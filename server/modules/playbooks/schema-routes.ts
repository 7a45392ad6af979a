import type { FastifyPluginAsync } from 'fastify';
import { playbookJsonSchema } from './spec.js';

/**
 * `GET /api/schemas/playbook-spec.schema.json`: the Playbook spec as JSON Schema (draft-07) for the web's Monaco YAML
 * editor, from the zod the server judges with, for any signed-in user. Template, CEL and uniqueness checks have no
 * JSON form: the server's 400 names their path.
 */
export const playbookSchemaRoutes: FastifyPluginAsync = async (app) => {
  const schema = JSON.stringify(playbookJsonSchema());
  app.get('/api/schemas/playbook-spec.schema.json', { config: { access: 'authenticated' } }, async (_req, reply) =>
    reply.header('cache-control', 'private, max-age=300').type('application/schema+json').send(schema));
};
