import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../config.js';
import { topologyExtraRoutes } from './extra-routes.js';
import { topologyRoutes } from './routes.js';
import { topologyEngine } from './runner/engine.js';
import { linkListeners } from './runner/links/listeners.js';

/**
 * Topology (issue 13): the component tree API over 0060_topology.sql (tables, views, the health roll-up in
 * triggers). The runner that builds components from Topology specs registers here next. One register line in app.ts.
 */
export const topologyModule: FastifyPluginAsync<{ config: Pick<Config, 'MODE'> }> = async (app, opts) => {
  await app.register(topologyRoutes);
  await app.register(topologyEngine, { config: opts.config }); // runs: scheduler on the leader, POST /api/canary/run/topology/{id}, topology.schema.json
  await app.register(topologyExtraRoutes); // snapshot zip, health history (and its retention), impact
  await app.register(linkListeners); // team_components when a team is saved, check links when checks change
};
