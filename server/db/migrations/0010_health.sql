-- Health: canaries, their checks, every check result, per-check latest state, hourly and daily rollups, job history,
-- and the views the UI and /api/canary read. Names and columns follow the reference (flanksource/duty checks.hcl),
-- with additions noted where they are ours.

CREATE TABLE canaries (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  agent_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' CONSTRAINT canaries_agent_id_fkey REFERENCES agents (id),
  name text NOT NULL,
  namespace text NOT NULL DEFAULT 'default',
  labels jsonb,
  annotations jsonb,
  spec jsonb NOT NULL,
  source text,
  is_pushed boolean NOT NULL DEFAULT false,
  created_at timestamptz DEFAULT now(),
  created_by uuid CONSTRAINT canaries_created_by_fkey REFERENCES people (id),
  updated_at timestamptz DEFAULT now(),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX canaries_name_key ON canaries (agent_id, name, namespace, source)
  WHERE deleted_at IS NULL AND agent_id = '00000000-0000-0000-0000-000000000000';
-- The scheduler polls max(updated_at) to notice changes made by other replicas.
CREATE INDEX canaries_updated_at_idx ON canaries (updated_at);
CREATE TRIGGER canaries_updated_at BEFORE UPDATE ON canaries FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE checks (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  canary_id uuid NOT NULL CONSTRAINT checks_canary_id_fkey REFERENCES canaries (id) ON DELETE CASCADE,
  agent_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' CONSTRAINT checks_agent_id_fkey REFERENCES agents (id),
  type text NOT NULL,
  name text NOT NULL,
  namespace text,
  description text,
  icon text,
  spec jsonb,
  labels jsonb,
  owner text,
  severity text,
  category text,
  is_pushed boolean NOT NULL DEFAULT false,
  transformed boolean,
  last_runtime timestamptz,
  last_transition_time timestamptz,
  next_runtime timestamptz,
  silenced_at timestamptz,
  status text,
  created_at timestamptz DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT checks_canary_id_type_name_agent_id_key UNIQUE (canary_id, type, name, agent_id)
);
CREATE INDEX checks_live_idx ON checks (canary_id) WHERE deleted_at IS NULL;
CREATE TRIGGER checks_updated_at BEFORE UPDATE ON checks FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- As the reference: last_transition_time moves only when status really changes.
CREATE OR REPLACE FUNCTION checks_last_transition_time() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.last_transition_time := now();
  RETURN NEW;
END $$;
CREATE TRIGGER checks_last_transition_time BEFORE UPDATE ON checks
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION checks_last_transition_time();

-- Per-check latest state, written on every run (unlogged: it is rebuilt by the next run after a crash, and it
-- keeps the hot write path off the WAL and off the checks table).
CREATE UNLOGGED TABLE checks_unlogged (
  check_id uuid PRIMARY KEY CONSTRAINT checks_unlogged_check_id_fkey REFERENCES checks (id) ON DELETE CASCADE,
  canary_id uuid NOT NULL,
  status text,
  last_runtime timestamptz,
  next_runtime timestamptz,
  -- ours: the last result, so a drawer or a list needs no read of the raw history
  last_duration integer,
  last_message text,
  last_error text,
  is_pushed boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE check_statuses (
  check_id uuid NOT NULL CONSTRAINT check_statuses_check_id_fkey REFERENCES checks (id) ON DELETE CASCADE,
  details jsonb,
  duration integer,
  error text,
  time timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  invalid boolean,
  message text,
  status boolean,
  severity text,
  is_pushed boolean NOT NULL DEFAULT false,
  PRIMARY KEY (check_id, time)
);
-- The primary key serves per-check time ranges; this one serves retention and cross-check time scans.
CREATE INDEX check_statuses_time_idx ON check_statuses (time);

-- Rollups. Reference columns (total, passed, failed, duration = sum of ms) plus ours: `latency`, a sparse
-- log-scale histogram {"<bucket>": [count, sum_ms]} (bucket b holds durations in [1.1^(b-1), 1.1^b) ms, 0 holds
-- 0 ms), which merges across buckets so p95/p97/p99 over any window come from the rollups alone; and the last
-- pass / fail time in the bucket.
CREATE TABLE check_statuses_1h (
  check_id uuid NOT NULL CONSTRAINT check_statuses_1h_check_id_fkey REFERENCES checks (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  duration integer NOT NULL DEFAULT 0,
  total integer NOT NULL DEFAULT 0,
  passed integer NOT NULL DEFAULT 0,
  failed integer NOT NULL DEFAULT 0,
  latency jsonb NOT NULL DEFAULT '{}',
  last_pass timestamptz,
  last_fail timestamptz,
  PRIMARY KEY (check_id, created_at)
);
CREATE INDEX check_statuses_1h_created_at_idx ON check_statuses_1h (created_at);

CREATE TABLE check_statuses_1d (LIKE check_statuses_1h INCLUDING DEFAULTS);
ALTER TABLE check_statuses_1d ADD PRIMARY KEY (check_id, created_at);
ALTER TABLE check_statuses_1d ADD CONSTRAINT check_statuses_1d_check_id_fkey FOREIGN KEY (check_id) REFERENCES checks (id) ON DELETE CASCADE;
CREATE INDEX check_statuses_1d_created_at_idx ON check_statuses_1d (created_at);

CREATE TABLE job_history (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  agent_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000',
  name text,
  success_count integer,
  error_count integer,
  details jsonb,
  hostname text,
  duration_millis integer,
  resource_type text,
  resource_id text,
  status text,
  time_start timestamptz,
  time_end timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  is_pushed boolean NOT NULL DEFAULT false
);
CREATE INDEX job_history_resource_idx ON job_history (resource_id, created_at DESC);
CREATE INDEX job_history_name_created_at_idx ON job_history (name, created_at DESC);
CREATE INDEX job_history_created_at_idx ON job_history (created_at);

-- The histogram bucket of a duration in ms (see the rollup tables).
CREATE OR REPLACE FUNCTION latency_bucket(ms double precision) RETURNS integer LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN ms IS NULL OR ms < 1 THEN 0 ELSE floor(ln(ms) / ln(1.1))::int + 1 END
$$;

-- Adds one observation to a histogram.
CREATE OR REPLACE FUNCTION latency_add(h jsonb, ms double precision) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(h, '{}'::jsonb) || jsonb_build_object(latency_bucket(ms)::text, jsonb_build_array(
    coalesce((h -> latency_bucket(ms)::text ->> 0)::bigint, 0) + 1,
    coalesce((h -> latency_bucket(ms)::text ->> 1)::double precision, 0) + coalesce(ms, 0)))
$$;

-- Merges histograms (aggregate).
CREATE OR REPLACE FUNCTION latency_merge_step(acc jsonb, h jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(acc, '{}'::jsonb) || coalesce((
    SELECT jsonb_object_agg(e.key, jsonb_build_array(
      coalesce((acc -> e.key ->> 0)::bigint, 0) + (e.value ->> 0)::bigint,
      coalesce((acc -> e.key ->> 1)::double precision, 0) + (e.value ->> 1)::double precision))
    FROM jsonb_each(h) e), '{}'::jsonb)
$$;
CREATE AGGREGATE latency_merge(jsonb) (SFUNC = latency_merge_step, STYPE = jsonb);

-- Builds a histogram from raw durations (aggregate; used to rebuild rollups from check_statuses).
CREATE AGGREGATE latency_agg(double precision) (SFUNC = latency_add, STYPE = jsonb, INITCOND = '{}');

-- A percentile (0..1, nearest rank) of a histogram: the mean duration of the bucket holding that rank, so the
-- answer is exact when the observations in that bucket are equal and within one bucket (10%) otherwise.
CREATE OR REPLACE FUNCTION latency_percentile(h jsonb, q double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE AS $$
  WITH b AS (
    SELECT e.key::int AS bucket, (e.value ->> 0)::bigint AS n, (e.value ->> 1)::double precision AS s
    FROM jsonb_each(coalesce(h, '{}'::jsonb)) e
  ), c AS (
    SELECT bucket, n, s, sum(n) OVER (ORDER BY bucket) AS cum, sum(n) OVER () AS total FROM b WHERE n > 0
  )
  SELECT round((s / n)::numeric, 1)::double precision FROM c WHERE cum >= ceil(q * total) ORDER BY bucket LIMIT 1
$$;

-- Uptime and latency of every check over [since, now]: whole rollup buckets overlapping the window (hourly for
-- windows up to two days, daily beyond). Reads rollups only, never the raw history; set-based (one pass over the
-- histogram buckets of all checks) because a per-check function call costs ten times more at 10,000 checks.
CREATE OR REPLACE FUNCTION check_window_stats(since timestamptz, only_check uuid DEFAULT NULL)
RETURNS TABLE (check_id uuid, passed bigint, failed bigint, last_pass timestamptz, last_fail timestamptz,
               p95 double precision, p97 double precision, p99 double precision, avg double precision)
LANGUAGE sql STABLE AS $$
  WITH r AS MATERIALIZED (
    SELECT h.check_id, h.total, h.passed, h.failed, h.duration, h.latency, h.last_pass, h.last_fail
    FROM check_statuses_1h h
    WHERE now() - since <= interval '2 days' AND h.created_at >= date_trunc('hour', since, 'UTC')
      AND (only_check IS NULL OR h.check_id = only_check)
    UNION ALL
    SELECT d.check_id, d.total, d.passed, d.failed, d.duration, d.latency, d.last_pass, d.last_fail
    FROM check_statuses_1d d
    WHERE now() - since > interval '2 days' AND d.created_at >= date_trunc('day', since, 'UTC')
      AND (only_check IS NULL OR d.check_id = only_check)
  ), g AS (
    SELECT r.check_id, sum(r.passed) AS passed, sum(r.failed) AS failed, max(r.last_pass) AS last_pass,
           max(r.last_fail) AS last_fail, sum(r.duration)::double precision / nullif(sum(r.total), 0) AS avg
    FROM r GROUP BY r.check_id
  ), b AS (
    SELECT r.check_id, e.key::int AS bucket, sum((e.value ->> 0)::bigint) AS n, sum((e.value ->> 1)::double precision) AS s
    FROM r, jsonb_each(r.latency) e GROUP BY 1, 2
  ), c AS (
    SELECT b.check_id, b.bucket, b.n, b.s, sum(b.n) OVER (PARTITION BY b.check_id ORDER BY b.bucket) AS cum,
           sum(b.n) OVER (PARTITION BY b.check_id) AS tot
    FROM b WHERE b.n > 0
  ), p AS (
    SELECT c.check_id,
           (array_agg(c.s / c.n ORDER BY c.bucket) FILTER (WHERE c.cum >= ceil(0.95 * c.tot)))[1] AS p95,
           (array_agg(c.s / c.n ORDER BY c.bucket) FILTER (WHERE c.cum >= ceil(0.97 * c.tot)))[1] AS p97,
           (array_agg(c.s / c.n ORDER BY c.bucket) FILTER (WHERE c.cum >= ceil(0.99 * c.tot)))[1] AS p99
    FROM c GROUP BY c.check_id
  )
  SELECT g.check_id, g.passed, g.failed, g.last_pass, g.last_fail,
         round(p.p95::numeric, 1)::double precision, round(p.p97::numeric, 1)::double precision,
         round(p.p99::numeric, 1)::double precision, round(g.avg::numeric, 1)::double precision
  FROM g LEFT JOIN p ON p.check_id = g.check_id
$$;

-- The summary's standard windows, precomputed by the scheduler every minute or so (the reference refreshes its
-- check_status_summary materialized view on a schedule too); /api/canary/api/summary reads these while they are
-- fresh and computes other windows on the fly.
CREATE UNLOGGED TABLE check_summary_cache (
  window_ms bigint NOT NULL,
  check_id uuid NOT NULL,
  passed bigint, failed bigint, last_pass timestamptz, last_fail timestamptz,
  p95 double precision, p97 double precision, p99 double precision, avg double precision,
  PRIMARY KEY (window_ms, check_id)
);
CREATE UNLOGGED TABLE check_summary_cache_state (
  window_ms bigint PRIMARY KEY,
  refreshed_at timestamptz NOT NULL
);

-- One row per check, as the reference's check_summary (uptime and latency over the last hour, from the rollups).
CREATE VIEW check_summary AS
  SELECT c.id, c.canary_id, c.agent_id,
         json_build_object('passed', coalesce(s.passed, 0), 'failed', coalesce(s.failed, 0),
                           'last_pass', s.last_pass, 'last_fail', s.last_fail) AS uptime,
         json_build_object('p99', s.p99, 'p97', s.p97, 'p95', s.p95, 'avg', s.avg) AS latency,
         c.last_transition_time, c.type, c.icon, c.name, c.status, c.description, c.namespace,
         ca.namespace AS canary_namespace, ca.name AS canary_name,
         coalesce(ca.labels, '{}'::jsonb) || coalesce(c.labels, '{}'::jsonb) AS labels,
         c.severity, c.owner, u.last_runtime, u.next_runtime, c.created_at, c.updated_at, c.deleted_at, c.silenced_at
  FROM checks c
  JOIN canaries ca ON ca.id = c.canary_id
  LEFT JOIN checks_unlogged u ON u.check_id = c.id
  LEFT JOIN LATERAL (
    SELECT sum(h.passed) AS passed, sum(h.failed) AS failed, max(h.last_pass) AS last_pass, max(h.last_fail) AS last_fail,
           latency_percentile(latency_merge(h.latency), 0.95) AS p95,
           latency_percentile(latency_merge(h.latency), 0.97) AS p97,
           latency_percentile(latency_merge(h.latency), 0.99) AS p99,
           round((sum(h.duration)::double precision / nullif(sum(h.total), 0))::numeric, 1)::double precision AS avg
    FROM check_statuses_1h h
    WHERE h.check_id = c.id AND h.created_at >= date_trunc('hour', now() - interval '1 hour', 'UTC')
  ) s ON true;

CREATE VIEW canaries_with_status AS
  SELECT ca.id, ca.name, ca.namespace, ca.spec ->> 'interval' AS interval, ca.spec ->> 'schedule' AS schedule,
         ca.labels, ca.source, ca.created_by, ca.created_at, ca.updated_at, ca.deleted_at, ca.agent_id,
         (SELECT max(u.last_runtime) FROM checks_unlogged u WHERE u.canary_id = ca.id) AS last_runtime,
         (SELECT count(*) FROM checks c WHERE c.canary_id = ca.id AND c.deleted_at IS NULL) AS checks_count,
         j.status AS job_status, j.success_count AS job_success_count, j.error_count AS job_error_count,
         j.details AS job_details, j.hostname AS job_hostname, j.duration_millis AS job_duration_millis,
         j.resource_type AS job_resource_type, j.time_start AS job_time_start, j.time_end AS job_time_end,
         j.created_at AS job_created_at,
         (SELECT max(f.created_at) FROM job_history f
          WHERE f.resource_id = ca.id::text AND f.status = 'FAILED') AS job_last_failed,
         json_build_object('id', a.id, 'name', a.name) AS agent
  FROM canaries ca
  LEFT JOIN agents a ON a.id = ca.agent_id
  LEFT JOIN LATERAL (
    SELECT * FROM job_history jh WHERE jh.resource_id = ca.id::text ORDER BY jh.created_at DESC LIMIT 1
  ) j ON true;

CREATE VIEW check_names AS
  SELECT c.id, c.canary_id, c.type, c.name, c.status
  FROM checks c WHERE c.deleted_at IS NULL AND c.silenced_at IS NULL
  ORDER BY c.name;

CREATE VIEW check_labels AS
  SELECT DISTINCT l.key, l.value
  FROM checks c CROSS JOIN LATERAL jsonb_each_text(coalesce(c.labels, '{}'::jsonb)) l
  WHERE c.deleted_at IS NULL;

CREATE VIEW checks_labels_keys AS
  SELECT DISTINCT 'label:' || l.key AS key FROM check_labels l;

CREATE VIEW job_histories AS
  SELECT jh.*,
         coalesce(ca.name, jh.resource_id) AS resource_name,
         json_build_object('id', a.id, 'name', a.name) AS agent
  FROM job_history jh
  LEFT JOIN canaries ca ON jh.resource_type = 'canary' AND ca.id::text = jh.resource_id
  LEFT JOIN agents a ON a.id = jh.agent_id;

CREATE VIEW job_history_names AS
  SELECT DISTINCT name FROM job_history WHERE name IS NOT NULL;

-- agents_summary: real checks_count. Other modules replace other counts, so only the placeholder column is swapped
-- in the current definition, whatever else it has become.
CREATE OR REPLACE FUNCTION agent_checks_count(agent uuid) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT count(*) FROM checks WHERE agent_id = agent AND deleted_at IS NULL
$$;
DO $$
DECLARE
  def text := pg_get_viewdef('agents_summary'::regclass, true);
  changed text;
BEGIN
  changed := regexp_replace(def, '\(?0\)?::bigint AS checks_count', 'agent_checks_count(a.id) AS checks_count');
  IF changed <> def THEN
    EXECUTE 'CREATE OR REPLACE VIEW agents_summary AS ' || changed;
  ELSE
    RAISE NOTICE 'agents_summary.checks_count is no longer the placeholder; left as it is';
  END IF;
END $$;
