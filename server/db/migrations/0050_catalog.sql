-- Catalog tables (issue 12), as config-db and duty name them (../shared/reference/schema.md "Catalog"): columns, FK
-- names and unique keys kept so that the reference UI's embeds (config:config_items, config_scrapers, ...) resolve.
-- Views and RPCs the UI reads are in 0051_catalog_views.sql.

CREATE TABLE config_items (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  agent_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' CONSTRAINT config_items_agent_id_fkey REFERENCES agents (id),
  icon text,
  scraper_id uuid CONSTRAINT config_items_scraper_id_fkey REFERENCES config_scrapers (id),
  config_class text NOT NULL,
  status text,
  health text,
  ready boolean,
  external_id text[],
  type text NOT NULL,
  name text,
  description text,
  config jsonb,
  source text,
  labels jsonb,
  tags jsonb,
  tags_values jsonb,
  properties jsonb,
  parent_id uuid CONSTRAINT config_items_parent_id_fkey REFERENCES config_items (id),
  path text,
  -- cost columns of `configs`, where a source gives them
  cost_per_minute numeric(16, 4),
  cost_total_1d numeric(16, 4),
  cost_total_7d numeric(16, 4),
  cost_total_30d numeric(16, 4),
  is_pushed boolean NOT NULL DEFAULT false,
  created_by uuid CONSTRAINT config_items_created_by_fkey REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  deleted_at timestamptz,
  delete_reason text,
  inserted_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX config_items_type_idx ON config_items (type) WHERE deleted_at IS NULL;
CREATE INDEX config_items_scraper_id_idx ON config_items (scraper_id);
CREATE INDEX config_items_parent_id_idx ON config_items (parent_id);
CREATE INDEX config_items_external_id_idx ON config_items USING gin (external_id);
CREATE INDEX config_items_tags_idx ON config_items USING gin (tags);
CREATE INDEX config_items_labels_idx ON config_items USING gin (labels);
CREATE INDEX config_items_path_idx ON config_items (path text_pattern_ops);
CREATE INDEX config_items_name_idx ON config_items (name text_pattern_ops);
CREATE INDEX config_items_type_name_idx ON config_items (type, name, id);

CREATE TABLE config_items_last_scraped_time (
  config_id uuid PRIMARY KEY CONSTRAINT config_items_last_scraped_time_config_id_fkey REFERENCES config_items (id) ON DELETE CASCADE,
  last_scraped_time timestamptz NOT NULL DEFAULT now(),
  is_pushed boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE config_changes (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  config_id uuid NOT NULL CONSTRAINT config_changes_config_id_fkey REFERENCES config_items (id) ON DELETE CASCADE,
  external_change_id text,
  external_created_by text,
  change_type text,
  severity text,
  source text,
  summary text,
  patches jsonb,
  diff text,
  details jsonb,
  created_by uuid CONSTRAINT config_changes_created_by_fkey REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  count integer NOT NULL DEFAULT 1,
  fingerprint text,
  first_observed timestamptz NOT NULL DEFAULT now(),
  is_pushed boolean NOT NULL DEFAULT false,
  inserted_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT config_changes_config_id_external_change_id_key UNIQUE (config_id, external_change_id)
);
CREATE INDEX config_changes_config_id_created_at_idx ON config_changes (config_id, created_at DESC);
CREATE INDEX config_changes_created_at_idx ON config_changes (created_at DESC, id);
CREATE INDEX config_changes_change_type_idx ON config_changes (change_type, created_at DESC);

CREATE TABLE config_analysis (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  config_id uuid NOT NULL CONSTRAINT config_analysis_config_id_fkey REFERENCES config_items (id) ON DELETE CASCADE,
  scraper_id uuid CONSTRAINT config_analysis_scraper_id_fkey REFERENCES config_scrapers (id),
  created_by uuid CONSTRAINT config_analysis_created_by_fkey REFERENCES people (id),
  source text,
  analyzer text NOT NULL,
  analysis_type text,
  severity text,
  summary text,
  status text DEFAULT 'open',
  message text,
  analysis jsonb,
  properties jsonb,
  first_observed timestamptz NOT NULL DEFAULT now(),
  last_observed timestamptz NOT NULL DEFAULT now(),
  is_pushed boolean NOT NULL DEFAULT false
);
-- one open insight per item and analyzer: a scrape that sees it again touches last_observed
CREATE UNIQUE INDEX config_analysis_config_id_analyzer_key ON config_analysis (config_id, analyzer);
CREATE INDEX config_analysis_last_observed_idx ON config_analysis (last_observed DESC, id);
CREATE INDEX config_analysis_status_idx ON config_analysis (status, analysis_type, severity);

CREATE TABLE config_relationships (
  config_id uuid NOT NULL CONSTRAINT config_relationships_config_id_fkey REFERENCES config_items (id) ON DELETE CASCADE,
  related_id uuid NOT NULL CONSTRAINT config_relationships_related_id_fkey REFERENCES config_items (id) ON DELETE CASCADE,
  relation text NOT NULL DEFAULT '',
  scraper_id uuid CONSTRAINT config_relationships_scraper_id_fkey REFERENCES config_scrapers (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  selector_id text,
  is_pushed boolean NOT NULL DEFAULT false
);
-- the reference's key includes a nullable scraper_id; NULLS NOT DISTINCT makes a manual link (no scraper) unique too
CREATE UNIQUE INDEX config_relationships_related_id_config_id_relation_scraper_id_key
  ON config_relationships (related_id, config_id, relation, scraper_id) NULLS NOT DISTINCT;
CREATE INDEX config_relationships_config_id_idx ON config_relationships (config_id);

CREATE TABLE config_locations (
  id uuid NOT NULL CONSTRAINT config_locations_id_fkey REFERENCES config_items (id) ON DELETE CASCADE,
  location text NOT NULL,
  CONSTRAINT config_locations_id_location_key UNIQUE (id, location)
);
CREATE INDEX config_locations_location_idx ON config_locations (location);

CREATE TABLE check_config_relationships (
  config_id uuid NOT NULL CONSTRAINT check_config_relationships_config_id_fkey REFERENCES config_items (id) ON DELETE CASCADE,
  check_id uuid NOT NULL CONSTRAINT check_config_relationships_check_id_fkey REFERENCES checks (id) ON DELETE CASCADE,
  canary_id uuid NOT NULL CONSTRAINT check_config_relationships_canary_id_fkey REFERENCES canaries (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  selector_id text,
  is_pushed boolean NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX check_config_relationships_config_id_check_id_canary_id_selector_id_key
  ON check_config_relationships (config_id, check_id, canary_id, selector_id) NULLS NOT DISTINCT;
CREATE INDEX check_config_relationships_check_id_idx ON check_config_relationships (check_id);

-- the component FK arrives with the topology migration (issue 13)
CREATE TABLE config_component_relationships (
  component_id uuid NOT NULL,
  config_id uuid NOT NULL CONSTRAINT config_component_relationships_config_id_fkey REFERENCES config_items (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  deleted_at timestamptz,
  selector_id text,
  is_pushed boolean NOT NULL DEFAULT false,
  CONSTRAINT config_component_relationships_component_id_config_id_key UNIQUE (component_id, config_id)
);
CREATE INDEX config_component_relationships_config_id_idx ON config_component_relationships (config_id);

-- playbook runs as issue 14 names them; the catalog's Playbooks tab reads them (the engine comes with issue 14)
CREATE TABLE IF NOT EXISTS playbook_runs (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  playbook_id uuid NOT NULL CONSTRAINT playbook_runs_playbook_id_fkey REFERENCES playbooks (id),
  spec jsonb,
  status text NOT NULL DEFAULT 'pending',
  created_at timestamptz NOT NULL DEFAULT now(),
  start_time timestamptz,
  scheduled_time timestamptz,
  end_time timestamptz,
  timeout bigint DEFAULT 1800000000000,
  created_by uuid CONSTRAINT playbook_runs_created_by_fkey REFERENCES people (id),
  check_id uuid CONSTRAINT playbook_runs_check_id_fkey REFERENCES checks (id),
  config_id uuid CONSTRAINT playbook_runs_config_id_fkey REFERENCES config_items (id),
  component_id uuid,
  parameters jsonb,
  request jsonb,
  agent_id uuid DEFAULT '00000000-0000-0000-0000-000000000000' CONSTRAINT playbook_runs_agent_id_fkey REFERENCES agents (id),
  parent_id uuid CONSTRAINT playbook_runs_parent_id_fkey REFERENCES playbook_runs (id),
  notification_send_id uuid,
  error text
);
CREATE INDEX IF NOT EXISTS playbook_runs_config_id_idx ON playbook_runs (config_id, created_at DESC);

CREATE TABLE artifacts (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  check_id uuid CONSTRAINT artifacts_check_id_fkey REFERENCES checks (id),
  check_time timestamptz,
  playbook_run_action_id uuid,
  config_change_id uuid CONSTRAINT artifacts_config_change_id_fkey REFERENCES config_changes (id) ON DELETE CASCADE,
  scraper_id uuid CONSTRAINT artifacts_scraper_id_fkey REFERENCES config_scrapers (id) ON DELETE CASCADE,
  job_history_id uuid CONSTRAINT artifacts_job_history_id_fkey REFERENCES job_history (id) ON DELETE SET NULL,
  connection_id uuid,
  path text NOT NULL,
  filename text NOT NULL,
  content_type text,
  size integer NOT NULL,
  checksum text NOT NULL,
  content bytea,
  compression_type text,
  is_pushed boolean NOT NULL DEFAULT false,
  is_data_pushed boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  expires_at timestamptz
);

-- A parent_id is a hard relationship from the parent to the child (as duty's trigger).
CREATE FUNCTION config_items_parent_relationship() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.parent_id IS NOT NULL AND (TG_OP = 'INSERT' OR NEW.parent_id IS DISTINCT FROM OLD.parent_id) THEN
    INSERT INTO config_relationships (config_id, related_id, relation, scraper_id)
    VALUES (NEW.parent_id, NEW.id, 'hard', NEW.scraper_id)
    ON CONFLICT (related_id, config_id, relation, scraper_id) DO UPDATE SET deleted_at = NULL, updated_at = now();
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER config_items_parent_relationship AFTER INSERT OR UPDATE OF parent_id ON config_items
  FOR EACH ROW EXECUTE FUNCTION config_items_parent_relationship();
CREATE TRIGGER config_items_updated_at BEFORE UPDATE ON config_items FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- Incident evidence now points at real rows (0030 left these without FKs until the catalog existed).
UPDATE evidences SET config_id = NULL WHERE config_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM config_items c WHERE c.id = config_id);
UPDATE evidences SET config_change_id = NULL WHERE config_change_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM config_changes c WHERE c.id = config_change_id);
UPDATE evidences SET config_analysis_id = NULL WHERE config_analysis_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM config_analysis c WHERE c.id = config_analysis_id);
ALTER TABLE evidences
  ADD CONSTRAINT evidences_config_id_fkey FOREIGN KEY (config_id) REFERENCES config_items (id) ON DELETE SET NULL,
  ADD CONSTRAINT evidences_config_change_id_fkey FOREIGN KEY (config_change_id) REFERENCES config_changes (id) ON DELETE SET NULL,
  ADD CONSTRAINT evidences_config_analysis_id_fkey FOREIGN KEY (config_analysis_id) REFERENCES config_analysis (id) ON DELETE SET NULL;

-- agents_summary: real config and scraper counts (the placeholder columns swapped as 0010 did for checks_count)
CREATE OR REPLACE FUNCTION agent_config_count(agent uuid) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT count(*) FROM config_items WHERE agent_id = agent AND deleted_at IS NULL
$$;
CREATE OR REPLACE FUNCTION agent_config_scraper_count(agent uuid) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT count(*) FROM config_scrapers WHERE agent_id = agent AND deleted_at IS NULL
$$;
DO $$
DECLARE
  def text := pg_get_viewdef('agents_summary'::regclass, true);
  changed text;
BEGIN
  changed := regexp_replace(def, '\(?0\)?::bigint AS config_count', 'agent_config_count(a.id) AS config_count');
  changed := regexp_replace(changed, '\(?0\)?::bigint AS config_scrapper_count', 'agent_config_scraper_count(a.id) AS config_scrapper_count');
  IF changed <> def THEN
    EXECUTE 'CREATE OR REPLACE VIEW agents_summary AS ' || changed;
  ELSE
    RAISE NOTICE 'agents_summary config counts are no longer placeholders; left as they are';
  END IF;
END $$;
