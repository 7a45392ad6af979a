import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';

/** Log search (issue 16): POST /api/logs over the logging_backends registry (kubernetes, loki, opensearch, ...). */
export const logsModule: FastifyPluginAsync<{ config: Config }> = fp(async (_app: FastifyInstance) => {
  // filled by the logs part
}, { name: 'logs' });
