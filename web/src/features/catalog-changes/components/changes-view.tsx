import { lazy, Suspense, useCallback, useMemo, useState } from 'react';
import { useLocation } from 'wouter';
import { makeStyles, Spinner, Tab, TabList, Text, tokens } from '@fluentui/react-components';
import { ErrorCircle24Regular } from '@fluentui/react-icons';
import { DataTable } from '../../../components/data-table/data-table';
import { useDataTableState } from '../../../components/data-table/use-data-table-state';
import { EmptyState } from '../../../components/empty-state';
import { resolveTimeRange, timeRangeToParams, type TimeRange } from '../../../lib/time-range';
import { useSearchPatch, useUrlState } from '../../../lib/url-state';
import { useChangesSearch, type ChangeRow } from '../api';
import {
  CHANGE_FILTER_DEFAULTS,
  CHANGES_DEFAULT_SORT,
  CHANGES_PAGE_SIZE,
  CHANGES_PAGE_SIZES,
  changesSearchRequest,
  changesTimeRange,
  formatTriState,
  shownFilters,
  type ArbitraryField,
  type ChangeFilters,
} from '../model';
import { useChangesView, useShowDeletedChanges, type ChangesView as ViewKind } from '../preferences';
import { compareForChange, parseCompare } from '../versions';
import { ChangeDetailDialog } from './change-detail-dialog';
import { changeErrorMessage } from './change-error';
import { configHref, useChangeColumns } from './change-columns';
import { ChangesFilterBar } from './changes-filter-bar';

const ChangesTimeline = lazy(() => import('./changes-timeline').then((m) => ({ default: m.ChangesTimeline })));
const VersionCompareDialog = lazy(() => import('./version-compare-dialog').then((m) => ({ default: m.VersionCompareDialog })));

/** The timeline plots up to this many changes of the range (the largest page the search serves). */
const GRAPH_LIMIT = 500;
const NO_ROWS: ChangeRow[] = [];
export const EMPTY_CHANGES = 'No changes match these filters';

const useStyles = makeStyles({
  head: { display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: tokens.spacingHorizontalM },
  summary: { color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase200 },
  graph: { minHeight: '300px' },
});

export interface ChangesViewProps {
  /** An item's Changes tab: that item's changes (and, by the Related filter, its upstream or downstream). */
  configId?: string;
}

/**
 * The changes list of /catalog/changes and of an item's Changes tab: filters and paging in the URL, Table or a
 * timeline Graph (a stored preference), a change's detail in a dialog, `?compare=<a>..<b>` for two versions.
 */
