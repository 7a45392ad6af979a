import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';

/**
 * MODE=agent (issue 16): the outbox pusher (is_pushed = false rows to UPSTREAM_URL), the pinger with telemetry and
 * the canary puller. Registered in agent mode only.
 */
export const agentRuntimeModule: FastifyPluginAsync<{ config: Config }> = fp(async (_app: FastifyInstance) => {
  // filled by the agent-runtime part
}, { name: 'agent-runtime' });
