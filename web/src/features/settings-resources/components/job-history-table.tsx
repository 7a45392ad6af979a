import { useMemo } from 'react';
import { ErrorCircle24Regular } from '@fluentui/react-icons';
import { DataTable } from '../../../components/data-table/data-table';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { EmptyState } from '../../../components/empty-state';
import { Age } from '../../../components/status/age';
import { StatusBadge } from '../../../components/status/status-badge';
import { errorMessage } from '../../../lib/api-client';
import { formatDuration } from '../../../lib/format';
import { useJobHistory, type JobRun } from '../api';
import { jobStatusColor } from '../../../components/status/job-status';

const col = dataTableColumns<JobRun>();
const NONE: JobRun[] = [];


/** A resource's job runs (job_history rows for resource_id = the resource). */
export function JobHistoryTable({ resourceId }: { resourceId: string }) {
  const jobs = useJobHistory(resourceId);
  const columns = useMemo<DataTableColumn<JobRun>[]>(
    () => [
      col.accessor((j) => j.time_start ?? j.created_at, {
        id: 'time',
        header: 'Time',
        sortFn: 'datetime',
        cell: ({ getValue }) => <Age value={getValue()} />,
      }),
      col.accessor((j) => j.status ?? '', {
        id: 'status',
        header: 'Status',
        cell: ({ getValue }) => getValue() && <StatusBadge status={getValue()} color={jobStatusColor(getValue())} />,
      }),
      col.accessor((j) => j.duration_millis ?? -1, {
        id: 'duration',
        header: 'Duration',
        sortFn: 'basic',
        meta: { align: 'end' },
        cell: ({ row }) => formatDuration(row.original.duration_millis),
      }),
      col.accessor((j) => j.success_count ?? 0, { id: 'success', header: 'Success', sortFn: 'basic', meta: { align: 'end' } }),
      col.accessor((j) => j.error_count ?? 0, { id: 'errors', header: 'Errors', sortFn: 'basic', meta: { align: 'end' } }),
      col.accessor((j) => j.hostname ?? '', { id: 'hostname', header: 'Host' }),
    ],
    [],
  );
  if (jobs.error && !jobs.data) {
    return <EmptyState icon={<ErrorCircle24Regular />} title="Job history could not be loaded" description={errorMessage(jobs.error)} role="alert" />;
  }
  return (
    <DataTable
      label="Job history"
      columns={columns}
      data={jobs.data ?? NONE}
      getRowId={(j) => j.id}
      loading={jobs.isLoading}
      defaultSort={{ id: 'time', desc: true }}
      emptyMessage="No job runs yet"
    />
  );
}
