import type pg from 'pg';
import type { Aal, FlowType, UiText } from '../../../contracts/identity.js';
import { loginCandidatesSql, type LoginCandidate } from '../queries.js';
import type { StoredFlow } from './types.js';

type Db = pg.Pool | pg.PoolClient;

export interface FlowRow extends StoredFlow {
  csrf_hash: string;
  messages: UiText[];
  updated_at: Date;
}

const COLUMNS = `id, type, state, person_id, session_id, csrf_hash, return_to, requested_aal, refresh, data, messages,
  attempts, request_url, created_at, updated_at, expires_at`;

export async function insertFlow(
  db: Db,
  f: {
    type: FlowType; personId: string | null; sessionId: string | null; csrfHash: string; returnTo: string | null;
    requestedAal: Aal | null; refresh: boolean; requestUrl: string; minutes: number;
  },
): Promise<FlowRow> {
  const { rows } = await db.query<FlowRow>(
    `INSERT INTO auth_flows (type, person_id, session_id, csrf_hash, return_to, requested_aal, refresh, request_url, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(secs => $9)) RETURNING ${COLUMNS}`,
    [f.type, f.personId, f.sessionId, f.csrfHash, f.returnTo, f.requestedAal, f.refresh, f.requestUrl, f.minutes * 60],
  );
  return rows[0];
}

/** Saves a flow built and rendered in memory (its id, state, data and times chosen already): one statement. */
export async function insertBuiltFlow(db: Db, f: FlowRow): Promise<void> {
  await db.query({
    name: 'auth-insert-built-flow',
    text: `INSERT INTO auth_flows (id, type, state, person_id, session_id, csrf_hash, return_to, requested_aal, refresh, data,
             request_url, created_at, updated_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13)`,
    values: [f.id, f.type, f.state, f.person_id, f.session_id, f.csrf_hash, f.return_to, f.requested_aal, f.refresh,
      f.data, f.request_url, f.created_at, f.expires_at],
  });
}

export async function selectFlow(db: Db, id: string): Promise<FlowRow | null> {
  const { rows } = await db.query<FlowRow>({ name: 'auth-select-flow', text: `SELECT ${COLUMNS} FROM auth_flows WHERE id = $1`, values: [id] });
  return rows[0] ?? null;
}

/**
 * A flow and, when it is a first-factor login (no person yet), the password login's candidates for `identifier`
 * (loginCandidatesSql: people, hash, roles, lockout) in one round trip: the sign-in's submission reads both anyway.
 * `candidates` is null for any other flow.
 */
export async function selectFlowAndCandidates(
  db: Db, id: string, identifier: string, lockMinutes: number,
): Promise<{ row: FlowRow; candidates: LoginCandidate[] | null } | null> {
  const { rows } = await db.query<FlowRow & { login_candidates: (Omit<LoginCandidate, 'locked_until'> & { locked_until: string | null })[] | null }>({
    name: 'auth-select-flow-candidates',
    text: `SELECT ${COLUMNS},
        CASE WHEN type = 'login' AND person_id IS NULL THEN to_json(ARRAY(
          SELECT json_build_object('id', x.id, 'name', x.name, 'email', x.email, 'password_hash', x.password_hash,
                   'state', x.state, 'roles', x.roles, 'locked_until', x.locked_until)
          FROM (${loginCandidatesSql('$2', '$3')}) x)) END AS login_candidates
      FROM auth_flows WHERE id = $1`,
    values: [id, identifier, lockMinutes],
  });
  const r = rows[0];
  if (!r) return null;
  const { login_candidates: found, ...row } = r;
  const candidates = found && found.map((c) => ({ ...c, locked_until: c.locked_until ? new Date(c.locked_until) : null }));
  return { row, candidates };
}

/** Saves state, data and flow-level messages together. */
export async function updateFlow(
  db: Db, id: string, patch: { state?: string | null; data?: Record<string, unknown>; messages?: UiText[] },
): Promise<void> {
  await db.query(
    `UPDATE auth_flows SET state = CASE WHEN $2 THEN $3 ELSE state END, data = coalesce($4, data),
       messages = coalesce($5, messages), updated_at = now() WHERE id = $1`,
    [id, patch.state !== undefined, patch.state ?? null, patch.data ?? null,
      patch.messages === undefined ? null : JSON.stringify(patch.messages)],
  );
}

export async function mergeFlowData(db: Db, id: string, patch: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { rows } = await db.query<{ data: Record<string, unknown> }>(
    'UPDATE auth_flows SET data = data || $2::jsonb, updated_at = now() WHERE id = $1 RETURNING data',
    [id, patch],
  );
  return rows[0]?.data ?? {};
}

export async function incrementAttempts(db: Db, id: string): Promise<number> {
  const { rows } = await db.query<{ attempts: number }>(
    'UPDATE auth_flows SET attempts = attempts + 1, updated_at = now() WHERE id = $1 RETURNING attempts',
    [id],
  );
  return rows[0]?.attempts ?? 0;
}

/** Ends a flow now (too many wrong answers, or used up): later submissions get 410. */
export async function expireFlow(db: Db, id: string): Promise<void> {
  await db.query('UPDATE auth_flows SET expires_at = least(expires_at, now() - interval \'1 second\') WHERE id = $1', [id]);
}

export async function insertFlowError(db: Db, error: unknown): Promise<string> {
  const { rows } = await db.query<{ id: string }>('INSERT INTO auth_flow_errors (error) VALUES ($1) RETURNING id', [error]);
  return rows[0].id;
}

