-- Notification send history at 1,000,000 rows (issue 15 "Performance"):
-- * resource_type is a column written with the row (the pipeline sets it; a trigger fills it for other writers), so
--   the history's resource type filter reads an index instead of joining every row to its resource;
-- * the filter indexes carry the two columns the summary view joins on (source_event, resource_id), so a
--   count=exact over the view is an index-only scan (PostgreSQL removes the view's unused left joins, but still needs
--   their columns from the history row); autovacuum keeps the visibility map current after inserts;
-- * silences NOTIFY their changes in the writer's transaction: every replica caches the live silences.

ALTER TABLE notification_send_history ADD COLUMN IF NOT EXISTS resource_type text;

CREATE OR REPLACE FUNCTION notification_history_resource_type(p_event text, p_id uuid) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN p_event LIKE 'config.%' THEN (SELECT type FROM config_items WHERE id = p_id)
    WHEN p_event LIKE 'component.%' THEN (SELECT type FROM components WHERE id = p_id)
    WHEN p_event LIKE 'check.%' THEN (SELECT type FROM checks WHERE id = p_id)
    WHEN p_event LIKE 'incident.%' THEN (SELECT type FROM incidents WHERE id = p_id)
  END
$$;

CREATE OR REPLACE FUNCTION notification_history_fill_resource_type() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.resource_type IS NULL THEN
    NEW.resource_type := notification_history_resource_type(NEW.source_event, NEW.resource_id);
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS notification_history_fill_resource_type ON notification_send_history;
CREATE TRIGGER notification_history_fill_resource_type BEFORE INSERT ON notification_send_history
  FOR EACH ROW EXECUTE FUNCTION notification_history_fill_resource_type();

-- backfill (rows written before this migration)
UPDATE notification_send_history h SET resource_type = notification_history_resource_type(h.source_event, h.resource_id)
 WHERE h.resource_type IS NULL;

-- the view reads resource_type from the row (h.*); its column list changes, so it and its two dependants are made again
DROP VIEW IF EXISTS notification_send_history_resource_tags;
DROP VIEW IF EXISTS notification_send_history_resource_types;
DROP VIEW IF EXISTS notification_send_history_summary;

CREATE VIEW notification_send_history_summary AS
SELECT h.*,
  ci.tags AS resource_tags,
  CASE
    WHEN ci.id IS NOT NULL THEN jsonb_build_object('id', ci.id, 'name', ci.name, 'type', ci.type,
      'config_class', ci.config_class, 'health', ci.health, 'status', ci.status, 'icon', ci.icon, 'deleted_at', ci.deleted_at)
    WHEN co.id IS NOT NULL THEN jsonb_build_object('id', co.id, 'name', co.name, 'type', co.type, 'icon', co.icon,
      'health', co.health, 'status', co.status, 'deleted_at', co.deleted_at)
    WHEN ch.id IS NOT NULL THEN jsonb_build_object('id', ch.id, 'name', ch.name, 'type', ch.type, 'icon', ch.icon,
      'health', ch.status, 'status', ch.status, 'canary_id', ch.canary_id, 'deleted_at', ch.deleted_at)
    WHEN ca.id IS NOT NULL THEN jsonb_build_object('id', ca.id, 'name', ca.name, 'deleted_at', ca.deleted_at)
    WHEN i.id IS NOT NULL THEN jsonb_build_object('id', i.id, 'name', i.title, 'type', i.type, 'status', i.status,
      'severity', i.severity, 'incident_id', i.incident_id)
  END AS resource,
  CASE WHEN ci.id IS NOT NULL THEN 'config' WHEN co.id IS NOT NULL THEN 'component' WHEN ch.id IS NOT NULL THEN 'check'
    WHEN ca.id IS NOT NULL THEN 'canary' WHEN i.id IS NOT NULL THEN 'incident' END AS resource_kind,
  CASE WHEN h.playbook_run_id IS NOT NULL THEN (
    SELECT jsonb_build_object('id', pr.id::text, 'playbook_id', pr.playbook_id::text, 'status', pr.status,
      'playbook_name', coalesce(p.title, p.name))
    FROM playbook_runs pr JOIN playbooks p ON p.id = pr.playbook_id WHERE pr.id = h.playbook_run_id)
  END AS playbook_run
FROM notification_send_history h
LEFT JOIN config_items ci ON h.source_event LIKE 'config.%' AND ci.id = h.resource_id
LEFT JOIN components co ON h.source_event LIKE 'component.%' AND co.id = h.resource_id
LEFT JOIN checks ch ON h.source_event LIKE 'check.%' AND ch.id = h.resource_id
LEFT JOIN canaries ca ON h.source_event LIKE 'canary.%' AND ca.id = h.resource_id
LEFT JOIN incidents i ON h.source_event LIKE 'incident.%' AND i.id = h.resource_id;

CREATE VIEW notification_send_history_resource_types AS
SELECT DISTINCT resource_type FROM notification_send_history
WHERE resource_type IS NOT NULL
ORDER BY resource_type;

CREATE VIEW notification_send_history_resource_tags AS
SELECT d.key, d.value
FROM (SELECT DISTINCT resource_tags FROM notification_send_history_summary WHERE resource_tags IS NOT NULL) t
JOIN LATERAL jsonb_each_text(CASE WHEN jsonb_typeof(t.resource_tags) = 'object' THEN t.resource_tags ELSE '{}'::jsonb END) d ON true
GROUP BY d.key, d.value
ORDER BY d.key, d.value;

CREATE INDEX IF NOT EXISTS notification_send_history_resource_type_idx
  ON notification_send_history (resource_type, created_at DESC) INCLUDE (source_event, resource_id);
CREATE INDEX IF NOT EXISTS notification_send_history_status_incl_idx
  ON notification_send_history (status, created_at DESC) INCLUDE (source_event, resource_id);
DROP INDEX IF EXISTS notification_send_history_status_idx;
-- the newest-first page and the unfiltered count (index-only)
CREATE INDEX IF NOT EXISTS notification_send_history_created_incl_idx
  ON notification_send_history (created_at DESC, id DESC) INCLUDE (source_event, resource_id);
DROP INDEX IF EXISTS notification_send_history_created_at_idx;

-- inserts (most of this table's writes) vacuum early, so index-only scans find pages all-visible
ALTER TABLE notification_send_history SET (autovacuum_vacuum_insert_scale_factor = 0.02,
  autovacuum_vacuum_scale_factor = 0.05, autovacuum_analyze_scale_factor = 0.05);

CREATE OR REPLACE FUNCTION notification_silences_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('console_events', json_build_object('type', 'change', 'relation', 'notification_silences', 'at', now())::text);
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS notification_silences_notify_change ON notification_silences;
CREATE TRIGGER notification_silences_notify_change AFTER INSERT OR UPDATE OR DELETE ON notification_silences
  FOR EACH STATEMENT EXECUTE FUNCTION notification_silences_notify_change();
