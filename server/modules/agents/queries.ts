import type pg from 'pg';

type Db = pg.Pool | pg.PoolClient;

export interface AgentRow {
  id: string;
  name: string;
  person_id: string | null;
  username: string | null;
  properties: Record<string, string> | null;
  deleted_at: string | null;
}

/** A person of type `agent`: no identity (so no sign-in) and no role rows. */
export async function insertAgentPerson(db: Db, name: string, email: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO people (name, email, type) VALUES ($1, $2, 'agent') RETURNING id`, [name, email],
  );
  return rows[0].id;
}

export async function insertAgent(db: Db, a: {
  name: string; personId: string; username: string; properties: Record<string, string>; createdBy: string | null;
}): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO agents (name, person_id, username, properties, created_by) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [a.name, a.personId, a.username, JSON.stringify(a.properties), a.createdBy],
  );
  return rows[0].id;
}

/** The live agent of that name, if any. */
export async function liveAgentByName(db: Db, name: string): Promise<AgentRow | null> {
  const { rows } = await db.query<AgentRow>(
    'SELECT id, name, person_id, username, properties, deleted_at FROM agents WHERE name = $1 AND deleted_at IS NULL', [name],
  );
  return rows[0] ?? null;
}

/** The agent row (live or not), locked for the rest of the transaction when `lock`. */
export async function agentById(db: Db, id: string, lock = false): Promise<AgentRow | null> {
  const { rows } = await db.query<AgentRow>(
    `SELECT id, name, person_id, username, properties, deleted_at FROM agents WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id],
  );
  return rows[0] ?? null;
}

export async function updateAgentProperties(db: Db, id: string, properties: Record<string, string> | null): Promise<void> {
  await db.query('UPDATE agents SET properties = $2 WHERE id = $1 AND deleted_at IS NULL', [id, properties === null ? null : JSON.stringify(properties)]);
}

/** Remembers the delete dialog's answer on the row (the reference's `cleanup` column). */
export async function updateAgentCleanup(db: Db, id: string, cleanup: boolean): Promise<void> {
  await db.query('UPDATE agents SET cleanup = $2 WHERE id = $1 AND deleted_at IS NULL', [id, cleanup]);
}

/**
 * Soft-deletes a live agent; the agents_retire_credentials trigger (0085) expires its tokens and retires its person
 * in the same statement. Answers whether it was live and its stored `cleanup` answer.
 */
export async function softDeleteAgent(db: Db, id: string): Promise<{ cleanup: boolean } | null> {
  const { rows } = await db.query<{ cleanup: boolean }>(
    'UPDATE agents SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL RETURNING cleanup', [id],
  );
  return rows[0] ?? null;
}

/** Soft-deletes the agent's rows in every table that has agent_id and deleted_at (0085); counts per table. */
export async function deleteAgentResources(db: Db, id: string): Promise<Array<{ relation: string; n: number }>> {
  const { rows } = await db.query<{ relation: string; n: string }>('SELECT relation, n FROM delete_agent_resources($1)', [id]);
  return rows.map((r) => ({ relation: r.relation, n: Number(r.n) }));
}
