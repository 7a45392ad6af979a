-- The rule modal reads its rule from notifications_summary (as the reference UI does): it also needs the template,
-- the properties and the quiet hours, or editing a rule would show the default template and drop its properties.
-- Columns appended (CREATE OR REPLACE VIEW keeps the existing ones in place).
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
  c.last_failed_at,
  n.template, n.properties, n.quiet_hours
FROM notifications n
LEFT JOIN notification_send_counts c ON c.notification_id = n.id
LEFT JOIN (
  SELECT properties->>'notification_id' AS notification_id, count(*) AS pending
  FROM event_queue WHERE name = 'notification.send' AND attempts < 4
  GROUP BY 1
) q ON q.notification_id = n.id::text
WHERE n.deleted_at IS NULL;
