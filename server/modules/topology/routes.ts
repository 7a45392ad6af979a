import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { featureStates } from '../../contracts/rbac.js';
import { TopologyQuery } from '../../contracts/topology.js';
import { NotFoundError } from '../../lib/errors.js';
import { parseBody } from '../../lib/validation.js';
import { propertyMap } from '../auth/queries.js';
import { fetchTopology } from './queries.js';
import { renderTopology } from './tree.js';

const READ = { access: { resource: 'topologies', action: 'read' } } as const;

/**
 * GET /api/topology, and the same at the reference's path /api/canary/api/topology. Always fresh (the reference
 * caches five minutes): one statement builds each shown component's JSON and does the filters' work, and the tree is
 * assembled as text (20,000 components are about 10 MB: no object per component is parsed or serialised).
 * `topology.disable` makes it 404, as if the route did not exist (the reference's UI then shows no topology).
 */
export const topologyRoutes: FastifyPluginAsync = async (app) => {
  const handler = async (req: { query: unknown }, reply: FastifyReply): Promise<string> => {
    if (!featureStates(await propertyMap(app.db)).topology) throw new NotFoundError('topology');
    const q = parseBody(TopologyQuery, req.query);
    // depth counts the roots as level 1 (duty's applyDepthFilter); as the reference, hidden=false leaves hidden
    // components out, absent or true keeps them (the reference UI sends hidden=false while "Show hidden components"
    // is off, nothing while it is on)
    const { rows, values } = await fetchTopology(app.db, q);
    reply.type('application/json; charset=utf-8');
    return renderTopology(rows, q, values);
  };
  app.get('/api/topology', { config: READ }, handler);
  app.get('/api/canary/api/topology', { config: READ }, handler);
};
