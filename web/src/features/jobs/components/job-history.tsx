import { useCallback, useMemo, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { Button } from '@fluentui/react-components';
import { ErrorCircle24Regular, Warning24Regular } from '@fluentui/react-icons';
import { DataTable } from '../../../components/data-table/data-table';
import { useDataTableState } from '../../../components/data-table/use-data-table-state';
import { EmptyState } from '../../../components/empty-state';
import { Page } from '../../../components/page';
import { errorMessage } from '../../../lib/api-client';
import { TIME_RANGE_PARAMS, timeRangeToParams, type TimeRange } from '../../../lib/time-range';
import { useSearchPatch, useUrlState } from '../../../lib/url-state';
import { useJobNames, useJobs, type JobRow } from '../api';
import { filterProblem, JOB_PAGE_SIZE, JOB_PAGE_SIZES, jobTimeRange, URL_DEFAULTS, type JobFilters } from '../model';
import { useJobColumns } from './job-columns';
import { JobDetailsDialog } from './job-details-dialog';
import { JobFilterBar } from './job-filter-bar';

const NO_ROWS: JobRow[] = [];
export const EMPTY_JOBS = 'No job runs match these filters';

export interface JobHistoryProps {
  /** The settings page of a resource by its job_history.resource_type, or null for a kind without one. */
  resourceHref: (type: string, id: string) => string | null;
}

/** /settings/jobs: filters and paging in the URL, server-paged runs newest first, a run's details in a dialog. */
export function JobHistory({ resourceHref }: JobHistoryProps) {
  const [filters, setFilters] = useUrlState(URL_DEFAULTS);
  const [params, patchParams] = useSearchPatch();
  const range = useMemo(() => jobTimeRange(params), [params]);
  const problem = filterProblem(filters, params);
  const table = useDataTableState({ defaultSort: { id: 'created_at', desc: true }, defaultPageSize: JOB_PAGE_SIZE, pageSizes: JOB_PAGE_SIZES });
  const { pagination, sorting } = table.state;
  const page = { pageIndex: pagination.pageIndex, pageSize: pagination.pageSize, sortBy: sorting[0]?.id ?? 'created_at', desc: sorting[0]?.desc ?? true };
  const jobs = useJobs(filters, range, page, !problem);
  const names = useJobNames();
  const [, navigate] = useLocation();
  const [open, setOpen] = useState<JobRow | null>(null);

  // a new filter starts from the first page, in the same navigation
  const onFilters = useCallback(
    (patch: Partial<JobFilters>) => {
      setFilters(patch);
      if (pagination.pageIndex) table.setPagination({ ...pagination, pageIndex: 0 });
    },
    [setFilters, table, pagination],
  );
  const onRange = useCallback(
    (next: TimeRange) => patchParams({ ...timeRangeToParams(next), pageIndex: undefined }),
    [patchParams],
  );
  // the columns must not change with every render (the table would rebuild them): the latest handler through a ref
  const latest = useRef(onFilters);
  latest.current = onFilters;
  const onJobName = useCallback((name: string) => latest.current({ name }), []);
  const go = useRef(navigate);
  go.current = navigate;
  const onNavigate = useCallback((href: string) => go.current(href), []);
  const columns = useJobColumns({ onJobName, resourceHref, navigate: onNavigate });
  const reset = () => patchParams({
    ...Object.fromEntries(TIME_RANGE_PARAMS.map((k) => [k, undefined])),
    name: undefined, resourceType: undefined, status: undefined, duration: undefined, pageIndex: undefined,
  });

  return (
    <Page title="Job History" onRefresh={() => void jobs.refetch()} refreshing={jobs.isFetching}>
      <JobFilterBar value={filters} names={names.data ?? []} range={range} onChange={onFilters} onRange={onRange} />
      {problem ? (
        <EmptyState
          icon={<Warning24Regular />}
          title="These filters cannot be applied"
          description={problem}
          role="alert"
          actions={<Button onClick={reset}>Reset filters</Button>}
        />
      ) : jobs.error && !jobs.data ? (
        <EmptyState
          icon={<ErrorCircle24Regular />}
          title="Job history could not be loaded"
          description={errorMessage(jobs.error)}
          role="alert"
          actions={<Button onClick={() => void jobs.refetch()}>Try again</Button>}
        />
      ) : (
        <DataTable
          label="Job history"
          columns={columns}
          data={jobs.data?.rows ?? NO_ROWS}
          getRowId={(r) => r.id}
          loading={jobs.isFetching}
          manual
          total={jobs.data?.total ?? 0}
          state={table}
          pageSizes={JOB_PAGE_SIZES}
          defaultPageSize={JOB_PAGE_SIZE}
          emptyMessage={EMPTY_JOBS}
          onRowClick={setOpen}
        />
      )}
      <JobDetailsDialog job={open} onClose={() => setOpen(null)} />
    </Page>
  );
}
