import { useMemo } from 'react';
import { makeStyles } from '@fluentui/react-components';
import { ErrorCircle24Regular } from '@fluentui/react-icons';
import { DataTable } from '../../../components/data-table/data-table';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { EmptyState } from '../../../components/empty-state';
import { Age } from '../../../components/status/age';
import { LabelChips } from '../../../components/status/label-chips';
import { PersonAvatar } from '../../../components/status/person-avatars';
import { StatusBadge } from '../../../components/status/status-badge';
import { errorMessage } from '../../../lib/api-client';
import type { CanaryRow } from '../api';
import { jobStatusColor } from './job-status';

const useStyles = makeStyles({
  text: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', display: 'block' },
});

const col = dataTableColumns<CanaryRow>();
const NONE: CanaryRow[] = [];

/** `schedule`, else the legacy `interval` in seconds. */
export const scheduleOf = (c: Pick<CanaryRow, 'schedule' | 'interval'>) => c.schedule || (c.interval ? `every ${c.interval}s` : '');

function useColumns(): DataTableColumn<CanaryRow>[] {
  const s = useStyles();
  return useMemo(
    () => [
      col.accessor('name', {
        header: 'Name',
        sortFn: 'text',
        cell: ({ getValue }) => <span className={s.text}>{getValue()}</span>,
      }),
      col.accessor((c) => c.source ?? '', { id: 'source', header: 'Source', meta: { width: '110px' } }),
      col.accessor((c) => scheduleOf(c), { id: 'schedule', header: 'Schedule', meta: { width: '120px' } }),
      col.accessor((c) => c.job_status ?? '', {
        id: 'job_status',
        header: 'Job Status',
        meta: { width: '120px' },
        cell: ({ getValue }) => getValue() && <StatusBadge status={getValue()} color={jobStatusColor(getValue())} />,
      }),
      col.accessor((c) => c.job_time_start ?? c.job_created_at ?? '', {
        id: 'last_run',
        header: 'Last Run',
        sortFn: 'datetime',
        meta: { width: '110px' },
        cell: ({ getValue }) => <Age value={getValue() || null} />,
      }),
      col.accessor((c) => c.job_last_failed ?? '', {
        id: 'last_failed',
        header: 'Last Failed',
        sortFn: 'datetime',
        meta: { width: '110px' },
        cell: ({ getValue }) => <Age value={getValue() || null} />,
      }),
      col.accessor((c) => Object.entries(c.labels ?? {}).map(([k, v]) => `${k}=${v}`).join(' '), {
        id: 'tags',
        header: 'Tags',
        cell: ({ row }) => row.original.labels && <LabelChips labels={row.original.labels} limit={2} singleLine />,
      }),
      col.accessor((c) => c.created_at ?? '', {
        id: 'created_at',
        header: 'Created',
        sortFn: 'datetime',
        meta: { width: '110px' },
        cell: ({ getValue }) => <Age value={getValue() || null} />,
      }),
      col.accessor((c) => c.updated_at ?? '', {
        id: 'updated_at',
        header: 'Updated',
        sortFn: 'datetime',
        meta: { width: '110px' },
        cell: ({ getValue }) => <Age value={getValue() || null} />,
      }),
      col.accessor((c) => c.created_by?.name ?? '', {
        id: 'created_by',
        header: 'Created By',
        cell: ({ row }) => row.original.created_by && <PersonAvatar person={row.original.created_by} size={20} showName />,
      }),
    ],
    [s],
  );
}

/** Settings → Health Checks: spec 001's generic columns (canaries hide Namespace). */
export function CanaryTable({ canaries, loading, error, onOpen }: {
  canaries: CanaryRow[] | undefined;
  loading: boolean;
  error: unknown;
  onOpen: (c: CanaryRow) => void;
}) {
  const columns = useColumns();
  if (error && !canaries) {
    return (
      <EmptyState icon={<ErrorCircle24Regular />} title="Health checks could not be loaded" description={errorMessage(error)} role="alert" />
    );
  }
  return (
    <DataTable
      label="Health Checks"
      columns={columns}
      data={canaries ?? NONE}
      getRowId={(c) => c.id}
      loading={loading}
      onRowClick={onOpen}
      defaultSort={{ id: 'name' }}
      emptyMessage="No resources found"
    />
  );
}
