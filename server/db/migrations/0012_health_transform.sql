-- Transformed checks (a check's `transform` returning named results, see server/modules/health/transform.ts) belong
-- to the check whose transform made them: a run of that check removes those of its own it no longer returns, and
-- the check leaving the spec takes them along. The reference keeps this per canary run only; here one check can be
-- run alone (Run Now), so each transformed check names its maker. transform_delete_strategy is what its last result
-- asked for when it goes (MarkHealthy / MarkUnhealthy: a last status first; Ignore or none: just removed).
ALTER TABLE checks
  ADD COLUMN transformed_by uuid CONSTRAINT checks_transformed_by_fkey REFERENCES checks (id) ON DELETE CASCADE,
  ADD COLUMN transform_delete_strategy text
    CONSTRAINT checks_transform_delete_strategy_check CHECK (transform_delete_strategy IN ('MarkHealthy', 'MarkUnhealthy', 'Ignore'));

CREATE INDEX checks_transformed_by_idx ON checks (transformed_by) WHERE transformed_by IS NOT NULL;
