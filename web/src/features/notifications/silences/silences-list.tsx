import { useMemo, useState } from 'react';
import { useLocation } from 'wouter';
import { Button, makeStyles, mergeClasses, tokens } from '@fluentui/react-components';
import { Add20Regular, Delete20Regular, ErrorCircle24Regular } from '@fluentui/react-icons';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { DataTable } from '../../../components/data-table/data-table';
import { useDataTableState } from '../../../components/data-table/use-data-table-state';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { EmptyState } from '../../../components/empty-state';
import { Page } from '../../../components/page';
import { PersonAvatar } from '../../../components/status/person-avatars';
import { errorMessage } from '../../../lib/api-client';
import { useDeleteSilence, useSilences } from './api';
import { EditSilenceDialog } from './edit-silence-dialog';
import { isExpired, silenceDuration, silenceTarget, type SilenceRow } from './model';

const useStyles = makeStyles({
  expired: { textDecorationLine: 'line-through', color: tokens.colorNeutralForeground3 },
  kind: { color: tokens.colorNeutralForeground3, marginRight: tokens.spacingHorizontalXS },
});

const col = dataTableColumns<SilenceRow>();
const NO_ROWS: SilenceRow[] = [];
export const SILENCES_PAGE_SIZE = 50;

function useColumns(canWrite: boolean, onDelete: (s: SilenceRow) => void): DataTableColumn<SilenceRow>[] {
  const s = useStyles();
  return useMemo(() => {
    const struck = (row: SilenceRow, text: string) => (
      <span className={mergeClasses(isExpired(row) && s.expired)} title={isExpired(row) ? 'Expired' : undefined}>
        {text}
      </span>
    );
    const cols: DataTableColumn<SilenceRow>[] = [
      col.accessor((r) => silenceTarget(r).name, {
        id: 'resource',
        header: 'Resource',
        enableSorting: false,
        cell: ({ row }) => {
          const t = silenceTarget(row.original);
          return (
            <span className={mergeClasses(isExpired(row.original) && s.expired)}>
              <span className={s.kind}>{t.kind}</span>
              {t.name}
            </span>
          );
        },
      }),
      col.accessor((r) => silenceDuration(r), {
        id: 'duration',
        header: 'Duration',
        enableSorting: false,
        cell: ({ row, getValue }) => struck(row.original, getValue() as string),
      }),
      col.accessor((r) => r.source ?? '', { id: 'source', header: 'Source', enableSorting: false, meta: { width: '110px' } }),
      col.accessor((r) => r.description ?? '', {
        id: 'description',
        header: 'Reason',
        enableSorting: false,
        cell: ({ row, getValue }) => struck(row.original, getValue() as string),
      }),
      col.accessor((r) => r.createdBy?.name ?? '', {
        id: 'created_by',
        header: 'Created By',
        enableSorting: false,
        meta: { width: '160px' },
        cell: ({ row }) => {
          const p = row.original.createdBy;
          return p ? <PersonAvatar person={{ ...p, name: p.name ?? p.email ?? '' }} size={20} showName /> : null;
        },
      }),
    ];
    if (canWrite) {
      cols.push(
        col.display({
          id: 'actions',
          header: 'Delete',
          meta: { width: '56px' },
          cell: ({ row }) => (
            <Button
              appearance="subtle"
              icon={<Delete20Regular />}
              aria-label={`Delete silence ${silenceTarget(row.original).name}`}
              onClick={(e) => {
                e.stopPropagation();
                onDelete(row.original);
              }}
              onKeyDown={(e) => e.stopPropagation()}
            />
          ),
        }),
      );
    }
    return cols;
  }, [s, canWrite, onDelete]);
}

export interface NotificationSilencesProps {
  canWrite: boolean;
  addHref: string;
}

/** /notifications/silences: server-paged, expired rows struck through; a row opens Edit Notification Silence. */
export function NotificationSilences({ canWrite, addHref }: NotificationSilencesProps) {
  const table = useDataTableState({ defaultPageSize: SILENCES_PAGE_SIZE });
  const { pageIndex, pageSize } = table.state.pagination;
  const silences = useSilences(pageIndex, pageSize);
  const [editing, setEditing] = useState<SilenceRow | null>(null);
  const [deleting, setDeleting] = useState<SilenceRow | null>(null);
  const remove = useDeleteSilence();
  const columns = useColumns(canWrite, setDeleting);
  const [, navigate] = useLocation();

  return (
    <Page
      title="Silences"
      onRefresh={() => void silences.refetch()}
      refreshing={silences.isFetching}
      extra={
        canWrite && (
          <Button appearance="primary" icon={<Add20Regular />} onClick={() => navigate(addHref)}>
            Add Silence
          </Button>
        )
      }
    >
      {silences.error && !silences.data ? (
        <EmptyState
          icon={<ErrorCircle24Regular />}
          title="Silences could not be loaded"
          description={errorMessage(silences.error)}
          role="alert"
          actions={<Button onClick={() => void silences.refetch()}>Try again</Button>}
        />
      ) : (
        <DataTable
          label="Notification silences"
          columns={columns}
          data={silences.data?.rows ?? NO_ROWS}
          getRowId={(r) => r.id}
          loading={silences.isFetching}
          manual
          total={silences.data?.total ?? 0}
          state={table}
          defaultPageSize={SILENCES_PAGE_SIZE}
          emptyMessage="No notification silences"
          onRowClick={setEditing}
        />
      )}
      {editing && <EditSilenceDialog silence={editing} canWrite={canWrite} onClose={() => setEditing(null)} />}
      {deleting && (
        <ConfirmDialog
          open
          danger
          title="Delete Silence"
          description="Are you sure you want to delete this notification silence?"
          confirmLabel="Delete"
          busy={remove.isPending}
          busyLabel="Deleting…"
          onCancel={() => setDeleting(null)}
          onConfirm={() => remove.mutate(deleting.id, { onSuccess: () => setDeleting(null) })}
        />
      )}
    </Page>
  );
}
