import type pg from 'pg';
import type { UserSummary } from '../../contracts/auth.js';

type Db = pg.Pool | pg.PoolClient;

export const SYSTEM_PERSON_ID = '00000000-0000-0000-0000-000000000000';

/** Users: people with an identity (not token or agent persons), with their stored roles. */
export async function listUsers(db: Db): Promise<(Omit<UserSummary, 'roles'> & { roles: string[] })[]> {
  const { rows } = await db.query(
    `SELECT p.id, p.name, p.email, i.state, i.created_at, i.state_changed_at, p.last_login, i.traits,
       ARRAY(SELECT role FROM person_roles r WHERE r.person_id = p.id ORDER BY role) AS roles
     FROM identities i JOIN people p ON p.id = i.id
     WHERE p.deleted_at IS NULL
     ORDER BY lower(p.name), p.id`,
  );
  return rows;
}

export interface PersonState {
  id: string;
  type: string | null;
  roles: string[];
  /** null when the person has no identity (token, agent and system persons). */
  state: string | null;
}

/** A live person with roles and identity state, locked for the rest of the transaction. */
export async function lockPerson(db: pg.PoolClient, id: string): Promise<PersonState | null> {
  const { rows } = await db.query<PersonState>(
    `SELECT p.id, p.type, i.state,
       ARRAY(SELECT role FROM person_roles r WHERE r.person_id = p.id ORDER BY role) AS roles
     FROM people p LEFT JOIN identities i ON i.id = p.id
     WHERE p.id = $1 AND p.deleted_at IS NULL
     FOR UPDATE OF p`,
    [id],
  );
  return rows[0] ?? null;
}

export async function getRoles(db: Db, id: string): Promise<string[] | null> {
  const { rows } = await db.query<{ roles: string[] }>(
    `SELECT ARRAY(SELECT role FROM person_roles r WHERE r.person_id = p.id ORDER BY role) AS roles
     FROM people p WHERE p.id = $1 AND p.deleted_at IS NULL`,
    [id],
  );
  return rows[0]?.roles ?? null;
}

/** Active, live people with an identity and the admin role: those who can still administer the console. */
export async function countActiveAdmins(db: Db): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM person_roles r JOIN people p ON p.id = r.person_id JOIN identities i ON i.id = p.id
     WHERE r.role = 'admin' AND p.deleted_at IS NULL AND i.state = 'active'`,
  );
  return rows[0].n;
}

export async function setRoles(db: Db, id: string, roles: string[]): Promise<void> {
  await db.query('DELETE FROM person_roles WHERE person_id = $1 AND NOT (role = ANY($2::text[]))', [id, roles]);
  await addRoles(db, id, roles);
}

export async function addRoles(db: Db, id: string, roles: string[]): Promise<void> {
  await db.query('INSERT INTO person_roles (person_id, role) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING', [
    id, roles,
  ]);
}

export async function setIdentityState(db: Db, id: string, state: string): Promise<void> {
  await db.query('UPDATE identities SET state = $2 WHERE id = $1 AND state <> $2', [id, state]);
}

export async function deleteSessionsOf(db: Db, personId: string): Promise<void> {
  await db.query('DELETE FROM sessions WHERE person_id = $1', [personId]);
}

/**
 * Soft-deletes a person: deleted_at on the row, and gone are its identity (and password), sessions, role
 * bindings, the tokens it holds or created, and the synthetic persons of those tokens.
 */
export async function softDeletePerson(db: Db, id: string): Promise<void> {
  await db.query(
    `UPDATE people SET deleted_at = now()
     WHERE deleted_at IS NULL AND type = 'access_token'
       AND id IN (SELECT person_id FROM access_tokens WHERE created_by = $1)`,
    [id],
  );
  await db.query('DELETE FROM access_tokens WHERE created_by = $1 OR person_id = $1', [id]);
  await db.query('UPDATE people SET deleted_at = now() WHERE id = $1', [id]);
  await db.query('DELETE FROM identities WHERE id = $1', [id]);
  await db.query('DELETE FROM sessions WHERE person_id = $1', [id]);
  await db.query('DELETE FROM person_roles WHERE person_id = $1', [id]);
}
