import { useState } from 'react';
import { Button, Text } from '@fluentui/react-components';
import { AppDialog } from '../../../components/app-dialog';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { useDeleteAgent } from '../api';

export interface DeleteAgentFlowProps {
  agent: { id: string; name: string };
  onCancel: () => void;
  onDeleted: () => void;
}

/**
 * Spec 000 §4 "Agent deletion", two steps: whether to delete what the agent created (Yes → cleanup, No → keep it),
 * then the confirmation.
 */
export function DeleteAgentFlow({ agent, onCancel, onDeleted }: DeleteAgentFlowProps) {
  const [cleanup, setCleanup] = useState<boolean | null>(null);
  const remove = useDeleteAgent();
  if (cleanup === null) {
    return (
      <AppDialog
        open
        onOpenChange={(open) => !open && onCancel()}
        title="Delete agent resources?"
        size="very-small"
        actions={
          <>
            <Button onClick={onCancel}>Cancel</Button>
            <Button onClick={() => setCleanup(false)}>No</Button>
            <Button appearance="primary" onClick={() => setCleanup(true)}>
              Yes
            </Button>
          </>
        }
      >
        <Text>Do you want to delete the checks, configs and other resources that {agent.name} created as well?</Text>
      </AppDialog>
    );
  }
  return (
    <ConfirmDialog
      open
      danger
      title="Delete agent"
      description={
        cleanup
          ? `Delete ${agent.name} and everything it created? Its token stops working at once.`
          : `Delete ${agent.name}? What it created stays; its token stops working at once.`
      }
      confirmLabel="Delete"
      busy={remove.isPending}
      busyLabel="Deleting…"
      initialFocus="cancel"
      onCancel={onCancel}
      onConfirm={() => remove.mutate({ id: agent.id, cleanup }, { onSuccess: onDeleted })}
    />
  );
}
