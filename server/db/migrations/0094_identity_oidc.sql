-- Hosted mode (AUTH_MODE=oidc, issue 17): organisations from the provider's organisation claim, each person's roles
-- per organisation (organisations are role contexts of one console: the active one's roles are copied into
-- person_roles), the server-side state of a sign-in in progress, and what RP-initiated logout needs of a session.

CREATE TABLE organizations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- the organisation's key in the claim: Keycloak's object key (its alias or id), or the string itself
  external_id text NOT NULL UNIQUE,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- roles: what OIDC_ROLE_MAPPING / OIDC_ROLE_MAPPER_CEL give the person in this organisation at the last sign-in.
CREATE TABLE organization_members (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  person_id uuid NOT NULL REFERENCES people (id) ON DELETE CASCADE,
  roles text[] NOT NULL DEFAULT '{viewer}',
  source text NOT NULL DEFAULT 'oidc',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, person_id)
);
CREATE INDEX organization_members_person_id_idx ON organization_members (person_id);

ALTER TABLE sessions ADD CONSTRAINT sessions_organization_id_fkey
  FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE SET NULL;

-- A sign-in sent to the provider: looked up by the SHA-256 of `state`, deleted when used (single use), 10 minutes.
CREATE TABLE oidc_auth_requests (
  state_hash text PRIMARY KEY,
  nonce text NOT NULL,
  code_verifier text NOT NULL,
  return_to text,
  prompt_none boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX oidc_auth_requests_expires_at_idx ON oidc_auth_requests (expires_at);

-- A session opened by the provider: the id_token (sealed with the secrets key) as RP-initiated logout's
-- id_token_hint, and whether its sign-in carried the organisation claim (the organisation gate applies then).
CREATE TABLE oidc_sessions (
  session_id uuid PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
  id_token_sealed text,
  org_claim_present boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- people.external_id holds `<iss>|<sub>` for people from the provider; team_members.source ('oidc') exists already.
CREATE INDEX people_external_id_idx ON people (external_id) WHERE external_id IS NOT NULL;
