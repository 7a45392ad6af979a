import { useMemo, useState } from 'react';
import { Button } from '@fluentui/react-components';
import { PersonAdd20Regular } from '@fluentui/react-icons';
import type { UserSummary } from '@contracts/auth';
import { Page } from '../../../components/page';
import { useUsers } from '../api';
import { DeleteUserDialog } from './delete-user-dialog';
import { EditUserDialog } from './edit-user-dialog';
import { InviteUserDialog } from './invite-user-dialog';
import { UserTable } from './user-table';

export interface UsersSettingsProps {
  /** Write on `identities`: invite, edit and delete. */
  canWrite: boolean;
  currentUserId: string;
}

/** Settings → Users: the user table with Invite User, Edit User and delete. */
export function UsersSettings({ canWrite, currentUserId }: UsersSettingsProps) {
  const users = useUsers();
  const [inviting, setInviting] = useState(false);
  const [editing, setEditing] = useState<UserSummary | null>(null);
  const [deleting, setDeleting] = useState<UserSummary | null>(null);
  const actions = useMemo(
    () => (canWrite ? { onEdit: setEditing, onDelete: setDeleting, currentUserId } : undefined),
    [canWrite, currentUserId],
  );

  return (
    <Page
      title="Users"
      onRefresh={() => void users.refetch()}
      refreshing={users.isFetching}
      extra={
        canWrite && (
          <Button appearance="primary" icon={<PersonAdd20Regular />} onClick={() => setInviting(true)}>
            Invite User
          </Button>
        )
      }
    >
      <UserTable users={users.data} loading={users.isLoading} error={users.error} actions={actions} />
      {canWrite && <InviteUserDialog open={inviting} onOpenChange={setInviting} />}
      {editing && <EditUserDialog user={editing} onClose={() => setEditing(null)} />}
      {deleting && <DeleteUserDialog user={deleting} onClose={() => setDeleting(null)} />}
    </Page>
  );
}
