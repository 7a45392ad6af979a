import { useMemo } from 'react';
import { Badge, makeStyles, tokens, Tooltip } from '@fluentui/react-components';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { PersonAvatar } from '../../../components/status/person-avatars';
import { formatDuration } from '../../../lib/format';
import { ruleStatus, waitForText, type RuleRow } from './model';

const useStyles = makeStyles({
  events: { display: 'flex', flexWrap: 'wrap', gap: tokens.spacingHorizontalXS },
  mono: { fontFamily: tokens.fontFamilyMonospace, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  counts: { fontVariantNumeric: 'tabular-nums' },
});

const col = dataTableColumns<RuleRow>();
const n = (v: number | null | undefined) => v ?? 0;

/** Name, Events, Filter, Status, Sent, Failed, Pending, Avg Duration, Repeat Interval, Wait For, Created By. */
export function useRuleColumns(): DataTableColumn<RuleRow>[] {
  const s = useStyles();
  return useMemo(
    () => [
      col.accessor((r) => r.name ?? '', { id: 'name', header: 'Name' }),
      col.accessor((r) => r.events ?? [], {
        id: 'events',
        header: 'Events',
        enableSorting: false,
        cell: ({ getValue }) => (
          <span className={s.events}>
            {(getValue() as string[]).map((e) => (
              <Badge key={e} appearance="tint" color="informative" shape="rounded">
                {e}
              </Badge>
            ))}
          </span>
        ),
      }),
      col.accessor((r) => r.filter ?? '', {
        id: 'filter',
        header: 'Filter',
        meta: { width: '14%' },
        cell: ({ getValue }) => <span className={s.mono}>{getValue() as string}</span>,
      }),
      col.accessor((r) => ruleStatus(r), {
        id: 'status',
        header: 'Status',
        meta: { width: '90px' },
        cell: ({ row, getValue }) =>
          getValue() === 'Paused' ? (
            <Tooltip content={row.original.error ?? ''} relationship="description">
              <Badge appearance="tint" color="warning" tabIndex={0}>
                Paused
              </Badge>
            </Tooltip>
          ) : (
            <Badge appearance="tint" color="success">
              Active
            </Badge>
          ),
      }),
      col.accessor((r) => n(r.sent), { id: 'sent', header: 'Sent', meta: { width: '70px' }, cell: ({ getValue }) => <span className={s.counts}>{getValue() as number}</span> }),
      col.accessor((r) => n(r.failed), {
        id: 'failed',
        header: 'Failed',
        meta: { width: '70px' },
        cell: ({ row, getValue }) => <span className={s.counts} title={row.original.most_common_error ?? undefined}>{getValue() as number}</span>,
      }),
      col.accessor((r) => n(r.pending), { id: 'pending', header: 'Pending', meta: { width: '80px' }, cell: ({ getValue }) => <span className={s.counts}>{getValue() as number}</span> }),
      col.accessor((r) => r.avg_duration_ms ?? null, {
        id: 'avg_duration_ms',
        header: 'Avg Duration',
        meta: { width: '110px' },
        cell: ({ getValue }) => {
          const v = getValue() as number | null;
          return v === null ? '' : formatDuration(Math.round(v));
        },
      }),
      col.accessor((r) => r.repeat_interval ?? '', { id: 'repeat_interval', header: 'Repeat Interval', meta: { width: '120px' } }),
      col.accessor((r) => waitForText(r.wait_for), { id: 'wait_for', header: 'Wait For', meta: { width: '90px' } }),
      col.accessor((r) => (typeof r.created_by === 'object' ? (r.created_by?.name ?? '') : ''), {
        id: 'created_by',
        header: 'Created By',
        enableSorting: false,
        meta: { width: '160px' },
        cell: ({ row }) => {
          const p = row.original.created_by;
          return p && typeof p === 'object' ? <PersonAvatar person={{ ...p, name: p.name ?? p.email ?? '' }} size={20} showName /> : null;
        },
      }),
    ],
    [s],
  );
}
