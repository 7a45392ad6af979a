-- Responder progress (Created, Acknowledged, Resolved, Closed, with times) follows what happens on the incident when
-- no external system reports it: a person responder is acknowledged by their first comment on the incident, and every
-- responder is resolved and closed when the incident is. Times already set (by a PATCH or an earlier pass) are kept.

CREATE OR REPLACE FUNCTION incident_responders_progress() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status IN ('resolved', 'closed') THEN
    UPDATE responders SET resolved = coalesce(resolved, now()),
      acknowledged = coalesce(acknowledged, now())
    WHERE incident_id = NEW.id AND deleted_at IS NULL AND resolved IS NULL;
  END IF;
  IF NEW.status = 'closed' THEN
    UPDATE responders SET closed = now() WHERE incident_id = NEW.id AND deleted_at IS NULL AND closed IS NULL;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER incidents_responders_progress AFTER UPDATE OF status ON incidents
  FOR EACH ROW WHEN (NEW.status IS DISTINCT FROM OLD.status) EXECUTE FUNCTION incident_responders_progress();

CREATE OR REPLACE FUNCTION comments_acknowledge_responder() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE responders SET acknowledged = now()
  WHERE incident_id = NEW.incident_id AND deleted_at IS NULL AND acknowledged IS NULL
    AND (person_id = NEW.created_by OR id = NEW.responder_id);
  RETURN NULL;
END $$;
CREATE TRIGGER comments_acknowledge_responder AFTER INSERT ON comments
  FOR EACH ROW EXECUTE FUNCTION comments_acknowledge_responder();
