-- Topology (issue 13): components and their links to checks, configs, teams and each other, the views the reference
-- UI reads through /api/db, and the health roll-up. Names, columns and foreign key names follow the reference
-- (flanksource/duty components.hcl, teams.hcl, views/005_component_views.sql, views/010_topology.sql); the SQL is ours.
-- Additions of ours: components.status defaults to 'unknown' (the roll-up sets it), and the roll-up itself runs in
-- triggers (the reference recomputes it every few minutes in a sweep).

CREATE TABLE components (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  agent_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' CONSTRAINT components_agent_id_fkey REFERENCES agents (id),
  topology_id uuid CONSTRAINT components_topology_id_fkey REFERENCES topologies (id),
  external_id text NOT NULL,
  parent_id uuid CONSTRAINT components_parent_id_fkey REFERENCES components (id),
  config_id uuid CONSTRAINT components_config_id_fkey REFERENCES config_items (id),
  name text NOT NULL,
  text text,
  topology_type text,
  namespace text,
  labels jsonb,
  hidden boolean NOT NULL DEFAULT false,
  silenced boolean NOT NULL DEFAULT false,
  is_pushed boolean NOT NULL DEFAULT false,
  status text NOT NULL DEFAULT 'unknown',
  status_expr text,
  health_expr text,
  health text,
  description text,
  lifecycle text,
  tooltip text,
  status_reason text,
  schedule text,
  icon text,
  type text,
  owner text,
  selectors jsonb,
  log_selectors jsonb,
  component_checks jsonb,
  configs jsonb,
  properties jsonb,
  path text,
  summary jsonb,
  is_leaf boolean DEFAULT false,
  cost_per_minute numeric(16, 4),
  cost_total_1d numeric(16, 4),
  cost_total_7d numeric(16, 4),
  cost_total_30d numeric(16, 4),
  created_by uuid CONSTRAINT components_created_by_fkey REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  deleted_at timestamptz,
  properties_values jsonb GENERATED ALWAYS AS (
    jsonb_path_query_array(properties, '$[*].text') || jsonb_path_query_array(properties, '$[*].value')) STORED
);
-- Stable identity: the runner upserts on these, so ids (and the links, evidence and `hidden` hanging off them)
-- survive rebuilds. A root has no parent: NULLS NOT DISTINCT makes two roots of one name and type one row.
CREATE UNIQUE INDEX components_topology_id_type_name_parent_id_key
  ON components (topology_id, type, name, parent_id) NULLS NOT DISTINCT;
