import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { useDeletePlaybook } from '../api';
import type { PlaybookItem } from '../model';

/** "Delete playbook?": a soft delete (its runs stay); the failure toast is the spec's. */
export function DeletePlaybookDialog({ playbook, onClose, onDeleted }: { playbook: PlaybookItem; onClose: () => void; onDeleted?: () => void }) {
  const del = useDeletePlaybook();
  const title = playbook.title || playbook.name;
  return (
    <ConfirmDialog
      open
      danger
      title="Delete playbook"
      description={`Delete ${title}? It will no longer be listed or run; its past runs are kept.`}
      confirmLabel="Delete"
      busy={del.isPending}
      onCancel={onClose}
      onConfirm={() =>
        del.mutate(playbook.id, {
          onSuccess: () => {
            onClose();
            onDeleted?.();
          },
        })
      }
    />
  );
}
