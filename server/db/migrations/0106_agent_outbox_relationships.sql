-- The agent's outbox (0087, 0104) gains the relationship tables and the items' last scrape times (issue 16):
-- config_relationships, component_relationships, config_component_relationships, check_config_relationships,
-- check_component_relationships and config_items_last_scraped_time. As there: a partial index WHERE NOT is_pushed on
-- the order the pusher reads each table in, and the BEFORE UPDATE trigger that puts a pushed row back in the outbox
-- when it changes (a relationship soft-deleted by a scrape, a new scrape time). In console mode nothing reads it.

CREATE INDEX IF NOT EXISTS config_relationships_unpushed_idx ON config_relationships (created_at) WHERE NOT is_pushed;
CREATE INDEX IF NOT EXISTS component_relationships_unpushed_idx ON component_relationships (created_at) WHERE NOT is_pushed;
CREATE INDEX IF NOT EXISTS config_component_relationships_unpushed_idx ON config_component_relationships (created_at) WHERE NOT is_pushed;
CREATE INDEX IF NOT EXISTS check_config_relationships_unpushed_idx ON check_config_relationships (created_at) WHERE NOT is_pushed;
CREATE INDEX IF NOT EXISTS check_component_relationships_unpushed_idx ON check_component_relationships (created_at) WHERE NOT is_pushed;
CREATE INDEX IF NOT EXISTS config_items_last_scraped_time_unpushed_idx ON config_items_last_scraped_time (created_at) WHERE NOT is_pushed;

DROP TRIGGER IF EXISTS config_relationships_outbox ON config_relationships;
CREATE TRIGGER config_relationships_outbox BEFORE UPDATE ON config_relationships
  FOR EACH ROW WHEN (OLD.is_pushed AND NEW.is_pushed) EXECUTE FUNCTION outbox_mark_unpushed();
DROP TRIGGER IF EXISTS component_relationships_outbox ON component_relationships;
CREATE TRIGGER component_relationships_outbox BEFORE UPDATE ON component_relationships
  FOR EACH ROW WHEN (OLD.is_pushed AND NEW.is_pushed) EXECUTE FUNCTION outbox_mark_unpushed();
DROP TRIGGER IF EXISTS config_component_relationships_outbox ON config_component_relationships;
CREATE TRIGGER config_component_relationships_outbox BEFORE UPDATE ON config_component_relationships
  FOR EACH ROW WHEN (OLD.is_pushed AND NEW.is_pushed) EXECUTE FUNCTION outbox_mark_unpushed();
DROP TRIGGER IF EXISTS check_config_relationships_outbox ON check_config_relationships;
CREATE TRIGGER check_config_relationships_outbox BEFORE UPDATE ON check_config_relationships
  FOR EACH ROW WHEN (OLD.is_pushed AND NEW.is_pushed) EXECUTE FUNCTION outbox_mark_unpushed();
DROP TRIGGER IF EXISTS check_component_relationships_outbox ON check_component_relationships;
CREATE TRIGGER check_component_relationships_outbox BEFORE UPDATE ON check_component_relationships
  FOR EACH ROW WHEN (OLD.is_pushed AND NEW.is_pushed) EXECUTE FUNCTION outbox_mark_unpushed();
DROP TRIGGER IF EXISTS config_items_last_scraped_time_outbox ON config_items_last_scraped_time;
CREATE TRIGGER config_items_last_scraped_time_outbox BEFORE UPDATE ON config_items_last_scraped_time
  FOR EACH ROW WHEN (OLD.is_pushed AND NEW.is_pushed) EXECUTE FUNCTION outbox_mark_unpushed();
