import type pg from 'pg';
import type { Organization } from '../../../contracts/auth.js';
import type { Role } from '../../../contracts/rbac.js';

type Db = pg.Pool | pg.PoolClient;

// ---- sign-ins in progress ----

export interface AuthRequestRow {
  nonce: string;
  code_verifier: string;
  return_to: string | null;
  prompt_none: boolean;
  expires_at: Date;
}

/** Stores a sign-in sent to the provider (keyed by the SHA-256 of its state); clears expired ones on the way. */
export async function insertAuthRequest(
  db: Db, r: { stateHash: string; nonce: string; codeVerifier: string; returnTo: string | null; promptNone: boolean; minutes: number },
): Promise<void> {
  await db.query('DELETE FROM oidc_auth_requests WHERE expires_at < now()');
  await db.query(
    `INSERT INTO oidc_auth_requests (state_hash, nonce, code_verifier, return_to, prompt_none, expires_at)
     VALUES ($1, $2, $3, $4, $5, now() + make_interval(mins => $6))`,
    [r.stateHash, r.nonce, r.codeVerifier, r.returnTo, r.promptNone, r.minutes],
  );
}

/** Takes (deletes and returns) the sign-in a state belongs to: a state works once, expired or not. */
export async function takeAuthRequest(db: Db, stateHash: string): Promise<(AuthRequestRow & { expired: boolean }) | null> {
  const { rows } = await db.query<AuthRequestRow & { expired: boolean }>(
    `DELETE FROM oidc_auth_requests WHERE state_hash = $1
     RETURNING nonce, code_verifier, return_to, prompt_none, expires_at, expires_at <= now() AS expired`,
    [stateHash],
  );
  return rows[0] ?? null;
}

// ---- people ----

export interface OidcPersonRow {
  id: string;
  name: string;
  email: string | null;
  external_id: string | null;
  has_identity: boolean;
  state: string | null;
}

const PERSON = `SELECT p.id, p.name, p.email, p.external_id, i.id IS NOT NULL AS has_identity, i.state
  FROM people p LEFT JOIN identities i ON i.id = p.id WHERE p.deleted_at IS NULL`;

export async function findPersonByExternalId(db: Db, externalId: string): Promise<OidcPersonRow | null> {
  const { rows } = await db.query<OidcPersonRow>(`${PERSON} AND p.external_id = $1 ORDER BY p.created_at LIMIT 1`, [externalId]);
  return rows[0] ?? null;
}

export async function findPersonByEmail(db: Db, email: string): Promise<OidcPersonRow | null> {
  const { rows } = await db.query<OidcPersonRow>(
    `${PERSON} AND (lower(p.email) = lower($1) OR lower(i.traits ->> 'email') = lower($1)) ORDER BY p.created_at LIMIT 1`,
    [email],
  );
  return rows[0] ?? null;
}

/** Creates a person from the provider: an identity (its trigger adds the people row) of type `user`, no password. */
export async function insertOidcPerson(
  db: Db, p: { externalId: string; first: string; last: string; email: string | null; emailVerified: boolean },
): Promise<string> {
  const traits = { email: p.email, name: { first: p.first, last: p.last } };
  const { rows } = await db.query<{ id: string }>('INSERT INTO identities (traits) VALUES ($1) RETURNING id', [traits]);
  const id = rows[0].id;
  await db.query(`UPDATE people SET type = 'user', external_id = $2 WHERE id = $1`, [id, p.externalId]);
  if (p.email && p.emailVerified) await markEmailVerified(db, id, p.email);
  return id;
}

/** Re-syncs name and email (the email only when no one else holds it) and records the provider's id. */
export async function syncOidcPerson(
  db: Db, id: string, p: { externalId: string; first: string; last: string; name: string; email: string | null; emailVerified: boolean },
): Promise<void> {
  const { rows } = await db.query<{ taken: boolean }>(
    `SELECT $2::text IS NOT NULL AND EXISTS (
       SELECT 1 FROM people WHERE lower(email) = lower($2) AND id <> $1 AND deleted_at IS NULL
       UNION ALL SELECT 1 FROM identities WHERE lower(traits ->> 'email') = lower($2) AND id <> $1) AS taken`,
    [id, p.email],
  );
  const email = rows[0].taken ? null : p.email;
  // the identity trigger mirrors name and email into people
  await db.query(
    `UPDATE identities SET traits = jsonb_set(jsonb_set(traits, '{name}', $2::jsonb),
       '{email}', coalesce(to_jsonb($3::text), traits -> 'email', 'null'::jsonb))
     WHERE id = $1`,
    [id, JSON.stringify({ first: p.first, last: p.last }), email],
  );
  await db.query(
    `UPDATE people SET external_id = $2, name = CASE WHEN EXISTS (SELECT 1 FROM identities WHERE id = $1) THEN name ELSE $3 END,
       email = coalesce($4, email)
     WHERE id = $1`,
    [id, p.externalId, p.name, email],
  );
  if (email && p.emailVerified) await markEmailVerified(db, id, email);
}

async function markEmailVerified(db: Db, personId: string, email: string): Promise<void> {
  await db.query(
    `INSERT INTO identity_verifiable_addresses (person_id, value, verified, verified_at, status)
     VALUES ($1, $2, true, now(), 'completed') ON CONFLICT DO NOTHING`,
    [personId, email],
  );
}

export async function touchLastLogin(db: Db, personId: string): Promise<void> {
  await db.query('UPDATE people SET last_login = now() WHERE id = $1', [personId]);
}

