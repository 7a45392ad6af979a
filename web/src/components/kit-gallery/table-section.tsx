import { useMemo, useState } from 'react';
import { makeStyles, Text, tokens } from '@fluentui/react-components';
import { DataTable } from '../data-table/data-table';
import { dataTableColumns, type DataTableColumn } from '../data-table/columns';
import { useDataTableState } from '../data-table/use-data-table-state';
import { formatDuration } from '../../lib/format';
import { Age } from '../status/age';
import { HealthIndicator } from '../status/health-indicator';
import { LabelChips } from '../status/label-chips';
import { StatusBadge } from '../status/status-badge';
import { UptimeBar } from '../status/uptime-bar';
import { CodeViewer } from '../code/code-viewer';
import { AppDialog } from '../app-dialog';
import { GallerySection } from './section';
import { makeChecks, type SampleCheck } from './samples';

const useStyles = makeStyles({
  name: { display: 'inline-flex', alignItems: 'center', gap: tokens.spacingHorizontalS, minWidth: 0 },
  ellipsis: { overflow: 'hidden', textOverflow: 'ellipsis' },
  pair: { display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(320px, 1fr))', gap: tokens.spacingHorizontalL },
  caption: { color: tokens.colorNeutralForeground3 },
  passing: { color: tokens.colorNeutralForeground2, fontWeight: tokens.fontWeightRegular },
});

const col = dataTableColumns<SampleCheck>();

function useColumns(): DataTableColumn<SampleCheck>[] {
  const s = useStyles();
  return useMemo(
    () => [
      col.accessor('name', {
        header: 'Name',
        meta: { width: '24%' },
        cell: (info) => (
          <span className={s.name}>
            <HealthIndicator health={info.row.original.health} size="small" />
            <span className={s.ellipsis}>{info.getValue()}</span>
          </span>
        ),
      }),
      col.accessor('namespace', { header: 'Namespace', meta: { width: '11%' } }),
      col.accessor('type', { header: 'Type', meta: { width: '10%' } }),
      col.accessor('health', {
        header: 'Health',
        meta: {
          width: '10%',
          groupCell: (rows) => (
            <span className={s.passing}>
              {rows.filter((r) => r.health === 'healthy').length}/{rows.length} passing
            </span>
          ),
        },
        cell: (info) => <StatusBadge status={info.getValue()} />,
      }),
      col.accessor('budgetUsed', {
        header: 'Error budget used',
        meta: { width: '15%' },
        cell: (info) => <UptimeBar percent={info.getValue()} label="Error budget used" />,
      }),
      col.accessor('latencyMs', {
        header: 'Latency',
        meta: { width: '9%', align: 'end' },
        cell: (info) => formatDuration(info.getValue()),
      }),
      col.accessor('labels', {
        header: 'Labels',
        enableSorting: false,
        meta: { width: '18%' },
        cell: (info) => <LabelChips labels={info.getValue()} limit={2} singleLine />,
      }),
      col.accessor('lastRun', {
        header: 'Last run',
        sortFn: 'datetime',
        meta: { width: '9%' },
        cell: (info) => <Age value={info.getValue()} />,
      }),
    ],
    [s],
  );
}

const TEN_THOUSAND = makeChecks(10_000);
const SMALL = makeChecks(23);
const NONE: SampleCheck[] = [];

/** The main table: 10,000 rows, client paging and sort in the URL, row click opens the record. */
export function TableSection() {
  const columns = useColumns();
  const [open, setOpen] = useState<SampleCheck | null>(null);
  return (
    <GallerySection
      id="data-table"
      title="DataTable"
      description="10,000 rows, client-side sort and paging kept in the URL (sortBy, sortOrder, pageIndex, pageSize). Click a row or press Enter on it."
    >
      <DataTable
        label="Health checks"
        columns={columns}
        data={TEN_THOUSAND}
        getRowId={(c) => c.id}
        onRowClick={setOpen}
        defaultPageSize={25}
        maxHeight="480px"
      />
      {open && (
        <AppDialog open onOpenChange={() => setOpen(null)} title={open.name} size="medium" expandable>
          <CodeViewer code={open} selectionParam={false} label={`${open.name} as JSON`} />
        </AppDialog>
      )}
    </GallerySection>
  );
}

/** Grouping, server paging, the empty state and the loading state. */
export function TableVariantsSection() {
  const s = useStyles();
  const columns = useColumns();
  const narrow = useMemo(() => columns.filter((c) => ['name', 'health', 'latencyMs'].includes(String((c as { accessorKey?: string }).accessorKey))), [columns]);
  const server = useDataTableState({ url: false, defaultPageSize: 50, pageSizes: [50, 100, 200] });
  // what a server would answer for the requested page (sorting is the server's job and omitted here)
  const page = useMemo(() => {
    const { pageIndex, pageSize } = server.state.pagination;
    return TEN_THOUSAND.slice(pageIndex * pageSize, (pageIndex + 1) * pageSize);
  }, [server.state.pagination]);
  return (
    <GallerySection id="table-variants" title="Grouping, server paging, empty and loading" description="Group rows count their records and expand on click; the server table shows the agents page's narrowed page sizes.">
      <DataTable label="Checks by namespace" columns={columns} data={SMALL} groupBy={['namespace']} urlState={false} paginate={false} maxHeight="360px" />
      <Text size={200} className={s.caption}>
        Server mode: 10,000 records, one page fetched at a time.
      </Text>
      <DataTable label="Server paged checks" columns={narrow} data={page} manual total={TEN_THOUSAND.length} state={server} maxHeight="240px" />
      <div className={s.pair}>
        <DataTable label="Empty" columns={narrow} data={NONE} urlState={false} paginate={false} />
        <DataTable label="Loading" columns={narrow} data={NONE} urlState={false} paginate={false} loading />
      </div>
    </GallerySection>
  );
}
