import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../lib/api-client';
import type { CatalogChangesSearchResponse, ConfigChangeRow } from '@contracts/catalog-api';
import type { ChangesSearchRequest } from './model';

/**
 * Under `['db', 'config_changes']`: a scrape's new changes reach the open list as live updates of that relation.
 * The item's versions also depend on config_items (the current config).
 */
export const changeKeys = {
  all: ['db', 'config_changes'] as const,
  search: (req: ChangesSearchRequest) => [...changeKeys.all, 'search', req] as const,
  detail: (id: string) => [...changeKeys.all, 'detail', id] as const,
  versions: (configId: string) => [...changeKeys.all, 'versions', configId] as const,
  changeTypes: () => ['db', 'change_types'] as const,
  configTypes: () => ['db', 'config_types'] as const,
  tags: () => ['db', 'config_tags'] as const,
};

const str = z.string().nullish();

/** One row of the search answer and the answer itself: the shared contract (server/contracts/catalog-api.ts). */
export type ChangeRow = ConfigChangeRow;
export type ChangesResponse = CatalogChangesSearchResponse;

/** `POST /api/catalog/changes`: one page of changes with the total and the count per change type. */
export function useChangesSearch(req: ChangesSearchRequest) {
  return useQuery({
    queryKey: changeKeys.search(req),
    queryFn: ({ signal }) =>
      api.post<CatalogChangesSearchResponse>('/api/catalog/changes', req, {
        // the contract (and zod) download alongside the first search, not with the start-up bundle
        schema: () => import('@contracts/catalog-api').then((m) => m.CatalogChangesSearchResponse),
        signal,
      }),
    placeholderData: keepPreviousData,
  });
}

/** A change with what the detail dialog shows: details, the unified diff and the merge patches. */
export const ChangeDetail = z.object({
  id: z.string(),
  config_id: z.string(),
  change_type: str,
  severity: str,
  source: str,
  summary: str,
  created_at: z.string(),
  count: z.number().nullish(),
  first_observed: str,
  created_by: str,
  external_created_by: str,
  diff: str,
  details: z.unknown().nullish(),
  patches: z.unknown().nullish(),
  config: z.object({ id: z.string(), name: str, type: str, config_class: str }).nullish(),
});
export type ChangeDetail = z.infer<typeof ChangeDetail>;

const DETAIL_SELECT =
  'id,config_id,change_type,severity,source,summary,created_at,count,first_observed,created_by,external_created_by,diff,details,patches,config:config_items(id,name,type,config_class)';

export function useChangeDetail(id: string | null) {
  return useQuery({
    queryKey: changeKeys.detail(id ?? ''),
    enabled: !!id,
    queryFn: async ({ signal }) => {
      const rows = await api.get('/api/db/config_changes', {
        query: { id: `eq.${id}`, select: DETAIL_SELECT },
        schema: z.array(ChangeDetail),
        signal,
      });
      return rows[0] ?? null;
    },
  });
}

/** The item's current config and its `diff` changes newest first: what its versions are rebuilt from. */
export const VersionChange = z.object({ id: z.string(), created_at: z.string(), summary: str, patches: z.unknown().nullish() });
export type VersionChange = z.infer<typeof VersionChange>;

export function useConfigHistory(configId: string | null) {
  return useQuery({
    queryKey: changeKeys.versions(configId ?? ''),
    enabled: !!configId,
    queryFn: async ({ signal }) => {
      const [items, changes] = await Promise.all([
        api.get('/api/db/config_items', {
          query: { id: `eq.${configId}`, select: 'id,name,type,config' },
          schema: z.array(z.object({ id: z.string(), name: str, type: str, config: z.unknown() })),
          signal,
        }),
        api.get('/api/db/config_changes', {
          query: { config_id: `eq.${configId}`, change_type: 'eq.diff', select: 'id,created_at,summary,patches', order: 'created_at.desc', limit: 500 },
          schema: z.array(VersionChange),
          signal,
        }),
      ]);
      return { item: items[0] ?? null, changes };
    },
  });
}

/** The filter choices; a missing list (an older server) reads as none rather than failing the page. */
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

export const useChangeTypes = () => useNames(changeKeys.changeTypes(), '/api/db/change_types', 'change_type');
export const useConfigTypes = () => useNames(changeKeys.configTypes(), '/api/db/config_types', 'type');

/** Tag key/value pairs for the Tags filter. */
export function useConfigTags() {
  return useQuery({
    queryKey: changeKeys.tags(),
    queryFn: ({ signal }) =>
      api
        .get('/api/db/config_tags', { schema: z.array(z.object({ key: z.string(), value: z.unknown() }).passthrough()), signal })
        .then((rows) => rows.map((r) => ({ key: r.key, value: String(r.value) }))),
    staleTime: 60_000,
  });
}
