import { memo, useMemo } from 'react';
import { tokens } from '@fluentui/react-components';
import { makeRowStyles } from '../../../components/data-table/row-styles';
import type { CheckSummary } from '@contracts/health';
import { DataTable } from '../../../components/data-table/data-table';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { HealthIndicator } from '../../../components/status/health-indicator';
import { Age } from '../../../components/status/age';
import { text200 } from '../../../components/status/text-styles';
import { groupHealth, groupValue, latencyOf, NO_GROUPING, passingCount, uptimePercent } from '../filters';
import { CheckName } from './check-name';
import { LatencyText, UptimeCell } from './check-facts';

const useStyles = makeRowStyles({
  group: { display: 'inline-flex', alignItems: 'center', gap: tokens.spacingHorizontalS },
  count: { ...text200, fontVariantNumeric: 'tabular-nums', color: tokens.colorNeutralForeground2, fontWeight: tokens.fontWeightRegular },
});

const col = dataTableColumns<CheckSummary>();
const CHECKS_SORT = { id: 'checks' };
const checkId = (c: CheckSummary) => c.id;

function GroupHealth({ rows }: { rows: CheckSummary[] }) {
  const s = useStyles();
  const { passing, total } = passingCount(rows);
  return (
    <span className={s.group}>
      <HealthIndicator health={groupHealth(rows)} />
      <span className={s.count} aria-label={`${passing} of ${total} passing`}>
        {passing}/{total}
      </span>
    </span>
  );
}

/**
 * Grouping goes through a last, empty column holding the group (Group By): the table shows a group's value in the
 * first cell of its row, and a grouped column's cells stay empty on the check rows.
 */
function useColumns(groupBy: string): DataTableColumn<CheckSummary>[] {
  return useMemo(() => {
    const columns: DataTableColumn<CheckSummary>[] = [
      col.accessor('name', {
        id: 'checks',
        header: 'Checks',
        sortFn: 'text',
        cell: ({ row }) => <CheckName check={row.original} />,
      }),
      col.accessor((c) => c.status ?? 'unknown', {
        id: 'health',
        header: 'Health',
        sortFn: 'text',
        meta: { width: '120px', groupCell: (rows) => <GroupHealth rows={rows} /> },
        cell: ({ getValue }) => <HealthIndicator health={getValue()} showLabel />,
      }),
      col.accessor((c) => uptimePercent(c) ?? -1, {
        id: 'uptime',
        header: 'Uptime',
        sortFn: 'basic',
        meta: { width: '200px' },
        cell: ({ row }) => <UptimeCell check={row.original} />,
      }),
      col.accessor((c) => latencyOf(c) ?? -1, {
        id: 'latency',
        header: 'Latency',
        sortFn: 'basic',
        meta: { width: '96px', align: 'end' },
        cell: ({ row }) => <LatencyText check={row.original} />,
      }),
      col.accessor((c) => c.last_transition_time ?? '', {
        id: 'transition',
        header: 'Transition',
        sortFn: 'datetime',
        meta: { width: '110px' },
        cell: ({ getValue }) => <Age value={getValue() || null} />,
      }),
    ];
    if (groupBy !== NO_GROUPING) {
      columns.push(
        col.accessor((c) => groupValue(c, groupBy), {
          id: 'group',
          header: 'Group',
          enableSorting: false,
          meta: { width: '1px' },
          cell: ({ getValue }) => <span>{String(getValue())}</span>,
        }),
      );
    }
    return columns;
  }, [groupBy]);
}

export interface CheckTableProps {
  checks: CheckSummary[];
  groupBy: string;
  loading: boolean;
  emptyMessage: string;
  onOpen: (check: CheckSummary) => void;
}

/**
 * The health table: virtualised, grouped by Group By, sort in the URL as spec 000 names it (`sortBy`, `sortDesc`; an
 * older link's `sortOrder` still reads).
 */
// memo: a dashboard render that changes none of these (the urgent half of a filter change, whose new rows come in
// a deferred render) does not run the table's render over 10,000 rows
export const CheckTable = memo(function CheckTable({ checks, groupBy, loading, emptyMessage, onOpen }: CheckTableProps) {
  const columns = useColumns(groupBy);
  const grouping = useMemo(() => (groupBy === NO_GROUPING ? undefined : ['group']), [groupBy]);
  return (
    <DataTable
      // a new grouping starts with every group open
      key={groupBy}
      label="Health checks"
      columns={columns}
      data={checks}
      getRowId={checkId}
      loading={loading}
      onRowClick={onOpen}
      groupBy={grouping}
      defaultExpanded
      defaultSort={CHECKS_SORT}
      sortDirectionParam="sortDesc"
      paginate={false}
      emptyMessage={emptyMessage}
      maxHeight="calc(100vh - 250px)"
    />
  );
});
