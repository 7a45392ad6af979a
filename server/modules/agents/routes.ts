import type { FastifyPluginAsync } from 'fastify';
import { AgentTokenRequest, GenerateAgentRequest } from '../../contracts/agents.js';
import { requireFeature } from '../auth/features.js';
import { parseBody } from '../../lib/validation.js';
import { generateAgent, newAgentToken } from './generate.js';

const WRITE = { access: { resource: 'agents', action: 'write' } } as const;

/**
 * /api/agent (api.md "Agents"), admin and editor (agents write); refused with 403 while `agents.disable` is set:
 * - POST /api/agent/generate {name, properties?, auto_renew?} → 201 {id (person), username, access_token, agent_id}
 * - POST /api/agent/token {AgentName, auto_renew?} → 201 the same shape: another token for a live agent
 */
export const agentRoutes: FastifyPluginAsync = async (app) => {
  app.addHook('preHandler', async () => requireFeature(app.db, 'agents'));

  app.post('/api/agent/generate', { config: WRITE }, async (req, reply) => {
    const body = parseBody(GenerateAgentRequest, req.body);
    const out = await generateAgent(app.db, {
      name: body.name, properties: body.properties, autoRenew: body.auto_renew, createdBy: req.principal?.id ?? null,
    });
    app.agentActivity?.note(out.agent_id);
    return reply.code(201).send(out);
  });

  app.post('/api/agent/token', { config: WRITE }, async (req, reply) => {
    const body = parseBody(AgentTokenRequest, req.body);
    return reply.code(201).send(await newAgentToken(app.db, body.AgentName, body.auto_renew));
  });
};