/** Replaces the person's console roles (person_roles: what the auth plugin reads). */
export async function setPersonRoles(db: Db, personId: string, roles: Role[]): Promise<void> {
  await db.query('DELETE FROM person_roles WHERE person_id = $1 AND NOT (role = ANY($2::text[]))', [personId, roles]);
  await db.query(
    'INSERT INTO person_roles (person_id, role) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING',
    [personId, roles],
  );
}

export async function personRoles(db: Db, personId: string): Promise<string[]> {
  const { rows } = await db.query<{ role: string }>('SELECT role FROM person_roles WHERE person_id = $1', [personId]);
  return rows.map((r) => r.role);
}

// ---- organisations ----

/** The organisation with this claim id, created or renamed as the claim names it; returns its id. */
export async function upsertOrganization(db: Db, externalId: string, name: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO organizations (external_id, name) VALUES ($1, $2)
     ON CONFLICT (external_id) DO UPDATE SET name = EXCLUDED.name,
       updated_at = CASE WHEN organizations.name = EXCLUDED.name THEN organizations.updated_at ELSE now() END
     RETURNING id`,
    [externalId, name],
  );
  return rows[0].id;
}

/** Makes the person's provider memberships exactly these (organisation id → roles). */
export async function setMemberships(db: Db, personId: string, members: { orgId: string; roles: Role[] }[]): Promise<void> {
  await db.query(
    `DELETE FROM organization_members WHERE person_id = $1 AND source = 'oidc' AND NOT (organization_id = ANY($2::uuid[]))`,
    [personId, members.map((m) => m.orgId)],
  );
  for (const m of members) {
    await db.query(
      `INSERT INTO organization_members (organization_id, person_id, roles, source) VALUES ($1, $2, $3, 'oidc')
       ON CONFLICT (organization_id, person_id) DO UPDATE SET roles = EXCLUDED.roles, updated_at = now()`,
      [m.orgId, personId, m.roles],
    );
  }
}

/** The person's organisations with their roles there, by name. */
export async function listMemberships(db: Db, personId: string): Promise<Organization[]> {
  const { rows } = await db.query<Organization>(
    `SELECT o.id, o.external_id, o.name, m.roles FROM organization_members m JOIN organizations o ON o.id = m.organization_id
     WHERE m.person_id = $1 ORDER BY lower(o.name), o.id`,
    [personId],
  );
  return rows;
}

// ---- sessions ----

/** Marks a fresh session as opened by the provider (method oidc, aal1, now) in an organisation (or none). */
export async function markOidcSession(
  db: Db, s: { sessionId: string; organizationId: string | null; idTokenSealed: string | null; orgClaimPresent: boolean; provider: string },
): Promise<void> {
  const methods = [{ method: 'oidc', aal: 'aal1', completed_at: new Date().toISOString(), provider: s.provider }];
  await db.query(
    `UPDATE sessions SET aal = 'aal1', authenticated_at = now(), methods = $2, organization_id = $3 WHERE id = $1`,
    [s.sessionId, JSON.stringify(methods), s.organizationId],
  );
  await db.query(
    `INSERT INTO oidc_sessions (session_id, id_token_sealed, org_claim_present) VALUES ($1, $2, $3)`,
    [s.sessionId, s.idTokenSealed, s.orgClaimPresent],
  );
}

export async function sessionIdByTokenHash(db: Db, tokenHash: string): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM sessions WHERE token_hash = $1', [tokenHash]);
  return rows[0]?.id ?? null;
}

/** The session's active organisation and what its sign-in carried. */
export async function sessionOrgState(
  db: Db, sessionId: string,
): Promise<{ organization_id: string | null; org_claim_present: boolean; id_token_sealed: string | null } | null> {
  const { rows } = await db.query(
    `SELECT s.organization_id, coalesce(o.org_claim_present, false) AS org_claim_present, o.id_token_sealed
     FROM sessions s LEFT JOIN oidc_sessions o ON o.session_id = s.id WHERE s.id = $1`,
    [sessionId],
  );
  return rows[0] ?? null;
}

export async function setSessionOrganization(db: Db, sessionId: string, organizationId: string): Promise<void> {
  await db.query('UPDATE sessions SET organization_id = $2 WHERE id = $1', [sessionId, organizationId]);
}

// ---- teams ----

export interface TeamGroupsRow {
  id: string;
  name: string;
  oidc_groups: unknown;
}

/** Live teams with their name and spec.oidc_groups, to match against a group claim. */
export async function listTeamsWithGroups(db: Db): Promise<TeamGroupsRow[]> {
  const { rows } = await db.query<TeamGroupsRow>(
    `SELECT id, name, spec -> 'oidc_groups' AS oidc_groups FROM teams WHERE deleted_at IS NULL`,
  );
  return rows;
}

/**
 * Makes the person's group-given team memberships exactly these teams: adds rows with source 'oidc' and removes
 * 'oidc' rows of other teams; memberships added by hand (another source) are left alone.
 */
export async function setOidcTeams(db: Db, personId: string, teamIds: string[]): Promise<{ added: number; removed: number }> {
  const removed = await db.query(
    `DELETE FROM team_members WHERE person_id = $1 AND source = 'oidc' AND NOT (team_id = ANY($2::uuid[]))`,
    [personId, teamIds],
  );
  const added = await db.query(
    `INSERT INTO team_members (team_id, person_id, source) SELECT unnest($2::uuid[]), $1, 'oidc' ON CONFLICT DO NOTHING`,
    [personId, teamIds],
  );
  return { added: added.rowCount ?? 0, removed: removed.rowCount ?? 0 };
}
