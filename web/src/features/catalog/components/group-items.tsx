import { useMemo, useState } from 'react';
import { useLocation } from 'wouter';
import { Link, makeStyles, tokens } from '@fluentui/react-components';
import { dataTableColumns } from '../../../components/data-table/columns';
import { DataTable } from '../../../components/data-table/data-table';
import type { DataTableStateHandle } from '../../../components/data-table/use-data-table-state';
import { Age } from '../../../components/status/age';
import { HealthIndicator } from '../../../components/status/health-indicator';
import { formatCurrency } from '../../../lib/format';
import { useGroupItems, type ConfigListItem } from '../api';
import type { CatalogFilters, GroupBy } from '../filters';
import { GROUP_PAGE_SIZE } from '../model';
import { AgentBadge } from '../../health/components/check-name';
import { AgentNamesContext, useAgentNames } from '../../health/agent-names';
import { isLocalAgent } from '../../health/filters';

const useStyles = makeStyles({
  root: { padding: `${tokens.spacingVerticalS} 0 ${tokens.spacingVerticalS} ${tokens.spacingHorizontalXXL}` },
  name: { display: 'inline-flex', gap: tokens.spacingHorizontalS, alignItems: 'center', minWidth: 0 },
  deleted: { color: tokens.colorNeutralForeground3, textDecorationLine: 'line-through' },
});

export const configHref = (id: string) => `/catalog/${encodeURIComponent(id)}`;

const col = dataTableColumns<ConfigListItem>();

function useItemColumns() {
  const s = useStyles();
  const [, navigate] = useLocation();
  return useMemo(
    () => [
      // the server pages by name: the headers offer no other sort
      col.accessor('name', {
        enableSorting: false,
        header: 'Name',
        cell: (c) => {
          const r = c.row.original;
          const href = configHref(r.id);
          return (
            <span className={s.name}>
              <HealthIndicator health={r.health} size="small" />
              <Link
                href={href}
                className={r.deleted_at ? s.deleted : undefined}
                onClick={(e) => {
                  e.stopPropagation();
                  if (e.metaKey || e.ctrlKey || e.shiftKey) return;
                  e.preventDefault();
                  navigate(href);
                }}
              >
                {r.name || r.id}
              </Link>
              <AgentBadge agentId={r.agent_id} />
            </span>
          );
        },
      }),
      col.accessor('type', { enableSorting: false, header: 'Type', meta: { width: '220px' } }),
      col.accessor('status', { enableSorting: false, header: 'Status', meta: { width: '140px' }, cell: (c) => (c.row.original.deleted_at ? 'Deleted' : c.getValue()) }),
      col.accessor('cost_total_30d', { enableSorting: false, header: 'Cost (30d)', meta: { width: '110px' }, cell: (c) => formatCurrency(c.getValue() ?? null) }),
      col.accessor('created_at', { enableSorting: false, header: 'Created', meta: { width: '110px' }, cell: (c) => <Age value={c.getValue()} /> }),
      col.accessor('updated_at', { enableSorting: false, header: 'Updated', meta: { width: '110px' }, cell: (c) => <Age value={c.getValue()} /> }),
    ],
    [s, navigate],
  );
}

/** An expanded group: its items, 50 a page from the server, each linking to /catalog/{id}. */
export function GroupItems({ groupBy, value, filters, label }: { groupBy: GroupBy; value: string | null; filters: CatalogFilters; label: string }) {
  const s = useStyles();
  const [pageIndex, setPageIndex] = useState(0);
  const items = useGroupItems(groupBy, value, filters, pageIndex);
  const [, navigate] = useLocation();
  const columns = useItemColumns();
  // names for the agent badge of pushed items, loaded only when the page has some
  const agentNames = useAgentNames(useMemo(() => (items.data?.rows ?? []).some((r) => !isLocalAgent(r.agent_id)), [items.data]));
  // the page lives here, not in the URL: several groups can be open at once
  const state: DataTableStateHandle = useMemo(
    () => ({
      state: { sorting: [], pagination: { pageIndex, pageSize: GROUP_PAGE_SIZE } },
      setSorting: () => {},
      setPagination: (u) => setPageIndex((typeof u === 'function' ? u({ pageIndex, pageSize: GROUP_PAGE_SIZE }) : u).pageIndex),
    }),
    [pageIndex],
  );
  return (
    <AgentNamesContext.Provider value={agentNames}>
      <div className={s.root}>
        <DataTable
          label={`${label} items`}
          columns={columns}
          data={items.data?.rows ?? NO_ROWS}
          getRowId={(r) => r.id}
          loading={items.isFetching}
          manual
          total={items.data?.total ?? 0}
          state={state}
          pageSizes={[GROUP_PAGE_SIZE]}
          urlState={false}
          paginate={(items.data?.total ?? 0) > GROUP_PAGE_SIZE}
          emptyMessage={items.isError ? 'The items could not be loaded' : 'No items in this group match these filters'}
          onRowClick={(r) => navigate(configHref(r.id))}
          maxHeight="420px"
        />
      </div>
    </AgentNamesContext.Provider>
  );
}

const NO_ROWS: ConfigListItem[] = [];
