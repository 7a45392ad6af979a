-- Kubernetes: the tables the custom resources other than Canary reconcile into (names and columns from the
-- reference, flanksource/duty; minimal: what a CR carries, the rest comes with each feature), and
-- kubernetes_objects, which remembers every custom resource the console has seen and the row it maps to.
-- A CR-sourced row has source = 'KubernetesCRD' and the CR's uid as its id; a deleted CR soft-deletes its row.

CREATE TABLE topologies (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  agent_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' CONSTRAINT topologies_agent_id_fkey REFERENCES agents (id),
  name text NOT NULL,
  namespace text NOT NULL DEFAULT 'default',
  labels jsonb,
  source text NOT NULL DEFAULT 'UI',
  spec jsonb,
  schedule text,
  is_pushed boolean NOT NULL DEFAULT false,
  created_by uuid CONSTRAINT topologies_created_by_fkey REFERENCES people (id),
  created_at timestamptz DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX topologies_name_key ON topologies (agent_id, name, namespace)
  WHERE deleted_at IS NULL AND agent_id = '00000000-0000-0000-0000-000000000000';
CREATE TRIGGER topologies_updated_at BEFORE UPDATE ON topologies FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE config_scrapers (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  agent_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' CONSTRAINT config_scrapers_agent_id_fkey REFERENCES agents (id),
  name text,
  namespace text,
  description text,
  labels jsonb,
  spec jsonb NOT NULL,
  source text NOT NULL DEFAULT 'UI',
  is_pushed boolean NOT NULL DEFAULT false,
  created_by uuid CONSTRAINT config_scrapers_created_by_fkey REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  deleted_at timestamptz
);
-- The reference has no unique key here; CRs are unique by namespace/name in the cluster, so their rows are too.
CREATE UNIQUE INDEX config_scrapers_crd_name_key ON config_scrapers (namespace, name)
  WHERE deleted_at IS NULL AND source = 'KubernetesCRD';
CREATE TRIGGER config_scrapers_updated_at BEFORE UPDATE ON config_scrapers FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE playbooks (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  namespace text NOT NULL DEFAULT 'default',
  name text NOT NULL,
  title text NOT NULL DEFAULT '',
  icon text,
  description text,
  category text NOT NULL DEFAULT '',
  labels jsonb,
  spec jsonb NOT NULL,
  source text NOT NULL DEFAULT 'UI',
  created_by uuid CONSTRAINT playbooks_created_by_fkey REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX playbooks_name_key ON playbooks (namespace, name, category) WHERE deleted_at IS NULL;
CREATE TRIGGER playbooks_updated_at BEFORE UPDATE ON playbooks FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE connections (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  name text NOT NULL,
  namespace text NOT NULL DEFAULT 'default',
  type text NOT NULL,
  url text,
  username text,
  password text,
  certificate text,
  insecure_tls boolean DEFAULT true,
  properties jsonb,
  labels jsonb,
  -- The CR's spec, kept for the CR round trip; it may hold inline secret values, so the API never shows it.
  spec jsonb,
  source text NOT NULL DEFAULT 'UI',
  created_by uuid CONSTRAINT connections_created_by_fkey REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX connections_name_key ON connections (name, namespace) WHERE deleted_at IS NULL;
CREATE TRIGGER connections_updated_at BEFORE UPDATE ON connections FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE notifications (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  name text NOT NULL,
  namespace text,
  events text[] NOT NULL DEFAULT '{}',
  title text,
  template text,
  filter text,
  properties jsonb,
  repeat_interval text,
  error text,
  error_at timestamptz,
  labels jsonb,
  spec jsonb,
  source text NOT NULL DEFAULT 'UI',
  created_by uuid CONSTRAINT notifications_created_by_fkey REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX notifications_name_key ON notifications (name, namespace) WHERE deleted_at IS NULL;
CREATE TRIGGER notifications_updated_at BEFORE UPDATE ON notifications FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE notification_silences (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  name text NOT NULL,
  namespace text,
  description text,
  filter text,
  selectors jsonb,
  "from" timestamptz,
  until timestamptz,
  recursive boolean,
  error text,
  labels jsonb,
  spec jsonb,
  source text NOT NULL DEFAULT 'UI',
  created_by uuid CONSTRAINT notification_silences_created_by_fkey REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX notification_silences_crd_name_key ON notification_silences (namespace, name)
  WHERE deleted_at IS NULL AND source = 'KubernetesCRD';
CREATE TRIGGER notification_silences_updated_at BEFORE UPDATE ON notification_silences
  FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- Every custom resource the console has seen: what it maps to, the version last reconciled, who manages it (GitOps),
-- and its last error. Ours, not the reference's. A CR deleted in the cluster keeps its row with deleted_at set.
CREATE TABLE kubernetes_objects (
  uid text PRIMARY KEY,
  kind text NOT NULL,
  api_version text NOT NULL,
  namespace text NOT NULL,
  name text NOT NULL,
  resource_version text,
  generation bigint,
  labels jsonb,
  annotations jsonb,
  managed_by text CONSTRAINT kubernetes_objects_managed_by_check CHECK (managed_by IN ('flux', 'argo')),
  -- What "Linked to ..." shows, e.g. "Flux kustomization flux-system/apps".
  source_link text,
  -- The table and row the CR reconciles into (null while it fails validation and never validated).
  row_table text,
  row_id uuid,
  last_error text,
  observed_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX kubernetes_objects_live_key ON kubernetes_objects (kind, namespace, name) WHERE deleted_at IS NULL;
CREATE INDEX kubernetes_objects_row_idx ON kubernetes_objects (row_id);
