import { useMemo, useState } from 'react';
import { Link } from '@fluentui/react-components';
import { Link as RouterLink } from 'wouter';
import { dataTableColumns } from '../data-table/columns';
import { DataTable } from '../data-table/data-table';
import type { DataTableStateHandle } from '../data-table/use-data-table-state';
import { Age } from '../status/age';
import { StatusBadge } from '../status/status-badge';
import { formatDuration } from '../../lib/format';
import { RUNS_PAGE_SIZE, playbookTitle, useRuns, type ResourceRun, type RunsFilter } from './api';
import { runStatusColor, runStatusLabel } from './run-status';

const col = dataTableColumns<ResourceRun>();
const NO_RUNS: ResourceRun[] = [];

export const runHref = (id: string) => `/playbooks/runs/${encodeURIComponent(id)}`;

function duration(r: ResourceRun): string {
  if (!r.start_time || !r.end_time) return '';
  return formatDuration(Date.parse(r.end_time) - Date.parse(r.start_time));
}

const COLUMNS = [
  col.accessor((r) => (r.playbook ? playbookTitle(r.playbook) : ''), {
    id: 'playbook',
    enableSorting: false,
    header: 'Playbook',
    cell: (c) => (
      <RouterLink href={runHref(c.row.original.id)} asChild>
        <Link>{c.getValue() || c.row.original.id}</Link>
      </RouterLink>
    ),
  }),
  col.accessor('status', {
    enableSorting: false,
    header: 'Status',
    meta: { width: '150px' },
    cell: (c) => <StatusBadge status={runStatusLabel(c.getValue())} color={runStatusColor(c.getValue())} />,
  }),
  col.accessor('created_at', {
    enableSorting: false,
    header: 'Started',
    meta: { width: '120px' },
    cell: (c) => <Age value={c.row.original.start_time ?? c.getValue()} />,
  }),
  col.accessor((r) => duration(r), { id: 'duration', enableSorting: false, header: 'Duration', meta: { width: '110px' } }),
  col.accessor((r) => r.error ?? '', { id: 'error', enableSorting: false, header: 'Error' }),
];

export interface PlaybookRunsTableProps {
  /** Whose runs: a check's, catalog item's, component's, or one playbook's. */
  filter: RunsFilter;
  emptyMessage?: string;
  /** Names the table for assistive technology. */
  label?: string;
}

/** Runs newest first, 50 a page from the server (spec 001 §7, §9), each linking to its run page. */
export function PlaybookRunsTable({ filter, emptyMessage = 'No playbook runs yet', label = 'Playbook runs' }: PlaybookRunsTableProps) {
  const [pageIndex, setPageIndex] = useState(0);
  const runs = useRuns(filter, pageIndex);
  const state: DataTableStateHandle = useMemo(
    () => ({
      state: { sorting: [], pagination: { pageIndex, pageSize: RUNS_PAGE_SIZE } },
      setSorting: () => {},
      setPagination: (u) => setPageIndex((typeof u === 'function' ? u({ pageIndex, pageSize: RUNS_PAGE_SIZE }) : u).pageIndex),
    }),
    [pageIndex],
  );
  const total = runs.data?.total ?? 0;
  return (
    <DataTable
      label={label}
      columns={COLUMNS}
      data={runs.data?.rows ?? NO_RUNS}
      getRowId={(r) => r.id}
      loading={runs.isFetching}
      manual
      total={total}
      state={state}
      pageSizes={[RUNS_PAGE_SIZE]}
      urlState={false}
      paginate={total > RUNS_PAGE_SIZE}
      emptyMessage={runs.isError ? 'The playbook runs could not be loaded' : emptyMessage}
    />
  );
}
