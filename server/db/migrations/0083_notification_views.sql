-- Notifications (issue 15): the views the reference UI reads (schema.md "Notifications"), counters that keep
-- notifications_summary fast for many rules, and the masking of URL credentials in custom_services.

-- A notification URL as shown: the user part (`slack://<token>@C0123`, `https://user:pass@host`) and the values of
-- secret-looking query parameters read "***"; `$(password)` placeholders and connection:// references as written.
CREATE OR REPLACE FUNCTION notification_url_masked(v text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT regexp_replace(
    regexp_replace(v, '^([A-Za-z][A-Za-z0-9+.-]*://)(?!\$\()(?!\*\*\*@)[^/?#@]+@', '\1***@'),
    '([?&][^=&#]*(password|passwd|secret|token|apikey|api_key|accesskey|access_key|privatekey|private_key|credential|webhook)[^=&#]*=)(?!\$\()[^&#]+',
    '\1***', 'gi')
$$;

-- custom_services / fallback_custom_services as shown: each entry's url masked, secret properties "***".
CREATE OR REPLACE FUNCTION notification_services_masked(s jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(s) = 'array' THEN coalesce((
    SELECT jsonb_agg(
      CASE WHEN jsonb_typeof(e) <> 'object' THEN e ELSE
        e || CASE WHEN jsonb_typeof(e->'url') = 'string'
                  THEN jsonb_build_object('url', notification_url_masked(e->>'url')) ELSE '{}'::jsonb END
          || CASE WHEN jsonb_typeof(e->'properties') = 'object'
                  THEN jsonb_build_object('properties', connection_properties_masked(e->'properties')) ELSE '{}'::jsonb END
      END ORDER BY i)
    FROM jsonb_array_elements(s) WITH ORDINALITY AS x(e, i)), '[]'::jsonb)
  ELSE s END
$$;

-- Per rule counters of the send history, kept by a trigger (notifications_summary for 1,000 rules reads these, not
-- the history): sent and error rows, the durations of rows that have one, the last error time.
CREATE TABLE IF NOT EXISTS notification_send_counts (
  notification_id uuid PRIMARY KEY CONSTRAINT notification_send_counts_notification_id_fkey
    REFERENCES notifications (id) ON DELETE CASCADE,
  sent bigint NOT NULL DEFAULT 0,
  failed bigint NOT NULL DEFAULT 0,
  duration_total bigint NOT NULL DEFAULT 0,
  duration_count bigint NOT NULL DEFAULT 0,
  last_failed_at timestamptz
);
-- Error texts per rule with their counts (most_common_error).
CREATE TABLE IF NOT EXISTS notification_error_counts (
  notification_id uuid NOT NULL CONSTRAINT notification_error_counts_notification_id_fkey
    REFERENCES notifications (id) ON DELETE CASCADE,
  error text NOT NULL,
  count bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (notification_id, error)
);

CREATE OR REPLACE FUNCTION notification_send_counts_apply(r notification_send_history, sign integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF r.status IS DISTINCT FROM 'sent' AND r.status IS DISTINCT FROM 'error' AND r.duration_millis IS NULL THEN
    RETURN;
  END IF;
  INSERT INTO notification_send_counts AS c (notification_id, sent, failed, duration_total, duration_count, last_failed_at)
  VALUES (r.notification_id,
    CASE WHEN r.status = 'sent' THEN sign ELSE 0 END,
    CASE WHEN r.status = 'error' THEN sign ELSE 0 END,
    coalesce(r.duration_millis, 0) * sign,
    CASE WHEN r.duration_millis IS NOT NULL THEN sign ELSE 0 END,
    CASE WHEN r.status = 'error' AND sign > 0 THEN r.created_at END)
  ON CONFLICT (notification_id) DO UPDATE SET
    sent = c.sent + EXCLUDED.sent,
    failed = c.failed + EXCLUDED.failed,
    duration_total = c.duration_total + EXCLUDED.duration_total,
    duration_count = c.duration_count + EXCLUDED.duration_count,
    last_failed_at = greatest(c.last_failed_at, EXCLUDED.last_failed_at);
  IF r.status = 'error' AND r.error IS NOT NULL THEN
    INSERT INTO notification_error_counts AS e (notification_id, error, count)
    VALUES (r.notification_id, left(r.error, 1000), sign)
    ON CONFLICT (notification_id, error) DO UPDATE SET count = e.count + EXCLUDED.count;
  END IF;
END $$;

CREATE OR REPLACE FUNCTION notification_send_counts_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.status IS NOT DISTINCT FROM NEW.status AND OLD.error IS NOT DISTINCT FROM NEW.error
     AND OLD.duration_millis IS NOT DISTINCT FROM NEW.duration_millis THEN
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    -- a rule deleted with its history: its counters go with it (ON DELETE CASCADE)
    IF EXISTS (SELECT 1 FROM notifications WHERE id = OLD.notification_id) THEN
      PERFORM notification_send_counts_apply(OLD, -1);
    END IF;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM notification_send_counts_apply(NEW, 1);
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS notification_send_counts ON notification_send_history;
CREATE TRIGGER notification_send_counts AFTER INSERT OR UPDATE OR DELETE ON notification_send_history
  FOR EACH ROW EXECUTE FUNCTION notification_send_counts_trigger();

-- Rows written before this migration.
INSERT INTO notification_send_counts (notification_id, sent, failed, duration_total, duration_count, last_failed_at)
SELECT notification_id, count(*) FILTER (WHERE status = 'sent'), count(*) FILTER (WHERE status = 'error'),
  coalesce(sum(duration_millis), 0), count(duration_millis), max(created_at) FILTER (WHERE status = 'error')
FROM notification_send_history GROUP BY notification_id
ON CONFLICT (notification_id) DO NOTHING;
INSERT INTO notification_error_counts (notification_id, error, count)
SELECT notification_id, left(error, 1000), count(*) FROM notification_send_history
WHERE status = 'error' AND error IS NOT NULL GROUP BY 1, 2
ON CONFLICT DO NOTHING;

CREATE INDEX IF NOT EXISTS event_queue_notification_send_idx ON event_queue ((properties->>'notification_id'))
  WHERE name = 'notification.send';

-- The rules page (reference view notifications_summary): the rule, its recipients (custom_services masked) and its
-- figures. pending: queued notification.send rows for the rule with attempts < 4.
CREATE OR REPLACE VIEW notifications_summary AS
SELECT n.id, n.name, n.namespace, n.error, n.error_at, n.title, n.events, n.filter, n.person_id, n.team_id,
  notification_services_masked(n.custom_services) AS custom_services, n.created_at, n.updated_at, n.created_by,
  n.source, n.repeat_interval, n.wait_for,
  coalesce(q.pending, 0)::integer AS pending,
  CASE WHEN c.duration_count > 0 THEN (c.duration_total::float8 / c.duration_count) END AS avg_duration_ms,
  coalesce(c.failed, 0)::integer AS failed,
  coalesce(c.sent, 0)::integer AS sent,
  (SELECT e.error FROM notification_error_counts e WHERE e.notification_id = n.id AND e.count > 0
    ORDER BY e.count DESC, e.error LIMIT 1) AS most_common_error,
  c.last_failed_at
FROM notifications n
LEFT JOIN notification_send_counts c ON c.notification_id = n.id
LEFT JOIN (
  SELECT properties->>'notification_id' AS notification_id, count(*) AS pending
  FROM event_queue WHERE name = 'notification.send' AND attempts < 4
  GROUP BY 1
) q ON q.notification_id = n.id::text
WHERE n.deleted_at IS NULL;

-- The history with its resource, by the kind the source event names (config.*, component.*, check.*, canary.*,
-- incident.*): resource jsonb {id, name, type, health, status, icon, deleted_at…}, resource_kind, resource_type,
-- resource_tags (config items), playbook_run {id, playbook_id, status, playbook_name}.
CREATE OR REPLACE VIEW notification_send_history_summary AS
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
  coalesce(ci.type, co.type, ch.type, i.type) AS resource_type,
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

CREATE OR REPLACE VIEW notification_send_history_resource_types AS
SELECT DISTINCT resource_type FROM notification_send_history_summary
WHERE resource_type IS NOT NULL
ORDER BY resource_type;

CREATE OR REPLACE VIEW notification_send_history_resource_tags AS
SELECT d.key, d.value
FROM (SELECT DISTINCT resource_tags FROM notification_send_history_summary WHERE resource_tags IS NOT NULL) t
JOIN LATERAL jsonb_each_text(CASE WHEN jsonb_typeof(t.resource_tags) = 'object' THEN t.resource_tags ELSE '{}'::jsonb END) d ON true
GROUP BY d.key, d.value
ORDER BY d.key, d.value;

-- A resource's sends and the rows they belong to (digests: parent_id), as the reference's RPC.
CREATE OR REPLACE FUNCTION notification_send_history_of_resource(p_resource_id uuid)
RETURNS SETOF notification_send_history LANGUAGE sql STABLE AS $$
  SELECT * FROM notification_send_history
  WHERE id IN (
    SELECT id FROM notification_send_history WHERE resource_id = p_resource_id
    UNION
    SELECT parent_id FROM notification_send_history WHERE resource_id = p_resource_id AND parent_id IS NOT NULL)
  ORDER BY created_at DESC
$$;
