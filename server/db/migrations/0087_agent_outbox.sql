-- The agent's outbox (issue 16, MODE=agent): rows with `is_pushed = false` are what the agent still has to push to
-- its upstream (server/modules/agent-runtime). Two things make that column an outbox:
--   1. partial indexes WHERE NOT is_pushed, in the order the pusher reads each table (parents first, statuses in
--      time order), so finding the next batch and counting the backlog never scans pushed rows;
--   2. a BEFORE UPDATE trigger that sets is_pushed back to false when a pushed row changes, so the upstream gets the
--      row's new version. The pusher's own UPDATE (false -> true) passes; so does a writer that set
--      `outbox.keep_pushed = on` for its transaction (the canary puller: canaries pulled from the upstream are the
--      upstream's, never pushed back).
-- In console mode nothing reads the column; the trigger costs one WHEN test per update of a pushed row.

CREATE INDEX IF NOT EXISTS canaries_unpushed_idx ON canaries (updated_at) WHERE NOT is_pushed;
CREATE INDEX IF NOT EXISTS checks_unpushed_idx ON checks (updated_at) WHERE NOT is_pushed;
CREATE INDEX IF NOT EXISTS checks_unlogged_unpushed_idx ON checks_unlogged (updated_at) WHERE NOT is_pushed;
CREATE INDEX IF NOT EXISTS check_statuses_unpushed_idx ON check_statuses (time) WHERE NOT is_pushed;
CREATE INDEX IF NOT EXISTS job_history_unpushed_idx ON job_history (created_at) WHERE NOT is_pushed;

CREATE OR REPLACE FUNCTION outbox_mark_unpushed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(current_setting('outbox.keep_pushed', true), '') <> 'on' THEN
    NEW.is_pushed := false;
  END IF;
  RETURN NEW;
END $$;

-- Fires only for an update of a pushed row that leaves is_pushed true (i.e. does not mention it, or repeats it).
DROP TRIGGER IF EXISTS canaries_outbox ON canaries;
CREATE TRIGGER canaries_outbox BEFORE UPDATE ON canaries
  FOR EACH ROW WHEN (OLD.is_pushed AND NEW.is_pushed) EXECUTE FUNCTION outbox_mark_unpushed();
DROP TRIGGER IF EXISTS checks_outbox ON checks;
CREATE TRIGGER checks_outbox BEFORE UPDATE ON checks
  FOR EACH ROW WHEN (OLD.is_pushed AND NEW.is_pushed) EXECUTE FUNCTION outbox_mark_unpushed();
DROP TRIGGER IF EXISTS checks_unlogged_outbox ON checks_unlogged;
CREATE TRIGGER checks_unlogged_outbox BEFORE UPDATE ON checks_unlogged
  FOR EACH ROW WHEN (OLD.is_pushed AND NEW.is_pushed) EXECUTE FUNCTION outbox_mark_unpushed();
DROP TRIGGER IF EXISTS check_statuses_outbox ON check_statuses;
CREATE TRIGGER check_statuses_outbox BEFORE UPDATE ON check_statuses
  FOR EACH ROW WHEN (OLD.is_pushed AND NEW.is_pushed) EXECUTE FUNCTION outbox_mark_unpushed();
DROP TRIGGER IF EXISTS job_history_outbox ON job_history;
CREATE TRIGGER job_history_outbox BEFORE UPDATE ON job_history
  FOR EACH ROW WHEN (OLD.is_pushed AND NEW.is_pushed) EXECUTE FUNCTION outbox_mark_unpushed();
