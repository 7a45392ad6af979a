import { useCallback, useState } from 'react';
import { Button } from '@fluentui/react-components';
import { ErrorCircle24Regular } from '@fluentui/react-icons';
import { DataTable } from '../../../components/data-table/data-table';
import { useDataTableState } from '../../../components/data-table/use-data-table-state';
import { EmptyState } from '../../../components/empty-state';
import { Page } from '../../../components/page';
import { errorMessage } from '../../../lib/api-client';
import { useUrlState } from '../../../lib/url-state';
import { useHistoryResourceTypes, useSendHistory } from '../api';
import { HISTORY_PAGE_SIZE, HISTORY_PAGE_SIZES, HISTORY_URL_DEFAULTS, type HistoryFilters, type SendHistoryRow } from '../model';
import { useHistoryColumns } from './history-columns';
import { HistoryFilterBar } from './history-filter-bar';
import { SendDrawer } from './send-drawer';

const NO_ROWS: SendHistoryRow[] = [];
export const EMPTY_HISTORY = 'No notifications have been sent';
export const EMPTY_FILTERED_HISTORY = 'No notifications match these filters';

/**
 * /notifications: the send history, newest first, server-paged; status and resource type in the URL (`status`,
 * `resourceType`, sent to /api/db as `status.filter` and `resource_type.filter`); a row opens its drawer. Live: a
 * change to notification_send_history refetches the page (live-socket.ts).
 */
export function SendHistory() {
  const [filters, setFilters] = useUrlState(HISTORY_URL_DEFAULTS);
  const table = useDataTableState({ defaultPageSize: HISTORY_PAGE_SIZE, pageSizes: HISTORY_PAGE_SIZES });
  const { pagination } = table.state;
  const history = useSendHistory(filters, pagination.pageIndex, pagination.pageSize);
  const types = useHistoryResourceTypes();
  const columns = useHistoryColumns();
  const [open, setOpen] = useState<SendHistoryRow | null>(null);
  const filtered = !!(filters.status || filters.resourceType);

  // a new filter starts from the first page, in the same navigation
  const onFilters = useCallback(
    (patch: Partial<HistoryFilters>) => {
      setFilters(patch);
      if (pagination.pageIndex) table.setPagination({ ...pagination, pageIndex: 0 });
    },
    [setFilters, table, pagination],
  );

  return (
    <Page title="Notifications" onRefresh={() => void history.refetch()} refreshing={history.isFetching}>
      <HistoryFilterBar value={filters} resourceTypes={types.data ?? []} onChange={onFilters} />
      {history.error && !history.data ? (
        <EmptyState
          icon={<ErrorCircle24Regular />}
          title="Notifications could not be loaded"
          description={errorMessage(history.error)}
          role="alert"
          actions={<Button onClick={() => void history.refetch()}>Try again</Button>}
        />
      ) : (
        <DataTable
          label="Notification send history"
          columns={columns}
          data={history.data?.rows ?? NO_ROWS}
          getRowId={(r) => r.id}
          loading={history.isFetching}
          manual
          total={history.data?.total ?? 0}
          state={table}
          pageSizes={HISTORY_PAGE_SIZES}
          defaultPageSize={HISTORY_PAGE_SIZE}
          emptyMessage={filtered ? EMPTY_FILTERED_HISTORY : EMPTY_HISTORY}
          onRowClick={setOpen}
        />
      )}
      <SendDrawer row={open} onClose={() => setOpen(null)} />
    </Page>
  );
}
