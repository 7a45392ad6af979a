import { lazy, Suspense, useState } from 'react';
import { Button, Menu, MenuItem, MenuList, MenuPopover, MenuTrigger, Spinner } from '@fluentui/react-components';
import { ChevronDown16Regular, Play20Regular } from '@fluentui/react-icons';
import { playbookTitle, usePlaybooksFor, type PlaybookLite, type PlaybookResource } from './api';

// the dialog (forms, pickers, YAML) loads with the first click on a playbook, not with the page holding the menu
const RunPlaybookDialog = lazy(() => import('./run-playbook-dialog').then((m) => ({ default: m.RunPlaybookDialog })));

export interface PlaybooksMenuProps {
  /** The check, catalog item or component the playbooks would run on. */
  resource: PlaybookResource;
  /** playbook_runs write: without it the menu is not shown (the server refuses the run too). */
  canRun: boolean;
  appearance?: 'primary' | 'secondary' | 'subtle';
}

/**
 * "Playbooks": the playbooks that may run on the resource (`GET /api/playbook/list`), each opening the run dialog with
 * the resource chosen. Hidden when none can run or the caller may not run playbooks.
 */
export function PlaybooksMenu({ resource, canRun, appearance = 'secondary' }: PlaybooksMenuProps) {
  const playbooks = usePlaybooksFor(resource, canRun);
  const [chosen, setChosen] = useState<PlaybookLite | null>(null);
  if (!canRun) return null;
  if (playbooks.isSuccess && !playbooks.data.length) return null;
  return (
    <>
      <Menu positioning="above-end">
        <MenuTrigger disableButtonEnhancement>
          <Button appearance={appearance} icon={<Play20Regular />} iconPosition="before" disabled={!playbooks.data}>
            Playbooks {playbooks.isLoading ? <Spinner size="extra-tiny" /> : <ChevronDown16Regular />}
          </Button>
        </MenuTrigger>
        <MenuPopover>
          <MenuList>
            {(playbooks.data ?? []).map((p) => (
              <MenuItem key={p.id} onClick={() => setChosen(p)}>
                {playbookTitle(p)}
              </MenuItem>
            ))}
          </MenuList>
        </MenuPopover>
      </Menu>
      {chosen && (
        <Suspense fallback={null}>
          <RunPlaybookDialog open playbook={chosen} resource={resource} onClose={() => setChosen(null)} />
        </Suspense>
      )}
    </>
  );
}
