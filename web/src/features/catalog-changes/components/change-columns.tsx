import { useMemo } from 'react';
import { Badge, Link, makeStyles, tokens } from '@fluentui/react-components';
import { useLocation } from 'wouter';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { Age } from '../../../components/status/age';
import { SeverityBadge } from '../../../components/status/status-badge';
import type { ChangeRow } from '../api';
import type { ArbitraryField } from '../model';

const useStyles = makeStyles({
  config: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalXS, minWidth: 0 },
  name: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  type: { color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase200, whiteSpace: 'nowrap' },
  filterLink: { textAlign: 'start', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', maxWidth: '100%' },
});

const col = dataTableColumns<ChangeRow>();
/** Clicks on a cell's own controls do not also open the row's details. */
const own = (e: { stopPropagation(): void }) => e.stopPropagation();

/** An item's page in the catalog. */
export const configHref = (id: string) => `/catalog/${encodeURIComponent(id)}`;

export interface ChangeColumnOptions {
  /** Narrows the list to rows whose field has this value (a click on the value). */
  onFilter: (field: ArbitraryField | 'changeType', value: string) => void;
  /** Leave out the Config column (an item's own tab without related changes). */
  hideConfig?: boolean;
}

function FilterValue({ value, title, onClick }: { value: string; title: string; onClick: () => void }) {
  const s = useStyles();
  return (
    <Link
      as="button"
      className={s.filterLink}
      title={title}
      onClick={(e) => {
        own(e);
        onClick();
      }}
    >
      {value}
    </Link>
  );
}

function ConfigCell({ row }: { row: ChangeRow }) {
  const s = useStyles();
  const [, navigate] = useLocation();
  const href = configHref(row.config_id);
  return (
    <span className={s.config}>
      <Link
        href={href}
        className={s.name}
        onClick={(e) => {
          own(e);
          if (e.metaKey || e.ctrlKey || e.shiftKey) return;
          e.preventDefault();
          navigate(href);
        }}
      >
        {row.name || row.config_id}
      </Link>
      {row.type && <span className={s.type}>{row.type}</span>}
      {row.deleted_at && <Badge size="small" appearance="tint" color="subtle">Deleted</Badge>}
    </span>
  );
}

/** Created, Config (linked), Change Type, Severity, Summary, Source, Created By, Count; values filter on click. */
export function useChangeColumns({ onFilter, hideConfig }: ChangeColumnOptions): DataTableColumn<ChangeRow>[] {
  return useMemo(() => {
    const columns: DataTableColumn<ChangeRow>[] = [
      col.accessor('created_at', {
        id: 'created_at',
        header: 'Created',
        meta: { width: '120px' },
        cell: ({ row }) => <Age value={row.original.created_at} />,
      }),
      col.accessor((c) => c.name ?? '', {
        id: 'name',
        header: 'Config',
        meta: { width: '300px' },
        cell: ({ row }) => <ConfigCell row={row.original} />,
      }),
      col.accessor((c) => c.change_type ?? '', {
        id: 'change_type',
        header: 'Change Type',
        meta: { width: '130px' },
        cell: ({ getValue }) =>
          getValue() && <FilterValue value={getValue()} title={`Show only ${getValue()} changes`} onClick={() => onFilter('changeType', getValue())} />,
      }),
      col.accessor((c) => c.severity ?? '', {
        id: 'severity',
        header: 'Severity',
        meta: { width: '100px' },
        cell: ({ getValue }) => getValue() && <SeverityBadge severity={getValue()} />,
      }),
      col.accessor((c) => c.summary ?? '', {
        id: 'summary',
        header: 'Summary',
        enableSorting: false,
        cell: ({ getValue }) => <span title={getValue()}>{getValue()}</span>,
      }),
      col.accessor((c) => c.source ?? '', {
        id: 'source',
        header: 'Source',
        meta: { width: '140px' },
        cell: ({ getValue }) =>
          getValue() && <FilterValue value={getValue()} title={`Show only changes from ${getValue()}`} onClick={() => onFilter('source', getValue())} />,
      }),
      col.accessor((c) => c.external_created_by ?? c.created_by ?? '', {
        id: 'created_by',
        header: 'Created By',
        enableSorting: false,
        meta: { width: '140px' },
        cell: ({ row, getValue }) =>
          getValue() && (
            <FilterValue
              value={getValue()}
              title={`Show only changes by ${getValue()}`}
              onClick={() => onFilter(row.original.external_created_by ? 'external_created_by' : 'created_by', getValue())}
            />
          ),
      }),
      col.accessor((c) => c.count ?? 1, { id: 'count', header: 'Count', meta: { width: '80px', align: 'end' } }),
    ];
    return hideConfig ? columns.filter((c) => c.id !== 'name') : columns;
  }, [onFilter, hideConfig]);
}
