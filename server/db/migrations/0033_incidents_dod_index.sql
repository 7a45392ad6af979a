-- The definition-of-done evaluator (server/modules/incidents/dod-evaluator.ts) looks for scripted items not done yet
-- on every evidence or check change: keep that a small index scan, not a pass over all evidences.
CREATE INDEX evidences_dod_pending_idx ON evidences (updated_at)
  WHERE definition_of_done AND script IS NOT NULL AND done IS NOT TRUE;
