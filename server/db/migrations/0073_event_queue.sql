-- The reference's event queue (duty system.hcl, 007_events.sql): rows named after events (check.failed,
-- check.passed, later config.* and notification.*), consumed by every replica with FOR UPDATE SKIP LOCKED. Generic on
-- purpose: playbooks (issue 14) consume check.* rows, notifications (issue 15) register their handlers on the same
-- rows. A consumed row is deleted; a failing one is kept with its error, attempts and last_attempt.
CREATE TABLE IF NOT EXISTS event_queue (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  event_id uuid,
  name text NOT NULL,
  properties jsonb,
  error text,
  delay bigint,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_attempt timestamptz,
  attempts integer DEFAULT 0,
  priority integer NOT NULL DEFAULT 100,
  CONSTRAINT event_queue_name_event_id_key UNIQUE (name, event_id)
);
CREATE INDEX IF NOT EXISTS event_queue_name_idx ON event_queue (name, priority DESC, created_at);

-- As the reference's UI reads it (GET /db/event_queue_summary): one line per event name and resource.
CREATE OR REPLACE VIEW event_queue_summary AS
  SELECT name, event_id,
    count(*)::integer AS pending,
    count(*) FILTER (WHERE error IS NOT NULL)::integer AS failed,
    avg(attempts)::float8 AS average_attempts,
    min(last_attempt) FILTER (WHERE error IS NOT NULL) AS first_failure,
    max(last_attempt) FILTER (WHERE error IS NOT NULL) AS last_failure,
    mode() WITHIN GROUP (ORDER BY error) FILTER (WHERE error IS NOT NULL) AS most_common_error
  FROM event_queue
  GROUP BY name, event_id;

-- check.failed / check.passed, in the transaction where checks.status flips between healthy and unhealthy (the first
-- result of a new check counts as a flip, as in the reference). An upsert on (name, event_id): a check that flips
-- again before its event was consumed has one pending row, its attempts reset.
CREATE OR REPLACE FUNCTION checks_enqueue_status_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  runtime timestamptz;
BEGIN
  SELECT last_runtime INTO runtime FROM checks_unlogged WHERE check_id = NEW.id;
  INSERT INTO event_queue (name, event_id, properties)
  VALUES (CASE WHEN NEW.status = 'healthy' THEN 'check.passed' ELSE 'check.failed' END, NEW.id,
          jsonb_build_object('last_runtime', coalesce(NEW.last_runtime, runtime, now())))
  ON CONFLICT (name, event_id) DO UPDATE
    SET properties = EXCLUDED.properties, attempts = 0, error = NULL, last_attempt = NULL, created_at = now();
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS checks_enqueue_status_event ON checks;
CREATE TRIGGER checks_enqueue_status_event AFTER UPDATE OF status ON checks
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status AND NEW.status IN ('healthy', 'unhealthy'))
  EXECUTE FUNCTION checks_enqueue_status_event();

-- Wake-ups: the reference's channel (payload: the event name), and the console's events bus every replica already
-- listens on (a change of the event_queue relation), so consumers need no connection of their own.
CREATE OR REPLACE FUNCTION event_queue_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('event_queue_updates', 'update');
  PERFORM pg_notify('console_events', json_build_object('type', 'change', 'relation', 'event_queue', 'at', now())::text);
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS event_queue_notify ON event_queue;
CREATE TRIGGER event_queue_notify AFTER INSERT OR UPDATE OF created_at ON event_queue
  FOR EACH STATEMENT EXECUTE FUNCTION event_queue_notify();
