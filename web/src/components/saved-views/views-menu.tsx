import { useState } from 'react';
import {
  Button, Menu, MenuDivider, MenuGroup, MenuGroupHeader, MenuItem, MenuList, MenuPopover, MenuTrigger,
} from '@fluentui/react-components';
import { Bookmark20Regular, Checkmark16Regular, Delete16Regular, Save16Regular } from '@fluentui/react-icons';
import { useLocation, useSearch } from 'wouter';
import { useSession } from '../../app/session-context';
import { ConfirmDialog } from '../dialogs/confirm-dialog';
import { useDeleteView, useSavedViews } from './api';
import { canDelete, isCurrentView, viewQuery, viewsForPage, type SavedView } from './model';
import { SaveViewDialog } from './save-view-dialog';

export interface ViewsMenuProps {
  /** The page whose views are listed and saved (`/catalog/changes`); its filters are the URL's query string. */
  path: string;
}

/**
 * "Views": the saved views of this page (choosing one opens its URL, filters and all), "Save view…" for the URL as it
 * is now, and deleting one's own views (an admin's, anyone's) after a confirmation.
 */
export function ViewsMenu({ path }: ViewsMenuProps) {
  const session = useSession();
  const me = session.user.id;
  const admin = session.roles.includes('admin');
  const search = useSearch();
  const [, navigate] = useLocation();
  const list = useSavedViews(path);
  const remove = useDeleteView();
  const [saving, setSaving] = useState(false);
  const [deleting, setDeleting] = useState<SavedView | null>(null);
  const views = viewsForPage(list.data ?? [], path);
  const deletable = views.filter((v) => canDelete(v, me, admin));

  return (
    <>
      <Menu positioning="below-end">
        <MenuTrigger disableButtonEnhancement>
          <Button icon={<Bookmark20Regular />}>Views</Button>
        </MenuTrigger>
        <MenuPopover>
          <MenuList>
            <MenuGroup>
              <MenuGroupHeader>Saved views</MenuGroupHeader>
              {views.length === 0 && <MenuItem disabled>{list.isPending ? 'Loading…' : 'No saved views'}</MenuItem>}
              {views.map((v) => (
                <MenuItem
                  key={v.id}
                  icon={isCurrentView(v, path, search) ? <Checkmark16Regular aria-label="Showing" /> : <span aria-hidden />}
                  subText={v.description ?? undefined}
                  onClick={() => navigate(v.query)}
                >
                  {v.name}
                </MenuItem>
              ))}
            </MenuGroup>
            <MenuDivider />
            <MenuItem icon={<Save16Regular />} onClick={() => setSaving(true)}>Save view…</MenuItem>
            {deletable.length > 0 && (
              <Menu>
                <MenuTrigger disableButtonEnhancement>
                  <MenuItem icon={<Delete16Regular />}>Delete view</MenuItem>
                </MenuTrigger>
                <MenuPopover>
                  <MenuList>
                    {deletable.map((v) => (
                      <MenuItem key={v.id} onClick={() => setDeleting(v)}>{v.name}</MenuItem>
                    ))}
                  </MenuList>
                </MenuPopover>
              </Menu>
            )}
          </MenuList>
        </MenuPopover>
      </Menu>
      <SaveViewDialog open={saving} query={viewQuery(path, search)} views={views} me={me} onClose={() => setSaving(false)} />
      <ConfirmDialog
        open={deleting !== null}
        title="Delete view"
        description={`Delete the saved view "${deleting?.name ?? ''}"? This cannot be undone.`}
        confirmLabel="Delete"
        danger
        busy={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting, { onSuccess: () => setDeleting(null) })}
        onCancel={() => setDeleting(null)}
      />
    </>
  );
}
