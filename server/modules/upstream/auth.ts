import type { FastifyRequest } from 'fastify';
import { ForbiddenError, UnauthorizedError } from '../../lib/errors.js';
import type { PushAgent } from './push.js';

/**
 * The agent calling an /api/upstream route (access `agent`: the auth plugin has already refused anyone else). The
 * reference's agents name themselves with `?agent_name=`: a name other than the token's agent is refused (403).
 */
export function callingAgent(req: FastifyRequest): PushAgent {
  const p = req.principal;
  if (!p?.agentId) throw new UnauthorizedError('an agent token is required');
  const named = (req.query as Record<string, unknown> | undefined)?.agent_name;
  if (typeof named === 'string' && named !== '' && named !== p.agentName) {
    throw new ForbiddenError(`agent_name "${named.slice(0, 100)}" does not match the token's agent`);
  }
  return { id: p.agentId, name: p.agentName ?? p.agentId };
}
