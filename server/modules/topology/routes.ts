import type { FastifyPluginAsync } from 'fastify';
import { featureStates } from '../../contracts/rbac.js';
import { TopologyQuery, type TopologyResponse } from '../../contracts/topology.js';
import { NotFoundError } from '../../lib/errors.js';
import { parseBody } from '../../lib/validation.js';
import { propertyMap } from '../auth/queries.js';
import { fetchSubtree } from './queries.js';
import { buildTopology } from './tree.js';

const READ = { access: { resource: 'topologies', action: 'read' } } as const;

/**
 * GET /api/topology, and the same at the reference's path /api/canary/api/topology. Always fresh (the reference
 * caches five minutes): the tree is one statement plus assembly in JS. `topology.disable` makes it 404, as if the
 * route did not exist (the reference's UI then shows no topology).
 */
export const topologyRoutes: FastifyPluginAsync = async (app) => {
  const handler = async (req: { query: unknown }): Promise<TopologyResponse> => {
    if (!featureStates(await propertyMap(app.db)).topology) throw new NotFoundError('topology');
    const q = parseBody(TopologyQuery, req.query);
    // depth counts the roots as level 1 (duty's applyDepthFilter): fetch depth - 1 levels below them
    // as the reference: hidden=false leaves hidden components out; absent or true keeps them (the reference UI sends
    // hidden=false while "Show hidden components" is off, nothing while it is on)
    const rows = await fetchSubtree(app.db, q.id, q.hidden !== false, q.depth - 1);
    return buildTopology(rows, q);
  };
  app.get('/api/topology', { config: READ }, handler);
  app.get('/api/canary/api/topology', { config: READ }, handler);
};
