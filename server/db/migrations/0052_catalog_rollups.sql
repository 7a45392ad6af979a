-- Item rollups for POST /api/catalog/summary (issue 12, "Performance"). 0051 keeps changes per day and open insights
-- per group in config_summary_rollup; the summary still read every item for its counts, health, costs and latest
-- times (90 ms at 100,000 items). These two tables hold those per group, kept by statement triggers on config_items,
-- so the common summary (one grouping key, no item filter) reads a few hundred rollup rows and no item.

-- A tag whose value is JSON null has no value (`tags ->> key` is null: the item belongs to the null group, as the
-- exact query counts it); 0051's version handed the rollups a null value, which their NOT NULL key refused.
CREATE OR REPLACE FUNCTION config_item_dims(type text, config_class text, tags jsonb) RETURNS TABLE (dim text, value text)
LANGUAGE sql IMMUTABLE AS $$
  SELECT 'type', type WHERE type IS NOT NULL
  UNION ALL SELECT 'config_class', config_class WHERE config_class IS NOT NULL
  UNION ALL SELECT 'tag:' || t.key, t.value FROM jsonb_each_text(CASE WHEN jsonb_typeof(tags) = 'object' THEN tags END) t
    WHERE t.value IS NOT NULL
$$;

-- Items per group (dim as in config_summary_rollup), live or deleted, and health (null: no health). Sums only, so a
-- delta applies by addition; each cost keeps how many items have one, so an all-null group answers null as sum() does.
CREATE TABLE config_item_rollup (
  dim text NOT NULL,
  value text NOT NULL,
  live boolean NOT NULL,
  health text,
  n bigint NOT NULL,
  cost_per_minute numeric NOT NULL, cost_per_minute_n bigint NOT NULL,
  cost_total_1d numeric NOT NULL, cost_total_1d_n bigint NOT NULL,
  cost_total_7d numeric NOT NULL, cost_total_7d_n bigint NOT NULL,
  cost_total_30d numeric NOT NULL, cost_total_30d_n bigint NOT NULL,
  CONSTRAINT config_item_rollup_key UNIQUE NULLS NOT DISTINCT (dim, value, live, health)
);

-- The group's latest created_at/updated_at. A maximum only grows by addition: when the item holding it leaves the
-- group (deleted, retyped, re-tagged, removed) the trigger recounts that group from config_items. Not kept per health,
-- so a health change (the frequent update) never recounts.
CREATE TABLE config_item_rollup_latest (
  dim text NOT NULL,
  value text NOT NULL,
  live boolean NOT NULL,
  created_at timestamptz,
  updated_at timestamptz,
  PRIMARY KEY (dim, value, live)
);

-- One item's contribution, +1 or -1.
CREATE TYPE config_item_rollup_delta AS (
  sign integer, type text, config_class text, tags jsonb, health text, live boolean,
  cost_per_minute numeric, cost_total_1d numeric, cost_total_7d numeric, cost_total_30d numeric,
  created_at timestamptz, updated_at timestamptz
);

CREATE FUNCTION config_item_rollup_delta_of(sign integer, ci config_items) RETURNS config_item_rollup_delta
LANGUAGE sql IMMUTABLE AS $$
  SELECT ROW(sign, ci.type, ci.config_class, ci.tags, ci.health, ci.deleted_at IS NULL, ci.cost_per_minute,
    ci.cost_total_1d, ci.cost_total_7d, ci.cost_total_30d, ci.created_at, ci.updated_at)::config_item_rollup_delta
$$;

-- The latest times of one group, counted from the items.
CREATE FUNCTION config_item_rollup_latest_of(p_dim text, p_value text, p_live boolean,
  OUT created_at timestamptz, OUT updated_at timestamptz) LANGUAGE sql STABLE AS $$
  SELECT max(x.created_at), max(x.updated_at) FROM (
    SELECT ci.created_at, ci.updated_at FROM config_items ci
    WHERE p_dim = 'type' AND ci.type = p_value AND (ci.deleted_at IS NULL) = p_live
    UNION ALL
    SELECT ci.created_at, ci.updated_at FROM config_items ci
    WHERE p_dim = 'config_class' AND ci.config_class = p_value AND (ci.deleted_at IS NULL) = p_live
    UNION ALL
    SELECT ci.created_at, ci.updated_at FROM config_items ci
    WHERE p_dim LIKE 'tag:%' AND ci.tags ->> substr(p_dim, 5) = p_value AND (ci.deleted_at IS NULL) = p_live
  ) x
$$;

-- Per group: the latest times arriving (+1) and leaving (-1).
CREATE FUNCTION config_item_rollup_moves(deltas config_item_rollup_delta[]) RETURNS TABLE (dim text, value text,
  live boolean, in_created timestamptz, in_updated timestamptz, out_created timestamptz, out_updated timestamptz)
