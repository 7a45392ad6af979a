import { useMemo } from 'react';
import { Button, makeStyles, tokens } from '@fluentui/react-components';
import { ErrorCircle24Regular } from '@fluentui/react-icons';
import { dataTableColumns } from '../../components/data-table/columns';
import { DataTable } from '../../components/data-table/data-table';
import { EmptyState } from '../../components/empty-state';
import { Page } from '../../components/page';
import { Age } from '../../components/status/age';
import { errorMessage } from '../../lib/api-client';
import { formatDateTime } from '../../lib/format';
import { useEventQueueSummary } from '../notifications/api';
import { summariseByName, type EventQueueNameRow } from '../notifications/model';

const useStyles = makeStyles({
  error: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', fontFamily: tokens.fontFamilyMonospace, fontSize: tokens.fontSizeBase200 },
});

const col = dataTableColumns<EventQueueNameRow>();
const when = (v: string | null) => (v ? <span title={formatDateTime(v)}><Age value={v} /></span> : '');
export const EMPTY_QUEUE = 'The event queue is empty';

/**
 * /settings/event-queue-status, "Event Queue": event_queue_summary folded to one row per event name (the view has one
 * per name and event), worst first. Live: any change to event_queue refetches it.
 */
export function EventQueueTable() {
  const s = useStyles();
  const summary = useEventQueueSummary();
  const rows = useMemo(() => summariseByName(summary.data ?? []), [summary.data]);
  const columns = useMemo(
    () => [
      col.accessor('name', { id: 'name', header: 'Name' }),
      col.accessor('pending', { id: 'pending', header: 'Pending Count', meta: { width: '130px', align: 'end' } }),
      col.accessor('failed', { id: 'failed', header: 'Error Count', meta: { width: '120px', align: 'end' } }),
      col.accessor('average_attempts', {
        id: 'average_attempts', header: 'Average Attempts', meta: { width: '150px', align: 'end' },
        cell: ({ getValue }) => (Math.round(getValue() * 100) / 100).toString(),
      }),
      col.accessor((r) => r.first_failure ?? '', { id: 'first_failure', header: 'First Failed At', meta: { width: '150px' }, cell: ({ row }) => when(row.original.first_failure) }),
      col.accessor((r) => r.last_failure ?? '', { id: 'last_failure', header: 'Last Failed At', meta: { width: '150px' }, cell: ({ row }) => when(row.original.last_failure) }),
      col.accessor((r) => r.most_common_error ?? '', {
        id: 'most_common_error', header: 'Most Common Error', enableSorting: false,
        cell: ({ getValue }) => <span className={s.error} title={getValue()}>{getValue()}</span>,
      }),
    ],
    [s],
  );
  return (
    <Page title="Event Queue" onRefresh={() => void summary.refetch()} refreshing={summary.isFetching}>
      {summary.error && !summary.data ? (
        <EmptyState
          icon={<ErrorCircle24Regular />}
          title="The event queue could not be loaded"
          description={errorMessage(summary.error)}
          role="alert"
          actions={<Button onClick={() => void summary.refetch()}>Try again</Button>}
        />
      ) : (
        <DataTable
          label="Event queue"
          columns={columns}
          data={rows}
          getRowId={(r) => r.name}
          loading={summary.isLoading}
          emptyMessage={EMPTY_QUEUE}
        />
      )}
    </Page>
  );
}