CREATE INDEX components_parent_id_idx ON components (parent_id) WHERE deleted_at IS NULL;
CREATE INDEX components_roots_idx ON components (name) WHERE deleted_at IS NULL AND parent_id IS NULL;
CREATE INDEX components_topology_id_idx ON components (topology_id);
CREATE INDEX components_properties_values_idx ON components USING gin (properties_values);
-- a subtree is a range of paths (GET /api/topology?id=): byte order, whatever the database's collation
CREATE INDEX components_path_idx ON components ((path COLLATE "C")) WHERE deleted_at IS NULL;
CREATE TRIGGER components_updated_at BEFORE UPDATE ON components FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE component_relationships (
  component_id uuid NOT NULL CONSTRAINT component_relationships_component_id_fkey REFERENCES components (id) ON DELETE CASCADE,
  relationship_id uuid NOT NULL CONSTRAINT component_relationships_relationship_id_fkey REFERENCES components (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  selector_id text,
  relationship_path text,
  is_pushed boolean NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX component_relationships_component_id_relationship_id_selector_id_key
  ON component_relationships (component_id, relationship_id, selector_id) NULLS NOT DISTINCT;
CREATE INDEX component_relationships_relationship_id_idx ON component_relationships (relationship_id);

CREATE TABLE check_component_relationships (
  component_id uuid NOT NULL CONSTRAINT check_component_relationships_component_id_fkey REFERENCES components (id) ON DELETE CASCADE,
  check_id uuid NOT NULL CONSTRAINT check_component_relationships_check_id_fkey REFERENCES checks (id) ON DELETE CASCADE,
  canary_id uuid NOT NULL CONSTRAINT check_component_relationships_canary_id_fkey REFERENCES canaries (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  selector_id text,
  is_pushed boolean NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX check_component_relationships_component_id_check_id_canary_id_selector_id_key
  ON check_component_relationships (component_id, check_id, canary_id, selector_id) NULLS NOT DISTINCT;
CREATE INDEX check_component_relationships_check_id_idx ON check_component_relationships (check_id);

CREATE TABLE team_components (
  team_id uuid NOT NULL CONSTRAINT team_components_team_id_fkey REFERENCES teams (id) ON DELETE CASCADE,
  component_id uuid NOT NULL CONSTRAINT team_components_component_id_fkey REFERENCES components (id) ON DELETE CASCADE,
  role text,
  selector_id text,
  PRIMARY KEY (team_id, component_id)
);
CREATE UNIQUE INDEX team_components_team_id_component_id_selector_id_key
  ON team_components (team_id, component_id, selector_id) NULLS NOT DISTINCT;
CREATE INDEX team_components_component_id_idx ON team_components (component_id);

-- The component side of links made before components existed (0030 evidences, 0050 links and playbook runs). No
-- component row existed until now, so every id there dangles: links go, evidence and runs keep their row.
DELETE FROM config_component_relationships r WHERE NOT EXISTS (SELECT 1 FROM components c WHERE c.id = r.component_id);
ALTER TABLE config_component_relationships ADD CONSTRAINT config_component_relationships_component_id_fkey
  FOREIGN KEY (component_id) REFERENCES components (id) ON DELETE CASCADE;
UPDATE evidences e SET component_id = NULL
  WHERE component_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM components c WHERE c.id = e.component_id);
ALTER TABLE evidences ADD CONSTRAINT evidences_component_id_fkey
  FOREIGN KEY (component_id) REFERENCES components (id) ON DELETE SET NULL;
UPDATE playbook_runs p SET component_id = NULL
  WHERE component_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM components c WHERE c.id = p.component_id);
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'playbook_runs_component_id_fkey') THEN
    ALTER TABLE playbook_runs ADD CONSTRAINT playbook_runs_component_id_fkey FOREIGN KEY (component_id) REFERENCES components (id);
  END IF;
END $$;
CREATE INDEX playbook_runs_component_id_idx ON playbook_runs (component_id, created_at DESC) WHERE component_id IS NOT NULL;

------------------------------------------------------------------------------------------------------------------------
-- Parents: a component never becomes its own ancestor, and `path` (the ancestors' ids, root first, dot-separated, as
-- the reference keeps it) follows parent_id, for this row and, when it moves, for its descendants.

CREATE FUNCTION components_parent_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  trail uuid[];
BEGIN
  -- a path written by components_moved below is already right (and its parent's may not be updated yet)
  IF pg_trigger_depth() > 1 THEN RETURN NEW; END IF;
  IF NEW.parent_id IS NULL THEN
    NEW.path := '';
    RETURN NEW;
  END IF;
  IF TG_OP = 'UPDATE' THEN
    -- walk up from the new parent; meeting this row again is a cycle (the trail bounds a loop already in the data)
    WITH RECURSIVE up(id, parent_id, trail, hit) AS (
      SELECT c.id, c.parent_id, ARRAY[c.id], c.id = NEW.id FROM components c WHERE c.id = NEW.parent_id
      UNION ALL
      SELECT c.id, c.parent_id, u.trail || c.id, c.id = NEW.id
        FROM components c JOIN up u ON c.id = u.parent_id
        WHERE NOT u.hit AND NOT c.id = ANY (u.trail)
    )
    SELECT up.trail INTO trail FROM up WHERE up.hit LIMIT 1;
    IF trail IS NOT NULL THEN
      RAISE EXCEPTION 'cycle: % → %', NEW.id, array_to_string(trail, ' → ')
        USING ERRCODE = 'P0001', HINT = 'parent_id would make the component its own ancestor';
    END IF;
  END IF;
  SELECT CASE WHEN coalesce(p.path, '') = '' THEN p.id::text ELSE p.path || '.' || p.id END INTO NEW.path
    FROM components p WHERE p.id = NEW.parent_id;
  RETURN NEW;
END $$;
CREATE TRIGGER components_parent_check BEFORE INSERT OR UPDATE OF parent_id, path ON components
  FOR EACH ROW EXECUTE FUNCTION components_parent_check();

CREATE FUNCTION components_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH RECURSIVE d(id, p) AS (
    SELECT c.id, CASE WHEN coalesce(NEW.path, '') = '' THEN NEW.id::text ELSE NEW.path || '.' || NEW.id END
      FROM components c WHERE c.parent_id = NEW.id
    UNION ALL
    SELECT c.id, d.p || '.' || d.id FROM components c JOIN d ON c.parent_id = d.id
  )
  UPDATE components c SET path = d.p FROM d WHERE c.id = d.id AND c.path IS DISTINCT FROM d.p;
  RETURN NULL;
END $$;
CREATE TRIGGER components_moved AFTER UPDATE OF parent_id ON components
  FOR EACH ROW WHEN (OLD.parent_id IS DISTINCT FROM NEW.parent_id) EXECUTE FUNCTION components_moved();

------------------------------------------------------------------------------------------------------------------------
-- Health roll-up, as duty's Summary.Add, kept current by triggers (no sweep).
--   A component's own votes: each linked live check (healthy, else unhealthy), each linked live config whose health
--   is known (healthy, unhealthy, warning, info), and its own `health` (set by the runner) when it is one of those.
--   A leaf's counts are its votes. A parent adds, per live child (and its own votes as one more child, when it has
--   any), one healthy or one unhealthy, or one warning when the child has both, plus all of the child's warnings and
--   infos. `checks` ({status: n}), `incidents` ({type: {severity: n}}, open incidents with the component as evidence)
--   and `insights` ({analysis_type: {severity: n}}, open analysis of linked configs) add up the subtree.
--   status: healthy and unhealthy → warning; else unhealthy, warning, healthy, info in that order; nothing → unknown.
-- Recomputed for the components a write touches, then for the parents of those whose summary or status changed, up
-- to the root; the rows whose summary changed are announced on the live channel (relation 'components').

CREATE FUNCTION topology_rollup(p_ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  ids uuid[] := ARRAY(SELECT DISTINCT x FROM unnest(p_ids) x WHERE x IS NOT NULL);
  changed uuid[] := '{}';
  round_changed uuid[];
  rounds int := 0;
BEGIN
  -- 64 levels bound the walk even if the data held a loop (the parent trigger refuses new ones)
  WHILE cardinality(ids) > 0 AND rounds < 64 LOOP
    rounds := rounds + 1;
    WITH target AS (
      SELECT c.id, c.health FROM components c WHERE c.id = ANY (ids) AND c.deleted_at IS NULL
    ),
    votes AS (
      SELECT r.component_id AS id, CASE WHEN ch.status = 'healthy' THEN 'healthy' ELSE 'unhealthy' END AS v
        FROM check_component_relationships r JOIN checks ch ON ch.id = r.check_id AND ch.deleted_at IS NULL
        WHERE r.component_id = ANY (ids) AND r.deleted_at IS NULL AND ch.status IS NOT NULL
      UNION ALL
      SELECT r.component_id, ci.health
        FROM config_component_relationships r JOIN config_items ci ON ci.id = r.config_id AND ci.deleted_at IS NULL
        WHERE r.component_id = ANY (ids) AND r.deleted_at IS NULL AND ci.health IN ('healthy', 'unhealthy', 'warning', 'info')
      UNION ALL
      SELECT t.id, t.health FROM target t WHERE t.health IN ('healthy', 'unhealthy', 'warning', 'info')
    ),
    own AS (
      SELECT id, count(*) FILTER (WHERE v = 'healthy') AS h, count(*) FILTER (WHERE v = 'unhealthy') AS u,
             count(*) FILTER (WHERE v = 'warning') AS w, count(*) FILTER (WHERE v = 'info') AS i
        FROM votes GROUP BY id
    ),
    kids AS (
      SELECT k.parent_id AS id, coalesce(k.summary, '{}') AS s
        FROM components k WHERE k.parent_id = ANY (ids) AND k.deleted_at IS NULL
    ),
    contrib AS (
      SELECT id, coalesce((s->>'healthy')::int, 0) AS h, coalesce((s->>'unhealthy')::int, 0) AS u,
             coalesce((s->>'warning')::int, 0) AS w, coalesce((s->>'info')::int, 0) AS i
        FROM kids
      UNION ALL
      SELECT o.id, o.h, o.u, o.w, o.i FROM own o WHERE o.id IN (SELECT id FROM kids)
    ),
    parents AS (
      SELECT id, sum(CASE WHEN h > 0 AND u = 0 THEN 1 ELSE 0 END) AS h, sum(CASE WHEN u > 0 AND h = 0 THEN 1 ELSE 0 END) AS u,
             sum(CASE WHEN h > 0 AND u > 0 THEN 1 ELSE 0 END + w) AS w, sum(i) AS i
        FROM contrib GROUP BY id
    ),
    counts AS (
      SELECT t.id,
             coalesce(p.h, o.h, 0)::int AS h, coalesce(p.u, o.u, 0)::int AS u,
             coalesce(p.w, o.w, 0)::int AS w, coalesce(p.i, o.i, 0)::int AS i
        FROM target t LEFT JOIN parents p ON p.id = t.id LEFT JOIN own o ON o.id = t.id AND p.id IS NULL
    ),
    check_counts AS (
      SELECT id, jsonb_object_agg(k, n) AS m FROM (
        SELECT id, k, sum(n)::int AS n FROM (
          SELECT r.component_id AS id, coalesce(ch.status, 'unknown') AS k, 1 AS n
            FROM check_component_relationships r JOIN checks ch ON ch.id = r.check_id AND ch.deleted_at IS NULL
            WHERE r.component_id = ANY (ids) AND r.deleted_at IS NULL
          UNION ALL
          SELECT kids.id, e.key, e.value::int
            FROM kids, jsonb_each_text(CASE WHEN jsonb_typeof(kids.s->'checks') = 'object' THEN kids.s->'checks' ELSE '{}' END) e
        ) x GROUP BY id, k
      ) y GROUP BY id
    ),
    nested AS (
      SELECT 'incidents' AS kind, e.component_id AS id, i.type AS a, i.severity AS b, count(DISTINCT i.id)::int AS n
        FROM evidences e JOIN hypotheses h ON h.id = e.hypothesis_id JOIN incidents i ON i.id = h.incident_id
        WHERE e.component_id = ANY (ids) AND i.resolved IS NULL AND i.closed IS NULL
        GROUP BY e.component_id, i.type, i.severity
      UNION ALL
      SELECT 'insights', r.component_id, ca.analysis_type, ca.severity, count(*)::int
        FROM config_component_relationships r
        JOIN config_items ci ON ci.id = r.config_id AND ci.deleted_at IS NULL
        JOIN config_analysis ca ON ca.config_id = r.config_id AND ca.status = 'open'
        WHERE r.component_id = ANY (ids) AND r.deleted_at IS NULL
        GROUP BY r.component_id, ca.analysis_type, ca.severity
      UNION ALL
      SELECT kind, kids.id, t.key, sv.key, sv.value::int
        FROM kids, (VALUES ('incidents'), ('insights')) k(kind),
          jsonb_each(CASE WHEN jsonb_typeof(kids.s->k.kind) = 'object' THEN kids.s->k.kind ELSE '{}' END) t,
          jsonb_each_text(CASE WHEN jsonb_typeof(t.value) = 'object' THEN t.value ELSE '{}' END) sv
    ),
    by_type AS (
      SELECT kind, id, a, jsonb_object_agg(b, n) AS m FROM (
        SELECT kind, id, coalesce(a, 'unknown') AS a, coalesce(b, 'unknown') AS b, sum(n)::int AS n
          FROM nested GROUP BY 1, 2, 3, 4
      ) x GROUP BY kind, id, a
    ),
    maps AS (
      SELECT id, jsonb_object_agg(kind, m) AS m FROM (
        SELECT kind, id, jsonb_object_agg(a, m) AS m FROM by_type GROUP BY kind, id
      ) x GROUP BY id
    ),
    computed AS (
      SELECT c.id,
             jsonb_build_object('healthy', c.h, 'unhealthy', c.u, 'warning', c.w, 'info', c.i,
               'checks', coalesce(cc.m, '{}'), 'incidents', coalesce(mp.m->'incidents', '{}'),
               'insights', coalesce(mp.m->'insights', '{}')) AS summary,
             CASE WHEN c.h > 0 AND c.u > 0 THEN 'warning' WHEN c.u > 0 THEN 'unhealthy' WHEN c.w > 0 THEN 'warning'
                  WHEN c.h > 0 THEN 'healthy' WHEN c.i > 0 THEN 'info' ELSE 'unknown' END AS status
        FROM counts c LEFT JOIN check_counts cc ON cc.id = c.id LEFT JOIN maps mp ON mp.id = c.id
    ),
    written AS (
      UPDATE components c SET summary = n.summary, status = n.status
        FROM computed n
        WHERE c.id = n.id AND (c.summary IS DISTINCT FROM n.summary OR c.status IS DISTINCT FROM n.status)
        RETURNING c.id, c.parent_id
    )
    SELECT array_agg(id), ARRAY(SELECT DISTINCT w.parent_id FROM written w WHERE w.parent_id IS NOT NULL)
      INTO round_changed, ids FROM written;
    changed := changed || coalesce(round_changed, '{}');
  END LOOP;
  IF cardinality(changed) > 0 THEN
    PERFORM incident_notify('components', changed);
  END IF;
END $$;

-- What each write touches. Statement triggers with transition tables: a run that writes thousands of rows rolls up
-- once. Tables written in bulk by others (checks, config items, insights) leave at once while nothing links to them.

CREATE FUNCTION topology_components_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM topology_rollup(ARRAY(SELECT id FROM new_rows UNION SELECT parent_id FROM new_rows));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM topology_rollup(ARRAY(SELECT parent_id FROM old_rows));
  ELSE
    -- the roll-up's own writes (summary, status) change none of these, so it does not recurse
    PERFORM topology_rollup(ARRAY(
      SELECT x FROM new_rows n JOIN old_rows o ON o.id = n.id,
        LATERAL unnest(ARRAY[n.id, n.parent_id, o.parent_id]) x
      WHERE (n.parent_id, n.health, n.deleted_at) IS DISTINCT FROM (o.parent_id, o.health, o.deleted_at)));
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER components_rollup_ins AFTER INSERT ON components REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION topology_components_changed();
CREATE TRIGGER components_rollup_upd AFTER UPDATE ON components REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION topology_components_changed();
CREATE TRIGGER components_rollup_del AFTER DELETE ON components REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION topology_components_changed();

-- Rows that carry component_id: check and config links, evidence.
CREATE FUNCTION topology_links_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM topology_rollup(ARRAY(SELECT component_id FROM new_rows));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM topology_rollup(ARRAY(SELECT component_id FROM old_rows));
  ELSE
    PERFORM topology_rollup(ARRAY(SELECT component_id FROM new_rows UNION SELECT component_id FROM old_rows));
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER check_component_relationships_rollup_ins AFTER INSERT ON check_component_relationships
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION topology_links_changed();
CREATE TRIGGER check_component_relationships_rollup_upd AFTER UPDATE ON check_component_relationships
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION topology_links_changed();
CREATE TRIGGER check_component_relationships_rollup_del AFTER DELETE ON check_component_relationships
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION topology_links_changed();
CREATE TRIGGER config_component_relationships_rollup_ins AFTER INSERT ON config_component_relationships
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION topology_links_changed();
CREATE TRIGGER config_component_relationships_rollup_upd AFTER UPDATE ON config_component_relationships
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION topology_links_changed();
CREATE TRIGGER config_component_relationships_rollup_del AFTER DELETE ON config_component_relationships
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION topology_links_changed();
CREATE TRIGGER evidences_rollup_ins AFTER INSERT ON evidences
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION topology_links_changed();
CREATE TRIGGER evidences_rollup_upd AFTER UPDATE ON evidences
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION topology_links_changed();
CREATE TRIGGER evidences_rollup_del AFTER DELETE ON evidences
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION topology_links_changed();

-- A check result that changes the status (health's recordResult writes checks.status only then), or a check deleted.
CREATE FUNCTION topology_checks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM check_component_relationships) THEN RETURN NULL; END IF;
  PERFORM topology_rollup(ARRAY(
    SELECT r.component_id FROM new_rows n JOIN old_rows o ON o.id = n.id
      JOIN check_component_relationships r ON r.check_id = n.id
    WHERE (n.status, n.deleted_at) IS DISTINCT FROM (o.status, o.deleted_at)));
  RETURN NULL;
END $$;
CREATE TRIGGER checks_rollup_upd AFTER UPDATE ON checks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION topology_checks_changed();

-- A linked config's health or deletion.
CREATE FUNCTION topology_configs_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM config_component_relationships) THEN RETURN NULL; END IF;
  PERFORM topology_rollup(ARRAY(
    SELECT r.component_id FROM new_rows n JOIN old_rows o ON o.id = n.id
      JOIN config_component_relationships r ON r.config_id = n.id
    WHERE (n.health, n.deleted_at) IS DISTINCT FROM (o.health, o.deleted_at)));
  RETURN NULL;
END $$;
CREATE TRIGGER config_items_rollup_upd AFTER UPDATE ON config_items REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION topology_configs_changed();

-- Insights of linked configs (a scrape that only touches last_observed changes nothing here).
CREATE FUNCTION topology_analysis_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM config_component_relationships) THEN RETURN NULL; END IF;
  IF TG_OP = 'INSERT' THEN
    PERFORM topology_rollup(ARRAY(SELECT r.component_id FROM new_rows n JOIN config_component_relationships r ON r.config_id = n.config_id));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM topology_rollup(ARRAY(SELECT r.component_id FROM old_rows n JOIN config_component_relationships r ON r.config_id = n.config_id));
  ELSE
    PERFORM topology_rollup(ARRAY(
      SELECT r.component_id FROM new_rows n JOIN old_rows o ON o.id = n.id
        JOIN config_component_relationships r ON r.config_id IN (n.config_id, o.config_id)
      WHERE (n.config_id, n.status, n.analysis_type, n.severity) IS DISTINCT FROM (o.config_id, o.status, o.analysis_type, o.severity)));
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER config_analysis_rollup_ins AFTER INSERT ON config_analysis REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION topology_analysis_changed();
CREATE TRIGGER config_analysis_rollup_upd AFTER UPDATE ON config_analysis REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION topology_analysis_changed();
CREATE TRIGGER config_analysis_rollup_del AFTER DELETE ON config_analysis REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION topology_analysis_changed();

