-- A check evidence keeps its row when the check is deleted (evidences.check_id ON DELETE SET NULL): the "check
-- evidence needs check_id" rule applies when the evidence is created or becomes a check evidence, not to that
-- cascade, which 0030's trigger refused (so deleting a check that was evidence failed).
CREATE OR REPLACE FUNCTION evidences_validate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.type IS NULL OR NEW.type NOT IN ('log', 'config', 'topology', 'check', 'config_analysis', 'config_change', 'comment') THEN
    PERFORM incident_refuse(format('Invalid evidence type %L', NEW.type),
      'Type must be one of log, config, topology, check, config_analysis, config_change, comment');
  END IF;
  IF NEW.hypothesis_id IS NULL THEN
    PERFORM incident_refuse('Evidence needs a hypothesis (hypothesis_id)');
  END IF;
  IF NEW.type = 'check' AND NEW.check_id IS NULL AND (TG_OP = 'INSERT' OR OLD.type IS DISTINCT FROM 'check') THEN
    PERFORM incident_refuse('Check evidence needs check_id');
  END IF;
  IF NEW.description IS NULL THEN
    NEW.description := '';
  END IF;
  NEW.definition_of_done := coalesce(NEW.definition_of_done, false);
  IF TG_OP = 'INSERT' THEN
    NEW.created_by := coalesce(current_actor(), NEW.created_by);
  END IF;
  RETURN NEW;
END $$;
