-- A component's static `summary` (issue 13): canary-checker's ComponentSpec.summary (duty types.Summary) carries
-- incidents ({type: {severity: n}}) and insights ({analysis_type: {severity: n}}) that Component.Summarize adds to the
-- counts it rolls up (its healthy/unhealthy/warning/info/checks are always computed, never taken from the spec). The
-- runner writes the spec's incidents and insights to static_summary (ours: the roll-up owns `summary`); the roll-up
-- below is 0060's with them added to the component's own, so they sum up the tree like linked incidents and insights.

ALTER TABLE components ADD COLUMN static_summary jsonb;

CREATE OR REPLACE FUNCTION topology_rollup(p_ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  ids uuid[] := ARRAY(SELECT DISTINCT x FROM unnest(p_ids) x WHERE x IS NOT NULL);
  changed uuid[] := '{}';
  round_changed uuid[];
  rounds int := 0;
BEGIN
  -- 64 levels bound the walk even if the data held a loop (the parent trigger refuses new ones)
  WHILE cardinality(ids) > 0 AND rounds < 64 LOOP
    rounds := rounds + 1;
    WITH target AS (
      SELECT c.id, c.health FROM components c WHERE c.id = ANY (ids) AND c.deleted_at IS NULL
    ),
    votes AS (
      SELECT r.component_id AS id, CASE WHEN ch.status = 'healthy' THEN 'healthy' ELSE 'unhealthy' END AS v
        FROM check_component_relationships r JOIN checks ch ON ch.id = r.check_id AND ch.deleted_at IS NULL
        WHERE r.component_id = ANY (ids) AND r.deleted_at IS NULL AND ch.status IS NOT NULL
      UNION ALL
      SELECT r.component_id, ci.health
        FROM config_component_relationships r JOIN config_items ci ON ci.id = r.config_id AND ci.deleted_at IS NULL
        WHERE r.component_id = ANY (ids) AND r.deleted_at IS NULL AND ci.health IN ('healthy', 'unhealthy', 'warning', 'info')
      UNION ALL
      SELECT t.id, t.health FROM target t WHERE t.health IN ('healthy', 'unhealthy', 'warning', 'info')
    ),
    own AS (
      SELECT id, count(*) FILTER (WHERE v = 'healthy') AS h, count(*) FILTER (WHERE v = 'unhealthy') AS u,
             count(*) FILTER (WHERE v = 'warning') AS w, count(*) FILTER (WHERE v = 'info') AS i
        FROM votes GROUP BY id
    ),
    kids AS (
      SELECT k.parent_id AS id, coalesce(k.summary, '{}') AS s
        FROM components k WHERE k.parent_id = ANY (ids) AND k.deleted_at IS NULL
    ),
    contrib AS (
      SELECT id, coalesce((s->>'healthy')::int, 0) AS h, coalesce((s->>'unhealthy')::int, 0) AS u,
             coalesce((s->>'warning')::int, 0) AS w, coalesce((s->>'info')::int, 0) AS i
        FROM kids
      UNION ALL
      SELECT o.id, o.h, o.u, o.w, o.i FROM own o WHERE o.id IN (SELECT id FROM kids)
    ),
    parents AS (
      SELECT id, sum(CASE WHEN h > 0 AND u = 0 THEN 1 ELSE 0 END) AS h, sum(CASE WHEN u > 0 AND h = 0 THEN 1 ELSE 0 END) AS u,
             sum(CASE WHEN h > 0 AND u > 0 THEN 1 ELSE 0 END + w) AS w, sum(i) AS i
        FROM contrib GROUP BY id
    ),
    counts AS (
      SELECT t.id,
             coalesce(p.h, o.h, 0)::int AS h, coalesce(p.u, o.u, 0)::int AS u,
             coalesce(p.w, o.w, 0)::int AS w, coalesce(p.i, o.i, 0)::int AS i
        FROM target t LEFT JOIN parents p ON p.id = t.id LEFT JOIN own o ON o.id = t.id AND p.id IS NULL
    ),
    check_counts AS (
      SELECT id, jsonb_object_agg(k, n) AS m FROM (
        SELECT id, k, sum(n)::int AS n FROM (
          SELECT r.component_id AS id, coalesce(ch.status, 'unknown') AS k, 1 AS n
            FROM check_component_relationships r JOIN checks ch ON ch.id = r.check_id AND ch.deleted_at IS NULL
            WHERE r.component_id = ANY (ids) AND r.deleted_at IS NULL
          UNION ALL
          SELECT kids.id, e.key, e.value::int
            FROM kids, jsonb_each_text(CASE WHEN jsonb_typeof(kids.s->'checks') = 'object' THEN kids.s->'checks' ELSE '{}' END) e
        ) x GROUP BY id, k
      ) y GROUP BY id
    ),
    nested AS (
      SELECT 'incidents' AS kind, e.component_id AS id, i.type AS a, i.severity AS b, count(DISTINCT i.id)::int AS n
        FROM evidences e JOIN hypotheses h ON h.id = e.hypothesis_id JOIN incidents i ON i.id = h.incident_id
        WHERE e.component_id = ANY (ids) AND i.resolved IS NULL AND i.closed IS NULL
        GROUP BY e.component_id, i.type, i.severity
      UNION ALL
      SELECT 'insights', r.component_id, ca.analysis_type, ca.severity, count(*)::int
        FROM config_component_relationships r
        JOIN config_items ci ON ci.id = r.config_id AND ci.deleted_at IS NULL
        JOIN config_analysis ca ON ca.config_id = r.config_id AND ca.status = 'open'
        WHERE r.component_id = ANY (ids) AND r.deleted_at IS NULL
        GROUP BY r.component_id, ca.analysis_type, ca.severity
      UNION ALL
      SELECT kind, kids.id, t.key, sv.key, sv.value::int
        FROM kids, (VALUES ('incidents'), ('insights')) k(kind),
          jsonb_each(CASE WHEN jsonb_typeof(kids.s->k.kind) = 'object' THEN kids.s->k.kind ELSE '{}' END) t,
          jsonb_each_text(CASE WHEN jsonb_typeof(t.value) = 'object' THEN t.value ELSE '{}' END) sv
      UNION ALL
      -- the spec's static summary (its incidents and insights), as canary-checker's Component.Summarize
      SELECT k.kind, c.id, t.key, sv.key, sv.value::int
        FROM components c, (VALUES ('incidents'), ('insights')) k(kind),
          jsonb_each(CASE WHEN jsonb_typeof(c.static_summary->k.kind) = 'object' THEN c.static_summary->k.kind ELSE '{}' END) t,
          jsonb_each_text(CASE WHEN jsonb_typeof(t.value) = 'object' THEN t.value ELSE '{}' END) sv
        WHERE c.id = ANY (ids) AND c.deleted_at IS NULL AND c.static_summary IS NOT NULL AND sv.value ~ '^[0-9]{1,9}$'
    ),
    by_type AS (
      SELECT kind, id, a, jsonb_object_agg(b, n) AS m FROM (
        SELECT kind, id, coalesce(a, 'unknown') AS a, coalesce(b, 'unknown') AS b, sum(n)::int AS n
          FROM nested GROUP BY 1, 2, 3, 4
      ) x GROUP BY kind, id, a
    ),
    maps AS (
      SELECT id, jsonb_object_agg(kind, m) AS m FROM (
        SELECT kind, id, jsonb_object_agg(a, m) AS m FROM by_type GROUP BY kind, id
      ) x GROUP BY id
    ),
    computed AS (
      SELECT c.id,
             jsonb_build_object('healthy', c.h, 'unhealthy', c.u, 'warning', c.w, 'info', c.i,
               'checks', coalesce(cc.m, '{}'), 'incidents', coalesce(mp.m->'incidents', '{}'),
               'insights', coalesce(mp.m->'insights', '{}')) AS summary,
             CASE WHEN c.h > 0 AND c.u > 0 THEN 'warning' WHEN c.u > 0 THEN 'unhealthy' WHEN c.w > 0 THEN 'warning'
                  WHEN c.h > 0 THEN 'healthy' WHEN c.i > 0 THEN 'info' ELSE 'unknown' END AS status
        FROM counts c LEFT JOIN check_counts cc ON cc.id = c.id LEFT JOIN maps mp ON mp.id = c.id
    ),
    written AS (
      UPDATE components c SET summary = n.summary, status = n.status
        FROM computed n
        WHERE c.id = n.id AND (c.summary IS DISTINCT FROM n.summary OR c.status IS DISTINCT FROM n.status)
        RETURNING c.id, c.parent_id
    )
    SELECT array_agg(id), ARRAY(SELECT DISTINCT w.parent_id FROM written w WHERE w.parent_id IS NOT NULL)
      INTO round_changed, ids FROM written;
    changed := changed || coalesce(round_changed, '{}');
  END LOOP;
  IF cardinality(changed) > 0 THEN
    PERFORM incident_notify('components', changed);
  END IF;
END $$;

-- As 0064's: a change of static_summary rolls the component (and so its ancestors) up too.
CREATE OR REPLACE FUNCTION topology_components_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM topology_rollup(ARRAY(SELECT id FROM new_rows UNION SELECT parent_id FROM new_rows));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM topology_rollup(ARRAY(SELECT parent_id FROM old_rows));
  ELSE
    -- the roll-up's own writes (summary, status) change none of these, so it does not recurse
    PERFORM topology_rollup(ARRAY(
      SELECT x FROM (
        (SELECT id, parent_id, health, deleted_at, static_summary FROM new_rows
          EXCEPT SELECT id, parent_id, health, deleted_at, static_summary FROM old_rows)
        UNION ALL
        (SELECT id, parent_id, health, deleted_at, static_summary FROM old_rows
          EXCEPT SELECT id, parent_id, health, deleted_at, static_summary FROM new_rows)
      ) d, LATERAL unnest(ARRAY[d.id, d.parent_id]) x));
  END IF;
  RETURN NULL;
END $$;