-- An incident resolved, closed or re-typed changes the counts of the components it has as evidence.
CREATE FUNCTION topology_incidents_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM topology_rollup(ARRAY(
    SELECT e.component_id FROM new_rows n JOIN old_rows o ON o.id = n.id
      JOIN hypotheses h ON h.incident_id = n.id JOIN evidences e ON e.hypothesis_id = h.id
    WHERE e.component_id IS NOT NULL
      AND (n.resolved, n.closed, n.type, n.severity) IS DISTINCT FROM (o.resolved, o.closed, o.type, o.severity)));
  RETURN NULL;
END $$;
CREATE TRIGGER incidents_rollup_upd AFTER UPDATE ON incidents REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION topology_incidents_changed();

------------------------------------------------------------------------------------------------------------------------
-- Views the reference UI reads through /api/db (flanksource-ui), and the topology view /api/topology mirrors.

CREATE VIEW checks_by_component AS
SELECT r.component_id, ch.id, ch.type, ch.name, ch.severity, ch.status
  FROM check_component_relationships r JOIN checks ch ON ch.id = r.check_id
  WHERE r.deleted_at IS NULL AND ch.deleted_at IS NULL;

CREATE VIEW check_summary_by_component AS
SELECT component_id, json_object_agg(status, n) AS checks
  FROM (SELECT component_id, coalesce(status, 'unknown') AS status, count(*) AS n FROM checks_by_component GROUP BY 1, 2) s
  GROUP BY component_id;

