import type pg from 'pg';

type Db = pg.Pool | pg.PoolClient;

export interface InviteRow {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  role: string;
  expires_at: Date;
  accepted_at: Date | null;
}

/** Replaces any pending invite for the email with a new one (only the token's hash is stored). */
export async function replaceInvite(
  db: Db,
  input: { email: string; first: string; last: string; role: string; tokenHash: string; invitedBy: string; ttlDays: number },
): Promise<Date> {
  await db.query('DELETE FROM invites WHERE lower(email) = lower($1) AND accepted_at IS NULL', [input.email]);
  const { rows } = await db.query<{ expires_at: Date }>(
    `INSERT INTO invites (email, first_name, last_name, role, token_hash, invited_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(days => $7)) RETURNING expires_at`,
    [input.email, input.first, input.last, input.role, input.tokenHash, input.invitedBy, input.ttlDays],
  );
  return rows[0].expires_at;
}

/** The invite with this token hash, locked until the transaction ends (one registration per invite). */
export async function lockInvite(db: pg.PoolClient, tokenHash: string): Promise<InviteRow | null> {
  const { rows } = await db.query<InviteRow>(
    `SELECT id, email, first_name, last_name, role, expires_at, accepted_at FROM invites WHERE token_hash = $1 FOR UPDATE`,
    [tokenHash],
  );
  return rows[0] ?? null;
}

export async function markInviteAccepted(db: Db, id: string): Promise<void> {
  await db.query('UPDATE invites SET accepted_at = now() WHERE id = $1', [id]);
}
