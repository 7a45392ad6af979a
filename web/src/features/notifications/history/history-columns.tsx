import { useMemo } from 'react';
import { Badge, makeStyles, tokens } from '@fluentui/react-components';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { Age } from '../../../components/status/age';
import { HealthIndicator } from '../../../components/status/health-indicator';
import { RouteLink } from '../../../components/route-link';
import { formatDateTime } from '../../../lib/format';
import { recipientText, repeatText, resourceHref, resourceKind, statusColor, statusLabel, titleOf, type SendHistoryRow } from '../model';
import { ResourceKindIcon } from './resource-icon';

const useStyles = makeStyles({
  age: { display: 'flex', flexDirection: 'column', minWidth: 0 },
  repeat: { color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase200 },
  resource: { display: 'inline-flex', alignItems: 'center', gap: tokens.spacingHorizontalXS, minWidth: 0 },
  clip: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
});

const col = dataTableColumns<SendHistoryRow>();

/** The Resource cell: its kind's icon and its name, linked to its page (the link does not open the drawer). */
export function ResourceCell({ row }: { row: SendHistoryRow }) {
  const s = useStyles();
  const kind = resourceKind(row);
  const name = row.resource?.name ?? row.resource_id ?? '';
  const href = resourceHref(kind, row.resource?.id ?? row.resource_id);
  return (
    <span className={s.resource} onClick={(e) => e.stopPropagation()}>
      <ResourceKindIcon kind={kind} />
      {href ? <RouteLink href={href} className={s.clip}>{name}</RouteLink> : <span className={s.clip}>{name}</span>}
    </span>
  );
}

/** Age (with "x{count} over …"), Resource, Status (the resource's health), Notification, Title, Recipient. */
export function useHistoryColumns(): DataTableColumn<SendHistoryRow>[] {
  const s = useStyles();
  return useMemo(
    () => [
      col.accessor('created_at', {
        id: 'created_at',
        header: 'Age',
        enableSorting: false,
        meta: { width: '170px' },
        cell: ({ row }) => {
          const repeat = repeatText(row.original);
          return (
            <span className={s.age} title={formatDateTime(row.original.created_at)}>
              <Age value={row.original.created_at} />
              {repeat && <span className={s.repeat}>{repeat}</span>}
            </span>
          );
        },
      }),
      col.display({ id: 'resource', header: 'Resource', cell: ({ row }) => <ResourceCell row={row.original} /> }),
      col.accessor((r) => r.resource_health ?? r.resource?.health ?? '', {
        id: 'health',
        header: 'Status',
        enableSorting: false,
        meta: { width: '120px' },
        cell: ({ getValue }) => (getValue() ? <HealthIndicator health={getValue()} showLabel /> : null),
      }),
      col.accessor((r) => r.status ?? '', {
        id: 'status',
        header: 'Notification',
        enableSorting: false,
        meta: { width: '120px' },
        cell: ({ getValue }) => <Badge appearance="tint" color={statusColor(getValue())}>{statusLabel(getValue())}</Badge>,
      }),
      col.accessor((r) => titleOf(r), { id: 'title', header: 'Title', enableSorting: false, cell: ({ getValue }) => <span className={s.clip} title={getValue()}>{getValue()}</span> }),
      col.accessor((r) => recipientText(r.recipient), { id: 'recipient', header: 'Recipient', enableSorting: false, meta: { width: '200px' } }),
    ],
    [s],
  );
}
