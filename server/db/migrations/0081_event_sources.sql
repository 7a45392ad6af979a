-- Event sources (issue 15 "Events"): incident, component and config events written into event_queue in the
-- transaction of the change, as 0073 does for checks. Every trigger is a row trigger whose WHEN clause holds only when
-- the watched column changed, so the hot writers (topology runs, catalog scrapes) pay nothing for unchanged rows.
-- event_id is the row the event is about (the incident, the responder, the comment, the evidence, the component, the
-- config item); an upsert on (name, event_id): a pending event of the same name and row is replaced, attempts reset.

CREATE OR REPLACE FUNCTION event_queue_upsert(event_name text, id uuid, props jsonb) RETURNS void LANGUAGE sql AS $$
  INSERT INTO event_queue (name, event_id, properties) VALUES (event_name, id, props)
  ON CONFLICT (name, event_id) DO UPDATE
    SET properties = EXCLUDED.properties, attempts = 0, error = NULL, last_attempt = NULL, created_at = now();
$$;

-- incidents: incident.created; incident.status.<status> when the status changes (`new` has no event).
CREATE OR REPLACE FUNCTION incidents_enqueue_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM event_queue_upsert('incident.created', NEW.id, jsonb_build_object('status', NEW.status));
  ELSIF NEW.status <> 'new' THEN
    PERFORM event_queue_upsert('incident.status.' || NEW.status, NEW.id,
      jsonb_build_object('status', NEW.status, 'previous', OLD.status));
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS incidents_enqueue_created ON incidents;
CREATE TRIGGER incidents_enqueue_created AFTER INSERT ON incidents
  FOR EACH ROW EXECUTE FUNCTION incidents_enqueue_event();
DROP TRIGGER IF EXISTS incidents_enqueue_status ON incidents;
CREATE TRIGGER incidents_enqueue_status AFTER UPDATE OF status ON incidents
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION incidents_enqueue_event();

-- responders: added on insert; removed on delete or soft delete (the row as it was travels in properties, since a
-- deleted one cannot be loaded when the event is handled).
CREATE OR REPLACE FUNCTION responders_enqueue_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM event_queue_upsert('incident.responder.added', NEW.id, jsonb_build_object('incident_id', NEW.incident_id));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM event_queue_upsert('incident.responder.removed', OLD.id,
      jsonb_build_object('incident_id', OLD.incident_id, 'responder', to_jsonb(OLD) - 'properties'));
  ELSE
    PERFORM event_queue_upsert('incident.responder.removed', NEW.id,
      jsonb_build_object('incident_id', NEW.incident_id, 'responder', to_jsonb(NEW) - 'properties'));
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS responders_enqueue_added ON responders;
CREATE TRIGGER responders_enqueue_added AFTER INSERT ON responders
  FOR EACH ROW WHEN (NEW.deleted_at IS NULL) EXECUTE FUNCTION responders_enqueue_event();
DROP TRIGGER IF EXISTS responders_enqueue_removed ON responders;
CREATE TRIGGER responders_enqueue_removed AFTER DELETE ON responders
  FOR EACH ROW WHEN (OLD.deleted_at IS NULL) EXECUTE FUNCTION responders_enqueue_event();
DROP TRIGGER IF EXISTS responders_enqueue_soft_removed ON responders;
CREATE TRIGGER responders_enqueue_soft_removed AFTER UPDATE OF deleted_at ON responders
  FOR EACH ROW WHEN (OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL) EXECUTE FUNCTION responders_enqueue_event();

-- comments: incident.comment.added.
CREATE OR REPLACE FUNCTION comments_enqueue_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM event_queue_upsert('incident.comment.added', NEW.id, jsonb_build_object('incident_id', NEW.incident_id));
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS comments_enqueue_added ON comments;
CREATE TRIGGER comments_enqueue_added AFTER INSERT ON comments FOR EACH ROW EXECUTE FUNCTION comments_enqueue_event();

