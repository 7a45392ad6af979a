import { useMemo } from 'react';
import { Button, Link, makeStyles, tokens, Tooltip } from '@fluentui/react-components';
import { Copy16Regular } from '@fluentui/react-icons';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { Age } from '../../../components/status/age';
import { StatusBadge } from '../../../components/status/status-badge';
import { copyToClipboard } from '../../../lib/clipboard';
import { formatDateTime, formatDuration } from '../../../lib/format';
import type { JobRow } from '../api';
import { jobStatusColor } from '../../../components/status/job-status';

const useStyles = makeStyles({
  resource: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalXXS, minWidth: 0 },
  resourceName: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  jobName: { textAlign: 'start' },
  muted: { color: tokens.colorNeutralForeground3 },
});

const col = dataTableColumns<JobRow>();
/** Clicks on a cell's own controls do not also open the row's details. */
const own = (e: { stopPropagation(): void }) => e.stopPropagation();

export interface JobColumnOptions {
  /** Filters the page by this job name (a click on the name). */
  onJobName: (name: string) => void;
  /** The settings page of a run's resource by its type, or null for a kind without one. */
  resourceHref: (type: string, id: string) => string | null;
  navigate: (href: string) => void;
}

function ResourceCell({ job, resourceHref, navigate }: { job: JobRow } & Pick<JobColumnOptions, 'resourceHref' | 'navigate'>) {
  const s = useStyles();
  const id = job.resource_id;
  if (!id) return null;
  const name = job.resource_name ?? id;
  const href = job.resource_type ? resourceHref(job.resource_type, id) : null;
  return (
    <span className={s.resource}>
      {href ? (
        <Link
          href={href}
          className={s.resourceName}
          onClick={(e) => {
            own(e);
            if (e.metaKey || e.ctrlKey || e.shiftKey) return;
            e.preventDefault();
            navigate(href);
          }}
        >
          {name}
        </Link>
      ) : (
        <span className={s.resourceName}>{name}</span>
      )}
      <Tooltip content={`Copy ${id}`} relationship="label">
        <Button
          appearance="subtle"
          size="small"
          icon={<Copy16Regular />}
          onClick={(e) => {
            own(e);
            void copyToClipboard(id, `Copied ${id} to clipboard`);
          }}
        />
      </Tooltip>
    </span>
  );
}

/** Timestamp, Job Name (filters), Agent, Resource (linked, copyable), Status, Duration, Success, Error. */
export function useJobColumns({ onJobName, resourceHref, navigate }: JobColumnOptions): DataTableColumn<JobRow>[] {
  const s = useStyles();
  return useMemo(
    () => [
      col.accessor('created_at', {
        id: 'created_at',
        header: 'Timestamp',
        meta: { width: '190px' },
        cell: ({ row }) => <span title={formatDateTime(row.original.time_start ?? row.original.created_at)}><Age value={row.original.time_start ?? row.original.created_at} /></span>,
      }),
      col.accessor((j) => j.name ?? '', {
        id: 'name',
        header: 'Job Name',
        cell: ({ getValue }) =>
          getValue() && (
            <Link
              as="button"
              className={s.jobName}
              title={`Show only ${getValue()} runs`}
              onClick={(e) => {
                own(e);
                onJobName(getValue());
              }}
            >
              {getValue()}
            </Link>
          ),
      }),
      col.accessor((j) => j.agent?.name ?? '', {
        id: 'agent',
        header: 'Agent',
        enableSorting: false,
        meta: { width: '120px' },
        cell: ({ getValue }) => getValue() || <span className={s.muted}>local</span>,
      }),
      col.display({
        id: 'resource',
        header: 'Resource',
        cell: ({ row }) => <ResourceCell job={row.original} resourceHref={resourceHref} navigate={navigate} />,
      }),
      col.accessor((j) => j.status ?? '', {
        id: 'status',
        header: 'Status',
        meta: { width: '110px' },
        cell: ({ getValue }) => getValue() && <StatusBadge status={getValue()} color={jobStatusColor(getValue())} />,
      }),
      col.accessor((j) => j.duration_millis ?? -1, {
        id: 'duration',
        header: 'Duration',
        meta: { width: '100px', align: 'end' },
        cell: ({ row }) => (row.original.duration_millis === null ? '' : formatDuration(row.original.duration_millis)),
      }),
      col.accessor((j) => j.success_count ?? 0, { id: 'success', header: 'Success', enableSorting: false, meta: { width: '80px', align: 'end' } }),
      col.accessor((j) => j.error_count ?? 0, { id: 'error', header: 'Error', enableSorting: false, meta: { width: '80px', align: 'end' } }),
    ],
    [s, onJobName, resourceHref, navigate],
  );
}
