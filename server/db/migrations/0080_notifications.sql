-- Notifications (issue 15): the reference's columns on notifications and notification_silences, the send history and
-- the grouping tables (duty notifications.hcl). Triggers that fill event_queue for incidents (0081), the views the
-- reference UI reads (0083) and the pipeline's own indexes (0082) come in their own migrations.

ALTER TABLE notifications
  ADD COLUMN IF NOT EXISTS person_id uuid CONSTRAINT notifications_person_id_fkey REFERENCES people (id) ON DELETE CASCADE,
  ADD COLUMN IF NOT EXISTS team_id uuid CONSTRAINT notifications_team_id_fkey REFERENCES teams (id) ON DELETE CASCADE,
  ADD COLUMN IF NOT EXISTS custom_services jsonb,
  ADD COLUMN IF NOT EXISTS playbook_id uuid,
  ADD COLUMN IF NOT EXISTS inhibitions jsonb,
  -- nanoseconds, as the reference stores Go durations
  ADD COLUMN IF NOT EXISTS wait_for bigint,
  ADD COLUMN IF NOT EXISTS wait_for_eval_period bigint,
  ADD COLUMN IF NOT EXISTS group_by text[],
  ADD COLUMN IF NOT EXISTS group_by_interval bigint,
  ADD COLUMN IF NOT EXISTS watchdog_schedule text,
  ADD COLUMN IF NOT EXISTS fallback_delay bigint,
  ADD COLUMN IF NOT EXISTS fallback_custom_services jsonb,
  ADD COLUMN IF NOT EXISTS fallback_playbook_id uuid,
  ADD COLUMN IF NOT EXISTS fallback_person_id uuid CONSTRAINT notifications_fallback_person_id_fkey REFERENCES people (id) ON DELETE SET NULL,
  ADD COLUMN IF NOT EXISTS fallback_team_id uuid CONSTRAINT notifications_fallback_team_id_fkey REFERENCES teams (id) ON DELETE SET NULL,
  -- ours (issue 15 "Beyond the reference"): quiet hours {timezone, days[], start, end, except (CEL)}
  ADD COLUMN IF NOT EXISTS quiet_hours jsonb;

ALTER TABLE notification_silences
  ADD COLUMN IF NOT EXISTS config_id uuid,
  ADD COLUMN IF NOT EXISTS check_id uuid CONSTRAINT notification_silences_check_id_fkey REFERENCES checks (id) ON DELETE CASCADE,
  ADD COLUMN IF NOT EXISTS canary_id uuid CONSTRAINT notification_silences_canary_id_fkey REFERENCES canaries (id) ON DELETE CASCADE,
  ADD COLUMN IF NOT EXISTS component_id uuid;
ALTER TABLE notification_silences ALTER COLUMN name SET DEFAULT generate_ulid()::text;
DO $$ BEGIN
  IF to_regclass('config_items') IS NOT NULL THEN
    ALTER TABLE notification_silences ADD CONSTRAINT notification_silences_config_id_fkey
      FOREIGN KEY (config_id) REFERENCES config_items (id) ON DELETE CASCADE;
  END IF;
  IF to_regclass('components') IS NOT NULL THEN
    ALTER TABLE notification_silences ADD CONSTRAINT notification_silences_component_id_fkey
      FOREIGN KEY (component_id) REFERENCES components (id) ON DELETE CASCADE;
  END IF;
END $$;
CREATE INDEX IF NOT EXISTS notification_silences_live_idx ON notification_silences (until) WHERE deleted_at IS NULL;

-- One row per send (or held, silenced, repeated, cancelled send); the reference's columns.
CREATE TABLE IF NOT EXISTS notification_send_history (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  notification_id uuid NOT NULL CONSTRAINT notification_send_history_notification_id_fkey
    REFERENCES notifications (id) ON DELETE CASCADE,
  body text,
  body_payload jsonb,
  status text,
  not_before timestamptz,
  retries integer NOT NULL DEFAULT 0,
  payload jsonb,
  count integer NOT NULL DEFAULT 1,
  first_observed timestamptz NOT NULL DEFAULT now(),
  source_event text NOT NULL,
  resource_id uuid NOT NULL,
  resource_health text,
  resource_status text,
  resource_health_description text,
  person_id uuid CONSTRAINT notification_send_history_person_id_fkey REFERENCES people (id) ON DELETE CASCADE,
  team_id uuid,
  connection_id uuid,
  silenced_by uuid,
  playbook_run_id uuid,
  error text,
  duration_millis integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  group_id uuid,
  parent_id uuid DEFAULT NULL CONSTRAINT notification_send_history_parent_id_fkey
    REFERENCES notification_send_history (id) ON DELETE CASCADE,
  -- ours: who or what the row was for ({kind: person|team|custom, email?, connection?, url (masked)?, index?})
  recipient jsonb
);
CREATE INDEX IF NOT EXISTS notification_send_history_created_at_idx ON notification_send_history (created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS notification_send_history_notification_idx
  ON notification_send_history (notification_id, created_at DESC);
CREATE INDEX IF NOT EXISTS notification_send_history_resource_idx
  ON notification_send_history (resource_id, source_event, notification_id, created_at DESC);
CREATE INDEX IF NOT EXISTS notification_send_history_status_idx ON notification_send_history (status, created_at DESC);
CREATE INDEX IF NOT EXISTS notification_send_history_pending_idx ON notification_send_history (not_before)
  WHERE status = 'pending';

CREATE TABLE IF NOT EXISTS notification_groups (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  hash text NOT NULL,
  notification_id uuid NOT NULL CONSTRAINT notification_groups_notification_id_fkey
    REFERENCES notifications (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS notification_groups_hash_idx ON notification_groups (notification_id, hash, created_at DESC);

CREATE TABLE IF NOT EXISTS notification_group_resources (
  group_id uuid NOT NULL CONSTRAINT notification_group_resources_group_id_fkey
    REFERENCES notification_groups (id) ON DELETE CASCADE,
  config_id uuid,
  check_id uuid CONSTRAINT notification_group_resources_check_id_fkey REFERENCES checks (id) ON DELETE CASCADE,
  component_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz,
  resolved_at timestamptz
);
CREATE INDEX IF NOT EXISTS notification_group_resources_group_idx ON notification_group_resources (group_id);

-- A send that started a playbook run (the reference's playbook recipients): its FK where playbook_runs exists.
DO $$ BEGIN
  IF to_regclass('playbook_runs') IS NOT NULL THEN
    ALTER TABLE notification_send_history ADD CONSTRAINT notification_send_history_playbook_run_id_fkey
      FOREIGN KEY (playbook_run_id) REFERENCES playbook_runs (id) ON DELETE SET NULL;
  END IF;
END $$;
