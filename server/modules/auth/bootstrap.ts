import type pg from 'pg';
import type { Config } from '../../config.js';
import { hashSecret, randomToken, verifySecret } from '../../lib/crypto.js';
import { insertIdentity } from './queries.js';
import { inTransaction } from '../../lib/tx.js';

// Arbitrary but fixed: replicas starting together create one admin.
const ADMIN_LOCK_KEY = 7_240_118_332;

interface AdminIdentity {
  id: string;
  state: string;
  deleted: boolean;
  password_hash: string | null;
}

async function activeAdminExists(c: pg.PoolClient): Promise<boolean> {
  const { rows } = await c.query(
    `SELECT 1 FROM person_roles r JOIN people p ON p.id = r.person_id JOIN identities i ON i.id = p.id
     WHERE r.role = 'admin' AND p.deleted_at IS NULL AND i.state = 'active' LIMIT 1`,
  );
  return rows.length > 0;
}

async function identityByEmail(c: pg.PoolClient, email: string): Promise<AdminIdentity | null> {
  const { rows } = await c.query<AdminIdentity>(
    `SELECT i.id, i.state, p.deleted_at IS NOT NULL AS deleted, cr.password_hash
     FROM identities i JOIN people p ON p.id = i.id LEFT JOIN identity_credentials cr ON cr.identity_id = i.id
     WHERE lower(i.traits ->> 'email') = lower($1)`,
    [email],
  );
  return rows[0] ?? null;
}

/**
 * Makes sure someone can administer the console. When no active person holds the admin role, ADMIN_EMAIL becomes
 * one: created (name "Admin") with ADMIN_PASSWORD or a generated password that is shown once through `print`
 * (never through the logger), or, if that identity exists, reactivated and given the admin role. An existing
 * password is never replaced. Idempotent and safe for replicas starting together.
 */
export async function ensureAdmin(db: pg.Pool, config: Config, print: (line: string) => void): Promise<void> {
  const email = config.ADMIN_EMAIL;
  const lines = await inTransaction(db, async (c) => {
    await c.query('SELECT pg_advisory_xact_lock($1)', [ADMIN_LOCK_KEY]);
    const existing = await identityByEmail(c, email);
    if (await activeAdminExists(c)) {
      if (config.ADMIN_PASSWORD && existing?.password_hash && !(await verifySecret(existing.password_hash, config.ADMIN_PASSWORD))) {
        return [`ADMIN_PASSWORD was not applied: ${email} already has a password (change it in the console)`];
      }
      return [];
    }
    if (existing && !existing.deleted) {
      await c.query(`UPDATE identities SET state = 'active' WHERE id = $1 AND state <> 'active'`, [existing.id]);
      await c.query(`INSERT INTO person_roles (person_id, role) VALUES ($1, 'admin') ON CONFLICT DO NOTHING`, [existing.id]);
      if (existing.password_hash) return [`No active admin found: granted the admin role to ${email}`];
      const password = config.ADMIN_PASSWORD ?? randomToken(18);
      await c.query('INSERT INTO identity_credentials (identity_id, password_hash) VALUES ($1, $2)', [
        existing.id, await hashSecret(password),
      ]);
      return [`No active admin found: granted the admin role to ${email}`, ...passwordLines(email, config, password)];
    }
    const password = config.ADMIN_PASSWORD ?? randomToken(18);
    await insertIdentity(c, { email, first: 'Admin', last: '', passwordHash: await hashSecret(password), roles: ['admin'] });
    return [`Created admin user ${email}`, ...passwordLines(email, config, password)];
  });
  lines.forEach((l) => print(l));
}

/** Only a generated password is printed; one the operator chose is already known to them. */
function passwordLines(email: string, config: Config, password: string): string[] {
  if (config.ADMIN_PASSWORD) return [`Sign in as ${email} with the password from ADMIN_PASSWORD`];
  return [`Sign in as ${email} with the generated password: ${password}`, 'It is shown only this once; change it after signing in.'];
}
