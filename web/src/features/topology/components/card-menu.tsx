import { useState } from 'react';
import { Button, Menu, MenuItem, MenuList, MenuPopover, MenuTrigger } from '@fluentui/react-components';
import {
  Camera20Regular, DocumentText20Regular, Eye20Regular, EyeOff20Regular, Library20Regular, Link20Regular,
  MoreHorizontal20Regular, ZoomIn20Regular,
} from '@fluentui/react-icons';
import { useLocation } from 'wouter';
import type { TopologyComponent } from '@contracts/topology';
import { LinkToCatalogDialog, LinkToIncidentDialog, SnapshotDialog } from '../dialogs';
import { useSetHidden } from '../api';
import { componentHref, href } from '../model';

/** What the signed-in user may do from a card (the server checks each again). */
export interface CardAbilities {
  /** The logs feature is on (View Logs shows only for components with logs). */
  logs: boolean;
  /** Admin or editor: link to catalog, hide (PATCH components). */
  write: boolean;
  /** Write on incidents with the incidents feature on: Link to Incident. */
  incidents: boolean;
  currentUserId?: string;
}

type Dialog = 'incident' | 'snapshot' | 'catalog' | null;

/** The card's "…" menu: View Logs, Zoom In, Link to Incident, Snapshot, Link to catalog, Hide. */
export function CardMenu({ component, can }: { component: TopologyComponent; can: CardAbilities }) {
  const [, navigate] = useLocation();
  const [dialog, setDialog] = useState<Dialog>(null);
  const setHidden = useSetHidden();
  const hasLogs = Array.isArray(component.logs) && component.logs.length > 0;
  const close = () => setDialog(null);
  return (
    <>
      <Menu positioning="below-end">
        <MenuTrigger disableButtonEnhancement>
          <Button appearance="subtle" size="small" icon={<MoreHorizontal20Regular />} aria-label={`Actions for ${component.name}`} />
        </MenuTrigger>
        <MenuPopover>
          <MenuList>
            {can.logs && hasLogs && (
              <MenuItem icon={<DocumentText20Regular />} onClick={() => navigate(href('/logs', { topologyId: component.id }))}>
                View Logs
              </MenuItem>
            )}
            <MenuItem icon={<ZoomIn20Regular />} onClick={() => navigate(componentHref(component.id))}>Zoom In</MenuItem>
            {can.incidents && <MenuItem icon={<Link20Regular />} onClick={() => setDialog('incident')}>Link to Incident</MenuItem>}
            <MenuItem icon={<Camera20Regular />} onClick={() => setDialog('snapshot')}>Snapshot</MenuItem>
            {can.write && <MenuItem icon={<Library20Regular />} onClick={() => setDialog('catalog')}>Link to catalog</MenuItem>}
            {can.write && (
              <MenuItem
                icon={component.hidden ? <Eye20Regular /> : <EyeOff20Regular />}
                onClick={() => setHidden.mutate({ id: component.id, hidden: !component.hidden })}
              >
                {component.hidden ? 'Show component' : 'Hide component'}
              </MenuItem>
            )}
          </MenuList>
        </MenuPopover>
      </Menu>
      {dialog === 'incident' && <LinkToIncidentDialog open onClose={close} component={component} currentUserId={can.currentUserId} />}
      {dialog === 'snapshot' && <SnapshotDialog open onClose={close} component={component} />}
      {dialog === 'catalog' && <LinkToCatalogDialog open onClose={close} component={component} />}
    </>
  );
}
