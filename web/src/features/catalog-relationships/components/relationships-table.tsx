import { useMemo } from 'react';
import { Badge, Button, Link, makeStyles, tokens } from '@fluentui/react-components';
import { LinkDismiss16Regular } from '@fluentui/react-icons';
import { useLocation } from 'wouter';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { DataTable } from '../../../components/data-table/data-table';
import { Age } from '../../../components/status/age';
import { HealthIndicator } from '../../../components/status/health-indicator';
import type { ManualLink, RelatedConfig } from '../api';

const useStyles = makeStyles({
  name: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalXS, minWidth: 0 },
  text: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
});

const col = dataTableColumns<RelatedConfig>();
export const EMPTY_RELATED = 'No related configs';

function NameCell({ row }: { row: RelatedConfig }) {
  const s = useStyles();
  const [, navigate] = useLocation();
  const href = `/catalog/${encodeURIComponent(row.id)}`;
  return (
    <span className={s.name}>
      <Link
        href={href}
        className={s.text}
        onClick={(e) => {
          if (e.metaKey || e.ctrlKey || e.shiftKey) return;
          e.preventDefault();
          navigate(href);
        }}
      >
        {row.name || row.id}
      </Link>
      {row.deleted_at && <Badge size="small" appearance="tint" color="subtle">Deleted</Badge>}
    </span>
  );
}

const insightCount = (a: RelatedConfig['analysis']) => Object.values(a ?? {}).reduce<number>((n, v) => n + (typeof v === 'number' ? v : 0), 0);

export interface RelationshipsTableProps {
  rows: RelatedConfig[];
  loading: boolean;
  /** The link between the tab's item and this row, when a hand-made one exists. */
  manualLinkOf: (row: RelatedConfig) => ManualLink | null;
  /** Asks to remove a hand-made link; absent for those who may not write. */
  onUnlink?: (link: ManualLink, row: RelatedConfig) => void;
}

/** Name (linked), Type, Health, Status, Depth, Changes (7 days), Insights, Updated, and Unlink for hand-made links. */
export function RelationshipsTable({ rows, loading, manualLinkOf, onUnlink }: RelationshipsTableProps) {
  const columns = useMemo(() => {
    const list: DataTableColumn<RelatedConfig>[] = [
      col.accessor((r) => r.name ?? '', { id: 'name', header: 'Name', cell: ({ row }) => <NameCell row={row.original} /> }),
      col.accessor((r) => r.type ?? '', { id: 'type', header: 'Type', meta: { width: '200px' } }),
      col.accessor((r) => r.health ?? '', { id: 'health', header: 'Health', meta: { width: '110px' }, cell: ({ getValue }) => getValue() && <HealthIndicator health={getValue()} showLabel /> }),
      col.accessor((r) => r.status ?? '', { id: 'status', header: 'Status', meta: { width: '120px' } }),
      col.accessor((r) => r.depth ?? 0, { id: 'depth', header: 'Depth', meta: { width: '70px', align: 'end' } }),
      col.accessor((r) => Number(r.changes ?? 0), { id: 'changes', header: 'Changes', meta: { width: '90px', align: 'end' } }),
      col.accessor((r) => insightCount(r.analysis), { id: 'insights', header: 'Insights', meta: { width: '80px', align: 'end' } }),
      col.accessor((r) => r.updated_at ?? '', { id: 'updated_at', header: 'Updated', meta: { width: '110px' }, cell: ({ getValue }) => <Age value={getValue() || null} /> }),
    ];
    if (onUnlink) {
      list.push(
        col.display({
          id: 'unlink',
          header: '',
          meta: { width: '100px' },
          cell: ({ row }) => {
            const link = manualLinkOf(row.original);
            return link ? (
              <Button size="small" appearance="subtle" icon={<LinkDismiss16Regular />} onClick={(e) => { e.stopPropagation(); onUnlink(link, row.original); }}>
                Unlink
              </Button>
            ) : null;
          },
        }),
      );
    }
    return list;
  }, [manualLinkOf, onUnlink]);
  return (
    <DataTable
      label="Related configs"
      columns={columns}
      data={rows}
      getRowId={(r) => r.id}
      loading={loading}
      urlState={false}
      defaultSort={{ id: 'depth' }}
      emptyMessage={EMPTY_RELATED}
      pageSizes={[50, 100, 200, 500]}
      defaultPageSize={100}
    />
  );
}
