-- The agent's outbox (0087) gains the catalog and topology tables an agent pushes (issue 16): topologies,
-- config_scrapers, config_items, config_changes, config_analysis and components. As there: a partial index
-- WHERE NOT is_pushed on the order the pusher reads each table in, and the BEFORE UPDATE trigger that puts a pushed
-- row back in the outbox when it changes (outbox_mark_unpushed, 0087). In console mode nothing reads the column.

CREATE INDEX IF NOT EXISTS topologies_unpushed_idx ON topologies (created_at) WHERE NOT is_pushed;
CREATE INDEX IF NOT EXISTS config_scrapers_unpushed_idx ON config_scrapers (created_at) WHERE NOT is_pushed;
CREATE INDEX IF NOT EXISTS config_items_unpushed_idx ON config_items (created_at) WHERE NOT is_pushed;
CREATE INDEX IF NOT EXISTS config_changes_unpushed_idx ON config_changes (created_at) WHERE NOT is_pushed;
CREATE INDEX IF NOT EXISTS config_analysis_unpushed_idx ON config_analysis (first_observed) WHERE NOT is_pushed;
CREATE INDEX IF NOT EXISTS components_unpushed_idx ON components (created_at) WHERE NOT is_pushed;

DROP TRIGGER IF EXISTS topologies_outbox ON topologies;
CREATE TRIGGER topologies_outbox BEFORE UPDATE ON topologies
  FOR EACH ROW WHEN (OLD.is_pushed AND NEW.is_pushed) EXECUTE FUNCTION outbox_mark_unpushed();
DROP TRIGGER IF EXISTS config_scrapers_outbox ON config_scrapers;
CREATE TRIGGER config_scrapers_outbox BEFORE UPDATE ON config_scrapers
  FOR EACH ROW WHEN (OLD.is_pushed AND NEW.is_pushed) EXECUTE FUNCTION outbox_mark_unpushed();
DROP TRIGGER IF EXISTS config_items_outbox ON config_items;
CREATE TRIGGER config_items_outbox BEFORE UPDATE ON config_items
  FOR EACH ROW WHEN (OLD.is_pushed AND NEW.is_pushed) EXECUTE FUNCTION outbox_mark_unpushed();
DROP TRIGGER IF EXISTS config_changes_outbox ON config_changes;
CREATE TRIGGER config_changes_outbox BEFORE UPDATE ON config_changes
  FOR EACH ROW WHEN (OLD.is_pushed AND NEW.is_pushed) EXECUTE FUNCTION outbox_mark_unpushed();
DROP TRIGGER IF EXISTS config_analysis_outbox ON config_analysis;
CREATE TRIGGER config_analysis_outbox BEFORE UPDATE ON config_analysis
  FOR EACH ROW WHEN (OLD.is_pushed AND NEW.is_pushed) EXECUTE FUNCTION outbox_mark_unpushed();
DROP TRIGGER IF EXISTS components_outbox ON components;
CREATE TRIGGER components_outbox BEFORE UPDATE ON components
  FOR EACH ROW WHEN (OLD.is_pushed AND NEW.is_pushed) EXECUTE FUNCTION outbox_mark_unpushed();
