-- Playbook views the reference UI reads (issue 14 "Data"; duty's playbooks views): playbook_names, playbooks_for_agent,
-- rpc get_playbook_run_actions, a real agents_summary.playbook_runs_count, and how a run's parameters read.

-- The names list (run dialog pickers, filters): live playbooks, the spec's fields where the row has none.
CREATE VIEW playbook_names AS
  SELECT p.id, p.name, p.namespace,
         coalesce(nullif(p.title, ''), p.spec ->> 'title', p.name) AS title,
         coalesce(p.description, p.spec ->> 'description') AS description,
         coalesce(nullif(p.category, ''), p.spec ->> 'category') AS category,
         coalesce(p.icon, p.spec ->> 'icon') AS icon,
         p.created_at
    FROM playbooks p
   WHERE p.deleted_at IS NULL;

-- Which playbooks each agent runs (spec.runsOn names agents).
CREATE VIEW playbooks_for_agent AS
  SELECT r.agent_name, a.person_id, a.id AS agent_id, jsonb_agg(r.id ORDER BY r.id) AS playbook_ids
    FROM (SELECT p.id, n.value AS agent_name
            FROM playbooks p
            CROSS JOIN LATERAL jsonb_array_elements_text(
              CASE WHEN jsonb_typeof(p.spec -> 'runsOn') = 'array' THEN p.spec -> 'runsOn' ELSE '[]'::jsonb END) AS n(value)
           WHERE p.deleted_at IS NULL) r
    JOIN agents a ON a.name = r.agent_name AND a.deleted_at IS NULL
   GROUP BY r.agent_name, a.person_id, a.id;

-- A run's actions and those of its child runs (retries, re-runs made with parent_id), in the order they were
-- scheduled, each with its agent and its artifacts (content left out). The result is read per action
-- (playbook_run_actions?id=eq.), as the reference UI does.
CREATE FUNCTION get_playbook_run_actions(run_id uuid)
RETURNS TABLE (
  id uuid, name text, status text, playbook_run_id uuid, retry_count integer, start_time timestamptz,
  scheduled_time timestamptz, end_time timestamptz, agent_id uuid, error text, agent jsonb, artifacts jsonb
)
LANGUAGE sql STABLE AS $$
  WITH RECURSIVE runs AS (
    SELECT r.id, 0 AS depth FROM playbook_runs r WHERE r.id = get_playbook_run_actions.run_id
    UNION ALL
    SELECT c.id, runs.depth + 1 FROM playbook_runs c JOIN runs ON c.parent_id = runs.id WHERE runs.depth < 10
  )
  SELECT a.id, a.name, a.status, a.playbook_run_id, a.retry_count, a.start_time, a.scheduled_time, a.end_time,
         a.agent_id, a.error,
         CASE WHEN ag.id IS NULL THEN NULL ELSE jsonb_build_object('id', ag.id, 'name', ag.name) END AS agent,
         coalesce((SELECT jsonb_agg(jsonb_build_object(
                     'id', f.id, 'path', f.path, 'filename', f.filename, 'content_type', f.content_type, 'size', f.size,
                     'checksum', f.checksum, 'created_at', f.created_at) ORDER BY f.created_at)
                     FROM artifacts f WHERE f.playbook_run_action_id = a.id AND f.deleted_at IS NULL), '[]'::jsonb)
           AS artifacts
    FROM playbook_run_actions a
    JOIN runs ON runs.id = a.playbook_run_id
    LEFT JOIN agents ag ON ag.id = a.agent_id
   ORDER BY a.scheduled_time, a.start_time NULLS LAST, a.id
$$;

-- A run's parameters as every reader sees them: `secret` ones are stored sealed (`enc:v1:…`, server/lib/secret-box.ts)
-- and read `***`, whoever asks; the engine opens them with the key, which the database never has.
CREATE FUNCTION playbook_run_parameters_masked(p jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(p) = 'object' THEN coalesce((
    SELECT jsonb_object_agg(k, CASE WHEN jsonb_typeof(v) = 'string' AND (v #>> '{}') LIKE 'enc:v1:%'
                                    THEN '"***"'::jsonb ELSE v END)
      FROM jsonb_each(p) AS e(k, v)), '{}'::jsonb) ELSE p END
$$;

-- agents_summary: a real playbook_runs_count (the placeholder column swapped as 0010 did for checks_count)
CREATE INDEX IF NOT EXISTS playbook_runs_agent_id_idx ON playbook_runs (agent_id);
CREATE OR REPLACE FUNCTION agent_playbook_runs_count(agent uuid) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT count(*) FROM playbook_runs WHERE agent_id = agent
$$;
DO $$
DECLARE
  def text := pg_get_viewdef('agents_summary'::regclass, true);
  changed text;
BEGIN
  changed := regexp_replace(def, '\(?0\)?::bigint AS playbook_runs_count', 'agent_playbook_runs_count(a.id) AS playbook_runs_count');
  IF changed <> def THEN
    EXECUTE 'CREATE OR REPLACE VIEW agents_summary AS ' || changed;
  ELSE
    RAISE NOTICE 'agents_summary.playbook_runs_count is no longer the placeholder; left as it is';
  END IF;
END $$;

-- The runs list's default order with its paging (created_at desc, top-level runs only), and status filters.
CREATE INDEX IF NOT EXISTS playbook_runs_top_created_idx ON playbook_runs (created_at DESC) WHERE parent_id IS NULL;
CREATE INDEX IF NOT EXISTS playbook_runs_status_created_idx ON playbook_runs (status, created_at DESC);