export async function selectFlowError(db: Db, id: string): Promise<{ id: string; error: unknown; created_at: Date } | null> {
  const { rows } = await db.query('SELECT id, error, created_at FROM auth_flow_errors WHERE id = $1', [id]);
  return rows[0] ?? null;
}

/** Failed sign-in answers for a person in the last `minutes` (lockout after 10 in 15 min). */
export async function recentFailures(db: Db, personId: string, minutes: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM auth_events
     WHERE person_id = $1 AND type = 'login_failed' AND created_at > now() - make_interval(mins => $2)
       AND created_at > coalesce((SELECT max(created_at) FROM auth_events
         WHERE person_id = $1 AND type IN ('login', 'unlocked') AND success), '-infinity')`,
    [personId, minutes],
  );
  return rows[0].n;
}

/** When a person's current lockout ends, if locked. */
export async function lockedUntil(db: Db, personId: string, minutes: number): Promise<Date | null> {
  const { rows } = await db.query<{ until: Date }>(
    `SELECT created_at + make_interval(mins => $2) AS until FROM auth_events
     WHERE person_id = $1 AND type = 'locked' AND created_at > now() - make_interval(mins => $2)
     ORDER BY created_at DESC LIMIT 1`,
    [personId, minutes],
  );
  return rows[0]?.until ?? null;
}

export interface IdentityRow {
  id: string;
  traits: { email?: string; name?: { first?: string; last?: string } };
  state: 'active' | 'inactive';
  created_at: Date;
  updated_at: Date;
  addresses: { id: string; value: string; verified: boolean; status: string; verified_at: Date | null; created_at: Date; updated_at: Date }[];
}

/** An identity's verifiable addresses as a JSON array (the identity aliased `i`). */
export const IDENTITY_ADDRESSES = `coalesce((SELECT json_agg(json_build_object('id', a.id, 'value', a.value,
    'verified', a.verified, 'status', a.status, 'verified_at', a.verified_at, 'created_at', a.created_at,
    'updated_at', a.updated_at) ORDER BY a.created_at)
  FROM identity_verifiable_addresses a WHERE a.person_id = i.id), '[]')`;

export async function selectIdentity(db: Db, id: string): Promise<IdentityRow | null> {
  const { rows } = await db.query<IdentityRow>(
    `SELECT i.id, i.traits, i.state, i.created_at, i.updated_at, ${IDENTITY_ADDRESSES} AS addresses
     FROM identities i JOIN people p ON p.id = i.id WHERE i.id = $1 AND p.deleted_at IS NULL`,
    [id],
  );
  return rows[0] ?? null;
}

export interface SessionRow {
  id: string;
  person_id: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  ip: string | null;
  user_agent: string | null;
  aal: 'aal1' | 'aal2';
  authenticated_at: Date;
  methods: { method: string; aal: string; completed_at: string }[];
  organization_id: string | null;
}

export const SESSION_COLUMNS = `id, person_id, created_at, last_seen_at, expires_at, ip, user_agent, aal, authenticated_at, methods,
  organization_id`;

export async function selectSession(db: Db, id: string): Promise<SessionRow | null> {
  const { rows } = await db.query<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

/** A person's live sessions, most recently used first (the caller's own excluded when given). */
export async function selectPersonSessions(db: Db, personId: string, idleMinutes: number, except?: string): Promise<SessionRow[]> {
  const { rows } = await db.query<SessionRow>(
    `SELECT ${SESSION_COLUMNS} FROM sessions
     WHERE person_id = $1 AND expires_at > now() AND last_seen_at > now() - make_interval(mins => $2)
       AND ($3::uuid IS NULL OR id <> $3)
     ORDER BY last_seen_at DESC LIMIT 500`,
    [personId, idleMinutes, except ?? null],
  );
  return rows;
}

/** Upgrades or refreshes a session after a proven factor: aal never goes down, authenticated_at is now. */
export async function upgradeSession(
  db: Db, id: string, aal: 'aal1' | 'aal2', method: { method: string; aal: string; completed_at: string },
): Promise<void> {
  await db.query(
    `UPDATE sessions SET aal = CASE WHEN aal = 'aal2' OR $2 = 'aal2' THEN 'aal2' ELSE 'aal1' END,
       authenticated_at = now(), last_seen_at = now(), methods = methods || $3::jsonb WHERE id = $1`,
    [id, aal, JSON.stringify([method])],
  );
}

export async function setNewSessionAuth(
  db: Db, tokenHash: string, aal: 'aal1' | 'aal2', method: { method: string; aal: string; completed_at: string },
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE sessions SET aal = $2, authenticated_at = now(), methods = $3::jsonb WHERE token_hash = $1 RETURNING id`,
    [tokenHash, aal, JSON.stringify([method])],
  );
  return rows[0].id;
}

/** Ends a person's sessions (all, or all but one); returns how many. */
export async function deletePersonSessions(db: Db, personId: string, except?: string | null): Promise<number> {
  const { rowCount } = await db.query(
    'DELETE FROM sessions WHERE person_id = $1 AND ($2::uuid IS NULL OR id <> $2)',
    [personId, except ?? null],
  );
  return rowCount ?? 0;
}

export async function deleteOwnSession(db: Db, personId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM sessions WHERE id = $1 AND person_id = $2', [id, personId]);
  return (rowCount ?? 0) > 0;
}
