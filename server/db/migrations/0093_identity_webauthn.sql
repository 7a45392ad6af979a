-- WebAuthn credentials (issue 17): security keys (a second factor, aal2) and passkeys (discoverable credentials, a
-- first factor; aal2 when the authenticator verified the user). Only public keys are kept: nothing here signs in.
-- No /api/db relation exposes this table; the settings flow lists a person's own credentials.
CREATE TABLE auth_webauthn_credentials (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  person_id uuid NOT NULL REFERENCES people (id) ON DELETE CASCADE,
  -- the authenticator's credential id, base64url as browsers send it (a passkey sign-in finds its row by it)
  credential_id text NOT NULL UNIQUE,
  -- COSE public key
  public_key bytea NOT NULL,
  -- the signature counter last seen; an assertion must move it forward unless the authenticator keeps none (0)
  counter bigint NOT NULL DEFAULT 0,
  transports text[] NOT NULL DEFAULT '{}',
  name text NOT NULL,
  is_passkey boolean NOT NULL DEFAULT false,
  user_verified boolean NOT NULL DEFAULT false,
  aaguid text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
CREATE INDEX auth_webauthn_credentials_person_idx ON auth_webauthn_credentials (person_id, is_passkey);
