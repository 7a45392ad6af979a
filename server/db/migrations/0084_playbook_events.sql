-- Playbook events (issue 15 "Events"): written into event_queue in the transaction of the change, as 0081 does for
-- incidents, so notification rules can watch playbooks. Row triggers whose WHEN clause holds only when the watched
-- column changed: the engine's frequent run updates (leases, times) pay nothing.
--   playbook.run                    a run's status becomes completed, failed, cancelled or timed_out (event_id: the
--                                   run; properties: status, playbook_id)
--   playbook.approval.inserted      a playbook_approvals row is inserted (event_id: the run; properties: approval id)
--   playbook.spec.approval.updated  a playbook's spec.approval changes (event_id: the playbook)

CREATE OR REPLACE FUNCTION playbook_runs_enqueue_finished() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM event_queue_upsert('playbook.run', NEW.id,
    jsonb_build_object('status', NEW.status, 'previous', OLD.status, 'playbook_id', NEW.playbook_id));
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS playbook_runs_enqueue_finished ON playbook_runs;
CREATE TRIGGER playbook_runs_enqueue_finished AFTER UPDATE OF status ON playbook_runs
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status
                     AND NEW.status IN ('completed', 'failed', 'cancelled', 'timed_out'))
  EXECUTE FUNCTION playbook_runs_enqueue_finished();

CREATE OR REPLACE FUNCTION playbook_approvals_enqueue_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM event_queue_upsert('playbook.approval.inserted', NEW.run_id,
    jsonb_build_object('approval_id', NEW.id, 'person_id', NEW.person_id, 'team_id', NEW.team_id));
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS playbook_approvals_enqueue_inserted ON playbook_approvals;
CREATE TRIGGER playbook_approvals_enqueue_inserted AFTER INSERT ON playbook_approvals
  FOR EACH ROW EXECUTE FUNCTION playbook_approvals_enqueue_inserted();

CREATE OR REPLACE FUNCTION playbooks_enqueue_approval_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM event_queue_upsert('playbook.spec.approval.updated', NEW.id,
    jsonb_build_object('approval', NEW.spec -> 'approval'));
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS playbooks_enqueue_approval_updated ON playbooks;
CREATE TRIGGER playbooks_enqueue_approval_updated AFTER UPDATE OF spec ON playbooks
  FOR EACH ROW WHEN (OLD.spec -> 'approval' IS DISTINCT FROM NEW.spec -> 'approval')
  EXECUTE FUNCTION playbooks_enqueue_approval_updated();