CREATE VIEW incident_summary_by_component AS
SELECT id, jsonb_object_agg(type, severities) AS incidents
  FROM (SELECT id, type, jsonb_object_agg(severity, n) AS severities
          FROM (SELECT e.component_id AS id, coalesce(i.type, 'unknown') AS type, coalesce(i.severity, 'unknown') AS severity,
                       count(DISTINCT i.id) AS n
                  FROM evidences e JOIN hypotheses h ON h.id = e.hypothesis_id JOIN incidents i ON i.id = h.incident_id
                  WHERE e.component_id IS NOT NULL AND i.resolved IS NULL AND i.closed IS NULL
                  GROUP BY 1, 2, 3) x
          GROUP BY id, type) y
  GROUP BY id;

CREATE VIEW analysis_summary_by_component AS
SELECT id, jsonb_object_agg(type, severities) AS analysis
  FROM (SELECT id, type, jsonb_object_agg(severity, n) AS severities
          FROM (SELECT r.component_id AS id, coalesce(ca.analysis_type, 'unknown') AS type,
                       coalesce(ca.severity, 'unknown') AS severity, count(*) AS n
                  FROM config_component_relationships r
                  JOIN config_items ci ON ci.id = r.config_id AND ci.deleted_at IS NULL
                  JOIN config_analysis ca ON ca.config_id = r.config_id AND ca.status = 'open'
                  WHERE r.deleted_at IS NULL
                  GROUP BY 1, 2, 3) x
          GROUP BY id, type) y
  GROUP BY id;

