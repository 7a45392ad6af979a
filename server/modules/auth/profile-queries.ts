import type pg from 'pg';

type Db = pg.Pool | pg.PoolClient;

/** The password hash of an active identity; null for people without a password (token and agent persons). */
export async function getPasswordHash(db: Db, identityId: string): Promise<string | null> {
  const { rows } = await db.query<{ password_hash: string }>(
    `SELECT c.password_hash FROM identity_credentials c JOIN identities i ON i.id = c.identity_id
     WHERE c.identity_id = $1 AND i.state = 'active'`,
    [identityId],
  );
  return rows[0]?.password_hash ?? null;
}

/**
 * Replaces the password only if it is still the one just verified (a concurrent change wins, this one reports it);
 * true when replaced.
 */
export async function replacePasswordHash(db: Db, identityId: string, verified: string, next: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE identity_credentials SET password_hash = $3, updated_at = now() WHERE identity_id = $1 AND password_hash = $2',
    [identityId, verified, next],
  );
  return rowCount === 1;
}

/** Ends every session of the person but one (the caller's own). */
export async function deleteOtherSessions(db: Db, personId: string, keepSessionId: string): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM sessions WHERE person_id = $1 AND id <> $2', [personId, keepSessionId]);
  return rowCount ?? 0;
}

/** Sets the identity's name traits; the identity_to_people trigger renames the people row. Null when no identity. */
export async function setIdentityName(
  db: Db, identityId: string, first: string, last: string,
): Promise<{ id: string; name: string; email: string | null } | null> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE identities SET traits = jsonb_set(traits, '{name}', jsonb_build_object('first', $2::text, 'last', $3::text))
     WHERE id = $1 RETURNING id`,
    [identityId, first, last],
  );
  if (!rows[0]) return null;
  const person = await db.query<{ id: string; name: string; email: string | null }>(
    'SELECT id, name, email FROM people WHERE id = $1',
    [identityId],
  );
  return person.rows[0] ?? null;
}
