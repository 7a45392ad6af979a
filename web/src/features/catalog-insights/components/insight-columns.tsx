import { useMemo } from 'react';
import { Link, makeStyles, tokens } from '@fluentui/react-components';
import { useLocation } from 'wouter';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { Age } from '../../../components/status/age';
import { SeverityBadge, StatusBadge } from '../../../components/status/status-badge';
import type { InsightRow } from '../api';

const useStyles = makeStyles({
  config: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalXS, minWidth: 0 },
  name: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  type: { color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase200, whiteSpace: 'nowrap' },
});

const col = dataTableColumns<InsightRow>();

function ConfigCell({ row }: { row: InsightRow }) {
  const s = useStyles();
  const [, navigate] = useLocation();
  const id = row.config?.id ?? row.config_id;
  if (!id) return null;
  const href = `/catalog/${encodeURIComponent(id)}/insights`;
  return (
    <span className={s.config}>
      <Link
        href={href}
        className={s.name}
        onClick={(e) => {
          e.stopPropagation();
          if (e.metaKey || e.ctrlKey || e.shiftKey) return;
          e.preventDefault();
          navigate(href);
        }}
      >
        {row.config?.name ?? row.config_name ?? id}
      </Link>
      {row.config?.type && <span className={s.type}>{row.config.type}</span>}
    </span>
  );
}

/** Config (linked), Analyzer, Type, Severity, Status, First and Last Observed. */
export function useInsightColumns(hideConfig: boolean): DataTableColumn<InsightRow>[] {
  return useMemo(() => {
    const columns: DataTableColumn<InsightRow>[] = [
      col.accessor((r) => r.config?.name ?? r.config_name ?? '', { id: 'config', header: 'Config', cell: ({ row }) => <ConfigCell row={row.original} /> }),
      col.accessor((r) => r.analyzer ?? '', {
        id: 'analyzer',
        header: 'Analyzer',
        cell: ({ row, getValue }) => <span title={row.original.summary ?? getValue()}>{getValue()}</span>,
      }),
      col.accessor((r) => r.analysis_type ?? '', { id: 'analysis_type', header: 'Type', meta: { width: '140px' } }),
      col.accessor((r) => r.severity ?? '', {
        id: 'severity',
        header: 'Severity',
        meta: { width: '110px' },
        cell: ({ getValue }) => getValue() && <SeverityBadge severity={getValue()} />,
      }),
      col.accessor((r) => r.status ?? '', {
        id: 'status',
        header: 'Status',
        meta: { width: '100px' },
        cell: ({ getValue }) => getValue() && <StatusBadge status={getValue()} color={getValue() === 'open' ? 'warning' : 'subtle'} />,
      }),
      col.accessor((r) => r.first_observed ?? '', { id: 'first_observed', header: 'First Observed', meta: { width: '130px' }, cell: ({ getValue }) => <Age value={getValue() || null} /> }),
      col.accessor((r) => r.last_observed ?? '', { id: 'last_observed', header: 'Last Observed', meta: { width: '130px' }, cell: ({ getValue }) => <Age value={getValue() || null} /> }),
    ];
    return hideConfig ? columns.filter((c) => c.id !== 'config') : columns;
  }, [hideConfig]);
}
