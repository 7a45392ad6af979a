-- The runs list (issue 14 "Performance": /playbooks/runs and the reference UI's getPlaybookRuns, count=exact) lists
-- top-level runs (parent_id IS NULL) newest first, filtered by playbook, by status and by a time window written as
-- (start_time in range) OR (created_at in range). Partial indexes over the top-level runs let each filter's count be
-- an index-only scan (by playbook) or a BitmapOr of two index ranges (the window, with or without a status) instead
-- of visiting every run of the playbook or of the status in the heap. 0074's top_created index serves the unfiltered
-- count and the page order.
CREATE INDEX IF NOT EXISTS playbook_runs_top_playbook_idx ON playbook_runs (playbook_id, created_at DESC) WHERE parent_id IS NULL;
CREATE INDEX IF NOT EXISTS playbook_runs_top_status_created_idx ON playbook_runs (status, created_at DESC) WHERE parent_id IS NULL;
CREATE INDEX IF NOT EXISTS playbook_runs_top_status_start_idx ON playbook_runs (status, start_time DESC) WHERE parent_id IS NULL;
CREATE INDEX IF NOT EXISTS playbook_runs_top_start_idx ON playbook_runs (start_time DESC) WHERE parent_id IS NULL;
