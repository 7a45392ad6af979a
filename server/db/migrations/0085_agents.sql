-- Agents (issue 16): what deleting an agent does, and the agents_summary counts checked.
--
-- agents_summary already has its real counts: checks_count (0010), config_count and config_scrapper_count (0050),
-- playbook_runs_count (0074); status/health are computed from now() on each read, so Online turns Offline 61 s after
-- the last ping without any job. Nothing here changes the view.

-- Soft-deleting an agent (deleted_at set once) retires its credentials in the same transaction, whoever deletes it
-- (the /api/db writer, SQL by hand): every token of its person expires now, and the person (type 'agent', which only
-- ever holds those tokens) is soft-deleted. The reference does this with a trigger on agents too.
CREATE OR REPLACE FUNCTION agents_retire_credentials() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.person_id IS NOT NULL THEN
    UPDATE access_tokens SET expires_at = now()
      WHERE person_id = NEW.person_id AND (expires_at IS NULL OR expires_at > now());
    UPDATE people SET deleted_at = now() WHERE id = NEW.person_id AND type = 'agent' AND deleted_at IS NULL;
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS agents_retire_credentials ON agents;
CREATE TRIGGER agents_retire_credentials AFTER UPDATE OF deleted_at ON agents FOR EACH ROW
  WHEN (OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL) EXECUTE FUNCTION agents_retire_credentials();

-- The tables an agent's rows live in: every base table of this schema with both an `agent_id` and a `deleted_at`
-- column, found in the catalog, so a table a later migration adds (or a module's own) is covered without a list to
-- keep in step. Tables with agent_id but no deleted_at are history (check_statuses, job_history, playbook runs,
-- config changes, telemetry): they are kept, as soft-deleted parents keep theirs.
CREATE OR REPLACE FUNCTION agent_owned_tables() RETURNS SETOF text LANGUAGE sql STABLE AS $$
  SELECT c.table_name::text
  FROM information_schema.columns c
  JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
  WHERE c.table_schema = current_schema() AND c.column_name = 'agent_id' AND t.table_type = 'BASE TABLE'
    AND EXISTS (SELECT 1 FROM information_schema.columns d
                WHERE d.table_schema = c.table_schema AND d.table_name = c.table_name AND d.column_name = 'deleted_at')
  ORDER BY 1
$$;

-- "Delete what it created": soft-deletes the agent's live rows in every table above; answers the count per table
-- (tables with none are left out). Never for the local agent.
CREATE OR REPLACE FUNCTION delete_agent_resources(agent uuid) RETURNS TABLE (relation text, n bigint)
LANGUAGE plpgsql AS $$
DECLARE
  tbl text;
  cnt bigint;
BEGIN
  IF agent = '00000000-0000-0000-0000-000000000000'::uuid THEN
    RAISE EXCEPTION 'the local agent''s resources are never deleted' USING ERRCODE = '42501';
  END IF;
  FOR tbl IN SELECT agent_owned_tables() LOOP
    EXECUTE format('UPDATE %I SET deleted_at = now() WHERE agent_id = $1 AND deleted_at IS NULL', tbl) USING agent;
    GET DIAGNOSTICS cnt = ROW_COUNT;
    IF cnt > 0 THEN
      relation := tbl;
      n := cnt;
      RETURN NEXT;
    END IF;
  END LOOP;
END $$;
