import { useCallback, useMemo } from 'react';
import { useLocation } from 'wouter';
import { Button, makeStyles, Text, tokens } from '@fluentui/react-components';
import { ErrorCircle24Regular } from '@fluentui/react-icons';
import { DataTable } from '../../../../components/data-table/data-table';
import { dataTableColumns, type DataTableColumn } from '../../../../components/data-table/columns';
import { useDataTableState } from '../../../../components/data-table/use-data-table-state';
import { EmptyState } from '../../../../components/empty-state';
import { Page } from '../../../../components/page';
import { Age } from '../../../../components/status/age';
import { useTimeRangeParam } from '../../../../components/time-range/time-range-picker';
import { errorMessage } from '../../../../lib/api-client';
import type { RelativeTimeRange } from '../../../../lib/time-range';
import { useUrlState } from '../../../../lib/url-state';
import { useRuns, type RunFilters, type RunRow } from '../api-runs';
import { useLiveSocketUp } from '../live';
import { durationText, runResource } from '../model';
import { RunFilterBar } from './run-filters';
import { RunStatusBadge } from './run-status-badge';

/** The list's default range: the last 7 days (issue 14 "Screens"). */
export const DEFAULT_RUNS_RANGE: RelativeTimeRange = { type: 'relative', display: 'Last 7 days', from: 'now-7d', to: 'now' };
const URL_DEFAULTS: RunFilters = { status: '', playbook: '' };
const NO_ROWS: RunRow[] = [];
export const EMPTY_RUNS = 'No playbook runs match these filters';

const useStyles = makeStyles({
  name: { fontWeight: tokens.fontWeightSemibold },
  muted: { color: tokens.colorNeutralForeground3 },
});

const col = dataTableColumns<RunRow>();

function useColumns(): DataTableColumn<RunRow>[] {
  const s = useStyles();
  return useMemo(
    () => [
      col.display({
        id: 'playbook', header: 'Playbook',
        cell: ({ row }) => <span className={s.name}>{row.original.playbooks?.title || row.original.playbooks?.name || row.original.playbook_id}</span>,
      }),
      col.display({
        id: 'resource', header: 'Resource',
        cell: ({ row }) => {
          const r = runResource(row.original);
          return r ? <span>{r.name}</span> : <Text className={s.muted}>—</Text>;
        },
      }),
      col.accessor('status', { header: 'Status', enableSorting: false, meta: { width: '150px' }, cell: ({ getValue }) => <RunStatusBadge status={getValue()} /> }),
      col.accessor('created_at', { id: 'created_at', header: 'Started', enableSorting: false, meta: { width: '120px' }, cell: ({ row }) => <Age value={row.original.start_time ?? row.original.created_at} /> }),
      col.display({
        id: 'duration', header: 'Duration', meta: { width: '110px' },
        cell: ({ row }) => durationText(row.original.start_time, row.original.end_time),
      }),
      col.display({
        id: 'created_by', header: 'Created by', meta: { width: '170px' },
        cell: ({ row }) => row.original.created_by?.name ?? <Text className={s.muted}>—</Text>,
      }),
    ],
    [s],
  );
}

export interface RunsListProps {
  runHref: (id: string) => string;
}

/** /playbooks/runs: filters (status, playbook, time range) in the URL, server paging, newest first. */
export function RunsList({ runHref }: RunsListProps) {
  const [filters, setFilters] = useUrlState(URL_DEFAULTS);
  const [range, setRange] = useTimeRangeParam(DEFAULT_RUNS_RANGE);
  const table = useDataTableState({ defaultSort: { id: 'created_at', desc: true } });
  const { pagination } = table.state;
  const live = useLiveSocketUp();
  const runs = useRuns(filters, range, { pageIndex: pagination.pageIndex, pageSize: pagination.pageSize }, live);
  const columns = useColumns();
  const [, navigate] = useLocation();
  const firstPage = useCallback(() => {
    if (pagination.pageIndex) table.setPagination({ ...pagination, pageIndex: 0 });
  }, [table, pagination]);

  return (
    <Page title="Playbook Runs" onRefresh={() => void runs.refetch()} refreshing={runs.isFetching}>
      <RunFilterBar
        value={filters}
        onChange={(patch) => {
          setFilters(patch);
          firstPage();
        }}
        range={range}
        onRangeChange={(next) => {
          setRange(next);
          firstPage();
        }}
      />
      {runs.error && !runs.data ? (
        <EmptyState
          icon={<ErrorCircle24Regular />}
          title="Playbook runs could not be loaded"
          description={errorMessage(runs.error)}
          role="alert"
          actions={<Button onClick={() => void runs.refetch()}>Try again</Button>}
        />
      ) : (
        <DataTable
          label="Playbook runs"
          columns={columns}
          data={runs.data?.rows ?? NO_ROWS}
          getRowId={(r) => r.id}
          loading={runs.isFetching}
          manual
          total={runs.data?.total ?? 0}
          state={table}
          emptyMessage={EMPTY_RUNS}
          onRowClick={(r) => navigate(runHref(r.id))}
        />
      )}
    </Page>
  );
}
