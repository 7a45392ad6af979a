import type pg from 'pg';

type Db = pg.Pool | pg.PoolClient;

/** A row of auth_webauthn_credentials. */
export interface WebAuthnCredentialRow {
  id: string;
  person_id: string;
  credential_id: string;
  public_key: Buffer;
  counter: string;
  transports: string[];
  name: string;
  is_passkey: boolean;
  user_verified: boolean;
  aaguid: string | null;
  created_at: Date;
  last_used_at: Date | null;
}

/** The person's credentials of one kind (passkeys or security keys), or of both when `isPasskey` is null. */
export async function listCredentials(db: Db, personId: string, isPasskey: boolean | null): Promise<WebAuthnCredentialRow[]> {
  const { rows } = await db.query<WebAuthnCredentialRow>(
    `SELECT * FROM auth_webauthn_credentials
      WHERE person_id = $1 AND ($2::boolean IS NULL OR is_passkey = $2)
      ORDER BY created_at, id`,
    [personId, isPasskey],
  );
  return rows;
}

export async function hasCredentials(db: Db, personId: string, isPasskey: boolean): Promise<boolean> {
  const { rows } = await db.query(
    'SELECT 1 FROM auth_webauthn_credentials WHERE person_id = $1 AND is_passkey = $2 LIMIT 1',
    [personId, isPasskey],
  );
  return rows.length > 0;
}

/** A credential by the id the authenticator sent, if its person may sign in (active identity, not deleted). */
export async function findActiveCredential(db: Db, credentialId: string): Promise<WebAuthnCredentialRow | undefined> {
  const { rows } = await db.query<WebAuthnCredentialRow>(
    `SELECT c.* FROM auth_webauthn_credentials c
       JOIN identities i ON i.id = c.person_id AND i.state = 'active'
       JOIN people p ON p.id = c.person_id AND p.deleted_at IS NULL
      WHERE c.credential_id = $1`,
    [credentialId],
  );
  return rows[0];
}

export interface NewCredential {
  personId: string;
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
  name: string;
  isPasskey: boolean;
  userVerified: boolean;
  aaguid: string | null;
}

/** Saves a registered credential; undefined when that credential id is already registered. */
export async function insertCredential(db: Db, c: NewCredential): Promise<WebAuthnCredentialRow | undefined> {
  const { rows } = await db.query<WebAuthnCredentialRow>(
    `INSERT INTO auth_webauthn_credentials
       (person_id, credential_id, public_key, counter, transports, name, is_passkey, user_verified, aaguid)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (credential_id) DO NOTHING
     RETURNING *`,
    [c.personId, c.credentialId, Buffer.from(c.publicKey), c.counter, c.transports, c.name, c.isPasskey, c.userVerified, c.aaguid],
  );
  return rows[0];
}

/**
 * Records a verified assertion. The counter only moves forward: a concurrent use of the same credential that already
 * moved it loses (false), as a cloned authenticator would.
 */
export async function markUsed(db: Db, id: string, previous: string, counter: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE auth_webauthn_credentials SET counter = $3, last_used_at = now()
      WHERE id = $1 AND counter = $2`,
    [id, previous, counter],
  );
  return rowCount === 1;
}

/** Removes one of the person's credentials of the kind; returns its name, or undefined when there was none. */
export async function deleteCredential(db: Db, personId: string, id: string, isPasskey: boolean): Promise<string | undefined> {
  const { rows } = await db.query<{ name: string }>(
    `DELETE FROM auth_webauthn_credentials WHERE person_id = $1 AND id = $2 AND is_passkey = $3 RETURNING name`,
    [personId, id, isPasskey],
  );
  return rows[0]?.name;
}

export async function deleteAllCredentials(db: Db, personId: string, isPasskey: boolean): Promise<number> {
  const { rowCount } = await db.query(
    'DELETE FROM auth_webauthn_credentials WHERE person_id = $1 AND is_passkey = $2',
    [personId, isPasskey],
  );
  return rowCount ?? 0;
}

/** Whether the person can still sign in with a password (the last passkey of a person without one stays). */
export async function hasPassword(db: Db, personId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM identity_credentials WHERE identity_id = $1', [personId]);
  return rows.length > 0;
}

/** The name and email a new credential is registered under (shown by the authenticator's account picker). */
export async function personLabel(db: Db, personId: string): Promise<{ name: string; email: string | null } | undefined> {
  const { rows } = await db.query<{ name: string; email: string | null }>(
    'SELECT name, email FROM people WHERE id = $1',
    [personId],
  );
  return rows[0];
}

/**
 * Takes a WebAuthn challenge out of a flow's data when it is still the one given: true for exactly one caller, so
 * two answers to one challenge cannot both pass.
 */
export async function consumeFlowChallenge(db: Db, flowId: string, key: string, challenge: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE auth_flows SET data = jsonb_set(data, ARRAY[$2::text], 'null'::jsonb), updated_at = now()
      WHERE id = $1 AND data -> $2 ->> 'challenge' = $3`,
    [flowId, key, challenge],
  );
  return rowCount === 1;
}
