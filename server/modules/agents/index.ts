import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';

/**
 * Agents (issue 16): POST /api/agent/generate, the agents /api/db writer (edit, delete with cleanup), live agent
 * events, the console-served Helm repository (/api/agent/charts). Console mode.
 */
export const agentsModule: FastifyPluginAsync<{ config: Config }> = fp(async (_app: FastifyInstance) => {
  // filled by the agents part
}, { name: 'agents' });
