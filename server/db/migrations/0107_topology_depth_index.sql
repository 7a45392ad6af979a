-- GET /api/topology without an id (issue 13, the cards page asks depth=2) picks the live components down to a depth
-- computed from `path` (the ancestors' ids, dot-separated). Without an index on that depth it scanned every
-- component: 20,000 read to keep the 2,000 of the first two levels. The expression is queries.ts's DEPTH, verbatim.
CREATE INDEX components_depth_idx ON components
  ((CASE WHEN coalesce(path, '') = '' THEN 0 ELSE array_length(string_to_array(path, '.'), 1) END))
  WHERE deleted_at IS NULL;