-- components.* and what the reference adds: log selector names, checks by status, team names, open incidents and
-- insights by type and severity, and the selector relationships both ways. Live components only.
CREATE VIEW topology AS
SELECT c.*, l.logs, cs.checks, tm.team_names, inc.incidents, an.analysis, kids.children, par.parents
  FROM components c
  LEFT JOIN LATERAL (
    SELECT json_agg(jsonb_build_object('name', e->'name')) AS logs
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(c.log_selectors) = 'array' THEN c.log_selectors ELSE '[]' END) e
  ) l ON true
  LEFT JOIN check_summary_by_component cs ON cs.component_id = c.id
  LEFT JOIN LATERAL (
    SELECT array_agg(t.name ORDER BY t.name) AS team_names FROM team_components tc JOIN teams t ON t.id = tc.team_id
      WHERE tc.component_id = c.id
  ) tm ON true
  LEFT JOIN incident_summary_by_component inc ON inc.id = c.id
  LEFT JOIN analysis_summary_by_component an ON an.id = c.id
  LEFT JOIN LATERAL (
    SELECT array_agg(r.component_id) AS children FROM component_relationships r
      WHERE r.relationship_id = c.id AND r.deleted_at IS NULL
  ) kids ON true
  LEFT JOIN LATERAL (
    SELECT array_agg(r.relationship_id) AS parents FROM component_relationships r
      WHERE r.component_id = c.id AND r.deleted_at IS NULL
  ) par ON true
  WHERE c.deleted_at IS NULL;

