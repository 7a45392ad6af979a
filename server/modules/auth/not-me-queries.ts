import type pg from 'pg';

type Db = pg.Pool | pg.PoolClient;

/** Whether account recovery can reach the person: a verified email address (recovery mails go to verified ones only). */
export async function hasVerifiedAddress(db: Db, personId: string): Promise<boolean> {
  const { rows } = await db.query(
    'SELECT 1 FROM identity_verifiable_addresses WHERE person_id = $1 AND verified LIMIT 1',
    [personId],
  );
  return rows.length > 0;
}

/** Removes the person's password: only account recovery (a new password) signs them in with one again. */
export async function removePassword(db: Db, personId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM identity_credentials WHERE identity_id = $1', [personId]);
  return (rowCount ?? 0) > 0;
}

/** Ends every session of the person, the caller's too; returns how many. */
export async function deleteAllSessions(db: Db, personId: string): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM sessions WHERE person_id = $1', [personId]);
  return rowCount ?? 0;
}
