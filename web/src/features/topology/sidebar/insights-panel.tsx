import { useState } from 'react';
import { Link as RouterLink } from 'wouter';
import { Button, Link, makeStyles, Text, tokens } from '@fluentui/react-components';
import { SeverityBadge } from '../../../components/status/status-badge';
import { INSIGHTS_PAGE_SIZE, useComponentInsights, useLinkedConfigIds } from '../api-sidebar';
import { PanelList } from './panel-list';
import type { PanelContext } from './panel';

const useStyles = makeStyles({
  text: { flexGrow: 1, minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  pager: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS, marginTop: tokens.spacingVerticalS },
});

function useInsights(ctx: PanelContext, page: number) {
  const o = { refetchInterval: ctx.refetchInterval };
  const { ids } = useLinkedConfigIds(ctx.componentId, o);
  return useComponentInsights(ctx.componentId, ids, page, o);
}

export function useInsightsCount(ctx: PanelContext): number | undefined {
  return useInsights(ctx, 0).data?.total;
}

/** Insights: the analysis of the linked catalog items, 50 a page. */
export function InsightsPanel({ ctx }: { ctx: PanelContext }) {
  const s = useStyles();
  const [page, setPage] = useState(0);
  const q = useInsights(ctx, page);
  const total = q.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / INSIGHTS_PAGE_SIZE));
  return (
    <>
      <PanelList
        label="Insights"
        query={{ ...q, data: q.data?.rows }}
        empty="No insights"
        rowKey={(i) => i.id}
        row={(i) => (
          <>
            {i.severity && <SeverityBadge severity={i.severity} />}
            <RouterLink href={`/catalog/${i.config_id}/insights`} asChild>
              <Link className={s.text}>{i.summary || i.analyzer}</Link>
            </RouterLink>
            <Text size={200}>{i.analysis_type}</Text>
          </>
        )}
      />
      {pages > 1 && (
        <div className={s.pager}>
          <Button size="small" disabled={page === 0} onClick={() => setPage(page - 1)}>Previous</Button>
          <Text size={200}>{`Page ${page + 1} of ${pages}`}</Text>
          <Button size="small" disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>Next</Button>
        </div>
      )}
    </>
  );
}