export function ChangesView({ configId }: ChangesViewProps) {
  const s = useStyles();
  const [filters, setFilters] = useUrlState(CHANGE_FILTER_DEFAULTS);
  const [params, patchParams] = useSearchPatch();
  const range = useMemo(() => changesTimeRange(params), [params]);
  const [view, setView] = useChangesView();
  const [showDeleted, setShowDeleted] = useShowDeletedChanges();
  const table = useDataTableState({ defaultSort: CHANGES_DEFAULT_SORT, defaultPageSize: CHANGES_PAGE_SIZE, pageSizes: CHANGES_PAGE_SIZES });
  const { pagination, sorting } = table.state;
  const graph = view === 'graph';
  const page = graph
    ? { pageIndex: 0, pageSize: GRAPH_LIMIT, sortBy: 'created_at', desc: true }
    : { pageIndex: pagination.pageIndex, pageSize: pagination.pageSize, sortBy: sorting[0]?.id ?? 'created_at', desc: sorting[0]?.desc ?? true };
  // the range resolves when the filters change, not at every render (a new `to` each time would refetch forever)
  const req = useMemo(
    () => changesSearchRequest(filters, range, page, { configId, includeDeleted: showDeleted }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [filters, range, page.pageIndex, page.pageSize, page.sortBy, page.desc, configId, showDeleted],
  );
  const changes = useChangesSearch(req);
  const [open, setOpen] = useState<string | null>(null);
  const [, navigate] = useLocation();
  const compare = parseCompare(params.get('compare'));

  const onFilters = useCallback(
    (patch: Partial<ChangeFilters>) => {
      setFilters(patch);
      if (pagination.pageIndex) table.setPagination({ ...pagination, pageIndex: 0 });
    },
    [setFilters, table, pagination],
  );
  const onRange = useCallback((next: TimeRange) => patchParams({ ...timeRangeToParams(next), pageIndex: undefined }), [patchParams]);
  const onFilter = useCallback(
    (field: ArbitraryField | 'changeType', value: string) =>
      onFilters(field === 'changeType' ? { changeType: formatTriState([{ value, exclude: false }]) } : { [field]: value }),
    [onFilters],
  );
  const columns = useChangeColumns({ onFilter, hideConfig: !!configId && !filters.type_filter });
  const onCompare = (changeId: string, itemId: string) => {
    const value = compareForChange(changeId);
    setOpen(null);
    // the comparison belongs to the item: from the catalog-wide list it opens on the item's Changes tab
    if (configId === itemId) patchParams({ compare: value }, { replace: false });
    else navigate(`${configHref(itemId)}/changes?compare=${encodeURIComponent(value)}`);
  };

  const data = changes.data;
  const resolved = useMemo(() => resolveTimeRange(range), [range, data]); // eslint-disable-line react-hooks/exhaustive-deps
  const types = Object.entries(data?.summary ?? {}).sort((a, b) => b[1] - a[1]);

  return (
    <>
      <ChangesFilterBar
        value={shownFilters(filters)}
        range={range}
        onChange={onFilters}
        onRange={onRange}
        showDeleted={showDeleted}
        onShowDeleted={setShowDeleted}
        item={!!configId}
      />
      <div className={s.head}>
        <TabList size="small" selectedValue={view} onTabSelect={(_, d) => setView(d.value as ViewKind)} aria-label="Changes view">
          <Tab value="table">Table</Tab>
          <Tab value="graph">Graph</Tab>
        </TabList>
        {data && (
          <Text className={s.summary} role="status">
            {data.total} change{data.total === 1 ? '' : 's'}
            {types.length > 0 && ` · ${types.slice(0, 4).map(([t, n]) => `${t} ${n}`).join(', ')}`}
          </Text>
        )}
      </div>
      {changes.error && !data ? (
        <EmptyState icon={<ErrorCircle24Regular />} title="Changes could not be loaded" description={changeErrorMessage(changes.error)} role="alert" />
      ) : graph ? (
        <div className={s.graph}>
          {!data ? (
            <Spinner size="small" label="Loading changes…" />
          ) : (
            <Suspense fallback={<Spinner size="small" label="Loading graph…" />}>
              <ChangesTimeline changes={data.changes} from={resolved.from.getTime()} to={resolved.to.getTime()} />
              {data.total > data.changes.length && (
                <Text className={s.summary}>The graph shows the newest {data.changes.length} of {data.total} changes; narrow the range to see all.</Text>
              )}
            </Suspense>
          )}
        </div>
      ) : (
        <DataTable
          label="Changes"
          columns={columns}
          data={data?.changes ?? NO_ROWS}
          getRowId={(r) => r.id}
          loading={changes.isFetching}
          manual
          total={data?.total ?? 0}
          state={table}
          pageSizes={CHANGES_PAGE_SIZES}
          defaultPageSize={CHANGES_PAGE_SIZE}
          emptyMessage={EMPTY_CHANGES}
          onRowClick={(r) => setOpen(r.id)}
        />
      )}
      <ChangeDetailDialog changeId={open} onClose={() => setOpen(null)} onCompare={onCompare} />
      {compare && configId && (
        <Suspense fallback={null}>
          <VersionCompareDialog
            configId={configId}
            pair={compare}
            onChange={([a, b]) => patchParams({ compare: `${a}..${b}` })}
            onClose={() => patchParams({ compare: undefined })}
          />
        </Suspense>
      )}
    </>
  );
}
