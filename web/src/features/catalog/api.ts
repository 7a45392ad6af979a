import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api, contentRangeTotal } from '../../lib/api-client';
import type { ConfigSummaryRequest } from '@contracts/catalog-api';
import { filterQuery, groupQuery, mergeQueries, parseLabelFilters, type CatalogFilters, type GroupBy } from './filters';
import { GROUP_PAGE_SIZE } from './model';

/**
 * Reads of /api/db relations live under `['db', <relation>]` so live updates refresh them; the group summary reads
 * the catalog tables through a view, so it sits under config_items.
 */
export const catalogKeys = {
  summary: (groupBy: GroupBy, filters: CatalogFilters) => ['db', 'config_items', 'summary', groupBy, filters] as const,
  items: (groupBy: GroupBy, value: string | null, filters: CatalogFilters, page: number) =>
    ['db', 'config_items', 'group', groupBy, value, filters, page] as const,
  detail: (id: string) => ['db', 'config_items', 'detail', id] as const,
  options: (what: string) => ['db', 'config_items', 'options', what] as const,
  checks: (id: string) => ['db', 'checks', 'config', id] as const,
};

const num = z.coerce.number().nullish();
const json = z.record(z.string(), z.unknown()).nullish();

/** One row of `configs` as the list shows it. */
export const ConfigListItem = z.object({
  id: z.string(),
  name: z.string().nullable(),
  type: z.string().nullable(),
  config_class: z.string().nullable(),
  status: z.string().nullable(),
  health: z.string().nullable(),
  tags: json,
  labels: json,
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
  deleted_at: z.string().nullable(),
  cost_total_30d: num,
  /** Set when a remote agent pushed the item (the console's own: the all-zero id). */
  agent_id: z.string().nullish(),
});
export type ConfigListItem = z.infer<typeof ConfigListItem>;

const LIST_COLUMNS = 'id,name,type,config_class,status,health,tags,labels,created_at,updated_at,deleted_at,cost_total_30d,agent_id';

/** The per-relation counts of `config_detail.summary` (spec 001 §2: the tabs' badges). */
export const ConfigSummaryCounts = z.object({
  changes: num,
  analysis: num,
  relationships: num,
  playbook_runs: num,
  checks: num,
});
export type ConfigSummaryCounts = z.infer<typeof ConfigSummaryCounts>;

/** One row of `config_detail` (spec 001 §3 "Config item"). */
export const ConfigDetail = ConfigListItem.extend({
  description: z.string().nullish(),
  config: z.unknown().optional(),
  scraper_id: z.string().nullish(),
  scraper: z.object({ id: z.string(), name: z.string().nullish() }).nullish(),
  last_scraped_time: z.string().nullish(),
  delete_reason: z.string().nullish(),
  cost_per_minute: num,
  cost_total_1d: num,
  cost_total_7d: num,
  summary: ConfigSummaryCounts.partial().nullish(),
  agent_name: z.string().nullish(),
});
export type ConfigDetail = z.infer<typeof ConfigDetail>;

/** A group of the list: its value (null: items without one), count, health counts, 30-day changes, insights, cost. */
export const CatalogGroup = z.object({
  value: z.string().nullable(),
  count: z.number(),
  health: z.record(z.string(), z.number()),
  changes: z.number(),
  insights: z.number(),
  cost_30d: z.number().nullable(),
});
export type CatalogGroup = z.infer<typeof CatalogGroup>;

function sum(v: Record<string, number>): number {
  return Object.values(v).reduce((a, b) => a + b, 0);
}

/** The list's filters as `POST /api/catalog/summary` takes them (labels: key → `v1,!v2`). */
export function summaryRequest(groupBy: GroupBy, f: CatalogFilters): ConfigSummaryRequest {
  const filter: Record<string, string[]> = {};
  for (const l of parseLabelFilters(f.labels)) (filter[l.key] ??= []).push(l.mode === 'include' ? l.value : `!${l.value}`);
  return {
    groupBy: [groupKey(groupBy)],
    changes: { since: '30d' },
    deleted: f.deleted,
    ...(Object.keys(filter).length ? { filter: Object.fromEntries(Object.entries(filter).map(([k, v]) => [k, v.join(',')])) } : {}),
    ...(f.type ? { type: f.type } : {}),
    ...(f.status ? { status: f.status } : {}),
    ...(f.health ? { health: f.health } : {}),
    ...(f.search.trim() ? { search: f.search.trim() } : {}),
  };
}

