import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';
import { AGENT_EVENT_INTERVAL_MS, AgentActivity } from './events.js';
import { chartRepoRoutes } from './chart-repo.js';
import { agentRoutes } from './routes.js';
import { agentWriter } from './writer.js';

/**
 * Agents (issue 16): POST /api/agent/generate, the agents /api/db writer (edit, delete with cleanup), live agent
 * events, the console-served Helm repository (/api/agent/charts). Console mode.
 */
export const agentsModule: FastifyPluginAsync<{ config: Config }> = fp(async (app: FastifyInstance, opts: { config: Config }) => {
  // throttled live `agents` events; /api/upstream calls noteAgentActivity(app, id) (./events.ts)
  const activity = new AgentActivity(app.db, AGENT_EVENT_INTERVAL_MS, (err) => app.log.warn({ err }, 'agents event not published'));
  app.decorate('agentActivity', activity);
  app.addHook('onClose', async () => activity.close());
  if (app.hasDecorator('relationWriters')) app.relationWriters.register('agents', agentWriter(app.db, app.log));
  await app.register(agentRoutes);
  await app.register(chartRepoRoutes, { config: opts.config }); // /api/agent/charts (Helm repository), /api/agent/install
}, { name: 'agents' });
