import type { FastifyRequest } from 'fastify';
import type pg from 'pg';

/** One row of auth_events (sign-in activity, kept 90 days). */
export interface AuthEvent {
  personId: string | null;
  sessionId?: string | null;
  /** e.g. login, login_failed, logout, session_revoked, password_changed, totp_enrolled, totp_removed,
   * lookup_regenerated, webauthn_added, webauthn_removed, recovery_requested, recovered, verified, locked, oidc_login,
   * not_me, factors_reset */
  type: string;
  method?: string | null;
  aal?: string | null;
  success?: boolean;
  details?: Record<string, unknown>;
}

/** Records sign-in activity with the request's client address and user agent. */
export async function recordAuthEvent(db: pg.Pool | pg.PoolClient, req: FastifyRequest | null, e: AuthEvent): Promise<void> {
  await db.query(
    `INSERT INTO auth_events (person_id, session_id, type, method, aal, success, ip, user_agent, details)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [e.personId, e.sessionId ?? null, e.type, e.method ?? null, e.aal ?? null, e.success ?? true,
      req?.ip ?? null, req?.headers['user-agent']?.slice(0, 500) ?? null, e.details ?? {}],
  );
}