CREATE VIEW component_names AS
SELECT id, path, external_id, type, name, created_at, updated_at, icon, parent_id
  FROM components WHERE deleted_at IS NULL AND hidden IS NOT TRUE ORDER BY name, external_id;

CREATE VIEW component_names_all AS
SELECT id, path, external_id, type, name, created_at, updated_at, deleted_at, icon, parent_id
  FROM components WHERE hidden IS NOT TRUE ORDER BY name, external_id;

CREATE VIEW component_labels AS
SELECT DISTINCT d.key, d.value
  FROM components c, jsonb_each_text(CASE WHEN jsonb_typeof(c.labels) = 'object' THEN c.labels ELSE '{}' END) d
  WHERE c.deleted_at IS NULL
  ORDER BY d.key, d.value;

CREATE VIEW component_labels_keys AS
SELECT DISTINCT 'label:' || k AS key
  FROM components c, jsonb_object_keys(CASE WHEN jsonb_typeof(c.labels) = 'object' THEN c.labels ELSE '{}' END) k
  WHERE c.deleted_at IS NULL;

CREATE VIEW components_with_logs AS
SELECT id, name, agent_id, icon, type FROM components WHERE deleted_at IS NULL AND log_selectors IS NOT NULL;

CREATE VIEW component_types AS
SELECT DISTINCT type FROM components WHERE deleted_at IS NULL AND type IS NOT NULL ORDER BY type;
