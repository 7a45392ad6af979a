import type pg from 'pg';
import { hashSecret, randomToken } from '../../lib/crypto.js';

export interface NewAccessToken {
  id: string;
  /** Shown once: `<id without dashes>.<secret>`. */
  token: string;
}

/** Stores an access token for a person (only an argon2id hash of its secret) and returns the plaintext once. */
export async function insertAccessToken(
  db: pg.Pool | pg.PoolClient,
  input: { personId: string; name: string; createdBy: string | null; expiresAt: Date | null; autoRenew: boolean },
): Promise<NewAccessToken> {
  const secret = randomToken(32);
  const { rows } = await db.query<{ id: string }>(
    // an auto-renewing token is extended by the lifetime it was created with (see plugins/auth.ts)
    `INSERT INTO access_tokens (name, person_id, value, auto_renew, created_by, expires_at, renew_interval)
     VALUES ($1, $2, $3, $4, $5, $6::timestamptz,
       CASE WHEN $4 AND $6::timestamptz IS NOT NULL THEN $6::timestamptz - now() END) RETURNING id`,
    [input.name, input.personId, await hashSecret(secret), input.autoRenew, input.createdBy, input.expiresAt],
  );
  const id = rows[0].id;
  return { id, token: `${id.replace(/-/g, '')}.${secret}` };
}
