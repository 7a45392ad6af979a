-- The send pipeline (issue 15 "Rules"): every replica caches the live rules and drops the cache on a change of the
-- notifications relation, whoever writes it (API, CR reconciler, SQL); the held sends' lookups stay on small indexes.

CREATE OR REPLACE FUNCTION notifications_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('console_events', json_build_object('type', 'change', 'relation', 'notifications', 'at', now())::text);
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS notifications_notify_change ON notifications;
CREATE TRIGGER notifications_notify_change AFTER INSERT OR UPDATE OR DELETE ON notifications
  FOR EACH STATEMENT EXECUTE FUNCTION notifications_notify_change();

-- Open digests and held sends of a rule (the digest check runs on every send).
CREATE INDEX IF NOT EXISTS notification_send_history_rule_pending_idx
  ON notification_send_history (notification_id, not_before) WHERE status = 'pending';
