import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import { AgentPatch, LOCAL_AGENT_ID } from '../../contracts/agents.js';
import { ApiError, BadRequestError, ForbiddenError, NotFoundError } from '../../lib/errors.js';
import { publishChange } from '../../lib/events.js';
import { inTransaction } from '../../lib/tx.js';
import { parseBody } from '../../lib/validation.js';
import { invalidatePrincipals } from '../../plugins/auth.js';
import type { RelationWriter } from '../db/writers.js';
import { agentById, deleteAgentResources, softDeleteAgent, updateAgentCleanup, updateAgentProperties } from './queries.js';

const localRefused = () => new ForbiddenError('the local agent cannot be edited or deleted', { id: LOCAL_AGENT_ID });

async function liveAgent(db: pg.Pool | pg.PoolClient, id: string, lock = false) {
  if (id === LOCAL_AGENT_ID) throw localRefused();
  const row = await agentById(db, id, lock);
  if (!row || row.deleted_at) throw new NotFoundError('agent', id);
  return row;
}

/**
 * Deletes an agent (soft): in ONE transaction the row gets deleted_at, its tokens expire and its person is retired
 * (trigger agents_retire_credentials, 0085), and with `cleanup` every live row carrying its agent_id, in every table
 * with agent_id and deleted_at, is soft-deleted (delete_agent_resources, 0085). Cached principals are dropped at once,
 * so the agent's next request is a 401 on this replica (others within the auth cache's 5 s).
 * Answers the relations whose rows were soft-deleted, with counts.
 */
export async function deleteAgent(db: pg.Pool, id: string, cleanup?: boolean): Promise<Array<{ relation: string; n: number }>> {
  const removed = await inTransaction(db, async (c) => {
    await liveAgent(c, id, true);
    if (cleanup !== undefined) await updateAgentCleanup(c, id, cleanup);
    const row = await softDeleteAgent(c, id);
    if (!row) throw new NotFoundError('agent', id);
    return row.cleanup ? deleteAgentResources(c, id) : [];
  });
  invalidatePrincipals();
  await publishChange(db, { relation: 'agents', ids: [id] });
  for (const r of removed) await publishChange(db, { relation: r.relation });
  return removed;
}

/**
 * The /api/db writer of `agents` (registry `write.writer`): PATCH `{properties}` edits (string values only, 400
 * naming `properties.<key>`); PATCH `{deleted_at: "now()", cleanup: bool}` deletes (deleteAgent). Every other column
 * is refused by /api/db with a 400 naming it; the local agent is 403; POST and DELETE are not allowed (the registry's
 * ops): an agent is made by POST /api/agent/generate.
 *
 * `cleanup` travels as a column (the reference stores the dialog's answer on the row): update() records it, then
 * remove() — called by /api/db right after, for the same row — reads it inside the delete's transaction.
 */
export function agentWriter(db: pg.Pool, log?: FastifyBaseLogger): RelationWriter {
  return {
    insertColumns: [],
    updateColumns: ['properties', 'cleanup'],
    async create() {
      throw new ApiError(405, 'PGRST117', 'insert is not allowed on \'agents\'', null, 'Create an agent with POST /api/agent/generate.');
    },
    async update(id, patch) {
      const { cleanup, ...rest } = patch;
      if (cleanup !== undefined && typeof cleanup !== 'boolean') throw new BadRequestError('cleanup: must be true or false', { cleanup: 'must be a boolean' });
      const body = parseBody(AgentPatch, rest);
      await liveAgent(db, id);
      if (typeof cleanup === 'boolean') await updateAgentCleanup(db, id, cleanup);
      if ('properties' in body) {
        await updateAgentProperties(db, id, body.properties ?? null);
        await publishChange(db, { relation: 'agents', ids: [id] }, (err) => log?.warn({ err }, 'agents event not published'));
      }
    },
    async remove(id) {
      const removed = await deleteAgent(db, id);
      log?.info({ agent: id, cleanup: removed }, 'agent deleted');
    },
  };
}
