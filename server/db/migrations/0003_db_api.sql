-- Functions exposed at /api/db/rpc/<name> (see server/modules/db/registry.ts for who may call them).

-- People whose name or email contains the query (case-insensitive), for user pickers. position() rather than ILIKE so
-- `%` and `_` in the query are plain characters.
CREATE OR REPLACE FUNCTION search_people(query text, max_results integer DEFAULT 20)
RETURNS SETOF people LANGUAGE sql STABLE AS $$
  SELECT * FROM people p
  WHERE p.deleted_at IS NULL
    AND (position(lower(query) IN lower(p.name)) > 0 OR position(lower(query) IN lower(coalesce(p.email, ''))) > 0)
  ORDER BY p.name, p.id
  LIMIT greatest(least(max_results, 200), 0)
$$;

-- The teams a person belongs to.
CREATE OR REPLACE FUNCTION person_teams(person_id uuid)
RETURNS SETOF teams LANGUAGE sql STABLE AS $$
  SELECT t.* FROM teams t JOIN team_members m ON m.team_id = t.id
  WHERE m.person_id = person_teams.person_id AND t.deleted_at IS NULL
  ORDER BY t.name
$$;

-- How many members a team has (a scalar result).
CREATE OR REPLACE FUNCTION team_member_count(team_id uuid)
RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT count(*) FROM team_members m WHERE m.team_id = team_member_count.team_id
$$;
