import type pg from 'pg';
import type { PersonRow } from '../../contracts/auth.js';

type Db = pg.Pool | pg.PoolClient;

export interface LoginCandidate {
  id: string;
  name: string;
  email: string | null;
  password_hash: string;
  state: string;
  roles: string[];
  /** When a current sign-in lockout ends (the latest `locked` event within `lockMinutes`), else null. */
  locked_until: Date | null;
}

/** The login candidates' SELECT: people with a password whose email or name is the text parameter `$u`
 * (case-insensitive), email matches first, with their roles and current lockout (`$m` minutes). */
export const loginCandidatesSql = (u: string, m: string) => `SELECT p.id, p.name, p.email, c.password_hash, i.state,
       ARRAY(SELECT role FROM person_roles r WHERE r.person_id = p.id) AS roles,
       (SELECT e.created_at + make_interval(mins => ${m}) FROM auth_events e
         WHERE e.person_id = p.id AND e.type = 'locked' AND e.created_at > now() - make_interval(mins => ${m})
         ORDER BY e.created_at DESC LIMIT 1) AS locked_until
     FROM identities i
     JOIN people p ON p.id = i.id
     JOIN identity_credentials c ON c.identity_id = i.id
     WHERE p.deleted_at IS NULL AND (lower(p.email) = lower(${u}) OR lower(p.name) = lower(${u}))
     ORDER BY (lower(p.email) = lower(${u})) DESC, p.created_at
     LIMIT 5`;

/** People with a password whose email or name is `username` (case-insensitive); email matches first. */
export async function findLoginCandidates(db: Db, username: string, lockMinutes = 15): Promise<LoginCandidate[]> {
  const { rows } = await db.query<LoginCandidate>({
    name: 'auth-login-candidates',
    text: loginCandidatesSql('$1', '$2'),
    values: [username, lockMinutes],
  });
  return rows;
}

export async function touchLastLogin(db: Db, personId: string): Promise<void> {
  await db.query('UPDATE people SET last_login = now() WHERE id = $1', [personId]);
}

export async function deleteSessionByHash(db: Db, tokenHash: string): Promise<void> {
  await db.query('DELETE FROM sessions WHERE token_hash = $1', [tokenHash]);
}

export async function deleteSessionById(db: Db, id: string): Promise<void> {
  await db.query('DELETE FROM sessions WHERE id = $1', [id]);
}

const PERSON_COLUMNS = `id, name, email, avatar, type, team_id, organization, title, phone, properties, external_id,
  created_at, updated_at, last_login`;

/** A live people row, without anything secret. */
export async function getPerson(db: Db, id: string): Promise<PersonRow | null> {
  const { rows } = await db.query<PersonRow>(
    `SELECT ${PERSON_COLUMNS} FROM people WHERE id = $1 AND deleted_at IS NULL`,
    [id],
  );
  return rows[0] ?? null;
}

/** Live properties as a name → value map (feature flags and settings). */
export async function propertyMap(db: Db): Promise<Record<string, string>> {
  const { rows } = await db.query<{ name: string; value: string }>(
    'SELECT name, value FROM properties WHERE deleted_at IS NULL',
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.value]));
}

/** True when a live person or identity already uses the email (case-insensitive). */
export async function emailInUse(db: Db, email: string): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM identities WHERE lower(traits ->> 'email') = lower($1)
     UNION ALL SELECT 1 FROM people WHERE lower(email) = lower($1) AND deleted_at IS NULL
     LIMIT 1`,
    [email],
  );
  return rows.length > 0;
}

export interface NewIdentity {
  email: string;
  first: string;
  last: string;
  passwordHash: string;
  roles: string[];
}

/** Creates an identity (the trigger adds its people row), its password and its role bindings. */
export async function insertIdentity(db: Db, input: NewIdentity): Promise<string> {
  const traits = { email: input.email, name: { first: input.first, last: input.last } };
  const { rows } = await db.query<{ id: string }>('INSERT INTO identities (traits) VALUES ($1) RETURNING id', [traits]);
  const id = rows[0].id;
  await db.query('INSERT INTO identity_credentials (identity_id, password_hash) VALUES ($1, $2)', [
    id, input.passwordHash,
  ]);
  await db.query(
    'INSERT INTO person_roles (person_id, role) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING',
    [id, input.roles],
  );
  return id;
}
