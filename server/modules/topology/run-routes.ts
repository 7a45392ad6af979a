import type { FastifyPluginAsync } from 'fastify';
import { ApiError, NotFoundError } from '../../lib/errors.js';
import { parseId } from '../../lib/validation.js';
import { requireFeature } from '../auth/features.js';
import { liveTopology } from './runner/queries.js';
import type { TopologyRunner } from './runner/runner.js';
import { topologyJsonSchema } from './spec.js';

export interface TopologyRunRoutesOptions {
  runner: TopologyRunner;
}

type IdParams = { Params: { id: string } };
/** Running a topology is a write on topologies: admin and editor. */
const RUN = { access: { resource: 'topologies', action: 'write' } } as const;

/**
 * `POST /api/canary/run/topology/{id}` (the reference's path): runs the topology now, after any run of it under way,
 * and answers as the reference `{"status": "ok", "count": "<components>"}`; a run that failed is a 500 naming why.
 * `GET /api/schemas/topology.schema.json`: the spec as JSON Schema for the editor, from the zod the server judges with.
 */
export const topologyRunRoutes: FastifyPluginAsync<TopologyRunRoutesOptions> = async (app, opts) => {
  app.post<IdParams>('/api/canary/run/topology/:id', { config: RUN }, async (req) => {
    await requireFeature(app.db, 'topology');
    const topology = await liveTopology(app.db, parseId(req.params.id, 'topology id'));
    if (!topology) throw new NotFoundError('topology', req.params.id);
    const out = await opts.runner.run(topology);
    if (out.status === 'FAILED') throw new ApiError(500, 'run_failed', `the topology run failed: ${out.errors[0] ?? 'unknown error'}`);
    return { status: 'ok', count: String(out.count) };
  });

  const schema = JSON.stringify(topologyJsonSchema());
  app.get('/api/schemas/topology.schema.json', { config: { access: 'authenticated' } }, async (_req, reply) =>
    reply.header('cache-control', 'private, max-age=300').type('application/schema+json').send(schema));
};
