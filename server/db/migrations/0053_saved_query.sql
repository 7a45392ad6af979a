-- Saved views (issue 12, "Beyond the reference"): a named page URL, kept in the reference's saved_query table. The
-- reference's columns and types are kept as they are (created_by is text there: it holds the person id as text); name
-- is ours, as spec 000 §7's POST sends it ("Saved query: POST with name, id, query"). Who may change a row is the
-- db module's owner rule (registry.ts `owner`), not a trigger: the creator, or an admin.
CREATE TABLE saved_query (
  id uuid PRIMARY KEY DEFAULT generate_ulid(),
  name text NOT NULL CONSTRAINT saved_query_name_not_blank CHECK (btrim(name) <> ''),
  icon text,
  description text,
  query text NOT NULL,
  columns jsonb,
  created_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- one name per person: the Views menu lists a person's views by name
  CONSTRAINT saved_query_name_per_creator UNIQUE (created_by, name)
);
CREATE TRIGGER saved_query_updated_at BEFORE UPDATE ON saved_query FOR EACH ROW EXECUTE FUNCTION set_updated_at();
