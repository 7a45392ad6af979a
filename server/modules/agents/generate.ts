import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { GenerateAgentResponse } from '../../contracts/agents.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { isPgError } from '../../lib/pg-errors.js';
import { inTransaction } from '../../lib/tx.js';
import { insertAccessToken } from '../auth/tokens.js';
import { insertAgent, insertAgentPerson, liveAgentByName } from './queries.js';

/** Agent tokens live a year (api.md "Agents": expiry 365 d). */
export const AGENT_TOKEN_DAYS = 365;

export interface GenerateAgentInput {
  name: string;
  properties?: Record<string, string> | null;
  /** The person who generated it (agents.created_by); null for the system (demo). */
  createdBy: string | null;
  autoRenew?: boolean;
}

const taken = (name: string) => new ConflictError(`an agent named '${name}' already exists`, { name: 'already exists' });

async function newToken(c: pg.PoolClient, personId: string, autoRenew: boolean): Promise<string> {
  const expiresAt = new Date(Date.now() + AGENT_TOKEN_DAYS * 24 * 3600 * 1000);
  // The token's created_by stays empty: a token acts with its creator's roles too (plugins/auth.ts), and an agent's
  // token must carry none of the admin's who made it. Its name is the reference's `agent-<unix seconds>`; a second
  // token in the same second gets a suffix (names are unique per person).
  const unix = Math.floor(Date.now() / 1000);
  const { rows } = await c.query<{ n: string }>('SELECT count(*) AS n FROM access_tokens WHERE person_id = $1 AND name LIKE $2', [personId, `agent-${unix}%`]);
  const name = Number(rows[0].n) ? `agent-${unix}-${rows[0].n}` : `agent-${unix}`;
  const t = await insertAccessToken(c, { personId, name, createdBy: null, expiresAt, autoRenew });
  return t.token;
}

/**
 * Creates an agent in one transaction: a person of type `agent` (email `agent-<16 hex>@local`, no identity so it
 * never signs in, no role rows), a 365-day access token for it, and the `agents` row. The plaintext token is in the
 * answer only. A live agent of the same name is a 409. Used by POST /api/agent/generate, the demo and tests.
 */
export async function generateAgent(db: pg.Pool, input: GenerateAgentInput): Promise<GenerateAgentResponse> {
  const username = `agent-${randomBytes(8).toString('hex')}`;
  try {
    return await inTransaction(db, async (c) => {
      if (await liveAgentByName(c, input.name)) throw taken(input.name);
      const personId = await insertAgentPerson(c, input.name, `${username}@local`);
      const accessToken = await newToken(c, personId, input.autoRenew ?? false);
      const agentId = await insertAgent(c, {
        name: input.name, personId, username, properties: input.properties ?? {}, createdBy: input.createdBy,
      });
      return { id: personId, username, access_token: accessToken, agent_id: agentId };
    });
  } catch (err) {
    // two generates of one name at once: the partial unique index (live names) decides
    if (isPgError(err) && err.code === '23505') throw taken(input.name);
    throw err;
  }
}

/**
 * A new token for a live agent, by name (the reference's POST /agent/token): the agent's existing tokens stay valid
 * until they expire or the agent is deleted.
 */
export async function newAgentToken(db: pg.Pool, agentName: string, autoRenew = false): Promise<GenerateAgentResponse> {
  return inTransaction(db, async (c) => {
    const agent = await liveAgentByName(c, agentName);
    if (!agent || !agent.person_id) throw new NotFoundError('agent', agentName);
    const accessToken = await newToken(c, agent.person_id, autoRenew);
    return { id: agent.person_id, username: agent.username ?? '', access_token: accessToken, agent_id: agent.id };
  });
}
