-- Job History page (issue 11): indexes for its filters over a large job_history, and job_history_names without a
-- scan of the whole table. 0010 has (resource_id, created_at desc), (name, created_at desc) and (created_at).

-- The page's default filter, status=neq.SUCCESS (about a tenth of the rows): its first page and its exact count
-- read only these rows.
CREATE INDEX job_history_not_success_idx ON job_history (created_at DESC) WHERE status <> 'SUCCESS';
-- status=eq.X (and the stale sweep's RUNNING), resource_type=eq.X, each newest first.
CREATE INDEX job_history_status_created_at_idx ON job_history (status, created_at DESC);
CREATE INDEX job_history_resource_type_created_at_idx ON job_history (resource_type, created_at DESC);
-- duration_millis=gte.N: the slow runs are few.
CREATE INDEX job_history_duration_idx ON job_history (duration_millis);

-- job_histories joins canaries, config_scrapers and topologies on `id::text = resource_id` (resource_id is text: a run
-- may be for something that is not a row). A unique index on that expression lets PostgreSQL drop those joins from
-- an exact count (which reads no joined column) and probe them by index for a page of rows, instead of sorting the
-- whole filtered history to merge-join it. The view itself is 0041's, unchanged.
CREATE UNIQUE INDEX canaries_id_text_idx ON canaries ((id::text));
CREATE UNIQUE INDEX config_scrapers_id_text_idx ON config_scrapers ((id::text));
CREATE UNIQUE INDEX topologies_id_text_idx ON topologies ((id::text));

-- The reference's view is DISTINCT ON (name) over every row. Same column, read as a skip scan of the (name, created_at)
-- index: one index probe per distinct name, whatever the number of rows.
CREATE OR REPLACE VIEW job_history_names AS
  WITH RECURSIVE n AS (
    (SELECT jh.name FROM job_history jh WHERE jh.name IS NOT NULL ORDER BY jh.name LIMIT 1)
    UNION ALL
    SELECT (SELECT jh.name FROM job_history jh WHERE jh.name > n.name ORDER BY jh.name LIMIT 1)
    FROM n WHERE n.name IS NOT NULL
  )
  SELECT n.name FROM n WHERE n.name IS NOT NULL;
