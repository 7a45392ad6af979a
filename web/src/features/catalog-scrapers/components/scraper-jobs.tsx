import { useMemo, useState, type ReactNode } from 'react';
import { Button } from '@fluentui/react-components';
import { ErrorCircle24Regular } from '@fluentui/react-icons';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { DataTable } from '../../../components/data-table/data-table';
import { useDataTableState } from '../../../components/data-table/use-data-table-state';
import { EmptyState } from '../../../components/empty-state';
import { Age } from '../../../components/status/age';
import { JobStatusBadge } from '../../../components/status/job-status';
import { errorMessage } from '../../../lib/api-client';
import { formatDuration } from '../../../lib/format';
import { useScraperJobs, type ScraperJob } from '../api';
import { errorsOf, scrapeSummaryOf } from '../job-summary';

const col = dataTableColumns<ScraperJob>();
const NONE: ScraperJob[] = [];
const PAGE_SIZE = 50;
const PAGE_SIZES = [25, 50, 100] as const;
const count = (id: 'added' | 'updated' | 'unchanged' | 'changes', header: string) =>
  col.accessor((j) => scrapeSummaryOf(j.details).total[id], { id, header, enableSorting: false, meta: { align: 'end', width: '100px' } });

export interface ScraperJobsProps {
  scraperId: string;
  /** A run's details dialog (errors, scrape summary): the Job History page's own. */
  renderDetails: (job: ScraperJob | null, onClose: () => void) => ReactNode;
}

/**
 * The Job History tab: this scraper's runs (job_history, resource_type config_scraper), newest first, with what each
 * did over every config type (added, updated, unchanged, changes) and its errors; a row opens its details.
 */
export function ScraperJobs({ scraperId, renderDetails }: ScraperJobsProps) {
  const table = useDataTableState({ defaultSort: { id: 'time', desc: true }, defaultPageSize: PAGE_SIZE, pageSizes: PAGE_SIZES, url: false });
  const { pageIndex, pageSize } = table.state.pagination;
  const jobs = useScraperJobs(scraperId, pageIndex, pageSize);
  const [open, setOpen] = useState<ScraperJob | null>(null);
  const columns = useMemo<DataTableColumn<ScraperJob>[]>(
    () => [
      col.accessor((j) => j.time_start ?? j.created_at, { id: 'time', header: 'Time', enableSorting: false, cell: ({ getValue }) => <Age value={getValue()} /> }),
      col.accessor((j) => j.status ?? '', { id: 'status', header: 'Status', enableSorting: false, meta: { width: '110px' }, cell: ({ getValue }) => <JobStatusBadge status={getValue()} /> }),
      col.accessor((j) => j.duration_millis ?? -1, {
        id: 'duration',
        header: 'Duration',
        enableSorting: false,
        meta: { align: 'end', width: '100px' },
        cell: ({ row }) => formatDuration(row.original.duration_millis),
      }),
      count('added', 'Added'),
      count('updated', 'Updated'),
      count('unchanged', 'Unchanged'),
      count('changes', 'Changes'),
      col.accessor((j) => errorsOf(j.details).length || (j.error_count ?? 0), { id: 'errors', header: 'Errors', enableSorting: false, meta: { align: 'end', width: '90px' } }),
    ],
    [],
  );
  if (jobs.error && !jobs.data) {
    return (
      <EmptyState
        icon={<ErrorCircle24Regular />}
        title="Job history could not be loaded"
        description={errorMessage(jobs.error)}
        role="alert"
        actions={<Button onClick={() => void jobs.refetch()}>Try again</Button>}
      />
    );
  }
  return (
    <>
      <DataTable
        label="Job history"
        columns={columns}
        data={jobs.data?.rows ?? NONE}
        getRowId={(j) => j.id}
        loading={jobs.isFetching}
        manual
        total={jobs.data?.total ?? 0}
        state={table}
        pageSizes={PAGE_SIZES}
        defaultPageSize={PAGE_SIZE}
        urlState={false}
        emptyMessage="This scraper has not run yet"
        onRowClick={setOpen}
      />
      {renderDetails(open, () => setOpen(null))}
    </>
  );
}
