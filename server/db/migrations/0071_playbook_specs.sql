-- Playbook specs (issue 14): a webhook path names one live playbook (GET|POST /api/playbook/webhook/{path}). A console
-- save that takes a used path answers 409 naming it; a CR that does is reported on its status and keeps its last row.
CREATE UNIQUE INDEX playbooks_webhook_path_key ON playbooks ((spec #>> '{on,webhook,path}'))
  WHERE deleted_at IS NULL AND spec #>> '{on,webhook,path}' IS NOT NULL;
