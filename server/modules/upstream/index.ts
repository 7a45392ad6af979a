import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';

/**
 * The reference's /upstream group at /api/upstream/* (issue 16): agents ping, push and pull here with their token.
 * Console mode.
 */
export const upstreamModule: FastifyPluginAsync<{ config: Config }> = fp(async (_app: FastifyInstance) => {
  // filled by the upstream part
}, { name: 'upstream' });
