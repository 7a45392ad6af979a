-- Which queued event started which run of a playbook (issue 14 "Triggers"): one run per playbook and event. The key
-- is the event_queue row and the time it was written (a re-delivery of the same row has both; an event the upsert
-- merged into a pending row rewrites created_at and counts as new), so two different events on one resource that
-- arrive together start two runs, and a retried one starts none. Written in the transaction that creates the run; the
-- primary key refuses a second run for the same event. Not exposed through /api/db.
CREATE TABLE IF NOT EXISTS playbook_trigger_events (
  playbook_id uuid NOT NULL,
  event_key text NOT NULL,
  run_id uuid NOT NULL REFERENCES playbook_runs (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (playbook_id, event_key)
);
CREATE INDEX IF NOT EXISTS playbook_trigger_events_run_idx ON playbook_trigger_events (run_id);
