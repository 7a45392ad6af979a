import type { UserSummary } from '@contracts/auth';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { useDeleteUser } from '../api';

/** 'Delete User ?' (spec 001, "Settings screens"). */
export function DeleteUserDialog({ user, onClose }: { user: UserSummary; onClose: () => void }) {
  const remove = useDeleteUser();
  return (
    <ConfirmDialog
      open
      title="Delete User ?"
      description={`${user.name}${user.email ? ` (${user.email})` : ''} will be signed out and can no longer sign in. This cannot be undone.`}
      confirmLabel="Delete"
      danger
      busy={remove.isPending}
      onConfirm={() => remove.mutate(user, { onSuccess: onClose })}
      onCancel={onClose}
    />
  );
}
