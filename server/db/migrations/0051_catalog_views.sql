-- Catalog read side (issue 12): the views and RPCs the reference UI and the catalog screens read through /api/db,
-- with the reference's names and columns (../shared/reference/schema.md "Views & functions → Catalog").
--
-- The reference counts configs.changes/analysis in materialized views (config_item_summary_3d/_7d/_30d) refreshed by
-- a job, so a new change shows up minutes later. Here those names are plain views, and `configs`/`config_detail`
-- count with correlated subqueries over indexed tables: always current, and only computed for the rows a page
-- returns (/api/db cuts the page before building objects; the planner postpones costly select-list expressions past
-- ORDER BY ... LIMIT). No refresh job, nothing to go stale.

-- Per-item counts: changes in a window and open insights per analysis type.
CREATE FUNCTION config_changes_count_since(item uuid, since interval) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT count(*) FROM config_changes cc WHERE cc.config_id = item AND cc.created_at >= now() - since
$$;
CREATE FUNCTION config_open_analysis_counts(item uuid) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT coalesce(jsonb_object_agg(t.analysis_type, t.n), '{}'::jsonb)
  FROM (SELECT coalesce(ca.analysis_type, '') AS analysis_type, count(*) AS n FROM config_analysis ca
        WHERE ca.config_id = item AND ca.status = 'open' GROUP BY 1) t
$$;
CREATE INDEX config_analysis_config_id_open_idx ON config_analysis (config_id, analysis_type) WHERE status = 'open';

CREATE VIEW config_item_summary_3d AS
  SELECT ci.id AS config_id, config_changes_count_since(ci.id, interval '3 days') AS config_changes_count,
         config_open_analysis_counts(ci.id) AS config_analysis_type_counts
  FROM config_items ci;
CREATE VIEW config_item_summary_7d AS
  SELECT ci.id AS config_id, config_changes_count_since(ci.id, interval '7 days') AS config_changes_count,
         config_open_analysis_counts(ci.id) AS config_analysis_type_counts
  FROM config_items ci;
CREATE VIEW config_item_summary_30d AS
  SELECT ci.id AS config_id, config_changes_count_since(ci.id, interval '30 days') AS config_changes_count,
         config_open_analysis_counts(ci.id) AS config_analysis_type_counts
  FROM config_items ci;

-- The catalog list. cost_total_1h is derived from the per-minute cost; one currency only (no billing data yet).
CREATE VIEW configs AS
  SELECT ci.id, ci.scraper_id, ci.config_class, ci.external_id, ci.type, ci.name, ci.tags ->> 'namespace' AS namespace,
         ci.description, ci.source, ci.labels, ci.tags, ci.tags_values, ci.properties, ci.created_by, ci.created_at,
         ci.updated_at, ci.deleted_at, ci.cost_per_minute, (ci.cost_per_minute * 60)::numeric(16, 4) AS cost_total_1h,
         ci.cost_total_1d, ci.cost_total_7d, ci.cost_total_30d, NULL::text AS billing_currency, false AS mixed_currency,
         ci.agent_id, ci.status, ci.health, ci.ready, ci.path, ci.parent_id, ci.icon, ci.delete_reason,
         config_changes_count_since(ci.id, interval '7 days') AS changes,
         config_open_analysis_counts(ci.id) AS analysis
  FROM config_items ci;

