-- Topology health history (issue 13, "Beyond the reference"): every change of components.status, kept 30 days by a
-- retention job (server/modules/topology/history.ts). The reference keeps no history; the table is ours.
-- Written by a statement-level trigger with transition tables, like 0060's roll-up: the roll-up writes status in one
-- UPDATE per level, so a check flip that changes a pod, its service and its root writes three rows in three
-- statements, and an UPDATE that changes no status costs one join over its own rows.

CREATE TABLE component_status_history (
  component_id uuid NOT NULL CONSTRAINT component_status_history_component_id_fkey REFERENCES components (id) ON DELETE CASCADE,
  status text NOT NULL,
  previous text,
  at timestamptz NOT NULL DEFAULT clock_timestamp()
);
-- a component's transitions newest first (GET /api/topology/{id}/history), and the retention's range delete
CREATE INDEX component_status_history_component_id_at_idx ON component_status_history (component_id, at DESC);
CREATE INDEX component_status_history_at_idx ON component_status_history (at);

-- clock_timestamp, not now(): transitions written in one transaction (a roll-up walking up the tree) keep their order.
CREATE FUNCTION component_status_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO component_status_history (component_id, status, previous, at)
    SELECT n.id, n.status, o.status, clock_timestamp()
      FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE n.status IS DISTINCT FROM o.status;
  RETURN NULL;
END $$;
CREATE TRIGGER components_status_history AFTER UPDATE ON components
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION component_status_changed();