/** The summary's group key: `type`, `config_class` or the tag key. */
export const groupKey = (groupBy: GroupBy) => (groupBy.startsWith('tag:') ? groupBy.slice(4) : groupBy);

/** The list's groups with their counts (`POST /api/catalog/summary`). */
export function useCatalogSummary(groupBy: GroupBy, filters: CatalogFilters) {
  return useQuery({
    queryKey: catalogKeys.summary(groupBy, filters),
    queryFn: async ({ signal }) => {
      const rows = await api.post('/api/catalog/summary', summaryRequest(groupBy, filters), {
        schema: () => import('@contracts/catalog-api').then((m) => m.ConfigSummaryResponse),
        signal,
      });
      const key = groupKey(groupBy);
      return rows.map(
        (r): CatalogGroup => ({
          value: r.group[key] ?? null,
          count: r.count,
          health: r.health,
          changes: r.changes,
          insights: sum(r.analysis),
          cost_30d: r.cost_total_30d,
        }),
      );
    },
    placeholderData: keepPreviousData,
  });
}

/** One page of a group's items, with the group's exact total. */
export function useGroupItems(groupBy: GroupBy, value: string | null, filters: CatalogFilters, page: number) {
  return useQuery({
    queryKey: catalogKeys.items(groupBy, value, filters, page),
    queryFn: async ({ signal }) => {
      let total: number | null = null;
      const rows = await api.get('/api/db/configs', {
        query: {
          ...mergeQueries(filterQuery(filters), groupQuery(groupBy, value)),
          select: LIST_COLUMNS,
          order: 'name.asc,id.asc',
          limit: GROUP_PAGE_SIZE,
          offset: page * GROUP_PAGE_SIZE,
        },
        headers: { prefer: 'count=exact' },
        schema: z.array(ConfigListItem),
        signal,
        onHeaders: (h) => (total = contentRangeTotal(h)),
      });
      return { rows, total: total ?? rows.length };
    },
    placeholderData: keepPreviousData,
  });
}

/** The item with its summary counts, scraper and last scrape; null when there is none. */
export function useConfigDetail(id: string) {
  return useQuery({
    queryKey: catalogKeys.detail(id),
    queryFn: async ({ signal }) => {
      const rows = await api.get('/api/db/config_detail', {
        query: { id: `eq.${id}`, select: '*' },
        schema: z.array(ConfigDetail),
        signal,
      });
      return rows[0] ?? null;
    },
  });
}

/** The filter bar's choices: config types, statuses, label pairs, tag keys. */
export function useFilterOptions() {
  const types = useQuery({
    queryKey: catalogKeys.options('types'),
    queryFn: ({ signal }) =>
      api.get('/api/db/config_types', { schema: z.array(z.object({ type: z.string() }).loose()), signal }).then((r) => r.map((x) => x.type).sort()),
  });
  const statuses = useQuery({
    queryKey: catalogKeys.options('statuses'),
    queryFn: ({ signal }) =>
      api.get('/api/db/config_statuses', { schema: z.array(z.object({ status: z.string().nullable() }).loose()), signal })
        .then((r) => r.map((x) => x.status).filter((s): s is string => !!s).sort()),
  });
  const labels = useQuery({
    queryKey: catalogKeys.options('labels'),
    queryFn: ({ signal }) =>
      api.get('/api/db/config_labels', { schema: z.array(z.object({ key: z.string(), value: z.string() }).loose()), signal }),
  });
  // the tag keys the list can be grouped by (cluster, namespace...)
  const tagKeys = useQuery({
    queryKey: catalogKeys.options('tag-keys'),
    queryFn: ({ signal }) =>
      api.get('/api/db/config_tags', { schema: z.array(z.object({ key: z.string() }).loose()), signal })
        .then((r) => [...new Set(r.map((x) => x.key))].sort()),
  });
  return { types, statuses, labels, tagKeys };
}

/** A health check linked to the item (`check_summary_for_config`). */
export const ConfigCheck = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string().nullish(),
  status: z.string().nullish(),
  canary_name: z.string().nullish(),
  last_runtime: z.string().nullish(),
}).loose();
export type ConfigCheck = z.infer<typeof ConfigCheck>;

export function useConfigChecks(configId: string) {
  return useQuery({
    queryKey: catalogKeys.checks(configId),
    queryFn: ({ signal }) =>
      api.get('/api/db/check_summary_for_config', {
        query: { config_id: `eq.${configId}`, select: 'id,name,type,status,canary_name,last_runtime', order: 'name.asc' },
        schema: z.array(ConfigCheck),
        signal,
      }),
  });
}