-- Search over these columns (the list's `or=(name.ilike.*q*,type.ilike...,description...,namespace...)`).
CREATE INDEX config_items_namespace_idx ON config_items ((tags ->> 'namespace'));
CREATE INDEX config_items_status_idx ON config_items (status) WHERE status IS NOT NULL;
CREATE INDEX config_items_config_class_idx ON config_items (config_class);
-- Trigram indexes turn those substring searches into index scans. pg_trgm ships with PostgreSQL (contrib, trusted
-- since 13); where it cannot be created the search still works, by scanning.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'pg_trgm is not available (%): catalog search scans instead', SQLERRM;
END $$;
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    CREATE INDEX config_items_name_trgm_idx ON config_items USING gin (name gin_trgm_ops);
    CREATE INDEX config_items_type_trgm_idx ON config_items USING gin (type gin_trgm_ops);
    CREATE INDEX config_items_description_trgm_idx ON config_items USING gin (description gin_trgm_ops);
    CREATE INDEX config_items_namespace_trgm_idx ON config_items USING gin ((tags ->> 'namespace') gin_trgm_ops);
  END IF;
END $$;

CREATE VIEW config_detail AS
  SELECT ci.*, ls.last_scraped_time, a.name AS agent_name,
         json_build_object(
           'relationships', (SELECT count(DISTINCT (r.related_id, r.relation)) FROM config_relationships r
                             WHERE r.config_id = ci.id AND r.deleted_at IS NULL)
                          + (SELECT count(DISTINCT (r.config_id, r.relation)) FROM config_relationships r
                             WHERE r.related_id = ci.id AND r.deleted_at IS NULL),
           'analysis', (SELECT count(*) FROM config_analysis ca WHERE ca.config_id = ci.id AND ca.status = 'open'),
           'changes', config_changes_count_since(ci.id, interval '7 days'),
           'playbook_runs', (SELECT count(*) FROM playbook_runs pr
                             WHERE pr.config_id = ci.id AND pr.start_time > now() - interval '30 days'),
           'checks', (SELECT count(*) FROM check_config_relationships cr WHERE cr.config_id = ci.id AND cr.deleted_at IS NULL)
         ) AS summary,
         CASE WHEN s.id IS NOT NULL THEN json_build_object('id', s.id, 'name', s.name) END AS scraper
  FROM config_items ci
  LEFT JOIN config_items_last_scraped_time ls ON ls.config_id = ci.id
  LEFT JOIN agents a ON a.id = ci.agent_id
  LEFT JOIN config_scrapers s ON s.id = ci.scraper_id;
CREATE INDEX config_relationships_related_id_idx ON config_relationships (related_id);

CREATE VIEW config_names AS
  SELECT id, type, external_id, name, config_class, deleted_at FROM config_items;

-- Distinct values by skipping through an index (a recursive "loose index scan"): one index probe per value instead of
-- reading every row, so the filter lists stay fast at a million changes.
CREATE VIEW config_types AS
  WITH RECURSIVE t(type) AS (
    (SELECT type FROM config_items ORDER BY type LIMIT 1)
    UNION ALL
    SELECT (SELECT c.type FROM config_items c WHERE c.type > t.type ORDER BY c.type LIMIT 1) FROM t WHERE t.type IS NOT NULL
  ) SELECT type FROM t WHERE type IS NOT NULL;

CREATE VIEW config_classes AS
  SELECT DISTINCT config_class FROM config_items ORDER BY config_class;

CREATE VIEW config_statuses AS
  SELECT DISTINCT status FROM config_items WHERE status IS NOT NULL ORDER BY status;

CREATE VIEW config_tags AS
  SELECT d.key, d.value FROM config_items ci, jsonb_each_text(ci.tags) d
  WHERE ci.deleted_at IS NULL AND jsonb_typeof(ci.tags) = 'object' GROUP BY d.key, d.value ORDER BY d.key, d.value;

CREATE VIEW config_labels AS
  SELECT d.key, d.value FROM config_items ci, jsonb_each_text(ci.labels) d
  WHERE ci.deleted_at IS NULL AND jsonb_typeof(ci.labels) = 'object' GROUP BY d.key, d.value ORDER BY d.key, d.value;

CREATE VIEW config_tags_labels_keys AS
  SELECT DISTINCT 'tag:' || k AS key FROM config_items ci, jsonb_object_keys(ci.tags) k
  WHERE ci.deleted_at IS NULL AND jsonb_typeof(ci.tags) = 'object'
  UNION
  SELECT DISTINCT 'label:' || k AS key FROM config_items ci, jsonb_object_keys(ci.labels) k
  WHERE ci.deleted_at IS NULL AND jsonb_typeof(ci.labels) = 'object';

-- Per type, live items: open insights by type and severity, changes in 30 days, costs (the reference's columns).
CREATE VIEW config_summary AS
  WITH items AS (
    SELECT type, count(*) AS total_configs, max(created_at) AS created_at, max(updated_at) AS updated_at,
           sum(cost_per_minute)::numeric(16, 4) AS cost_per_minute, sum(cost_per_minute * 60)::numeric(16, 4) AS cost_total_1h,
           sum(cost_total_1d)::numeric(16, 4) AS cost_total_1d, sum(cost_total_30d)::numeric(16, 4) AS cost_total_30d
    FROM config_items WHERE deleted_at IS NULL GROUP BY type
  ), changes AS (
    SELECT ci.type, count(*) AS n FROM config_changes cc JOIN config_items ci ON ci.id = cc.config_id
    WHERE cc.created_at > now() - interval '30 days' AND ci.deleted_at IS NULL GROUP BY ci.type
  ), by_type AS (
    SELECT ci.type, ca.analysis_type, count(*) AS n FROM config_analysis ca JOIN config_items ci ON ci.id = ca.config_id
    WHERE ca.status = 'open' AND ci.deleted_at IS NULL GROUP BY ci.type, ca.analysis_type
  ), by_severity AS (
    SELECT ci.type, ca.severity, count(*) AS n FROM config_analysis ca JOIN config_items ci ON ci.id = ca.config_id
    WHERE ca.status = 'open' AND ci.deleted_at IS NULL GROUP BY ci.type, ca.severity
  )
  SELECT i.type, i.created_at, i.updated_at,
         (SELECT jsonb_object_agg(coalesce(b.analysis_type, ''), b.n) FROM by_type b WHERE b.type = i.type) AS analysis,
         (SELECT jsonb_object_agg(coalesce(b.severity, ''), b.n) FROM by_severity b WHERE b.type = i.type) AS severity,
         (SELECT c.n FROM changes c WHERE c.type = i.type) AS changes,
         i.total_configs, i.cost_per_minute, i.cost_total_1h, i.cost_total_1d, i.cost_total_30d
  FROM items i ORDER BY i.type;

-- Changes with their item's columns (the changes table and the changes search read it).
CREATE VIEW catalog_changes AS
  SELECT cc.id, cc.config_id, c.name, c.deleted_at, c.type, c.tags, c.config, cc.external_created_by, cc.created_at,
         cc.severity, cc.change_type, cc.source, cc.summary, cc.details, cc.diff, cc.created_by, cc.count,
         cc.first_observed, c.agent_id, c.path, cc.inserted_at, cc.external_change_id, c.config_class
  FROM config_changes cc LEFT JOIN config_items c ON c.id = cc.config_id;

-- config_changes rows plus the item's fields under non-clashing names (the reference UI filters config_type here).
CREATE VIEW config_changes_items AS
  SELECT cc.id, cc.config_id, cc.external_change_id, cc.external_created_by, cc.change_type, cc.severity, cc.source,
         cc.summary, cc.patches, cc.diff, cc.details, cc.created_by, cc.created_at, cc.count, cc.fingerprint,
         cc.first_observed, cc.inserted_at,
         ci.name AS config_name, ci.type AS config_type, ci.config_class, ci.tags, ci.agent_id,
         ci.deleted_at AS config_deleted_at
  FROM config_changes cc JOIN config_items ci ON ci.id = cc.config_id;
CREATE INDEX config_changes_severity_created_at_idx ON config_changes (severity, created_at DESC);
-- The few deleted items, so "hide deleted configs" filters changes without joining every item (the changes search).
CREATE INDEX config_items_deleted_idx ON config_items (id) WHERE deleted_at IS NOT NULL;

CREATE VIEW change_types AS
  WITH RECURSIVE t(change_type) AS (
    (SELECT change_type FROM config_changes WHERE change_type IS NOT NULL ORDER BY change_type LIMIT 1)
    UNION ALL
    SELECT (SELECT c.change_type FROM config_changes c WHERE c.change_type > t.change_type ORDER BY c.change_type LIMIT 1)
    FROM t WHERE t.change_type IS NOT NULL
  ) SELECT change_type FROM t WHERE change_type IS NOT NULL;

CREATE VIEW analysis_types AS
  WITH RECURSIVE t(analysis_type) AS (
    (SELECT analysis_type FROM config_analysis WHERE analysis_type IS NOT NULL ORDER BY analysis_type LIMIT 1)
    UNION ALL
    SELECT (SELECT c.analysis_type FROM config_analysis c WHERE c.analysis_type > t.analysis_type ORDER BY c.analysis_type LIMIT 1)
    FROM t WHERE t.analysis_type IS NOT NULL
  ) SELECT analysis_type FROM t WHERE analysis_type IS NOT NULL;
CREATE INDEX config_analysis_analysis_type_idx ON config_analysis (analysis_type);

CREATE VIEW analyzer_types AS
  WITH RECURSIVE t(analyzer) AS (
    (SELECT analyzer FROM config_analysis ORDER BY analyzer LIMIT 1)
    UNION ALL
    SELECT (SELECT c.analyzer FROM config_analysis c WHERE c.analyzer > t.analyzer ORDER BY c.analyzer LIMIT 1)
    FROM t WHERE t.analyzer IS NOT NULL
  ) SELECT analyzer FROM t WHERE analyzer IS NOT NULL;
CREATE INDEX config_analysis_analyzer_idx ON config_analysis (analyzer) INCLUDE (status);

CREATE VIEW config_analysis_analyzers AS
  SELECT DISTINCT analyzer FROM config_analysis WHERE status = 'open';

-- Insights with their item's columns (the insights table reads it, embedding configs through config_id).
CREATE VIEW config_analysis_items AS
  SELECT ca.*, ci.name, ci.deleted_at, ci.type, ci.tags, ci.labels, ci.config, ci.agent_id, ci.path,
         ci.name AS config_name, ci.type AS config_type, ci.config_class
  FROM config_analysis ca LEFT JOIN config_items ci ON ci.id = ca.config_id;
CREATE INDEX config_analysis_first_observed_idx ON config_analysis (first_observed DESC, id);
CREATE INDEX config_analysis_severity_idx ON config_analysis (severity, last_observed DESC);

CREATE VIEW config_analysis_by_severity AS
  SELECT ci.type, ca.severity, count(*) AS analysis_count
  FROM config_analysis ca JOIN config_items ci ON ci.id = ca.config_id
  WHERE ca.first_observed >= now() - interval '30 days'
  GROUP BY ci.type, ca.severity ORDER BY ci.type, ca.severity;

CREATE VIEW config_changes_by_types AS
  SELECT ci.type, count(*) AS change_count
  FROM config_changes cc JOIN config_items ci ON ci.id = cc.config_id
  WHERE cc.created_at >= now() - interval '30 days'
  GROUP BY ci.type ORDER BY change_count;

-- Checks linked to an item, with their summary (the item's Checks tab).
CREATE VIEW check_summary_for_config AS
  SELECT r.config_id, s.* FROM check_config_relationships r JOIN check_summary s ON s.id = r.check_id
  WHERE r.deleted_at IS NULL;
CREATE INDEX check_config_relationships_config_id_idx ON check_config_relationships (config_id);

-- related_configs_recursive: the item, what it links to (outgoing), what links to it (incoming) or both ('all'), up
-- to max_depth hops, plus its ancestors (parent_id chain) as the reference adds them. hard-only walks follow
-- relation 'hard'. Rows carry related_ids (the walked links leaving each row) so a client draws the graph; the
-- result is filterable like a relation (type.filter, status.filter, health.filter, type=in.(...)).
CREATE FUNCTION related_configs_recursive(
  config_id uuid,
  type_filter text DEFAULT 'outgoing',
  include_deleted_configs boolean DEFAULT false,
  max_depth integer DEFAULT 5,
  incoming_relation text DEFAULT 'both',
  outgoing_relation text DEFAULT 'both'
) RETURNS TABLE (
  id uuid, name text, type text, related_ids text[], tags jsonb, changes bigint, analysis jsonb,
  cost_per_minute numeric(16, 4), cost_total_1h numeric(16, 4), cost_total_1d numeric(16, 4), cost_total_30d numeric(16, 4),
  created_at timestamptz, updated_at timestamptz, deleted_at timestamptz, agent_id uuid, health text, ready boolean,
  status text, path text, config_class text, depth integer
) LANGUAGE plpgsql STABLE AS $$
DECLARE
  root uuid := related_configs_recursive.config_id;
  dir text := coalesce(nullif(type_filter, ''), 'outgoing');
BEGIN
  IF dir NOT IN ('outgoing', 'incoming', 'all') THEN
    RAISE EXCEPTION 'invalid type_filter %: expected outgoing, incoming or all', type_filter USING ERRCODE = '22023';
  END IF;
  IF coalesce(incoming_relation, 'both') NOT IN ('both', 'hard', 'soft') OR coalesce(outgoing_relation, 'both') NOT IN ('both', 'hard', 'soft') THEN
    RAISE EXCEPTION 'invalid incoming_relation/outgoing_relation: expected both or hard' USING ERRCODE = '22023';
  END IF;
  IF max_depth IS NULL OR max_depth < 0 OR max_depth > 20 THEN
    RAISE EXCEPTION 'invalid max_depth %: expected 0 to 20', max_depth USING ERRCODE = '22023';
  END IF;
  RETURN QUERY
    WITH RECURSIVE outgoing(src, dst, depth) AS (
      SELECT r.config_id, r.related_id, 1 FROM config_relationships r
      WHERE dir IN ('outgoing', 'all') AND max_depth > 0 AND r.config_id = root AND r.deleted_at IS NULL
        AND (coalesce(outgoing_relation, 'both') <> 'hard' OR r.relation = 'hard')
      UNION
      SELECT r.config_id, r.related_id, o.depth + 1 FROM config_relationships r JOIN outgoing o ON r.config_id = o.dst
      WHERE o.depth < max_depth AND r.deleted_at IS NULL AND (coalesce(outgoing_relation, 'both') <> 'hard' OR r.relation = 'hard')
    ),
    incoming(src, dst, depth) AS (
      SELECT r.config_id, r.related_id, 1 FROM config_relationships r
      WHERE dir IN ('incoming', 'all') AND max_depth > 0 AND r.related_id = root AND r.deleted_at IS NULL
        AND (coalesce(incoming_relation, 'both') <> 'hard' OR r.relation = 'hard')
      UNION
      SELECT r.config_id, r.related_id, i.depth + 1 FROM config_relationships r JOIN incoming i ON r.related_id = i.src
      WHERE i.depth < max_depth AND r.deleted_at IS NULL AND (coalesce(incoming_relation, 'both') <> 'hard' OR r.relation = 'hard')
    ),
    ancestors(src, dst, depth) AS (
      SELECT p.parent_id, p.id, 1 FROM config_items p WHERE p.id = root AND p.parent_id IS NOT NULL
      UNION
      SELECT p.parent_id, p.id, a.depth + 1 FROM config_items p JOIN ancestors a ON p.id = a.src
      WHERE p.parent_id IS NOT NULL AND a.depth < 50
    ),
    edges AS (
      SELECT o.src, o.dst, o.depth, o.dst AS node FROM outgoing o
      UNION ALL SELECT i.src, i.dst, i.depth, i.src FROM incoming i
      UNION ALL SELECT a.src, a.dst, a.depth, a.src FROM ancestors a
    ),
    nodes AS (
      SELECT root AS node, 0 AS depth
      UNION ALL SELECT e.node, min(e.depth) FROM edges e GROUP BY e.node
    ),
    best AS (SELECT n.node, min(n.depth) AS depth FROM nodes n GROUP BY n.node)
    SELECT c.id, c.name, c.type,
           (SELECT array_agg(DISTINCT e.dst::text) FROM edges e WHERE e.src = c.id),
           c.tags, config_changes_count_since(c.id, interval '7 days'), config_open_analysis_counts(c.id),
           c.cost_per_minute, (c.cost_per_minute * 60)::numeric(16, 4), c.cost_total_1d, c.cost_total_30d,
           c.created_at, c.updated_at, c.deleted_at, c.agent_id, c.health, c.ready, c.status, c.path, c.config_class, b.depth
    FROM best b JOIN config_items c ON c.id = b.node
    WHERE related_configs_recursive.include_deleted_configs OR c.deleted_at IS NULL OR c.id = root
    ORDER BY b.depth, c.name;
END $$;

-- Items whose external ids hold one of this item's locations (cluster, namespace, account...), outermost first.
CREATE FUNCTION get_parents_by_location(config_id uuid, alias_prefix text DEFAULT NULL, include_deleted boolean DEFAULT false)
RETURNS TABLE (id uuid, name text, type text) LANGUAGE sql STABLE AS $$
  SELECT ci.id, ci.name, ci.type FROM config_items ci
  WHERE ci.id <> get_parents_by_location.config_id
    AND ci.external_id && ARRAY(
      SELECT l.location FROM config_locations l
      WHERE l.id = get_parents_by_location.config_id
        AND (alias_prefix IS NULL OR alias_prefix = '' OR starts_with(l.location, alias_prefix)))
    AND (include_deleted OR ci.deleted_at IS NULL)
  ORDER BY CASE ci.type
      WHEN 'AWS::::Account' THEN 1 WHEN 'Kubernetes::Cluster' THEN 1
      WHEN 'AWS::Region' THEN 2
      WHEN 'Kubernetes::Node' THEN 3 WHEN 'Kubernetes::StorageClass' THEN 3 WHEN 'Kubernetes::IngressClass' THEN 3
      WHEN 'Kubernetes::ClusterRole' THEN 3 WHEN 'Kubernetes::Role' THEN 3 WHEN 'AWS::AvailabilityZone' THEN 3
      WHEN 'AWS::AvailabilityZoneID' THEN 3 WHEN 'AWS::IAM::Role' THEN 3 WHEN 'AWS::IAM::User' THEN 3
      WHEN 'Kubernetes::ClusterRoleBinding' THEN 3 WHEN 'Kubernetes::Namespace' THEN 3 WHEN 'Kubernetes::RoleBinding' THEN 3
      WHEN 'Kubernetes::PersistentVolume' THEN 3
      WHEN 'AWS::EC2::VPC' THEN 4 WHEN 'AWS::S3::Bucket' THEN 4 WHEN 'Kubernetes::HelmRelease' THEN 4
      WHEN 'Kubernetes::Kustomization' THEN 4
      WHEN 'AWS::EC2::Subnet' THEN 5 WHEN 'Kubernetes::Deployment' THEN 5 WHEN 'Kubernetes::StatefulSet' THEN 5
      WHEN 'Kubernetes::DaemonSet' THEN 5 WHEN 'Kubernetes::Job' THEN 5 WHEN 'Kubernetes::CronJob' THEN 5
      WHEN 'Kubernetes::Ingress' THEN 5
      WHEN 'Kubernetes::Service' THEN 6 WHEN 'Kubernetes::Endpoints' THEN 6 WHEN 'Kubernetes::ReplicaSet' THEN 6
      WHEN 'Kubernetes::PersistentVolumeClaim' THEN 6
      ELSE 99 END, ci.name
$$;

-- The insights table's filter values in one call, optionally for one item. `catalogs` lists at most 500 items (a
-- dropdown of 100,000 names helps nobody; the list is ordered by name).
CREATE FUNCTION config_analysis_filter_options(p_config_id uuid DEFAULT NULL) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'types', coalesce((SELECT jsonb_agg(v ORDER BY v) FROM (SELECT DISTINCT analysis_type AS v FROM config_analysis
              WHERE analysis_type <> '' AND (p_config_id IS NULL OR config_id = p_config_id)) t), '[]'::jsonb),
    'analyzers', coalesce((SELECT jsonb_agg(v ORDER BY v) FROM (SELECT DISTINCT analyzer AS v FROM config_analysis
              WHERE analyzer <> '' AND (p_config_id IS NULL OR config_id = p_config_id)) t), '[]'::jsonb),
    'sources', coalesce((SELECT jsonb_agg(v ORDER BY v) FROM (SELECT DISTINCT source AS v FROM config_analysis
              WHERE source <> '' AND (p_config_id IS NULL OR config_id = p_config_id)) t), '[]'::jsonb),
    'config_types', coalesce((SELECT jsonb_agg(v ORDER BY v) FROM (SELECT DISTINCT ci.type AS v FROM config_items ci
              WHERE ci.type <> '' AND EXISTS (SELECT 1 FROM config_analysis ca WHERE ca.config_id = ci.id
                AND (p_config_id IS NULL OR ca.config_id = p_config_id))) t), '[]'::jsonb),
    'catalogs', coalesce((SELECT jsonb_agg(jsonb_build_object('id', t.id, 'name', t.name, 'type', t.type, 'config_class', t.config_class)
              ORDER BY t.name) FROM (SELECT ci.id, ci.name, ci.type, ci.config_class FROM config_items ci
              WHERE EXISTS (SELECT 1 FROM config_analysis ca WHERE ca.config_id = ci.id
                AND (p_config_id IS NULL OR ca.config_id = p_config_id))
              ORDER BY ci.name LIMIT 500) t), '[]'::jsonb)
  )
$$;
CREATE INDEX config_analysis_source_idx ON config_analysis (source);

-- Links made by hand through /api/db (the reference UI's "Link component to config" and "Delete config link"): rows
-- with selector_id 'manual' and no scraper. A request through /api/db names its actor (app.actor_id); the scrape
-- engine does not, so its links stay its own.
CREATE FUNCTION catalog_manual_links_only() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
  IF current_actor() IS NOT NULL THEN
    IF r.selector_id IS DISTINCT FROM 'manual' THEN
      RAISE EXCEPTION 'only links made by hand (selector_id manual) can be changed here; scraped links belong to their scraper'
        USING ERRCODE = '42501';
    END IF;
    -- nested: plpgsql would read NEW.scraper_id even where the table has no such column
    IF TG_TABLE_NAME = 'config_relationships' AND TG_OP <> 'DELETE' THEN
      IF NEW.scraper_id IS NOT NULL THEN
        RAISE EXCEPTION 'a link made by hand has no scraper_id' USING ERRCODE = '22023';
      END IF;
    END IF;
  END IF;
  RETURN r;
END $$;
CREATE TRIGGER config_relationships_manual_only BEFORE INSERT OR UPDATE OR DELETE ON config_relationships
  FOR EACH ROW EXECUTE FUNCTION catalog_manual_links_only();
CREATE TRIGGER config_component_relationships_manual_only BEFORE INSERT OR UPDATE OR DELETE ON config_component_relationships
  FOR EACH ROW EXECUTE FUNCTION catalog_manual_links_only();

-- Summary rollups. POST /api/catalog/summary counts, per group of live items, changes in a window and open insights.
-- Joining a million changes with a hundred thousand items on every call costs seconds, so changes per UTC day and open
-- insights per type and severity are kept per dimension value (type, config_class, each tag key) by statement
-- triggers with transition tables (one aggregated upsert per statement, however many rows the engine writes). Only
-- live items count: deleting, restoring or re-tagging an item moves its counts. The summary reads these when it
-- groups by one key with no item filters, and joins the tables exactly otherwise.
CREATE TABLE config_summary_rollup (
  dim text NOT NULL,    -- 'type', 'config_class' or 'tag:<key>'
  value text NOT NULL,
  kind text NOT NULL,   -- 'change' (bucket: UTC day), 'analysis' (bucket: analysis_type), 'severity' (bucket: severity)
  bucket text NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (dim, value, kind, bucket)
);

CREATE FUNCTION config_item_dims(type text, config_class text, tags jsonb) RETURNS TABLE (dim text, value text)
LANGUAGE sql IMMUTABLE AS $$
  SELECT 'type', type WHERE type IS NOT NULL
  UNION ALL SELECT 'config_class', config_class WHERE config_class IS NOT NULL
  UNION ALL SELECT 'tag:' || t.key, t.value FROM jsonb_each_text(CASE WHEN jsonb_typeof(tags) = 'object' THEN tags END) t
$$;

CREATE FUNCTION config_changes_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO config_summary_rollup AS r (dim, value, kind, bucket, n)
    SELECT d.dim, d.value, 'change', to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), count(*)
    FROM new_rows c JOIN config_items ci ON ci.id = c.config_id AND ci.deleted_at IS NULL,
         config_item_dims(ci.type, ci.config_class, ci.tags) d
    GROUP BY 1, 2, 3, 4
    ON CONFLICT (dim, value, kind, bucket) DO UPDATE SET n = r.n + EXCLUDED.n;
  ELSE
    INSERT INTO config_summary_rollup AS r (dim, value, kind, bucket, n)
    SELECT d.dim, d.value, 'change', to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), -count(*)
    FROM old_rows c JOIN config_items ci ON ci.id = c.config_id AND ci.deleted_at IS NULL,
         config_item_dims(ci.type, ci.config_class, ci.tags) d
    GROUP BY 1, 2, 3, 4
    ON CONFLICT (dim, value, kind, bucket) DO UPDATE SET n = r.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER config_changes_rollup_insert AFTER INSERT ON config_changes
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION config_changes_rollup();
CREATE TRIGGER config_changes_rollup_delete AFTER DELETE ON config_changes
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION config_changes_rollup();

