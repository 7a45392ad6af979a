-- Foundation schema: people, identities, roles, teams, properties, tokens, sessions, invites, agents.
-- Names and columns follow the reference system (flanksource/duty) so its clients keep working.

-- Time-ordered ids: 48 bits of milliseconds followed by 80 random bits, as a uuid (the reference's ULID-in-uuid).
CREATE OR REPLACE FUNCTION generate_ulid() RETURNS uuid LANGUAGE sql VOLATILE AS $$
  SELECT encode(
    overlay(uuid_send(gen_random_uuid())
      PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
      FROM 1 FOR 6), 'hex')::uuid
$$;

CREATE OR REPLACE FUNCTION set_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := now();
  RETURN NEW;
END $$;

CREATE TABLE people (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  name text NOT NULL,
  avatar text,
  type text,
  team_id uuid,
  organization text,
  title text,
  email text,
  phone text,
  properties jsonb,
  external_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  deleted_at timestamptz,
  last_login timestamptz
);
CREATE UNIQUE INDEX people_email_key ON people (email) WHERE deleted_at IS NULL;
CREATE TRIGGER people_updated_at BEFORE UPDATE ON people FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE teams (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  name text NOT NULL,
  icon text,
  spec jsonb,
  source text,
  created_by uuid NOT NULL CONSTRAINT teams_created_by_fkey REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX teams_name_key ON teams (name) WHERE deleted_at IS NULL;
CREATE TRIGGER teams_updated_at BEFORE UPDATE ON teams FOR EACH ROW EXECUTE FUNCTION set_updated_at();
ALTER TABLE people ADD CONSTRAINT people_team_id_fkey FOREIGN KEY (team_id) REFERENCES teams (id);

CREATE TABLE team_members (
  team_id uuid NOT NULL CONSTRAINT team_members_team_id_fkey REFERENCES teams (id) ON DELETE CASCADE,
  person_id uuid NOT NULL CONSTRAINT team_members_person_id_fkey REFERENCES people (id) ON DELETE CASCADE,
  source text NOT NULL DEFAULT 'UI',
  PRIMARY KEY (team_id, person_id)
);

-- Kratos-style identities: traits {email, name {first, last}}, state active|inactive. A trigger mirrors them into
-- people, as the reference's identity_to_people trigger does.
CREATE TABLE identities (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  schema_id text NOT NULL DEFAULT 'default',
  traits jsonb NOT NULL,
  state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'inactive')),
  state_changed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX identities_email_key ON identities (lower(traits ->> 'email'));
CREATE TRIGGER identities_updated_at BEFORE UPDATE ON identities FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE OR REPLACE FUNCTION identity_to_people() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO people (id, name, email, type)
  VALUES (NEW.id,
          trim(coalesce(NEW.traits #>> '{name,first}', '') || ' ' || coalesce(NEW.traits #>> '{name,last}', '')),
          NEW.traits ->> 'email', 'identity')
  ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, email = EXCLUDED.email, deleted_at = NULL;
  IF TG_OP = 'UPDATE' AND OLD.state IS DISTINCT FROM NEW.state THEN
    NEW.state_changed_at := now();
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER identity_to_people BEFORE INSERT OR UPDATE ON identities
  FOR EACH ROW EXECUTE FUNCTION identity_to_people();

-- Password hashes live apart from identities, in a table no API relation exposes.
CREATE TABLE identity_credentials (
  identity_id uuid PRIMARY KEY REFERENCES identities (id) ON DELETE CASCADE,
  password_hash text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Role bindings (the reference keeps them as casbin `g` rows); people_roles is the view clients read.
CREATE TABLE person_roles (
  person_id uuid NOT NULL REFERENCES people (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('admin', 'editor', 'commander', 'responder', 'viewer')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (person_id, role)
);

CREATE VIEW people_roles AS
  SELECT p.id, p.name, p.email,
         coalesce(array_agg(r.role ORDER BY r.role) FILTER (WHERE r.role IS NOT NULL), '{}') AS roles
  FROM people p LEFT JOIN person_roles r ON r.person_id = p.id
  WHERE p.deleted_at IS NULL
  GROUP BY p.id;

CREATE TABLE properties (
  name text PRIMARY KEY,
  value text NOT NULL,
  created_by uuid CONSTRAINT properties_created_by_fkey REFERENCES people (id),
  created_at timestamptz DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  deleted_at timestamptz
);
CREATE TRIGGER properties_updated_at BEFORE UPDATE ON properties FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE access_tokens (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  name text NOT NULL,
  person_id uuid NOT NULL CONSTRAINT access_tokens_person_id_fkey REFERENCES people (id) ON DELETE CASCADE,
  value text NOT NULL,
  auto_renew boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  created_by uuid CONSTRAINT access_tokens_created_by_fkey REFERENCES people (id),
  expires_at timestamptz,
  UNIQUE (person_id, name)
);

CREATE TABLE sessions (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  person_id uuid NOT NULL REFERENCES people (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  ip text,
  user_agent text
);
CREATE INDEX sessions_person_id_idx ON sessions (person_id);

CREATE TABLE invites (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  email text NOT NULL,
  first_name text,
  last_name text,
  role text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  invited_at timestamptz NOT NULL DEFAULT now(),
  invited_by uuid CONSTRAINT invites_invited_by_fkey REFERENCES people (id),
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz
);
CREATE UNIQUE INDEX invites_email_key ON invites (lower(email)) WHERE accepted_at IS NULL;

CREATE TABLE agents (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  name text NOT NULL,
  hostname text,
  description text,
  ip text,
  version text,
  username text,
  person_id uuid CONSTRAINT agents_person_id_fkey REFERENCES people (id),
  properties jsonb,
  tls text,
  created_by uuid CONSTRAINT agents_created_by_fkey REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  cleanup boolean NOT NULL DEFAULT false,
  deleted_at timestamptz,
  last_seen timestamptz,
  last_received timestamptz
);
CREATE UNIQUE INDEX agents_name_key ON agents (name) WHERE deleted_at IS NULL;
CREATE TRIGGER agents_updated_at BEFORE UPDATE ON agents FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- Later modules replace this view with real counts once checks, configs and playbook runs exist.
CREATE VIEW agents_summary AS
  SELECT a.*,
         0::bigint AS config_count, 0::bigint AS config_scrapper_count,
         0::bigint AS checks_count, 0::bigint AS playbook_runs_count,
         CASE WHEN a.last_seen IS NULL THEN 'unknown'
              WHEN now() - a.last_seen < interval '61 seconds' THEN 'healthy' ELSE 'unhealthy' END AS health,
         CASE WHEN a.last_seen IS NULL THEN 'unknown'
              WHEN now() - a.last_seen < interval '61 seconds' THEN 'online' ELSE 'offline' END AS status
  FROM agents a
  WHERE a.deleted_at IS NULL;

-- Which demo sets have been loaded (each module adds its own; see server/lib/demo.ts).
CREATE TABLE demo_data_sets (
  name text PRIMARY KEY,
  loaded_at timestamptz NOT NULL DEFAULT now()
);

-- Seed rows every installation has: the local agent (all-zero id) and the System person.
INSERT INTO people (id, name, type) VALUES ('00000000-0000-0000-0000-000000000000', 'System', 'system');
INSERT INTO agents (id, name) VALUES ('00000000-0000-0000-0000-000000000000', 'local');
