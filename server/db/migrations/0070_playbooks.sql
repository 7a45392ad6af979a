-- Playbooks (issue 14): the run engine's tables, as the reference names them (duty playbooks.hcl), plus our own
-- lease columns (the engine claims runs and actions with FOR UPDATE SKIP LOCKED and a heartbeated lease) and the
-- stored log lines every replica can serve. playbook_runs itself came with the catalog (0050) so its tabs could read it.

ALTER TABLE playbook_runs ALTER COLUMN status SET DEFAULT 'scheduled';
UPDATE playbook_runs SET status = 'pending_approval' WHERE status = 'pending';
ALTER TABLE playbook_runs
  ADD COLUMN IF NOT EXISTS lease_owner text,
  ADD COLUMN IF NOT EXISTS lease_expires_at timestamptz;
UPDATE playbook_runs SET scheduled_time = created_at WHERE scheduled_time IS NULL;
ALTER TABLE playbook_runs ALTER COLUMN scheduled_time SET DEFAULT now();
ALTER TABLE playbook_runs ALTER COLUMN scheduled_time SET NOT NULL;

-- the engine's queue: what is due, cheaply, whatever the number of finished runs
CREATE INDEX playbook_runs_due_idx ON playbook_runs (scheduled_time)
  WHERE status IN ('scheduled', 'running', 'sleeping', 'retrying', 'waiting');
CREATE INDEX playbook_runs_created_at_idx ON playbook_runs (created_at DESC);
CREATE INDEX playbook_runs_playbook_id_idx ON playbook_runs (playbook_id, created_at DESC);
CREATE INDEX playbook_runs_check_id_idx ON playbook_runs (check_id, created_at DESC) WHERE check_id IS NOT NULL;
CREATE INDEX playbook_runs_parent_id_idx ON playbook_runs (parent_id) WHERE parent_id IS NOT NULL;

CREATE TABLE playbook_run_actions (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  name text NOT NULL,
  status text NOT NULL DEFAULT 'running',
  retry_count integer,
  playbook_run_id uuid CONSTRAINT playbook_run_actions_playbook_run_id_fkey REFERENCES playbook_runs (id) ON DELETE CASCADE,
  start_time timestamptz,
  scheduled_time timestamptz NOT NULL DEFAULT now(),
  end_time timestamptz,
  result jsonb,
  is_pushed boolean NOT NULL DEFAULT false,
  agent_id uuid DEFAULT '00000000-0000-0000-0000-000000000000'
    CONSTRAINT playbook_run_actions_agent_id_fkey REFERENCES agents (id),
  error text,
  -- ours: the replica running it and until when its lease holds (renewed by its heartbeat)
  lease_owner text,
  lease_expires_at timestamptz
);
CREATE INDEX playbook_run_actions_run_idx ON playbook_run_actions (playbook_run_id, scheduled_time);
CREATE INDEX playbook_run_actions_due_idx ON playbook_run_actions (scheduled_time)
  WHERE status IN ('scheduled', 'running', 'sleeping', 'waiting');

CREATE TABLE playbook_approvals (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  run_id uuid NOT NULL CONSTRAINT playbook_approvals_run_id_fkey REFERENCES playbook_runs (id) ON DELETE CASCADE,
  person_id uuid CONSTRAINT playbook_approvals_person_id_fkey REFERENCES people (id),
  team_id uuid CONSTRAINT playbook_approvals_team_id_fkey REFERENCES teams (id),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX playbook_approvals_run_id_idx ON playbook_approvals (run_id);

CREATE TABLE playbook_action_agent_data (
  action_id uuid NOT NULL UNIQUE CONSTRAINT playbook_action_agent_data_action_id_fkey
    REFERENCES playbook_run_actions (id) ON DELETE CASCADE,
  playbook_id uuid NOT NULL,
  run_id uuid NOT NULL,
  spec jsonb NOT NULL,
  env jsonb
);

-- ours: an action's output lines as they are printed, so any replica can stream them to a run's watchers
CREATE TABLE playbook_run_action_logs (
  action_id uuid NOT NULL CONSTRAINT playbook_run_action_logs_action_id_fkey
    REFERENCES playbook_run_actions (id) ON DELETE CASCADE,
  seq integer NOT NULL,
  run_id uuid NOT NULL,
  stream text NOT NULL,
  text text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (action_id, seq)
);
CREATE INDEX playbook_run_action_logs_run_idx ON playbook_run_action_logs (run_id, action_id, seq);

DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'artifacts_playbook_run_action_id_fkey') THEN
    UPDATE artifacts SET playbook_run_action_id = NULL
      WHERE playbook_run_action_id IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM playbook_run_actions a WHERE a.id = artifacts.playbook_run_action_id);
    ALTER TABLE artifacts ADD CONSTRAINT artifacts_playbook_run_action_id_fkey
      FOREIGN KEY (playbook_run_action_id) REFERENCES playbook_run_actions (id) ON DELETE CASCADE;
  END IF;
END $$;
