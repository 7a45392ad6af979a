-- Topology links (issue 13): what the run's link steps (server/modules/topology/runner/links) need from the database.

-- A component's inline checks are a canary with source 'component/<id>' (the reference's form). The run looks it up
-- by source; the health scheduler and lists never read by source, so only those rows are indexed.
CREATE INDEX canaries_component_source_idx ON canaries (source) WHERE deleted_at IS NULL AND source LIKE 'component/%';

-- The canary goes with its component: however a component is removed (a run soft-deletes it, its topology goes, a
-- row is deleted), its inline canary and that canary's checks are soft-deleted in the same statement, as a console
-- delete of the canary would. The scheduler notices through the canaries' signature (updated_at moves).
CREATE FUNCTION topology_inline_canaries_gone() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  gone text[];
BEGIN
  IF TG_OP = 'DELETE' THEN
    gone := ARRAY(SELECT 'component/' || o.id FROM old_rows o);
  ELSE
    gone := ARRAY(SELECT 'component/' || n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
                  WHERE n.deleted_at IS NOT NULL AND o.deleted_at IS NULL);
  END IF;
  IF cardinality(gone) = 0 OR NOT EXISTS (SELECT 1 FROM canaries WHERE source = ANY (gone) AND deleted_at IS NULL) THEN
    RETURN NULL;
  END IF;
  UPDATE checks SET deleted_at = now() WHERE deleted_at IS NULL
    AND canary_id IN (SELECT id FROM canaries WHERE source = ANY (gone) AND deleted_at IS NULL);
  UPDATE canaries SET deleted_at = now() WHERE source = ANY (gone) AND deleted_at IS NULL;
  PERFORM pg_notify('console_events', json_build_object('type', 'change', 'relation', r, 'at', now())::text)
    FROM unnest(ARRAY['canaries', 'checks']) r;
  RETURN NULL;
END $$;
CREATE TRIGGER components_inline_canaries_upd AFTER UPDATE ON components REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION topology_inline_canaries_gone();
CREATE TRIGGER components_inline_canaries_del AFTER DELETE ON components REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION topology_inline_canaries_gone();

-- Linking a component to a config by hand (/api/db, the reference UI's "Link to catalog") when the two are linked
-- already is a 409 that says so, whoever made the first link (the table keeps one row per component and config).
-- Writes without an actor (a topology run) are not checked here: they upsert.
CREATE FUNCTION topology_manual_config_link_once() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  by_hand boolean;
BEGIN
  IF current_actor() IS NULL THEN RETURN NEW; END IF;
  SELECT r.selector_id IS NOT DISTINCT FROM 'manual' INTO by_hand FROM config_component_relationships r
    WHERE r.component_id = NEW.component_id AND r.config_id = NEW.config_id;
  IF FOUND THEN
    RAISE EXCEPTION 'component % is already linked to config % (%)', NEW.component_id, NEW.config_id,
      CASE WHEN by_hand THEN 'linked by hand' ELSE 'linked by its topology''s configs selector' END
      USING ERRCODE = '23505';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER config_component_relationships_manual_once BEFORE INSERT ON config_component_relationships
  FOR EACH ROW EXECUTE FUNCTION topology_manual_config_link_once();
