import { useEffect, useRef } from 'react';
import { useInfiniteQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { Button, makeStyles, Spinner, Text, tokens } from '@fluentui/react-components';
import { Link as RouterLink } from 'wouter';
import { Link } from '@fluentui/react-components';
import { Age } from '../../../components/status/age';
import { SeverityBadge } from '../../../components/status/status-badge';
import { api, contentRangeTotal } from '../../../lib/api-client';
import { ComponentChange, sidebarKeys, useComponentConfigs, useLinkedConfigIds, visibleConfigs } from '../api-sidebar';
import { CHANGES_SCROLL_MARGIN_PX, changesPageQuery, nextChangesPage } from './changes-panel-paging';
import { PanelList } from './panel-list';
import type { PanelContext } from './panel';

const useStyles = makeStyles({
  text: { flexGrow: 1, minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  age: { color: tokens.colorNeutralForeground3, whiteSpace: 'nowrap' },
  more: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS, marginTop: tokens.spacingVerticalS },
});

interface ChangesPage { rows: ComponentChange[]; total: number | null }

/** The linked configs' changes, newest first, 50 a page (changes-panel-paging.ts); the count from the first page. */
function useChanges(ctx: PanelContext) {
  const o = { refetchInterval: ctx.refetchInterval };
  const { ids } = useLinkedConfigIds(ctx.componentId, o);
  return useInfiniteQuery({
    queryKey: [...sidebarKeys.changes(ctx.componentId, ids ?? []), 'pages'],
    initialPageParam: 0,
    queryFn: async ({ pageParam, signal }): Promise<ChangesPage> => {
      if (!ids?.length) return { rows: [], total: 0 };
      let total: number | null = null;
      const rows = await api.get('/api/db/config_changes', {
        query: changesPageQuery(ids, pageParam),
        headers: { prefer: 'count=exact' },
        onHeaders: (h) => (total = contentRangeTotal(h)),
        schema: z.array(ComponentChange),
        signal,
      });
      return { rows, total };
    },
    getNextPageParam: (_last, pages) => nextChangesPage(pages, pages[0]?.total ?? null),
    enabled: ids !== undefined,
    refetchInterval: ctx.refetchInterval || false,
  });
}

export function useChangesCount(ctx: PanelContext): number | undefined {
  const first = useChanges(ctx).data?.pages[0];
  return first ? first.total ?? first.rows.length : undefined;
}

/** Changes: the linked catalog items' changes, newest first; the next 50 load near the end (or by "Load more"). */
export function ChangesPanel({ ctx }: { ctx: PanelContext }) {
  const s = useStyles();
  const q = useChanges(ctx);
  const links = useComponentConfigs(ctx.componentId, { refetchInterval: ctx.refetchInterval });
  const names = new Map(visibleConfigs(links.data ?? [], true).map((l) => [l.config_id, l.configs?.name ?? '']));
  const end = useRef<HTMLDivElement>(null);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = q;
  useEffect(() => {
    const el = end.current;
    if (!el || !hasNextPage || typeof IntersectionObserver === 'undefined') return;
    const io = new IntersectionObserver((seen) => {
      if (seen.some((e) => e.isIntersecting) && !isFetchingNextPage) void fetchNextPage();
    }, { rootMargin: `0px 0px ${CHANGES_SCROLL_MARGIN_PX}px 0px` });
    io.observe(el);
    return () => io.disconnect();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  return (
    <>
      <PanelList
        label="Changes"
        query={{ ...q, data: q.data?.pages.flatMap((p) => p.rows) }}
        empty="No changes"
        rowKey={(c) => c.id}
        row={(c) => (
          <>
            {c.severity && <SeverityBadge severity={c.severity} />}
            <RouterLink href={`/catalog/${c.config_id}/changes`} asChild>
              <Link className={s.text}>{`${names.get(c.config_id) || 'Item'}: ${c.change_type ?? 'change'}${c.summary ? ` — ${c.summary}` : ''}`}</Link>
            </RouterLink>
            <Text size={200} className={s.age}><Age value={c.created_at} /></Text>
          </>
        )}
      />
      <div ref={end} className={s.more}>
        {isFetchingNextPage && <Spinner size="tiny" label="Loading more…" />}
        {hasNextPage && !isFetchingNextPage && <Button size="small" onClick={() => void fetchNextPage()}>Load more</Button>}
      </div>
    </>
  );
}