-- evidences that are a definition of done: incident.dod.added (made one), .passed (done became true), .regressed
-- (done was true, is no longer).
CREATE OR REPLACE FUNCTION evidences_enqueue_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  incident uuid;
  event_name text;
BEGIN
  IF TG_OP = 'INSERT' OR NOT OLD.definition_of_done THEN
    event_name := 'incident.dod.added';
  ELSIF NEW.done IS TRUE THEN
    event_name := 'incident.dod.passed';
  ELSE
    event_name := 'incident.dod.regressed';
  END IF;
  SELECT incident_id INTO incident FROM hypotheses WHERE id = NEW.hypothesis_id;
  PERFORM event_queue_upsert(event_name, NEW.id, jsonb_build_object('incident_id', incident, 'done', NEW.done));
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS evidences_enqueue_dod_added ON evidences;
CREATE TRIGGER evidences_enqueue_dod_added AFTER INSERT ON evidences
  FOR EACH ROW WHEN (NEW.definition_of_done) EXECUTE FUNCTION evidences_enqueue_event();
DROP TRIGGER IF EXISTS evidences_enqueue_dod_changed ON evidences;
CREATE TRIGGER evidences_enqueue_dod_changed AFTER UPDATE OF definition_of_done, done ON evidences
  FOR EACH ROW WHEN (NEW.definition_of_done AND (NOT OLD.definition_of_done
    OR (NEW.done IS TRUE AND OLD.done IS NOT TRUE) OR (OLD.done IS TRUE AND NEW.done IS NOT TRUE)))
  EXECUTE FUNCTION evidences_enqueue_event();

-- components: component.<health> when a live component's health changes to one of the four.
CREATE OR REPLACE FUNCTION components_enqueue_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM event_queue_upsert('component.' || NEW.health, NEW.id, jsonb_build_object('health', NEW.health, 'previous', OLD.health));
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS components_enqueue_health ON components;
CREATE TRIGGER components_enqueue_health AFTER UPDATE OF health ON components
  FOR EACH ROW WHEN (OLD.health IS DISTINCT FROM NEW.health AND NEW.deleted_at IS NULL
    AND NEW.health IN ('healthy', 'unhealthy', 'warning', 'unknown'))
  EXECUTE FUNCTION components_enqueue_event();

-- config items: config.created (a live insert), config.deleted (soft delete), config.<health> (health changes to one
-- of the four) and config.updated (the config document changed; the catalog engine rewrites changed rows only).
CREATE OR REPLACE FUNCTION config_items_enqueue_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM event_queue_upsert('config.created', NEW.id, NULL);
    RETURN NULL;
  END IF;
  IF OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL THEN
    PERFORM event_queue_upsert('config.deleted', NEW.id, jsonb_build_object('reason', NEW.delete_reason));
    RETURN NULL;
  END IF;
  IF NEW.deleted_at IS NOT NULL THEN
    RETURN NULL;
  END IF;
  IF OLD.health IS DISTINCT FROM NEW.health AND NEW.health IN ('healthy', 'unhealthy', 'warning', 'unknown') THEN
    PERFORM event_queue_upsert('config.' || NEW.health, NEW.id, jsonb_build_object('health', NEW.health, 'previous', OLD.health));
  END IF;
  IF OLD.config IS DISTINCT FROM NEW.config THEN
    PERFORM event_queue_upsert('config.updated', NEW.id, NULL);
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS config_items_enqueue_created ON config_items;
CREATE TRIGGER config_items_enqueue_created AFTER INSERT ON config_items
  FOR EACH ROW WHEN (NEW.deleted_at IS NULL) EXECUTE FUNCTION config_items_enqueue_event();
DROP TRIGGER IF EXISTS config_items_enqueue_changed ON config_items;
CREATE TRIGGER config_items_enqueue_changed AFTER UPDATE OF health, config, deleted_at ON config_items
  FOR EACH ROW WHEN ((OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL)
    OR (NEW.deleted_at IS NULL AND (OLD.health IS DISTINCT FROM NEW.health OR OLD.config IS DISTINCT FROM NEW.config)))
  EXECUTE FUNCTION config_items_enqueue_event();
