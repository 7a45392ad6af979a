import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api, contentRangeTotal } from '../../lib/api-client';
import { INSIGHTS_PAGE_SIZE, insightsQuery, type InsightFilters, type InsightSort } from './model';

/** Under `['db', 'config_analysis']`: a scrape's new or resolved insights reach the open list as live updates. */
export const insightKeys = {
  all: ['db', 'config_analysis'] as const,
  list: (f: InsightFilters, sort: InsightSort, configId?: string) => [...insightKeys.all, 'list', f, sort, configId ?? null] as const,
  detail: (id: string) => [...insightKeys.all, 'detail', id] as const,
  componentConfigs: (component: string) => ['db', 'config_component_relationships', component] as const,
  analyzers: () => ['db', 'config_analysis_analyzers'] as const,
  types: () => ['db', 'analysis_types'] as const,
  configTypes: () => ['db', 'config_types'] as const,
  components: () => ['db', 'components', 'insight-filter'] as const,
};

const str = z.string().nullish();
const EmbeddedConfig = z.object({ id: z.string(), name: str, config_class: str, type: str }).nullish();

/** One row of config_analysis_items as the list reads it (spec 001 §3 "Analysis insight"). */
export const InsightRow = z
  .object({
    id: z.string(),
    config_id: str,
    analysis_type: str,
    analyzer: str,
    summary: str,
    severity: str,
    status: str,
    source: str,
    first_observed: str,
    last_observed: str,
    config_name: str,
    config: EmbeddedConfig,
  })
  .passthrough();
export type InsightRow = z.infer<typeof InsightRow>;

/** The configs linked to a component: the Component filter keeps their insights. */
function useComponentConfigIds(component: string) {
  return useQuery({
    queryKey: insightKeys.componentConfigs(component),
    enabled: !!component,
    queryFn: ({ signal }) =>
      api
        .get('/api/db/config_component_relationships', {
          query: { component_id: `eq.${component}`, select: 'config_id' },
          schema: z.array(z.object({ config_id: z.string() })),
          signal,
        })
        .then((rows) => rows.map((r) => r.config_id)),
  });
}

/** Pages of 50 with the exact total, the next one fetched on demand (infinite scroll). */
export function useInsights(f: InsightFilters, sort: InsightSort, configId?: string) {
  const component = configId ? '' : f.component;
  const linked = useComponentConfigIds(component);
  const ready = !component || linked.isSuccess;
  const query = useInfiniteQuery({
    queryKey: [...insightKeys.list(f, sort, configId), linked.data ?? null],
    enabled: ready,
    initialPageParam: 0,
    queryFn: async ({ pageParam, signal }) => {
      let total: number | null = null;
      const rows = await api.get('/api/db/config_analysis_items', {
        query: insightsQuery(f, sort, pageParam, { configId, componentConfigIds: component ? linked.data : undefined }),
        headers: { prefer: 'count=exact' },
        schema: z.array(InsightRow),
        signal,
        onHeaders: (h) => (total = contentRangeTotal(h)),
      });
      return { rows, total: total ?? rows.length, pageIndex: pageParam };
    },
    getNextPageParam: (last, pages) => {
      const loaded = pages.reduce((n, p) => n + p.rows.length, 0);
      return last.rows.length === INSIGHTS_PAGE_SIZE && loaded < last.total ? last.pageIndex + 1 : undefined;
    },
    placeholderData: keepPreviousData,
  });
  return { ...query, error: query.error ?? linked.error };
}

export const InsightDetail = InsightRow.extend({ message: str, analysis: z.unknown().nullish() });
export type InsightDetail = z.infer<typeof InsightDetail>;

/** One insight with its message and analysis, as the reference's detail modal reads it. */
export function useInsight(id: string | null) {
  return useQuery({
    queryKey: insightKeys.detail(id ?? ''),
    enabled: !!id,
    queryFn: async ({ signal }) => {
      const rows = await api.get('/api/db/config_analysis', {
        query: {
          id: `eq.${id}`,
          select: 'id,config_id,source,analyzer,analysis_type,summary,message,severity,status,analysis,first_observed,last_observed,config:configs(id,name,config_class,type)',
        },
        schema: z.array(InsightDetail),
        signal,
      });
      return rows[0] ?? null;
    },
  });
}

/** A filter's choices; a list the server lacks reads as none rather than failing the page. */
function useNames(key: readonly unknown[], path: string, column: string) {
  return useQuery({
    queryKey: key,
    queryFn: ({ signal }) =>
      api
        .get(path, { query: { select: column, order: `${column}.asc` }, schema: z.array(z.record(z.string(), z.unknown())), signal })
        .then((rows) => [...new Set(rows.map((r) => r[column]).filter((v): v is string => typeof v === 'string' && v !== ''))]),
    staleTime: 60_000,
  });
}

export const useAnalyzers = () => useNames(insightKeys.analyzers(), '/api/db/config_analysis_analyzers', 'analyzer');
export const useAnalysisTypes = () => useNames(insightKeys.types(), '/api/db/analysis_types', 'analysis_type');
export const useInsightConfigTypes = () => useNames(insightKeys.configTypes(), '/api/db/config_types', 'type');

/** The Component filter's choices: live components by name (a component from a link stays choosable by id). */
export const COMPONENT_CHOICES_MAX = 500;
export function useInsightComponents() {
  return useQuery({
    queryKey: insightKeys.components(),
    queryFn: ({ signal }) =>
      api.get('/api/db/components', {
        query: { select: 'id,name', deleted_at: 'is.null', order: 'name.asc', limit: COMPONENT_CHOICES_MAX },
        schema: z.array(z.object({ id: z.string(), name: z.string().nullish() })),
        signal,
      }),
    staleTime: 60_000,
  });
}
