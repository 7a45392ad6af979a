import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../config.js';

/**
 * Playbooks (issue 14): specs (CRs and console rows), the run engine on every replica, triggers, webhooks and the
 * /api/playbook routes. Each part registers here, one line each. One register line in app.ts.
 */
export const playbooksModule: FastifyPluginAsync<{ config: Config }> = async (_app, _opts) => {
};