LANGUAGE sql IMMUTABLE AS $$
  SELECT g.dim, g.value, d.live,
         max(d.created_at) FILTER (WHERE d.sign > 0), max(d.updated_at) FILTER (WHERE d.sign > 0),
         max(d.created_at) FILTER (WHERE d.sign < 0), max(d.updated_at) FILTER (WHERE d.sign < 0)
  FROM unnest(deltas) d, config_item_dims(d.type, d.config_class, d.tags) g
  GROUP BY 1, 2, 3
$$;

CREATE FUNCTION config_item_rollup_apply(deltas config_item_rollup_delta[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF deltas IS NULL OR cardinality(deltas) = 0 THEN RETURN; END IF;
  INSERT INTO config_item_rollup AS r (dim, value, live, health, n, cost_per_minute, cost_per_minute_n,
    cost_total_1d, cost_total_1d_n, cost_total_7d, cost_total_7d_n, cost_total_30d, cost_total_30d_n)
  SELECT g.dim, g.value, d.live, d.health, sum(d.sign),
         sum(d.sign * coalesce(d.cost_per_minute, 0)), sum(d.sign * (d.cost_per_minute IS NOT NULL)::int),
         sum(d.sign * coalesce(d.cost_total_1d, 0)), sum(d.sign * (d.cost_total_1d IS NOT NULL)::int),
         sum(d.sign * coalesce(d.cost_total_7d, 0)), sum(d.sign * (d.cost_total_7d IS NOT NULL)::int),
         sum(d.sign * coalesce(d.cost_total_30d, 0)), sum(d.sign * (d.cost_total_30d IS NOT NULL)::int)
  FROM unnest(deltas) d, config_item_dims(d.type, d.config_class, d.tags) g
  GROUP BY 1, 2, 3, 4
  ON CONFLICT (dim, value, live, health) DO UPDATE SET n = r.n + EXCLUDED.n,
    cost_per_minute = r.cost_per_minute + EXCLUDED.cost_per_minute, cost_per_minute_n = r.cost_per_minute_n + EXCLUDED.cost_per_minute_n,
    cost_total_1d = r.cost_total_1d + EXCLUDED.cost_total_1d, cost_total_1d_n = r.cost_total_1d_n + EXCLUDED.cost_total_1d_n,
    cost_total_7d = r.cost_total_7d + EXCLUDED.cost_total_7d, cost_total_7d_n = r.cost_total_7d_n + EXCLUDED.cost_total_7d_n,
    cost_total_30d = r.cost_total_30d + EXCLUDED.cost_total_30d, cost_total_30d_n = r.cost_total_30d_n + EXCLUDED.cost_total_30d_n;

  -- Two statements: the recount must see the maxima the first one raised.
  INSERT INTO config_item_rollup_latest AS r (dim, value, live, created_at, updated_at)
  SELECT m.dim, m.value, m.live, m.in_created, m.in_updated FROM config_item_rollup_moves(deltas) m
  WHERE m.in_created IS NOT NULL OR m.in_updated IS NOT NULL
  ON CONFLICT (dim, value, live) DO UPDATE SET created_at = greatest(r.created_at, EXCLUDED.created_at),
    updated_at = greatest(r.updated_at, EXCLUDED.updated_at);
  -- A leaving item held a maximum that no arriving item matches: recount that group.
  UPDATE config_item_rollup_latest r SET created_at = l.created_at, updated_at = l.updated_at
  FROM config_item_rollup_moves(deltas) m, LATERAL config_item_rollup_latest_of(m.dim, m.value, m.live) l
  WHERE r.dim = m.dim AND r.value = m.value AND r.live = m.live
    AND ((m.out_created >= r.created_at AND m.out_created > coalesce(m.in_created, '-infinity'))
      OR (m.out_updated >= r.updated_at AND m.out_updated > coalesce(m.in_updated, '-infinity')));
END $$;

CREATE FUNCTION config_items_item_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  leaving config_item_rollup_delta[];
  arriving config_item_rollup_delta[];
BEGIN
  -- each branch names only the transition tables its event has
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    leaving := ARRAY(SELECT config_item_rollup_delta_of(-1, o) FROM old_rows o);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    arriving := ARRAY(SELECT config_item_rollup_delta_of(1, n) FROM new_rows n);
  END IF;
  PERFORM config_item_rollup_apply(coalesce(leaving, '{}') || coalesce(arriving, '{}'));
  RETURN NULL;
END $$;
CREATE TRIGGER config_items_item_rollup_insert AFTER INSERT ON config_items
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION config_items_item_rollup();
CREATE TRIGGER config_items_item_rollup_update AFTER UPDATE ON config_items
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION config_items_item_rollup();
CREATE TRIGGER config_items_item_rollup_delete AFTER DELETE ON config_items
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION config_items_item_rollup();

-- The items already there.
SELECT config_item_rollup_apply(ARRAY(SELECT config_item_rollup_delta_of(1, ci) FROM config_items ci));

-- The changes page counts its window by change type (POST /api/catalog/changes `summary` and `total`): with the type
-- and item in the index, the count of two days (66,000 of 1,000,000 changes) reads the index only.
CREATE INDEX config_changes_created_at_type_idx ON config_changes (created_at) INCLUDE (change_type, config_id);

-- Changes per UTC hour and change type, of live and of deleted items: the changes page's `summary` and `total` for a
-- window with no other filter add whole hours from here and count only the partial hours at its edges (a two-day
-- window: 48 rollup rows per type and about an hour of changes, instead of 66,000 changes).
CREATE TABLE config_change_rollup (
  hour timestamptz NOT NULL,
  change_type text,
  live boolean NOT NULL,
  n bigint NOT NULL,
  CONSTRAINT config_change_rollup_key UNIQUE NULLS NOT DISTINCT (hour, change_type, live)
);

CREATE TYPE config_change_rollup_delta AS (sign integer, config_id uuid, created_at timestamptz, change_type text);

-- Liveness comes from the item: a change whose item is gone (removed with it by cascade) counts nowhere, the item's
-- own trigger having taken its changes away first.
CREATE FUNCTION config_change_rollup_apply(deltas config_change_rollup_delta[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO config_change_rollup AS r (hour, change_type, live, n)
  SELECT date_trunc('hour', d.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', d.change_type, ci.deleted_at IS NULL, sum(d.sign)
  FROM unnest(deltas) d JOIN config_items ci ON ci.id = d.config_id
  GROUP BY 1, 2, 3
  ON CONFLICT (hour, change_type, live) DO UPDATE SET n = r.n + EXCLUDED.n
$$;

CREATE FUNCTION config_changes_hour_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  leaving config_change_rollup_delta[];
  arriving config_change_rollup_delta[];
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    leaving := ARRAY(SELECT ROW(-1, o.config_id, o.created_at, o.change_type)::config_change_rollup_delta FROM old_rows o);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    arriving := ARRAY(SELECT ROW(1, n.config_id, n.created_at, n.change_type)::config_change_rollup_delta FROM new_rows n);
  END IF;
  PERFORM config_change_rollup_apply(coalesce(leaving, '{}') || coalesce(arriving, '{}'));
  RETURN NULL;
END $$;
CREATE TRIGGER config_changes_hour_rollup_insert AFTER INSERT ON config_changes
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION config_changes_hour_rollup();
CREATE TRIGGER config_changes_hour_rollup_update AFTER UPDATE ON config_changes
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION config_changes_hour_rollup();
CREATE TRIGGER config_changes_hour_rollup_delete AFTER DELETE ON config_changes
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION config_changes_hour_rollup();

-- An item deleted or restored moves its changes between live and deleted; an item removed takes them away before its
-- changes go by cascade.
CREATE FUNCTION config_item_change_rollup_move(item uuid, from_live boolean, to_live boolean) RETURNS void LANGUAGE sql AS $$
  INSERT INTO config_change_rollup AS r (hour, change_type, live, n)
  SELECT date_trunc('hour', cc.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', cc.change_type, m.live, m.sign * count(*)
  FROM config_changes cc, (VALUES (from_live, -1), (to_live, 1)) m(live, sign)
  WHERE cc.config_id = item AND m.live IS NOT NULL
  GROUP BY 1, 2, 3, m.sign
  ON CONFLICT (hour, change_type, live) DO UPDATE SET n = r.n + EXCLUDED.n
$$;
CREATE FUNCTION config_items_change_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM config_item_change_rollup_move(OLD.id, OLD.deleted_at IS NULL, NULL);
    RETURN OLD;
  END IF;
  PERFORM config_item_change_rollup_move(NEW.id, OLD.deleted_at IS NULL, NEW.deleted_at IS NULL);
  RETURN NEW;
END $$;
CREATE TRIGGER config_items_change_rollup_update AFTER UPDATE OF deleted_at ON config_items
  FOR EACH ROW WHEN ((OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL)) EXECUTE FUNCTION config_items_change_rollup();
CREATE TRIGGER config_items_change_rollup_delete BEFORE DELETE ON config_items
  FOR EACH ROW EXECUTE FUNCTION config_items_change_rollup();

INSERT INTO config_change_rollup (hour, change_type, live, n)
SELECT date_trunc('hour', cc.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', cc.change_type, ci.deleted_at IS NULL, count(*)
FROM config_changes cc JOIN config_items ci ON ci.id = cc.config_id GROUP BY 1, 2, 3;

-- A filtered summary reads each matching item's open insights by type and severity from the index alone.
CREATE INDEX config_analysis_open_config_id_idx ON config_analysis (config_id) INCLUDE (analysis_type, severity) WHERE status = 'open';
