import { useState } from 'react';
import { Button } from '@fluentui/react-components';
import { Link20Regular } from '@fluentui/react-icons';
import { LinkToIncidentDialog, type LinkTarget } from './link-to-incident-dialog';

/**
 * The check drawer's attach-as-evidence action: "Link to Incident". The route shows it only with write on
 * incidents and the incidents feature enabled (spec 000 §6).
 */
export function CheckIncidentActions({ check, currentUserId }: { check: { id: string; name: string }; currentUserId: string }) {
  const [open, setOpen] = useState(false);
  const target: LinkTarget = { checkId: check.id, name: check.name };
  return (
    <>
      <Button icon={<Link20Regular />} onClick={() => setOpen(true)}>Link to Incident</Button>
      {open && <LinkToIncidentDialog target={target} currentUserId={currentUserId} onClose={() => setOpen(false)} />}
    </>
  );
}
