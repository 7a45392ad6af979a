import type pg from 'pg';
import { csrfTokenFor } from '../../plugins/auth.js';
import { randomToken, sha256 } from '../../lib/crypto.js';

export interface NewSession {
  /** The secret cookie value; only its SHA-256 is stored. */
  token: string;
  csrfToken: string;
  expiresAt: Date;
}

/** Opens a session for a person; the caller sets the cookie. */
export async function createSession(
  db: pg.Pool | pg.PoolClient,
  personId: string,
  ttlHours: number,
  meta: { ip?: string; userAgent?: string } = {},
): Promise<NewSession> {
  const token = randomToken(32);
  const expiresAt = new Date(Date.now() + ttlHours * 3_600_000);
  await db.query(
    'INSERT INTO sessions (person_id, token_hash, expires_at, ip, user_agent) VALUES ($1, $2, $3, $4, $5)',
    [personId, sha256(token), expiresAt, meta.ip ?? null, meta.userAgent?.slice(0, 500) ?? null],
  );
  return { token, csrfToken: csrfTokenFor(token), expiresAt };
}
