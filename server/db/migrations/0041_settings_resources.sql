-- Generic settings resources (issue 11): the incident_rules and logging_backends tables, the *_with_status views the
-- settings lists and Integrations page read, and job_histories naming scrapers and topologies. Names and shapes from
-- the reference (flanksource/duty incidents.hcl, logging_backends.hcl, views/015_job_history.sql). Differences:
-- both tables have `namespace` and `labels` (a row may come from a namespaced custom resource, and the settings form
-- sends both); created_by may be null (a CR-sourced row has no creator); names are unique per namespace among live
-- rows (the reference: incident_rules unique by name for ever, logging_backends not at all).

-- Stored, not yet evaluated: no incident is created from a rule (the incidents module reads them later).
CREATE TABLE incident_rules (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  name text NOT NULL CONSTRAINT incident_rules_name_check CHECK (btrim(name) <> ''),
  namespace text NOT NULL DEFAULT 'default',
  labels jsonb CONSTRAINT incident_rules_labels_check CHECK (labels IS NULL OR jsonb_typeof(labels) = 'object'),
  spec jsonb CONSTRAINT incident_rules_spec_check CHECK (spec IS NULL OR jsonb_typeof(spec) = 'object'),
  source text NOT NULL DEFAULT 'UI',
  created_by uuid CONSTRAINT incident_rules_created_by_fkey REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX incident_rules_name_key ON incident_rules (name, namespace) WHERE deleted_at IS NULL;
CREATE TRIGGER incident_rules_updated_at BEFORE UPDATE ON incident_rules FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE logging_backends (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  name text NOT NULL CONSTRAINT logging_backends_name_check CHECK (btrim(name) <> ''),
  namespace text NOT NULL DEFAULT 'default',
  labels jsonb CONSTRAINT logging_backends_labels_check CHECK (labels IS NULL OR jsonb_typeof(labels) = 'object'),
  spec jsonb NOT NULL CONSTRAINT logging_backends_spec_check CHECK (jsonb_typeof(spec) = 'object'),
  source text NOT NULL DEFAULT 'UI',
  agent_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' CONSTRAINT logging_backends_agent_id_fkey REFERENCES agents (id),
  created_by uuid CONSTRAINT logging_backends_created_by_fkey REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX logging_backends_name_key ON logging_backends (name, namespace) WHERE deleted_at IS NULL;
CREATE TRIGGER logging_backends_updated_at BEFORE UPDATE ON logging_backends FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- The latest run of each job of each resource (the reference's intermediate view).
CREATE VIEW job_history_latest_status AS
  SELECT DISTINCT ON (jh.resource_id, jh.resource_type, jh.name) jh.*
  FROM job_history jh
  ORDER BY jh.resource_id, jh.resource_type, jh.name, jh.created_at DESC, jh.id DESC;

-- The lists below show live rows only, as the reference's views do. job_* come from the resource's latest job run
-- (any job name), job_last_failed is the start of its latest FAILED run, last_runtime the start of its latest run.
CREATE VIEW topologies_with_status AS
  SELECT t.*,
         j.name AS job_name, j.success_count AS job_success_count, j.error_count AS job_error_count,
         j.details AS job_details, j.hostname AS job_hostname, j.duration_millis AS job_duration_millis,
         j.resource_type AS job_resource_type, j.status AS job_status, j.time_start AS job_time_start,
         j.time_end AS job_time_end, j.created_at AS job_created_at,
         (SELECT max(f.time_start) FROM job_history f
          WHERE f.resource_id = t.id::text AND f.resource_type = 'topology' AND f.status = 'FAILED') AS job_last_failed,
         j.time_start AS last_runtime,
         json_build_object('id', a.id, 'name', a.name) AS agent
  FROM topologies t
  LEFT JOIN agents a ON a.id = t.agent_id
  LEFT JOIN LATERAL (
    SELECT * FROM job_history jh WHERE jh.resource_id = t.id::text AND jh.resource_type = 'topology'
    ORDER BY jh.created_at DESC, jh.id DESC LIMIT 1
  ) j ON true
  WHERE t.deleted_at IS NULL;

CREATE VIEW config_scrapers_with_status AS
  SELECT cs.*,
         cs.spec ->> 'schedule' AS schedule,
         j.name AS job_name, j.success_count AS job_success_count, j.error_count AS job_error_count,
         j.details AS job_details, j.hostname AS job_hostname, j.duration_millis AS job_duration_millis,
         j.resource_type AS job_resource_type, j.status AS job_status, j.time_start AS job_time_start,
         j.time_end AS job_time_end, j.created_at AS job_created_at,
         (SELECT max(f.time_start) FROM job_history f
          WHERE f.resource_id = cs.id::text AND f.resource_type = 'config_scraper' AND f.status = 'FAILED') AS job_last_failed,
         j.time_start AS last_runtime,
         json_build_object('id', a.id, 'name', a.name) AS agent
  FROM config_scrapers cs
  LEFT JOIN agents a ON a.id = cs.agent_id
  LEFT JOIN LATERAL (
    SELECT * FROM job_history jh WHERE jh.resource_id = cs.id::text AND jh.resource_type = 'config_scraper'
    ORDER BY jh.created_at DESC, jh.id DESC LIMIT 1
  ) j ON true
  WHERE cs.deleted_at IS NULL;

CREATE VIEW teams_with_status AS
  SELECT tm.*,
         j.name AS job_name, j.success_count AS job_success_count, j.error_count AS job_error_count,
         j.details AS job_details, j.hostname AS job_hostname, j.duration_millis AS job_duration_millis,
         j.resource_type AS job_resource_type, j.status AS job_status, j.time_start AS job_time_start,
         j.time_end AS job_time_end, j.created_at AS job_created_at,
         (SELECT max(f.time_start) FROM job_history f
          WHERE f.resource_id = tm.id::text AND f.resource_type = 'team' AND f.status = 'FAILED') AS job_last_failed
  FROM teams tm
  LEFT JOIN LATERAL (
    SELECT * FROM job_history jh WHERE jh.resource_id = tm.id::text AND jh.resource_type = 'team'
    ORDER BY jh.created_at DESC, jh.id DESC LIMIT 1
  ) j ON true
  WHERE tm.deleted_at IS NULL;

-- One row per scraper, topology and logging backend (integration_type 'scrapers' | 'topologies' | 'logging_backends'),
-- with its creator. UNION ALL: the three id spaces do not overlap (ULIDs), so the reference's UNION only costs a sort.
CREATE VIEW integrations_with_status AS
  WITH combined AS (
    SELECT id, name, namespace, description, 'scrapers'::text AS integration_type, source, agent_id, created_at,
           updated_at, deleted_at, created_by, job_name, job_success_count, job_error_count, job_details, job_hostname,
           job_duration_millis, job_resource_type, job_status, job_time_start, job_time_end, job_created_at,
           job_last_failed, agent::jsonb AS agent
    FROM config_scrapers_with_status
    UNION ALL
    SELECT id, name, namespace, '', 'topologies', source, agent_id, created_at,
           updated_at, deleted_at, created_by, job_name, job_success_count, job_error_count, job_details, job_hostname,
           job_duration_millis, job_resource_type, job_status, job_time_start, job_time_end, job_created_at,
           job_last_failed, agent::jsonb
    FROM topologies_with_status
    UNION ALL
    SELECT lb.id, lb.name, lb.namespace, '', 'logging_backends', lb.source, lb.agent_id, lb.created_at,
           lb.updated_at, lb.deleted_at, lb.created_by, NULL, NULL, NULL, NULL, NULL,
           NULL, NULL, NULL, NULL, NULL, NULL,
           NULL, jsonb_build_object('id', a.id, 'name', a.name)
    FROM logging_backends lb
    LEFT JOIN agents a ON a.id = lb.agent_id
    WHERE lb.deleted_at IS NULL
  )
  SELECT c.*, p.name AS creator_name, p.avatar AS creator_avatar, p.title AS creator_title, p.email AS creator_email
  FROM combined c
  LEFT JOIN people p ON p.id = c.created_by;

-- resource_name also from scraper and topology names (same columns as 0010's definition).
CREATE OR REPLACE VIEW job_histories AS
  SELECT jh.*,
         coalesce(ca.name, cs.name, t.name, jh.resource_id) AS resource_name,
         json_build_object('id', a.id, 'name', a.name) AS agent
  FROM job_history jh
  LEFT JOIN canaries ca ON jh.resource_type = 'canary' AND ca.id::text = jh.resource_id
  LEFT JOIN config_scrapers cs ON jh.resource_type = 'config_scraper' AND cs.id::text = jh.resource_id
  LEFT JOIN topologies t ON jh.resource_type = 'topology' AND t.id::text = jh.resource_id
  LEFT JOIN agents a ON a.id = jh.agent_id;

-- Teams stay written by plain /api/db SQL (hard DELETE included, which the settings writer's soft delete would change);
-- the settings rules are constraints instead: a blank name is 23514 and a spec that is not an object too (a 400 naming
-- the constraint). NOT VALID: rows written before are left as they are.
ALTER TABLE teams ADD CONSTRAINT teams_name_check CHECK (btrim(name) <> '') NOT VALID;
ALTER TABLE teams ADD CONSTRAINT teams_spec_check CHECK (spec IS NULL OR jsonb_typeof(spec) = 'object') NOT VALID;
