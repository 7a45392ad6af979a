import { useState } from 'react';
import { Button } from '@fluentui/react-components';
import { Add20Regular, ErrorCircle24Regular } from '@fluentui/react-icons';
import { DataTable } from '../../../components/data-table/data-table';
import { useDataTableState } from '../../../components/data-table/use-data-table-state';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { EmptyState } from '../../../components/empty-state';
import { Page } from '../../../components/page';
import { errorMessage } from '../../../lib/api-client';
import { useSearchPatch } from '../../../lib/url-state';
import { useDeleteRule, useRule, useRules } from './api';
import type { RuleRow } from './model';
import { useRuleColumns } from './rule-columns';
import { RuleFormDialog } from './rule-form-dialog';

const NO_ROWS: RuleRow[] = [];
export const RULES_PAGE_SIZE = 50;

export interface NotificationRulesProps {
  /** Write on notifications: Create Notification, Update, Delete (spec 001 §6). */
  canWrite: boolean;
  currentUserId: string;
}

/** /notifications/rules: server-paged and sorted rules; `?id=` opens a rule's edit modal (a shareable link). */
export function NotificationRules({ canWrite, currentUserId }: NotificationRulesProps) {
  const table = useDataTableState({ defaultSort: { id: 'name' }, defaultPageSize: RULES_PAGE_SIZE });
  const { pagination, sorting } = table.state;
  const page = {
    pageIndex: pagination.pageIndex,
    pageSize: pagination.pageSize,
    sortBy: sorting[0]?.id ?? 'name',
    desc: sorting[0]?.desc ?? false,
  };
  const rules = useRules(page);
  const columns = useRuleColumns();
  const [params, patch] = useSearchPatch();
  const openId = params.get('id') ?? undefined;
  const opened = useRule(openId);
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<RuleRow | null>(null);
  const remove = useDeleteRule();
  const close = () => patch({ id: undefined }, { replace: false });

  const create = canWrite && (
    <Button appearance="primary" icon={<Add20Regular />} onClick={() => setCreating(true)}>
      Create Notification
    </Button>
  );

  return (
    <Page title="Notification Rules" onRefresh={() => void rules.refetch()} refreshing={rules.isFetching} extra={create}>
      {rules.error && !rules.data ? (
        <EmptyState
          icon={<ErrorCircle24Regular />}
          title="Notification rules could not be loaded"
          description={errorMessage(rules.error)}
          role="alert"
          actions={<Button onClick={() => void rules.refetch()}>Try again</Button>}
        />
      ) : (
        <DataTable
          label="Notification rules"
          columns={columns}
          data={rules.data?.rows ?? NO_ROWS}
          getRowId={(r) => r.id}
          loading={rules.isFetching}
          manual
          total={rules.data?.total ?? 0}
          state={table}
          defaultPageSize={RULES_PAGE_SIZE}
          defaultSort={{ id: 'name' }}
          emptyMessage="No notification rules yet"
          onRowClick={(r) => patch({ id: r.id }, { replace: false })}
        />
      )}

      {creating && <RuleFormDialog canWrite={canWrite} currentUserId={currentUserId} onClose={() => setCreating(false)} />}
      {openId && opened.data && (
        <RuleFormDialog
          key={opened.data.id}
          rule={opened.data}
          canWrite={canWrite}
          currentUserId={currentUserId}
          onClose={close}
          onDelete={setDeleting}
        />
      )}
      {openId && opened.data === null && (
        <ConfirmDialog
          open
          title="Notification not found"
          description={`There is no notification rule with id ${openId}; it may have been deleted.`}
          confirmLabel="Close"
          onConfirm={close}
          onCancel={close}
        />
      )}
      {deleting && (
        <ConfirmDialog
          open
          danger
          title="Delete Notification"
          description={`Are you sure you want to delete the notification ${deleting.name ?? ''}?`}
          confirmLabel="Delete"
          busy={remove.isPending}
          busyLabel="Deleting…"
          onCancel={() => setDeleting(null)}
          onConfirm={() =>
            remove.mutate(deleting.id, {
              onSuccess: () => {
                setDeleting(null);
                close();
              },
            })
          }
        />
      )}
    </Page>
  );
}