-- Open insights: +1 for each open row that appears, -1 for each that goes (resolved, deleted, retyped).
CREATE FUNCTION config_analysis_rollup_delta(sign integer, rows config_analysis[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO config_summary_rollup AS r (dim, value, kind, bucket, n)
  SELECT d.dim, d.value, k.kind, k.bucket, sign * count(*)
  FROM unnest(rows) a JOIN config_items ci ON ci.id = a.config_id AND ci.deleted_at IS NULL,
       config_item_dims(ci.type, ci.config_class, ci.tags) d,
       LATERAL (VALUES ('analysis', coalesce(a.analysis_type, '')), ('severity', coalesce(a.severity, ''))) k(kind, bucket)
  WHERE a.status = 'open'
  GROUP BY 1, 2, 3, 4
  ON CONFLICT (dim, value, kind, bucket) DO UPDATE SET n = r.n + EXCLUDED.n
$$;
CREATE FUNCTION config_analysis_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM config_analysis_rollup_delta(-1, (SELECT array_agg(o::config_analysis) FROM old_rows o WHERE o.status = 'open'));
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    PERFORM config_analysis_rollup_delta(1, (SELECT array_agg(n::config_analysis) FROM new_rows n WHERE n.status = 'open'));
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER config_analysis_rollup_insert AFTER INSERT ON config_analysis
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION config_analysis_rollup();
CREATE TRIGGER config_analysis_rollup_update AFTER UPDATE ON config_analysis
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION config_analysis_rollup();
CREATE TRIGGER config_analysis_rollup_delete AFTER DELETE ON config_analysis
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION config_analysis_rollup();

-- An item's own contributions (changes of the last 40 days by day, open insights), added or taken away when it is
-- deleted, restored, retyped or re-tagged, and taken away before it is removed (its changes go with it by cascade).
CREATE FUNCTION config_item_rollup_move(item uuid, type text, config_class text, tags jsonb, sign integer) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO config_summary_rollup AS r (dim, value, kind, bucket, n)
  SELECT d.dim, d.value, c.kind, c.bucket, sign * sum(c.n)
  FROM (
    SELECT 'change' AS kind, to_char(cc.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS bucket, count(*) AS n
    FROM config_changes cc WHERE cc.config_id = item AND cc.created_at >= now() - interval '40 days' GROUP BY 2
    UNION ALL
    SELECT k.kind, k.bucket, count(*) FROM config_analysis a,
      LATERAL (VALUES ('analysis', coalesce(a.analysis_type, '')), ('severity', coalesce(a.severity, ''))) k(kind, bucket)
    WHERE a.config_id = item AND a.status = 'open' GROUP BY 1, 2
  ) c, config_item_dims(type, config_class, tags) d
  GROUP BY 1, 2, 3, 4
  ON CONFLICT (dim, value, kind, bucket) DO UPDATE SET n = r.n + EXCLUDED.n
$$;
CREATE FUNCTION config_items_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.deleted_at IS NULL THEN
    PERFORM config_item_rollup_move(OLD.id, OLD.type, OLD.config_class, OLD.tags, -1);
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.deleted_at IS NULL THEN
    PERFORM config_item_rollup_move(NEW.id, NEW.type, NEW.config_class, NEW.tags, 1);
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER config_items_rollup_update AFTER UPDATE OF type, config_class, tags, deleted_at ON config_items
  FOR EACH ROW WHEN (OLD.type IS DISTINCT FROM NEW.type OR OLD.config_class IS DISTINCT FROM NEW.config_class
                     OR OLD.tags IS DISTINCT FROM NEW.tags OR (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL))
  EXECUTE FUNCTION config_items_rollup();
CREATE TRIGGER config_items_rollup_delete BEFORE DELETE ON config_items
  FOR EACH ROW EXECUTE FUNCTION config_items_rollup();
