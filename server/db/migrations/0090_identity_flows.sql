-- Sign-in flows (issue 17): Kratos-like self-service flows, single-use tokens and codes, verifiable addresses, the
-- courier outbox, sign-in activity, and what a session knows about how it was authenticated.

-- How a session was authenticated: its assurance level, when the last factor was proven (privileged for
-- PRIVILEGED_SESSION_MINUTES after it), the methods used ([{method, aal, completed_at}]) and the active
-- organisation (hosted mode; the organizations table and its foreign key come with the OIDC migration).
ALTER TABLE sessions
  ADD COLUMN aal text NOT NULL DEFAULT 'aal1' CHECK (aal IN ('aal1', 'aal2')),
  ADD COLUMN authenticated_at timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN methods jsonb NOT NULL DEFAULT '[]',
  ADD COLUMN organization_id uuid;

-- A self-service flow. The CSRF token is bound to an httpOnly cookie: only its SHA-256 is kept. `data` holds the
-- flow's own state (e.g. the email a recovery was asked for, a pending TOTP secret, a WebAuthn challenge);
-- `messages` the flow-level messages shown with it; `attempts` wrong answers in this flow.
CREATE TABLE auth_flows (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  type text NOT NULL CHECK (type IN ('login', 'registration', 'recovery', 'verification', 'settings')),
  state text,
  person_id uuid REFERENCES people (id) ON DELETE CASCADE,
  session_id uuid REFERENCES sessions (id) ON DELETE CASCADE,
  csrf_hash text NOT NULL,
  return_to text,
  requested_aal text CHECK (requested_aal IN ('aal1', 'aal2')),
  refresh boolean NOT NULL DEFAULT false,
  data jsonb NOT NULL DEFAULT '{}',
  messages jsonb NOT NULL DEFAULT '[]',
  attempts integer NOT NULL DEFAULT 0,
  request_url text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX auth_flows_expires_at_idx ON auth_flows (expires_at);

-- Errors a browser is sent to (/error?id=): GET /api/.ory/self-service/errors?id= returns them.
CREATE TABLE auth_flow_errors (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  error jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Single-use links (SHA-256 of the token) and codes (HMAC of the code with a server key), with wrong attempts.
CREATE TABLE auth_one_time_codes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  flow_id uuid REFERENCES auth_flows (id) ON DELETE CASCADE,
  person_id uuid REFERENCES people (id) ON DELETE CASCADE,
  purpose text NOT NULL CHECK (purpose IN ('recovery', 'verification')),
  kind text NOT NULL CHECK (kind IN ('link', 'code')),
  address text NOT NULL,
  secret_hash text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE UNIQUE INDEX auth_one_time_codes_secret_hash_key ON auth_one_time_codes (secret_hash);
CREATE INDEX auth_one_time_codes_flow_id_idx ON auth_one_time_codes (flow_id);
CREATE INDEX auth_one_time_codes_address_idx ON auth_one_time_codes (lower(address), created_at);

-- A person's email addresses and whether each is verified (recovery goes to verified addresses only).
CREATE TABLE identity_verifiable_addresses (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  person_id uuid NOT NULL REFERENCES people (id) ON DELETE CASCADE,
  value text NOT NULL,
  via text NOT NULL DEFAULT 'email' CHECK (via = 'email'),
  verified boolean NOT NULL DEFAULT false,
  verified_at timestamptz,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'completed')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX identity_verifiable_addresses_value_key ON identity_verifiable_addresses (person_id, lower(value));
CREATE INDEX identity_verifiable_addresses_lower_value_idx ON identity_verifiable_addresses (lower(value));

-- Mail to send (recovery, verification, invites, notices): the leader sends queued rows with retries; no request waits.
CREATE TABLE courier_messages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  recipient text NOT NULL,
  subject text NOT NULL,
  body_text text NOT NULL,
  body_html text,
  template text NOT NULL,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'processing', 'sent', 'abandoned')),
  send_count integer NOT NULL DEFAULT 0,
  last_error text,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX courier_messages_queued_idx ON courier_messages (next_attempt_at) WHERE status = 'queued';

-- Sign-in activity (kept 90 days): sign-ins, failures, factor and password changes, recoveries, lockouts, revokes.
CREATE TABLE auth_events (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  person_id uuid REFERENCES people (id) ON DELETE CASCADE,
  session_id uuid,
  type text NOT NULL,
  method text,
  aal text,
  success boolean NOT NULL DEFAULT true,
  ip text,
  user_agent text,
  details jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX auth_events_person_created_idx ON auth_events (person_id, created_at DESC);
CREATE INDEX auth_events_created_at_idx ON auth_events (created_at);
CREATE INDEX sessions_last_seen_idx ON sessions (person_id, last_seen_at DESC);
