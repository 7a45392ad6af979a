-- Upstream (issue 16): what agents report on their pings, for the agent health timeline in the agents editor.
-- One row per ping (every 30 s by default): an online/offline history is derived from the gaps between rows; the
-- metrics are null when the agent runs without telemetry. Kept 48 hours (the ping route trims old rows).
CREATE TABLE agent_telemetry (
  agent_id uuid NOT NULL CONSTRAINT agent_telemetry_agent_id_fkey REFERENCES agents (id) ON DELETE CASCADE,
  time timestamptz NOT NULL DEFAULT now(),
  -- age of the agent's oldest unpushed row, its unpushed row count and the statuses it dropped when over its bound
  push_lag_ms bigint,
  buffer_rows bigint,
  dropped_rows bigint,
  version text,
  -- the agent's topologyName, as its install dialog labels the telemetry
  topology text,
  PRIMARY KEY (agent_id, time)
);
CREATE INDEX agent_telemetry_time_idx ON agent_telemetry (time);

-- Pushed results are looked up by check when an agent deletes or replays them; pushed canaries are pulled by
-- (agent, updated_at).
CREATE INDEX canaries_agent_updated_at_idx ON canaries (agent_id, updated_at)
  WHERE agent_id <> '00000000-0000-0000-0000-000000000000';
