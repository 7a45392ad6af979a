-- Second factors (issue 17): an authenticator app (TOTP) and single-use recovery codes (Kratos' lookup secrets).

-- One authenticator per person. secret_enc: the base32 secret sealed with AES-256-GCM under AUTH_ENCRYPTION_KEY
-- (server/modules/auth/secret-box.ts), never plain. last_step: the last 30 s time step a code was accepted for;
-- a code is taken with UPDATE ... WHERE last_step < step, so a code (or an older one) cannot be used twice.
CREATE TABLE auth_totp (
  person_id uuid PRIMARY KEY REFERENCES people (id) ON DELETE CASCADE,
  secret_enc text NOT NULL,
  confirmed_at timestamptz NOT NULL DEFAULT now(),
  last_step bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Recovery codes, ten per set, each single use. code_hash: `<salt>$<HMAC-SHA256>` keyed by a key derived from
-- AUTH_ENCRYPTION_KEY, never the code. Regenerating replaces the whole set.
CREATE TABLE auth_lookup_secrets (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  person_id uuid NOT NULL REFERENCES people (id) ON DELETE CASCADE,
  code_hash text NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX auth_lookup_secrets_person_id_idx ON auth_lookup_secrets (person_id);
