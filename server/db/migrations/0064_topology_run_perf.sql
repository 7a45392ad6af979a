-- Topology run performance (issue 13 "Runs"): the statement triggers that compare a components UPDATE's old and new
-- rows joined the two transition tables on id. The planner sees a transition table as one row, so it joins them with
-- a nested loop: the roll-up's own UPDATE of a first build's 4,950 pods compared 24.5 million pairs (35 s), and the
-- status history's join as many again (25 s), of a 54-77 s first build of 5,001 components. Set operations hash
-- instead, whatever the estimate; the history's join is told not to nest.

-- As 0060's: roll up the rows whose parent, health or deletion changed (their old and new parents too). A row that
-- changed is in (new EXCEPT old) with its new values and in (old EXCEPT new) with its old ones.
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
        (SELECT id, parent_id, health, deleted_at FROM new_rows EXCEPT SELECT id, parent_id, health, deleted_at FROM old_rows)
        UNION ALL
        (SELECT id, parent_id, health, deleted_at FROM old_rows EXCEPT SELECT id, parent_id, health, deleted_at FROM new_rows)
      ) d, LATERAL unnest(ARRAY[d.id, d.parent_id]) x));
  END IF;
  RETURN NULL;
END $$;

-- 0063's history trigger keeps its join (it needs the old status beside the new); hashed, not nested.
ALTER FUNCTION component_status_changed() SET enable_nestloop = off;
