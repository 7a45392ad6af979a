import type pg from 'pg';
import type { AccessTokenSummary } from '../../contracts/auth.js';

type Db = pg.Pool | pg.PoolClient;

/** The synthetic person a token acts as: `"<user name> (Token)"`, email `<local>+token:<name>@<domain>`. */
export async function insertTokenPerson(db: Db, owner: { name: string; email: string | null }, tokenName: string): Promise<string> {
  const at = owner.email?.lastIndexOf('@') ?? -1;
  const email = owner.email && at > 0 ? `${owner.email.slice(0, at)}+token:${tokenName}${owner.email.slice(at)}` : null;
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO people (name, email, type) VALUES ($1, $2, 'access_token') RETURNING id`,
    [`${owner.name} (Token)`, email],
  );
  return rows[0].id;
}

export async function tokenNameTaken(db: Db, createdBy: string, name: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM access_tokens WHERE created_by = $1 AND lower(name) = lower($2)', [
    createdBy, name,
  ]);
  return rows.length > 0;
}

/** Tokens without their values; `owner` null lists all of them. */
export async function listTokens(db: Db, owner: string | null): Promise<AccessTokenSummary[]> {
  const { rows } = await db.query<AccessTokenSummary>(
    `SELECT t.id, t.name, t.auto_renew, t.created_at, t.expires_at,
       json_build_object('id', p.id, 'name', p.name) AS person,
       CASE WHEN c.id IS NULL THEN NULL ELSE json_build_object('id', c.id, 'name', c.name, 'email', c.email) END
         AS created_by
     FROM access_tokens t JOIN people p ON p.id = t.person_id LEFT JOIN people c ON c.id = t.created_by
     WHERE $1::uuid IS NULL OR t.created_by = $1 OR t.person_id = $1
     ORDER BY t.created_at DESC, t.id`,
    [owner],
  );
  return rows;
}

export async function getTokenOwners(db: Db, id: string): Promise<{ person_id: string; created_by: string | null } | null> {
  const { rows } = await db.query('SELECT person_id, created_by FROM access_tokens WHERE id = $1', [id]);
  return rows[0] ?? null;
}

/** Deletes a token and retires its synthetic person (never a real user a token was issued to directly). */
export async function deleteToken(db: Db, id: string): Promise<void> {
  const { rows } = await db.query<{ person_id: string }>('DELETE FROM access_tokens WHERE id = $1 RETURNING person_id', [id]);
  if (rows[0]) {
    await db.query(
      `UPDATE people SET deleted_at = now() WHERE id = $1 AND type = 'access_token' AND deleted_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM access_tokens WHERE person_id = $1)`,
      [rows[0].person_id],
    );
  }
}
