import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { CHECK_TYPES } from '../../lib/checks/index.js';
import { acceptsSingleCheck, CanaryFields, CommonCheck } from './spec.js';

/**
 * The Canary spec as a JSON Schema (draft-07, what monaco-yaml reads best), built from the same zod schemas the server validates with, so
 * the YAML editor's markers and the server's 400s agree. Top-level keys are closed (an unknown check type is an
 * error, as validateCanarySpec says); a check entry stays open, as the zod check schemas are loose.
 */
export function canaryJsonSchema(): Record<string, unknown> {
  const checks = Object.fromEntries(
    Object.entries(CHECK_TYPES).map(([key, type]) => {
      const entry = z.intersection(CommonCheck, type.schema as z.ZodType);
      // webhook: one object as the reference writes it, or a list
      return [key, (acceptsSingleCheck(key) ? z.union([z.array(entry), entry]) : z.array(entry)).optional().describe(`${key} checks`)];
    }),
  );
  const Spec = z.object({ ...CanaryFields.shape, ...checks }).strict();
  // input side: the spec as written (severity before lower-casing); refinements and transforms have no JSON form
  const schema = z.toJSONSchema(Spec, { io: 'input', unrepresentable: 'any', target: 'draft-7' });
  return { ...schema, $id: 'canary.schema.json', title: 'Canary spec' };
}

/** `GET /api/schemas/canary.schema.json`: for any signed-in user (the spec's shape is no secret, but not public). */
export const healthSchemaRoutes: FastifyPluginAsync = async (app) => {
  const schema = canaryJsonSchema();
  app.get('/canary.schema.json', { config: { access: 'authenticated' } }, async (_req, reply) =>
    reply.header('cache-control', 'private, max-age=300').type('application/schema+json').send(JSON.stringify(schema)));
};
