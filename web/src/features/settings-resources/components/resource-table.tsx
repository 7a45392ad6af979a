import { useMemo } from 'react';
import { makeStyles, tokens } from '@fluentui/react-components';
import { ErrorCircle24Regular } from '@fluentui/react-icons';
import { DataTable } from '../../../components/data-table/data-table';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { EmptyState } from '../../../components/empty-state';
import { Age } from '../../../components/status/age';
import { LabelChips } from '../../../components/status/label-chips';
import { PersonAvatar } from '../../../components/status/person-avatars';
import { StatusBadge } from '../../../components/status/status-badge';
import { errorMessage } from '../../../lib/api-client';
import type { ResourceRow } from '../api';
import { visibleColumns, type ResourceDescriptor } from '../descriptors';
import { TeamIcon } from '../team/team-icon';
import { jobStatusColor } from '../../../components/status/job-status';

const useStyles = makeStyles({
  named: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS, minWidth: 0 },
  text: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', display: 'block' },
});

const col = dataTableColumns<ResourceRow>();
const NONE: ResourceRow[] = [];
const age = (v: string) => <Age value={v || null} />;
const dateCol = (id: string, header: string, get: (r: ResourceRow) => string | null | undefined) =>
  col.accessor((r) => get(r) ?? '', { id, header, sortFn: 'datetime', meta: { width: '110px' }, cell: ({ getValue }) => age(getValue()) });

/** `schedule`, else a canary's legacy `interval` in seconds. */
export const scheduleOf = (r: ResourceRow) => r.schedule || (typeof r.interval === 'number' || typeof r.interval === 'string' ? `every ${String(r.interval)}s` : '');
const labelsOf = (r: ResourceRow): Record<string, string> =>
  Object.fromEntries(Object.entries(r.labels ?? {}).map(([k, v]) => [k, String(v)]));

function useColumns(d: ResourceDescriptor): DataTableColumn<ResourceRow>[] {
  const s = useStyles();
  return useMemo(() => {
    const build: Record<string, () => DataTableColumn<ResourceRow>> = {
      name: () =>
        col.accessor((r) => r.name ?? '', {
          id: 'name',
          header: 'Name',
          sortFn: 'text',
          cell: ({ row, getValue }) =>
            d.table === 'teams' ? (
              <span className={s.named}>
                <TeamIcon team={{ name: getValue(), icon: row.original.icon ?? null }} size={24} />
                <span className={s.text}>{getValue()}</span>
              </span>
            ) : (
              <span className={s.text}>{getValue()}</span>
            ),
        }),
      members: () =>
        col.accessor((r) => r.team_members?.length ?? 0, { id: 'members', header: 'Members', sortFn: 'basic', meta: { width: '110px', align: 'end' } }),
      source: () => col.accessor((r) => r.source ?? '', { id: 'source', header: 'Source', meta: { width: '110px' } }),
      schedule: () => col.accessor(scheduleOf, { id: 'schedule', header: 'Schedule', meta: { width: '120px' } }),
      namespace: () => col.accessor((r) => r.namespace ?? '', { id: 'namespace', header: 'Namespace', meta: { width: '120px' } }),
      job_status: () =>
        col.accessor((r) => r.job_status ?? '', {
          id: 'job_status',
          header: 'Job Status',
          meta: { width: '120px' },
          cell: ({ getValue }) => getValue() && <StatusBadge status={getValue()} color={jobStatusColor(getValue())} />,
        }),
      last_run: () => dateCol('last_run', 'Last Run', (r) => r.last_runtime ?? r.job_time_start ?? r.job_created_at),
      last_failed: () => dateCol('last_failed', 'Last Failed', (r) => r.job_last_failed),
      tags: () =>
        col.accessor((r) => Object.entries(labelsOf(r)).map(([k, v]) => `${k}=${v}`).join(' '), {
          id: 'tags',
          header: 'Tags',
          cell: ({ row }) => row.original.labels && <LabelChips labels={labelsOf(row.original)} limit={2} singleLine />,
        }),
      created_at: () => dateCol('created_at', 'Created', (r) => r.created_at),
      updated_at: () => dateCol('updated_at', 'Updated', (r) => r.updated_at),
      created_by: () =>
        col.accessor((r) => (typeof r.created_by === 'object' ? r.created_by?.name ?? '' : ''), {
          id: 'created_by',
          header: 'Created By',
          cell: ({ row }) => {
            const p = row.original.created_by;
            return p && typeof p === 'object' && <PersonAvatar person={{ ...p, avatar: p.avatar ?? null }} size={20} showName />;
          },
        }),
    };
    return visibleColumns(d).map((id) => build[id]());
  }, [d, s]);
}

export interface ResourceTableProps {
  descriptor: ResourceDescriptor;
  rows: ResourceRow[] | undefined;
  loading: boolean;
  error: unknown;
  onOpen: (row: ResourceRow) => void;
}

/** A settings table's rows with spec 001 §2's columns, less the ones its descriptor hides. */
export function ResourceTable({ descriptor, rows, loading, error, onOpen }: ResourceTableProps) {
  const columns = useColumns(descriptor);
  if (error && !rows) {
    return <EmptyState icon={<ErrorCircle24Regular />} title={`${descriptor.title} could not be loaded`} description={errorMessage(error)} role="alert" />;
  }
  return (
    <DataTable
      label={descriptor.title}
      columns={columns}
      data={rows ?? NONE}
      getRowId={(r) => r.id}
      loading={loading}
      onRowClick={onOpen}
      defaultSort={{ id: 'name' }}
      emptyMessage="No resources found"
    />
  );
}
