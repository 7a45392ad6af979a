import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../config.js';
import { playbookEnginePlugin } from './executor-plugin.js';
import { artifactRoutes } from './routes-artifacts.js';
import { playbookApiRoutes } from './routes.js';
import { playbookSchemaRoutes } from './schema-routes.js';
import { playbookTriggers } from './triggers/index.js';
import { webhookRoutes } from './webhook-routes.js';

/**
 * Playbooks (issue 14): specs (CRs and console rows), the run engine on every replica, triggers, webhooks and the
 * /api/playbook routes. Each part registers here, one line each. One register line in app.ts.
 */
export const playbooksModule: FastifyPluginAsync<{ config: Config }> = async (app, opts) => {
  await app.register(playbookEnginePlugin, { config: opts.config }); // run engine: every console replica (executor.ts)
  await app.register(playbookSchemaRoutes); // GET /api/schemas/playbook-spec.schema.json (the spec's checks: spec.ts)
  await app.register(playbookApiRoutes, { config: opts.config }); // /api/playbook list, params, plan, run, status, approve, cancel, retry
  await app.register(playbookTriggers); // event_queue consumer (on.canary) on every replica, on.schedule on the leader
  await app.register(webhookRoutes); // GET|POST /api/playbook/webhook/{path}: no sign-in, not behind playbooks.disable
  await app.register(artifactRoutes); // GET /api/artifacts/download/{id}: a playbook action's artifact
};
