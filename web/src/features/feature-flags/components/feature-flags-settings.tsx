import { useState } from 'react';
import { Button } from '@fluentui/react-components';
import { Add20Regular } from '@fluentui/react-icons';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { Page } from '../../../components/page';
import { toast } from '../../../lib/toast';
import { isEditable, LOCAL_FLAG_TEXT, useDeleteFeatureFlag, useFeatureFlags, type FeatureFlag } from '../api';
import { FeatureFlagDialog } from './feature-flag-dialog';
import { FeatureFlagTable } from './feature-flag-table';

export interface FeatureFlagsSettingsProps {
  /** Write on `feature_flags`: add, save, delete. */
  canWrite: boolean;
  currentUserId: string;
}

type Editing = { mode: 'add' } | { mode: 'edit'; flag: FeatureFlag } | null;

/** Settings → Feature Flags: properties such as `health.disable = true`. */
export function FeatureFlagsSettings({ canWrite, currentUserId }: FeatureFlagsSettingsProps) {
  const flags = useFeatureFlags();
  const remove = useDeleteFeatureFlag();
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<FeatureFlag | null>(null);

  // local flags come from files on the server: the rule holds even where a button slipped through
  const guard = (flag: FeatureFlag, then: () => void) => (isEditable(flag) ? then() : toast.error(LOCAL_FLAG_TEXT));

  return (
    <Page
      title="Feature Flags"
      onRefresh={() => void flags.refetch()}
      refreshing={flags.isFetching}
      extra={
        canWrite && (
          <Button appearance="primary" icon={<Add20Regular />} onClick={() => setEditing({ mode: 'add' })}>
            Add Feature Flag
          </Button>
        )
      }
    >
      <FeatureFlagTable
        flags={flags.data}
        loading={flags.isLoading}
        error={flags.error}
        actions={
          canWrite
            ? {
                onEdit: (flag) => guard(flag, () => setEditing({ mode: 'edit', flag })),
                onDelete: (flag) => guard(flag, () => setDeleting(flag)),
              }
            : undefined
        }
      />
      {canWrite && (
        <FeatureFlagDialog
          open={!!editing}
          flag={editing?.mode === 'edit' ? editing.flag : undefined}
          existing={flags.data ?? []}
          currentUserId={currentUserId}
          onClose={() => setEditing(null)}
        />
      )}
      {deleting && (
        <ConfirmDialog
          open
          title="Delete Feature Flag"
          description={`Delete the feature flag ${deleting.name}? Anything it turns on or off goes back to its default.`}
          confirmLabel="Delete"
          danger
          busy={remove.isPending}
          onConfirm={() => remove.mutate(deleting, { onSuccess: () => setDeleting(null) })}
          onCancel={() => setDeleting(null)}
        />
      )}
    </Page>
  );
}
