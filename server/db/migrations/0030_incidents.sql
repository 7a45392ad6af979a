-- Incidents: incidents, hypotheses, evidences, comments, responders and the incident history (timeline), with the
-- views the web reads. Tables and columns follow the reference (flanksource/duty incidents.hcl); additions are ours:
-- defaults for the spec's create form, responders.delivery_* (what happened to the notification), checks of the
-- spec's enums, the status transition table and the hypothesis hierarchy enforced here so every path (/api/db,
-- RPC, demo data) obeys them, and history rows written by triggers with the acting person.

-- The person acting in this transaction. /api/db sets it (set_config('app.actor_id', <person>, true)) before a write;
-- empty or unset (migrations, demo data, psql) means "no actor": triggers fall back to the row's created_by.
CREATE OR REPLACE FUNCTION current_actor() RETURNS uuid LANGUAGE sql STABLE AS $$
  SELECT nullif(current_setting('app.actor_id', true), '')::uuid
$$;

CREATE SEQUENCE incident_id_sequence;
CREATE OR REPLACE FUNCTION format_incident_id(n bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT 'INC-' || n
$$;

-- A client error raised by a trigger: SQLSTATE 23514 (check_violation) answers 400 with this message.
CREATE OR REPLACE FUNCTION incident_refuse(message text, detail text DEFAULT NULL) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF detail IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = '23514', MESSAGE = message;
  END IF;
  RAISE EXCEPTION USING ERRCODE = '23514', MESSAGE = message, DETAIL = detail;
END $$;

CREATE TABLE incidents (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  incident_id text NOT NULL DEFAULT format_incident_id(nextval('incident_id_sequence')),
  incident_rule_id uuid,
  title text NOT NULL,
  created_by uuid NOT NULL DEFAULT current_actor() CONSTRAINT incidents_created_by_fkey REFERENCES people (id),
  commander_id uuid CONSTRAINT incidents_commander_id_fkey REFERENCES people (id),
  communicator_id uuid CONSTRAINT incidents_communicator_id_fkey REFERENCES people (id),
  severity text NOT NULL DEFAULT 'low',
  description text NOT NULL DEFAULT '',
  type text NOT NULL DEFAULT 'availability',
  status text NOT NULL DEFAULT 'open',
  acknowledged timestamptz,
  resolved timestamptz,
  closed timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT incidents_incident_id_key UNIQUE (incident_id),
  CONSTRAINT incidents_severity_check CHECK (severity IN ('low', 'medium', 'high', 'blocker', 'critical')),
  CONSTRAINT incidents_status_check CHECK (status IN ('new', 'open', 'investigating', 'mitigated', 'resolved', 'closed')),
  CONSTRAINT incidents_type_check CHECK (type IN ('cost', 'availability', 'performance', 'security', 'integration',
    'compliance', 'technicalDebt', 'reliability')),
  CONSTRAINT incidents_title_check CHECK (btrim(title) <> '')
);
CREATE INDEX incidents_created_at_idx ON incidents (created_at DESC);
CREATE INDEX incidents_status_created_at_idx ON incidents (status, created_at DESC);
CREATE INDEX incidents_created_by_idx ON incidents (created_by);
CREATE INDEX incidents_commander_id_idx ON incidents (commander_id);
CREATE TRIGGER incidents_updated_at BEFORE UPDATE ON incidents FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE hypotheses (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  created_by uuid NOT NULL DEFAULT current_actor() CONSTRAINT hypotheses_created_by_fkey REFERENCES people (id),
  incident_id uuid NOT NULL CONSTRAINT hypotheses_incident_id_fkey REFERENCES incidents (id) ON DELETE CASCADE,
  -- deleting a root removes its factors and their solutions (each with its comments and evidences)
  parent_id uuid CONSTRAINT hypotheses_parent_id_fkey REFERENCES hypotheses (id) ON DELETE CASCADE,
  owner uuid,
  team_id uuid CONSTRAINT hypotheses_team_id_fkey REFERENCES teams (id),
  type text NOT NULL DEFAULT 'root',
  title text NOT NULL,
  status text NOT NULL DEFAULT 'possible',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT hypotheses_type_check CHECK (type IN ('root', 'factor', 'solution')),
  CONSTRAINT hypotheses_status_check CHECK (status IN ('proven', 'likely', 'possible', 'unlikely', 'improbable', 'disproven')),
  CONSTRAINT hypotheses_title_check CHECK (btrim(title) <> '')
);
CREATE INDEX hypotheses_incident_id_idx ON hypotheses (incident_id);
CREATE INDEX hypotheses_parent_id_idx ON hypotheses (parent_id);
CREATE TRIGGER hypotheses_updated_at BEFORE UPDATE ON hypotheses FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- config_id, config_change_id, config_analysis_id and component_id will reference the catalog and topology tables once
-- those exist (their migrations add the foreign keys); check_id references checks now.
CREATE TABLE evidences (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  description text NOT NULL DEFAULT '',
  hypothesis_id uuid NOT NULL CONSTRAINT evidences_hypothesis_id_fkey REFERENCES hypotheses (id) ON DELETE CASCADE,
  config_id uuid,
  config_change_id uuid,
  config_analysis_id uuid,
  component_id uuid,
  check_id uuid CONSTRAINT evidences_check_id_fkey REFERENCES checks (id) ON DELETE SET NULL,
  definition_of_done boolean NOT NULL DEFAULT false,
  done boolean,
  factor boolean,
  mitigator boolean,
  created_by uuid NOT NULL DEFAULT current_actor() CONSTRAINT evidences_created_by_fkey REFERENCES people (id),
  type text NOT NULL,
  evidence jsonb,
  properties jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  script text,
  script_result text,
  CONSTRAINT evidences_type_check CHECK (type IN ('log', 'config', 'topology', 'check', 'config_analysis', 'config_change', 'comment'))
);
CREATE INDEX evidences_hypothesis_id_idx ON evidences (hypothesis_id);
CREATE INDEX evidences_component_id_idx ON evidences (component_id) WHERE component_id IS NOT NULL;
CREATE INDEX evidences_config_id_idx ON evidences (config_id) WHERE config_id IS NOT NULL;
CREATE INDEX evidences_check_id_idx ON evidences (check_id) WHERE check_id IS NOT NULL;
CREATE TRIGGER evidences_updated_at BEFORE UPDATE ON evidences FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE responders (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  incident_id uuid NOT NULL CONSTRAINT responders_incident_id_fkey REFERENCES incidents (id) ON DELETE CASCADE,
  type text NOT NULL,
  index smallint,
  person_id uuid CONSTRAINT responders_person_id_fkey REFERENCES people (id),
  team_id uuid CONSTRAINT responders_team_id_fkey REFERENCES teams (id),
  external_id text,
  properties jsonb,
  acknowledged timestamptz,
  resolved timestamptz,
  closed timestamptz,
  created_by uuid NOT NULL DEFAULT current_actor() CONSTRAINT responders_created_by_fkey REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  -- ours: the notification of a system responder. pending → sending → sent | failed; recorded when the type has no
  -- client here (the request is kept in properties); none for person responders.
  delivery_status text NOT NULL DEFAULT 'none',
  delivery_error text,
  delivered_at timestamptz,
  CONSTRAINT responders_type_check CHECK (type IN ('person', 'system')),
  CONSTRAINT responders_delivery_status_check CHECK (delivery_status IN ('none', 'pending', 'sending', 'sent', 'failed', 'recorded'))
);
CREATE INDEX responders_incident_id_idx ON responders (incident_id);
CREATE INDEX responders_pending_idx ON responders (created_at) WHERE delivery_status IN ('pending', 'sending');
CREATE TRIGGER responders_updated_at BEFORE UPDATE ON responders FOR EACH ROW EXECUTE FUNCTION set_updated_at();
ALTER TABLE hypotheses ADD CONSTRAINT hypotheses_owner_fkey FOREIGN KEY (owner) REFERENCES responders (id) ON DELETE SET NULL;

CREATE TABLE comments (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  created_by uuid NOT NULL DEFAULT current_actor() CONSTRAINT comments_created_by_fkey REFERENCES people (id),
  comment text NOT NULL,
  external_id text,
  external_created_by text,
  incident_id uuid NOT NULL CONSTRAINT comments_incident_id_fkey REFERENCES incidents (id) ON DELETE CASCADE,
  responder_id uuid CONSTRAINT comments_responder_id_fkey REFERENCES responders (id) ON DELETE SET NULL,
  hypothesis_id uuid CONSTRAINT comments_hypothesis_id_fkey REFERENCES hypotheses (id) ON DELETE CASCADE,
  read smallint[],
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT comments_comment_check CHECK (btrim(comment) <> '')
);
CREATE INDEX comments_incident_id_idx ON comments (incident_id);
CREATE INDEX comments_hypothesis_id_idx ON comments (hypothesis_id);
CREATE TRIGGER comments_updated_at BEFORE UPDATE ON comments FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE comment_responders (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  comment_id uuid NOT NULL CONSTRAINT comment_responders_comment_id_fkey REFERENCES comments (id) ON DELETE CASCADE,
  responder_id uuid NOT NULL CONSTRAINT comment_responders_responder_id_fkey REFERENCES responders (id) ON DELETE CASCADE,
  external_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The timeline. Entries outlive what they mention: deleting a hypothesis, evidence or comment keeps the entry (its
-- description says what happened) with the reference nulled.
CREATE TABLE incident_histories (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  incident_id uuid NOT NULL CONSTRAINT incident_histories_incident_id_fkey REFERENCES incidents (id) ON DELETE CASCADE,
  created_by uuid NOT NULL CONSTRAINT incident_histories_created_by_fkey REFERENCES people (id),
  type text,
  description text,
  hypothesis_id uuid CONSTRAINT incident_histories_hypothesis_id_fkey REFERENCES hypotheses (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  responder_id uuid CONSTRAINT incident_histories_responder_id_fkey REFERENCES responders (id) ON DELETE SET NULL,
  evidence_id uuid CONSTRAINT incident_histories_evidence_id_fkey REFERENCES evidences (id) ON DELETE SET NULL,
  comment_id uuid CONSTRAINT incident_histories_comment_id_fkey REFERENCES comments (id) ON DELETE SET NULL
);
CREATE INDEX incident_histories_incident_id_idx ON incident_histories (incident_id, created_at);

CREATE TABLE incident_relationships (
  incident_id uuid NOT NULL CONSTRAINT incident_relationships_incident_id_fkey REFERENCES incidents (id) ON DELETE CASCADE,
  related_id uuid NOT NULL CONSTRAINT incident_relationships_related_id_fkey REFERENCES incidents (id) ON DELETE CASCADE,
  relationship text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (incident_id, related_id)
);

------------------------------------------------------------------------------------------------------------------------
-- Rules

-- Allowed status targets (spec 000 section 4), each including itself.
CREATE OR REPLACE FUNCTION incident_status_targets(from_status text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE from_status
    WHEN 'new' THEN ARRAY['new', 'open', 'investigating', 'mitigated', 'resolved', 'closed']
    WHEN 'open' THEN ARRAY['open', 'investigating', 'mitigated', 'resolved', 'closed']
    WHEN 'investigating' THEN ARRAY['investigating', 'mitigated', 'resolved', 'closed']
    WHEN 'mitigated' THEN ARRAY['mitigated', 'resolved', 'closed', 'open']
    WHEN 'resolved' THEN ARRAY['resolved', 'closed', 'open']
    WHEN 'closed' THEN ARRAY['closed', 'open']
    ELSE ARRAY[]::text[]
  END
$$;

-- Severity as the web may send it: a name in any case, or the numeric code 0..4 (spec: 0 low … 4 critical).
CREATE OR REPLACE FUNCTION normalize_incident_severity(value text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE btrim(value)
    WHEN '0' THEN 'low' WHEN '1' THEN 'medium' WHEN '2' THEN 'high' WHEN '3' THEN 'blocker' WHEN '4' THEN 'critical'
    ELSE lower(btrim(value))
  END
$$;

CREATE OR REPLACE FUNCTION incidents_validate() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  allowed text[];
BEGIN
  IF NEW.title IS NULL OR btrim(NEW.title) = '' THEN
    PERFORM incident_refuse('Incident title is required');
  END IF;
  NEW.severity := normalize_incident_severity(NEW.severity);
  IF NEW.severity IS NULL OR NEW.severity NOT IN ('low', 'medium', 'high', 'blocker', 'critical') THEN
    PERFORM incident_refuse(format('Invalid incident severity %L', NEW.severity),
      'Severity must be one of low, medium, high, blocker, critical');
  END IF;
  IF NEW.type IS NULL OR NEW.type NOT IN ('cost', 'availability', 'performance', 'security', 'integration', 'compliance',
      'technicalDebt', 'reliability') THEN
    PERFORM incident_refuse(format('Invalid incident type %L', NEW.type),
      'Type must be one of cost, availability, performance, security, integration, compliance, technicalDebt, reliability');
  END IF;
  IF NEW.status IS NULL OR NEW.status NOT IN ('new', 'open', 'investigating', 'mitigated', 'resolved', 'closed') THEN
    PERFORM incident_refuse(format('Invalid incident status %L', NEW.status),
      'Status must be one of new, open, investigating, mitigated, resolved, closed');
  END IF;
  IF NEW.description IS NULL THEN
    NEW.description := '';
  END IF;
  IF TG_OP = 'INSERT' THEN
    -- the signed-in person creates the incident, whatever the body claims
    NEW.created_by := coalesce(current_actor(), NEW.created_by);
    IF NEW.created_by IS NULL THEN
      PERFORM incident_refuse('Incident created_by is required');
    END IF;
  ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
    allowed := incident_status_targets(OLD.status);
    IF NOT NEW.status = ANY (allowed) THEN
      RAISE EXCEPTION USING ERRCODE = 'P0001',
        MESSAGE = format('Incident status cannot change from %s to %s', OLD.status, NEW.status),
        DETAIL = format('Allowed from %s: %s', OLD.status, array_to_string(allowed, ', ')),
        HINT = 'See the status transition table';
    END IF;
  END IF;
  IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status THEN
    IF NEW.status = 'investigating' AND NEW.acknowledged IS NULL THEN NEW.acknowledged := now(); END IF;
    IF NEW.status IN ('resolved', 'closed') AND NEW.resolved IS NULL THEN NEW.resolved := now(); END IF;
    IF NEW.status = 'closed' THEN NEW.closed := now(); END IF;
    IF NEW.status IN ('open', 'investigating', 'mitigated') THEN
      NEW.resolved := NULL;
      NEW.closed := NULL;
    END IF;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER incidents_validate BEFORE INSERT OR UPDATE ON incidents FOR EACH ROW EXECUTE FUNCTION incidents_validate();

-- Hierarchy: a root has no parent; a factor's parent is a root; a solution's parent is a factor; same incident.
CREATE OR REPLACE FUNCTION hypotheses_validate() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  parent hypotheses%ROWTYPE;
BEGIN
  IF NEW.title IS NULL OR btrim(NEW.title) = '' THEN
    PERFORM incident_refuse('Hypothesis title is required');
  END IF;
  IF NEW.type IS NULL OR NEW.type NOT IN ('root', 'factor', 'solution') THEN
    PERFORM incident_refuse(format('Invalid hypothesis type %L', NEW.type), 'Type must be one of root, factor, solution');
  END IF;
  IF NEW.status IS NULL OR NEW.status NOT IN ('proven', 'likely', 'possible', 'unlikely', 'improbable', 'disproven') THEN
    PERFORM incident_refuse(format('Invalid hypothesis status %L', NEW.status),
      'Status must be one of proven, likely, possible, unlikely, improbable, disproven');
  END IF;
  IF TG_OP = 'INSERT' THEN
    NEW.created_by := coalesce(current_actor(), NEW.created_by);
  END IF;
  IF TG_OP = 'INSERT' OR NEW.parent_id IS DISTINCT FROM OLD.parent_id OR NEW.type IS DISTINCT FROM OLD.type THEN
    IF NEW.type = 'root' THEN
      IF NEW.parent_id IS NOT NULL THEN
        PERFORM incident_refuse('A root hypothesis cannot have a parent');
      END IF;
    ELSE
      IF NEW.parent_id IS NULL THEN
        PERFORM incident_refuse(format('A %s hypothesis needs a parent (parent_id)', NEW.type));
      END IF;
      SELECT * INTO parent FROM hypotheses WHERE id = NEW.parent_id;
      IF NOT FOUND THEN
        PERFORM incident_refuse(format('Parent hypothesis %s does not exist', NEW.parent_id));
      END IF;
      IF parent.incident_id <> NEW.incident_id THEN
        PERFORM incident_refuse('The parent hypothesis belongs to another incident');
      END IF;
      IF NEW.type = 'factor' AND parent.type <> 'root' THEN
        PERFORM incident_refuse(format('A factor must be under a root hypothesis, not a %s', parent.type),
          'Hierarchy: root, then factor, then solution');
      END IF;
      IF NEW.type = 'solution' AND parent.type <> 'factor' THEN
        PERFORM incident_refuse(format('A solution must be under a factor, not a %s', parent.type),
          'Hierarchy: root, then factor, then solution');
      END IF;
    END IF;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER hypotheses_validate BEFORE INSERT OR UPDATE ON hypotheses FOR EACH ROW EXECUTE FUNCTION hypotheses_validate();

CREATE OR REPLACE FUNCTION evidences_validate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.type IS NULL OR NEW.type NOT IN ('log', 'config', 'topology', 'check', 'config_analysis', 'config_change', 'comment') THEN
    PERFORM incident_refuse(format('Invalid evidence type %L', NEW.type),
      'Type must be one of log, config, topology, check, config_analysis, config_change, comment');
  END IF;
  IF NEW.hypothesis_id IS NULL THEN
    PERFORM incident_refuse('Evidence needs a hypothesis (hypothesis_id)');
  END IF;
  IF NEW.type = 'check' AND NEW.check_id IS NULL THEN
    PERFORM incident_refuse('Check evidence needs check_id');
  END IF;
  IF NEW.description IS NULL THEN
    NEW.description := '';
  END IF;
  NEW.definition_of_done := coalesce(NEW.definition_of_done, false);
  IF TG_OP = 'INSERT' THEN
    NEW.created_by := coalesce(current_actor(), NEW.created_by);
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER evidences_validate BEFORE INSERT OR UPDATE ON evidences FOR EACH ROW EXECUTE FUNCTION evidences_validate();

CREATE OR REPLACE FUNCTION comments_validate() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  hyp_incident uuid;
BEGIN
  IF NEW.comment IS NULL OR btrim(NEW.comment) = '' THEN
    PERFORM incident_refuse('Please add comment details', 'The comment text is required');
  END IF;
  IF NEW.hypothesis_id IS NOT NULL THEN
    SELECT incident_id INTO hyp_incident FROM hypotheses WHERE id = NEW.hypothesis_id;
    IF NOT FOUND THEN
      PERFORM incident_refuse(format('Hypothesis %s does not exist', NEW.hypothesis_id));
    END IF;
    NEW.incident_id := coalesce(NEW.incident_id, hyp_incident);
    IF NEW.incident_id <> hyp_incident THEN
      PERFORM incident_refuse('The hypothesis belongs to another incident');
    END IF;
  END IF;
  IF NEW.incident_id IS NULL THEN
    PERFORM incident_refuse('A comment needs an incident (incident_id) or a hypothesis (hypothesis_id)');
  END IF;
  IF TG_OP = 'INSERT' THEN
    NEW.created_by := coalesce(current_actor(), NEW.created_by);
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER comments_validate BEFORE INSERT OR UPDATE ON comments FOR EACH ROW EXECUTE FUNCTION comments_validate();

-- Required responder fields by type (spec 000 section 3); every one must be a non-empty value.
CREATE OR REPLACE FUNCTION responder_required_fields(responder_type text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN responder_type = 'email' THEN ARRAY['to', 'subject', 'body']
    WHEN responder_type = 'jira' THEN ARRAY['project', 'issueType', 'summary', 'description', 'priority']
    WHEN responder_type IN ('service_now', 'ca', 'aws_support', 'aws_ams_services_request') THEN ARRAY['category', 'description', 'body']
    WHEN responder_type IN ('redhat', 'oracle', 'vmware') THEN ARRAY['product', 'category', 'description', 'body']
    WHEN responder_type = 'ms_planner' THEN ARRAY['plan_id', 'bucket_id', 'priority', 'title', 'description']
    WHEN responder_type = 'person' THEN ARRAY[]::text[]
  END
$$;

CREATE OR REPLACE FUNCTION responders_validate() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rtype text;
  field text;
  missing text[] := ARRAY[]::text[];
  clients jsonb;
BEGIN
  IF TG_OP = 'UPDATE' THEN
    RETURN NEW;
  END IF;
  NEW.created_by := coalesce(current_actor(), NEW.created_by);
  IF NEW.type IS NULL OR NEW.type NOT IN ('person', 'system') THEN
    PERFORM incident_refuse(format('Invalid responder type %L', NEW.type),
      'Type is person (a person responder, person_id) or system (a team responder, team_id)');
  END IF;
  IF (NEW.person_id IS NULL) = (NEW.team_id IS NULL) THEN
    PERFORM incident_refuse('A responder is either a team or a person: set exactly one of team_id and person_id');
  END IF;
  IF NEW.type = 'person' AND NEW.person_id IS NULL THEN
    PERFORM incident_refuse('A person responder needs person_id');
  END IF;
  IF NEW.type = 'system' AND NEW.team_id IS NULL THEN
    PERFORM incident_refuse('A system responder needs team_id');
  END IF;
  IF NEW.properties IS NOT NULL AND jsonb_typeof(NEW.properties) <> 'object' THEN
    PERFORM incident_refuse('Responder properties must be a JSON object');
  END IF;
  rtype := coalesce(NEW.properties ->> 'responderType', CASE WHEN NEW.type = 'person' THEN 'person' END);
  IF rtype IS NULL OR responder_required_fields(rtype) IS NULL THEN
    PERFORM incident_refuse(format('Invalid responder type %L (properties.responderType)', rtype),
      'One of email, jira, service_now, ca, aws_support, aws_ams_services_request, redhat, oracle, ms_planner, vmware, person');
  END IF;
  IF NEW.team_id IS NOT NULL THEN
    IF rtype = 'person' THEN
      PERFORM incident_refuse('A team responder needs a response type other than person');
    END IF;
    SELECT spec -> 'responder_clients' INTO clients FROM teams WHERE id = NEW.team_id AND deleted_at IS NULL;
    IF NOT FOUND THEN
      PERFORM incident_refuse(format('Team %s does not exist', NEW.team_id));
    END IF;
    IF clients IS NULL OR jsonb_typeof(clients) <> 'object' OR NOT clients ? rtype THEN
      PERFORM incident_refuse(format('Response type %s is not configured for this team', rtype),
        'Only the types in the team''s spec.responder_clients can be used');
    END IF;
  END IF;
  FOREACH field IN ARRAY responder_required_fields(rtype) LOOP
    IF NEW.properties IS NULL OR btrim(coalesce(NEW.properties ->> field, '')) = '' THEN
      missing := missing || field;
    END IF;
  END LOOP;
  IF cardinality(missing) > 0 THEN
    PERFORM incident_refuse('Please provide valid value', format('Required for %s: %s', rtype, array_to_string(missing, ', ')));
  END IF;
  IF rtype = 'email' AND NOT (NEW.properties ->> 'to') ~ '^\s*[^@\s,;]+@[^@\s,;]+(\s*[,;]\s*[^@\s,;]+@[^@\s,;]+)*\s*$' THEN
    PERFORM incident_refuse('Please provide valid value', 'to: one or more email addresses separated by commas');
  END IF;
  NEW.properties := jsonb_set(coalesce(NEW.properties, '{}'::jsonb), '{responderType}', to_jsonb(rtype));
  NEW.delivery_status := CASE WHEN NEW.team_id IS NULL THEN 'none' ELSE 'pending' END;
  NEW.delivery_error := NULL;
  NEW.delivered_at := NULL;
  RETURN NEW;
END $$;
CREATE TRIGGER responders_validate BEFORE INSERT OR UPDATE ON responders FOR EACH ROW EXECUTE FUNCTION responders_validate();

------------------------------------------------------------------------------------------------------------------------
-- Timeline: one incident_histories row per event (spec event names), by the acting person.

CREATE OR REPLACE FUNCTION incident_history(incident uuid, event text, actor uuid, description text,
    hypothesis uuid DEFAULT NULL, responder uuid DEFAULT NULL, evidence uuid DEFAULT NULL, comment uuid DEFAULT NULL)
RETURNS void LANGUAGE sql AS $$
  INSERT INTO incident_histories (incident_id, type, created_by, description, hypothesis_id, responder_id, evidence_id, comment_id)
  VALUES (incident, event, coalesce(current_actor(), actor), description, hypothesis, responder, evidence, comment)
$$;

CREATE OR REPLACE FUNCTION incidents_history() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changes text[] := ARRAY[]::text[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM incident_history(NEW.id, 'incident.created', NEW.created_by, format('Incident %s created: %s', NEW.incident_id, NEW.title));
    RETURN NULL;
  END IF;
  IF NEW.status IS DISTINCT FROM OLD.status THEN
    PERFORM incident_history(NEW.id, 'incident.status_updated', NEW.created_by,
      format('Status changed from %s to %s', OLD.status, NEW.status));
  END IF;
  -- incident_status.updated: the incident's other state (severity, type, title, commander, communicator) changed
  IF NEW.severity IS DISTINCT FROM OLD.severity THEN
    changes := changes || format('severity from %s to %s', OLD.severity, NEW.severity);
  END IF;
  IF NEW.type IS DISTINCT FROM OLD.type THEN
    changes := changes || format('type from %s to %s', OLD.type, NEW.type);
  END IF;
  IF NEW.title IS DISTINCT FROM OLD.title THEN
    changes := changes || format('title to %s', NEW.title);
  END IF;
  IF NEW.commander_id IS DISTINCT FROM OLD.commander_id THEN
    changes := changes || format('commander to %s', coalesce((SELECT name FROM people WHERE id = NEW.commander_id), 'nobody'));
  END IF;
  IF NEW.communicator_id IS DISTINCT FROM OLD.communicator_id THEN
    changes := changes || format('communicator to %s', coalesce((SELECT name FROM people WHERE id = NEW.communicator_id), 'nobody'));
  END IF;
  IF cardinality(changes) > 0 THEN
    PERFORM incident_history(NEW.id, 'incident_status.updated', NEW.created_by, 'Changed ' || array_to_string(changes, ', '));
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER incidents_history AFTER INSERT OR UPDATE ON incidents FOR EACH ROW EXECUTE FUNCTION incidents_history();

CREATE OR REPLACE FUNCTION hypotheses_history() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM incident_history(NEW.incident_id, 'hypothesis.created', NEW.created_by,
      format('%s hypothesis created: %s', initcap(NEW.type), NEW.title), hypothesis => NEW.id);
  ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
    PERFORM incident_history(NEW.incident_id, 'hypothesis.status_updated', NEW.created_by,
      format('Hypothesis %s changed from %s to %s', NEW.title, OLD.status, NEW.status), hypothesis => NEW.id);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER hypotheses_history AFTER INSERT OR UPDATE ON hypotheses FOR EACH ROW EXECUTE FUNCTION hypotheses_history();

CREATE OR REPLACE FUNCTION evidences_history() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  incident uuid;
BEGIN
  SELECT incident_id INTO incident FROM hypotheses WHERE id = NEW.hypothesis_id;
  IF TG_OP = 'INSERT' THEN
    PERFORM incident_history(incident, 'evidence.created', NEW.created_by,
      format('%s evidence added: %s', initcap(replace(NEW.type, '_', ' ')), NEW.description),
      hypothesis => NEW.hypothesis_id, evidence => NEW.id);
  END IF;
  IF NEW.definition_of_done AND (TG_OP = 'INSERT' OR NOT OLD.definition_of_done) THEN
    PERFORM incident_history(incident, 'evidence.done_definition_added', NEW.created_by,
      format('Added to the definition of done: %s', NEW.description), hypothesis => NEW.hypothesis_id, evidence => NEW.id);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER evidences_history AFTER INSERT OR UPDATE ON evidences FOR EACH ROW EXECUTE FUNCTION evidences_history();

CREATE OR REPLACE FUNCTION responders_history() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM incident_history(NEW.incident_id, 'responder.created', NEW.created_by,
    format('Responder added: %s (%s)',
      coalesce((SELECT name FROM teams WHERE id = NEW.team_id), (SELECT name FROM people WHERE id = NEW.person_id)),
      NEW.properties ->> 'responderType'),
    responder => NEW.id);
  RETURN NULL;
END $$;
CREATE TRIGGER responders_history AFTER INSERT ON responders FOR EACH ROW EXECUTE FUNCTION responders_history();

CREATE OR REPLACE FUNCTION comments_history() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM incident_history(NEW.incident_id, 'responder.commented', NEW.created_by, left(NEW.comment, 500),
    hypothesis => NEW.hypothesis_id, responder => NEW.responder_id, comment => NEW.id);
  RETURN NULL;
END $$;
CREATE TRIGGER comments_history AFTER INSERT ON comments FOR EACH ROW EXECUTE FUNCTION comments_history();

------------------------------------------------------------------------------------------------------------------------
-- Live updates: every write under an incident also announces the incident (ids = incident ids) on the channel the
-- WebSocket bus listens to, so the list and detail pages refetch; the NOTIFY is sent only if the write commits.

CREATE OR REPLACE FUNCTION incident_notify(relation text, ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  msg jsonb := jsonb_build_object('type', 'change', 'relation', relation,
    'at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
BEGIN
  ids := ARRAY(SELECT DISTINCT x FROM unnest(ids) x WHERE x IS NOT NULL);
  IF cardinality(ids) BETWEEN 1 AND 50 THEN
    msg := msg || jsonb_build_object('ids', to_jsonb(ids::text[]));
  END IF;
  PERFORM pg_notify('console_events', msg::text);
END $$;

CREATE OR REPLACE FUNCTION incident_children_notify() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids uuid[];
BEGIN
  IF TG_TABLE_NAME = 'evidences' THEN
    IF TG_OP = 'DELETE' THEN
      ids := ARRAY(SELECT h.incident_id FROM old_rows o JOIN hypotheses h ON h.id = o.hypothesis_id);
    ELSE
      ids := ARRAY(SELECT h.incident_id FROM new_rows n JOIN hypotheses h ON h.id = n.hypothesis_id);
    END IF;
  ELSIF TG_OP = 'DELETE' THEN
    ids := ARRAY(SELECT incident_id FROM old_rows);
  ELSE
    ids := ARRAY(SELECT incident_id FROM new_rows);
  END IF;
  PERFORM incident_notify('incidents', ids);
  IF TG_TABLE_NAME <> 'incident_histories' THEN
    PERFORM incident_notify('incident_histories', ids);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER hypotheses_notify_ins AFTER INSERT ON hypotheses REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION incident_children_notify();
CREATE TRIGGER hypotheses_notify_upd AFTER UPDATE ON hypotheses REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION incident_children_notify();
CREATE TRIGGER hypotheses_notify_del AFTER DELETE ON hypotheses REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION incident_children_notify();
CREATE TRIGGER evidences_notify_ins AFTER INSERT ON evidences REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION incident_children_notify();
CREATE TRIGGER evidences_notify_upd AFTER UPDATE ON evidences REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION incident_children_notify();
CREATE TRIGGER evidences_notify_del AFTER DELETE ON evidences REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION incident_children_notify();
CREATE TRIGGER comments_notify_ins AFTER INSERT ON comments REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION incident_children_notify();
CREATE TRIGGER comments_notify_upd AFTER UPDATE ON comments REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION incident_children_notify();
CREATE TRIGGER comments_notify_del AFTER DELETE ON comments REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION incident_children_notify();
CREATE TRIGGER responders_notify_ins AFTER INSERT ON responders REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION incident_children_notify();
CREATE TRIGGER responders_notify_upd AFTER UPDATE ON responders REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION incident_children_notify();
CREATE TRIGGER incident_histories_notify_ins AFTER INSERT ON incident_histories REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION incident_children_notify();

CREATE OR REPLACE FUNCTION incidents_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM incident_notify('incidents', ARRAY(SELECT id FROM old_rows));
  ELSE
    PERFORM incident_notify('incidents', ARRAY(SELECT id FROM new_rows));
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER incidents_notify_ins AFTER INSERT ON incidents REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION incidents_notify();
CREATE TRIGGER incidents_notify_upd AFTER UPDATE ON incidents REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION incidents_notify();
CREATE TRIGGER incidents_notify_del AFTER DELETE ON incidents REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION incidents_notify();

------------------------------------------------------------------------------------------------------------------------
-- Views

-- The list: one row per incident with its commander, responders (people and teams, not deleted) and commenters.
CREATE VIEW incident_summary AS
SELECT
  i.id, i.incident_id, i.title, i.description, i.severity, i.type, i.status, i.created_by, i.commander_id,
  i.communicator_id, i.acknowledged, i.resolved, i.closed, i.created_at, i.updated_at,
  (SELECT jsonb_build_object('id', p.id, 'avatar', p.avatar, 'name', p.name) FROM people p WHERE p.id = i.commander_id) AS commander,
  coalesce((
    SELECT jsonb_agg(x.r ORDER BY x.created_at) FROM (
      SELECT r.created_at, CASE WHEN r.person_id IS NOT NULL
        THEN jsonb_build_object('id', p.id, 'avatar', p.avatar, 'name', p.name, 'type', 'person')
        ELSE jsonb_build_object('id', t.id, 'avatar', t.icon, 'name', t.name, 'type', 'team') END AS r
      FROM responders r
      LEFT JOIN people p ON p.id = r.person_id
      LEFT JOIN teams t ON t.id = r.team_id
      WHERE r.incident_id = i.id AND r.deleted_at IS NULL
    ) x
  ), '[]'::jsonb) AS responders,
  coalesce((
    SELECT jsonb_agg(jsonb_build_object('id', p.id, 'avatar', p.avatar, 'name', p.name) ORDER BY p.name)
    FROM people p WHERE p.id IN (SELECT c.created_by FROM comments c WHERE c.incident_id = i.id)
  ), '[]'::jsonb) AS commenters
FROM incidents i;

CREATE VIEW incidents_by_component AS
SELECT DISTINCT i.title, i.id, i.incident_id, i.created_at, i.type, i.status, i.severity, e.component_id
FROM evidences e
JOIN hypotheses h ON h.id = e.hypothesis_id
JOIN incidents i ON i.id = h.incident_id
WHERE e.component_id IS NOT NULL;

CREATE VIEW incidents_by_config AS
SELECT DISTINCT i.title, i.id, i.incident_id, i.created_at, i.type, i.status, i.severity, e.config_id
FROM evidences e
JOIN hypotheses h ON h.id = e.hypothesis_id
JOIN incidents i ON i.id = h.incident_id
WHERE e.config_id IS NOT NULL;

-- Incidents a check is evidence of (the check drawer and the "Link to Incident" search).
CREATE VIEW incidents_by_check AS
SELECT DISTINCT i.title, i.id, i.incident_id, i.created_at, i.type, i.status, i.severity, e.check_id
FROM evidences e
JOIN hypotheses h ON h.id = e.hypothesis_id
JOIN incidents i ON i.id = h.incident_id
WHERE e.check_id IS NOT NULL;

------------------------------------------------------------------------------------------------------------------------
-- RPC

-- The spec's creation sequence in one transaction: the incident, its root hypothesis (title = the incident's unless
-- given, status possible), and optionally one evidence under it. Returns {incident, hypothesis, evidence}.
CREATE OR REPLACE FUNCTION create_incident(
  title text,
  description text DEFAULT '',
  severity text DEFAULT 'low',
  type text DEFAULT 'availability',
  status text DEFAULT 'open',
  commander_id uuid DEFAULT NULL,
  communicator_id uuid DEFAULT NULL,
  hypothesis_title text DEFAULT NULL,
  evidence jsonb DEFAULT NULL
) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  inc incidents%ROWTYPE;
  hyp hypotheses%ROWTYPE;
  ev evidences%ROWTYPE;
BEGIN
  IF current_actor() IS NULL THEN
    PERFORM incident_refuse('create_incident needs a signed-in person');
  END IF;
  INSERT INTO incidents (title, description, severity, type, status, commander_id, communicator_id, created_by)
  VALUES (title, coalesce(description, ''), coalesce(severity, 'low'), coalesce(type, 'availability'),
          coalesce(status, 'open'), commander_id, communicator_id, current_actor())
  RETURNING * INTO inc;
  INSERT INTO hypotheses (incident_id, title, type, status, created_by)
  VALUES (inc.id, coalesce(nullif(btrim(hypothesis_title), ''), inc.title), 'root', 'possible', current_actor())
  RETURNING * INTO hyp;
  IF evidence IS NOT NULL AND evidence <> 'null'::jsonb THEN
    ev := attach_evidence_row(hyp.id, evidence);
  END IF;
  RETURN jsonb_build_object('incident', to_jsonb(inc), 'hypothesis', to_jsonb(hyp),
    'evidence', CASE WHEN ev.id IS NULL THEN NULL ELSE to_jsonb(ev) END);
END $$;

-- One evidence row from a JSON object of evidences columns (unknown keys refused), under a hypothesis.
CREATE OR REPLACE FUNCTION attach_evidence_row(hypothesis uuid, evidence jsonb) RETURNS evidences LANGUAGE plpgsql AS $$
DECLARE
  unknown text[];
  ev evidences%ROWTYPE;
BEGIN
  IF jsonb_typeof(evidence) <> 'object' THEN
    PERFORM incident_refuse('evidence must be a JSON object');
  END IF;
  unknown := ARRAY(SELECT k FROM jsonb_object_keys(evidence) k WHERE k NOT IN ('type', 'description', 'evidence',
    'properties', 'config_id', 'config_change_id', 'config_analysis_id', 'component_id', 'check_id', 'definition_of_done',
    'done', 'script', 'factor', 'mitigator'));
  IF cardinality(unknown) > 0 THEN
    PERFORM incident_refuse(format('Unknown evidence fields: %s', array_to_string(unknown, ', ')));
  END IF;
  INSERT INTO evidences (hypothesis_id, type, description, evidence, properties, config_id, config_change_id,
    config_analysis_id, component_id, check_id, definition_of_done, done, script, factor, mitigator, created_by)
  SELECT hypothesis, r.type, coalesce(r.description, ''), r.evidence, r.properties, r.config_id, r.config_change_id,
    r.config_analysis_id, r.component_id, r.check_id, coalesce(r.definition_of_done, false), r.done, r.script, r.factor,
    r.mitigator, current_actor()
  FROM jsonb_populate_record(NULL::evidences, evidence) r
  RETURNING * INTO ev;
  RETURN ev;
END $$;

-- "Link to Incident" and "Attach as evidence" on an existing incident: under the given hypothesis, or a new root
-- hypothesis (titled hypothesis_title, else the incident's title). Returns {hypothesis, evidence}.
CREATE OR REPLACE FUNCTION link_to_incident(
  incident_id uuid,
  evidence jsonb,
  hypothesis_id uuid DEFAULT NULL,
  hypothesis_title text DEFAULT NULL
) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  inc incidents%ROWTYPE;
  hyp hypotheses%ROWTYPE;
  ev evidences%ROWTYPE;
BEGIN
  IF current_actor() IS NULL THEN
    PERFORM incident_refuse('link_to_incident needs a signed-in person');
  END IF;
  SELECT * INTO inc FROM incidents i WHERE i.id = link_to_incident.incident_id;
  IF NOT FOUND THEN
    PERFORM incident_refuse('Must select or create an incident', format('Incident %s does not exist', link_to_incident.incident_id));
  END IF;
  IF link_to_incident.hypothesis_id IS NOT NULL THEN
    SELECT * INTO hyp FROM hypotheses h WHERE h.id = link_to_incident.hypothesis_id;
    IF NOT FOUND OR hyp.incident_id <> inc.id THEN
      PERFORM incident_refuse('Must select or create a hypothesis', 'The hypothesis does not belong to this incident');
    END IF;
  ELSE
    INSERT INTO hypotheses (incident_id, title, type, status, created_by)
    VALUES (inc.id, coalesce(nullif(btrim(hypothesis_title), ''), inc.title), 'root', 'possible', current_actor())
    RETURNING * INTO hyp;
  END IF;
  IF evidence IS NULL OR evidence = 'null'::jsonb THEN
    PERFORM incident_refuse('evidence is required');
  END IF;
  ev := attach_evidence_row(hyp.id, evidence);
  RETURN jsonb_build_object('hypothesis', to_jsonb(hyp), 'evidence', to_jsonb(ev));
END $$;

-- Deleting a hypothesis: its comments and evidences go first (the foreign keys cascade as well; this is the one call
-- the web needs). Returns the number of hypotheses removed (with descendants).
CREATE OR REPLACE FUNCTION delete_hypothesis(id uuid) RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  ids uuid[];
BEGIN
  ids := ARRAY(
    WITH RECURSIVE tree AS (
      SELECT h.id FROM hypotheses h WHERE h.id = delete_hypothesis.id
      UNION ALL SELECT h.id FROM hypotheses h JOIN tree t ON h.parent_id = t.id
    ) SELECT tree.id FROM tree);
  IF cardinality(ids) = 0 THEN
    PERFORM incident_refuse(format('Hypothesis %s not found', delete_hypothesis.id));
  END IF;
  DELETE FROM comments c WHERE c.hypothesis_id = ANY (ids);
  DELETE FROM evidences e WHERE e.hypothesis_id = ANY (ids);
  DELETE FROM hypotheses h WHERE h.id = ANY (ids);
  RETURN cardinality(ids);
END $$;
