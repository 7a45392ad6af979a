import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Button, makeStyles, Text, tokens } from '@fluentui/react-components';
import { DataTable } from '../../../components/data-table/data-table';
import { useDataTableState } from '../../../components/data-table/use-data-table-state';
import { errorMessage } from '../../../lib/api-client';
import { toast } from '../../../lib/toast';
import { useUrlState } from '../../../lib/url-state';
import { useInsights, type InsightRow } from '../api';
import { INSIGHT_FILTER_DEFAULTS, LOAD_MORE_WITHIN_PX, type InsightFilters } from '../model';
import { useInsightColumns } from './insight-columns';
import { InsightDetailDialog } from './insight-detail-dialog';
import { InsightsFilterBar } from './insights-filter-bar';

const NO_ROWS: InsightRow[] = [];
export const EMPTY_INSIGHTS = 'No insights match these filters';

const useStyles = makeStyles({
  scroll: { maxHeight: '70vh', overflow: 'auto' },
  foot: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalM, padding: `${tokens.spacingVerticalS} 0` },
  count: { color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase200 },
});

/**
 * The insights list of /catalog/insights and of an item's Insights tab: filters and sort in the URL, 50 at a
 * time with the next 50 loading as the list nears its end, a row's detail in a dialog, errors as a toast.
 */
export function InsightsView({ configId }: { configId?: string }) {
  const s = useStyles();
  const [filters, setFilters] = useUrlState(INSIGHT_FILTER_DEFAULTS);
  const table = useDataTableState({ defaultSort: { id: 'first_observed', desc: true } });
  const sort = { sortBy: table.state.sorting[0]?.id ?? 'first_observed', desc: table.state.sorting[0]?.desc ?? true };
  const insights = useInsights(filters, sort, configId);
  const rows = useMemo(() => insights.data?.pages.flatMap((p) => p.rows) ?? NO_ROWS, [insights.data]);
  const total = insights.data?.pages[0]?.total ?? 0;
  const columns = useInsightColumns(!!configId);
  const [open, setOpen] = useState<string | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = insights;

  // spec 001 §8: an insights error is a toast (the list keeps what it had)
  useEffect(() => {
    if (insights.error) toast.error(errorMessage(insights.error));
  }, [insights.error]);

  const nearEnd = useCallback(() => {
    const el = scroller.current;
    if (!el || !hasNextPage || isFetchingNextPage) return;
    if (el.scrollHeight - el.scrollTop - el.clientHeight <= LOAD_MORE_WITHIN_PX) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  // a first page shorter than the scroller has no scroll to wait for
  useEffect(nearEnd, [nearEnd, rows.length]);

  const onFilters = (patch: Partial<InsightFilters>) => {
    setFilters(patch);
    scroller.current?.scrollTo({ top: 0 });
  };

  return (
    <>
      <InsightsFilterBar value={filters} onChange={onFilters} item={!!configId} />
      <div ref={scroller} className={s.scroll} onScroll={nearEnd} data-testid="insights-scroll">
        <DataTable
          label="Insights"
          columns={columns}
          data={rows}
          getRowId={(r) => r.id}
          loading={insights.isFetching}
          manual
          paginate={false}
          total={total}
          state={table}
          maxHeight="none"
          emptyMessage={EMPTY_INSIGHTS}
          onRowClick={(r) => setOpen(r.id)}
        />
      </div>
      <div className={s.foot}>
        <Text className={s.count} role="status">{insights.data ? `${rows.length} of ${total} insights` : ''}</Text>
        {hasNextPage && (
          <Button size="small" disabled={isFetchingNextPage} onClick={() => void fetchNextPage()}>
            {isFetchingNextPage ? 'Loading…' : 'Load more'}
          </Button>
        )}
      </div>
      <InsightDetailDialog insightId={open} onClose={() => setOpen(null)} />
    </>
  );
}
