import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, contentRangeTotal } from '../../lib/api-client';

/**
 * The sidebar's and the card dialogs' reads and writes, over /api/db with the reference UI's calls (flanksource-ui
 * `api/services/topology.ts`, `configs.ts`). Keys start with `['db', <relation>]` so the live channel's change of that
 * relation (and the page's refresh) refetches them.
 */
export const sidebarKeys = {
  details: (id: string) => ['db', 'components', 'sidebar', id] as const,
  configs: (id: string) => ['db', 'config_component_relationships', 'sidebar', id] as const,
  changes: (id: string, configIds: string[]) => ['db', 'config_changes', 'sidebar', id, configIds] as const,
  insights: (id: string, configIds: string[], page: number) => ['db', 'config_analysis', 'sidebar', id, configIds, page] as const,
  checks: (id: string) => ['db', 'check_component_relationships', 'sidebar', id] as const,
  incidents: (id: string) => ['db', 'incidents', 'sidebar', id] as const,
  teams: (id: string) => ['db', 'team_components', 'sidebar', id] as const,
  configSearch: (q: string) => ['db', 'config_items', 'link-search', q] as const,
};

/** The page's refresh button: refetch every panel of the open sidebar (each key is `['db', relation, 'sidebar', …]`). */
export function refreshSidebar(qc: QueryClient): Promise<void> {
  return qc.invalidateQueries({ predicate: (q) => q.queryKey[0] === 'db' && q.queryKey[2] === 'sidebar' });
}

export const INSIGHTS_PAGE_SIZE = 50;
export const CHANGES_LIMIT = 50;
export const CONFIG_SEARCH_LIMIT = 50;

const str = z.string().nullish();

export const ComponentDetails = z.object({
  id: z.string(),
  name: z.string(),
  type: str,
  owner: str,
  external_id: str,
  status: str,
  status_reason: str,
  labels: z.record(z.string(), z.string()).nullish(),
  properties: z.array(z.object({ name: str, label: str, text: str, value: z.number().nullish(), unit: str }).passthrough()).nullish(),
  updated_at: str,
  created_at: str,
});
export type ComponentDetails = z.infer<typeof ComponentDetails>;

export const LinkedConfig = z.object({
  config_id: z.string(),
  selector_id: str,
  configs: z.object({ id: z.string(), name: str, type: str, config_class: str, deleted_at: str, health: str, status: str }).nullish(),
});
export type LinkedConfig = z.infer<typeof LinkedConfig>;

export const ComponentChange = z.object({
  id: z.string(), config_id: z.string(), change_type: str, severity: str, summary: str, source: str, created_at: z.string(),
});
export type ComponentChange = z.infer<typeof ComponentChange>;

export const ComponentInsight = z.object({
  id: z.string(), config_id: z.string(), analyzer: z.string(), analysis_type: str, severity: str, summary: str, status: str,
  last_observed: str,
});
export type ComponentInsight = z.infer<typeof ComponentInsight>;

export const ComponentCheck = z.object({ id: z.string(), name: z.string(), type: str, status: str, severity: str });
export type ComponentCheck = z.infer<typeof ComponentCheck>;

export const ComponentIncident = z.object({
  id: z.string(), incident_id: z.string(), title: z.string(), type: str, status: str, severity: str, created_at: str,
});
export type ComponentIncident = z.infer<typeof ComponentIncident>;

export const ComponentTeam = z.object({ team_id: z.string(), role: str, teams: z.object({ id: z.string(), name: z.string(), icon: str }).nullish() });
export type ComponentTeam = z.infer<typeof ComponentTeam>;

export const ConfigOption = z.object({ id: z.string(), name: str, type: str });
export type ConfigOption = z.infer<typeof ConfigOption>;

const CONFIG_FIELDS = 'id,name,type,config_class,deleted_at,health,status';

/** PostgREST's `in.(…)`: ids are uuids, quoted anyway so a stray comma cannot split the list. */
export const inList = (ids: string[]) => `in.(${ids.map((i) => `"${i}"`).join(',')})`;

/** `ilike.*text*` for a name search; PostgREST's own characters in the text become spaces. */
export const ilikeFilter = (q: string) => `ilike.*${q.replace(/[*,()]/g, ' ').trim()}*`;

/** The queries each panel sends; pure so the tests can read them. */
export const sidebarQuery = {
  details: (id: string) => ({
    id: `eq.${id}`,
    select: 'id,name,type,owner,external_id,status,status_reason,labels,properties,updated_at,created_at',
  }),
  // the link's own deleted_at (the reference's hideDeleted); deleted configs are dropped by `visibleConfigs`
  configs: (id: string) => ({
    component_id: `eq.${id}`,
    deleted_at: 'is.null',
    select: `config_id,selector_id,configs!config_component_relationships_config_id_fkey(${CONFIG_FIELDS})`,
  }),
  changes: (configIds: string[]) => ({
    config_id: inList(configIds),
    select: 'id,config_id,change_type,severity,summary,source,created_at',
    order: 'created_at.desc',
    limit: CHANGES_LIMIT,
  }),
  insights: (configIds: string[], page: number) => ({
    config_id: inList(configIds),
    select: 'id,config_id,analyzer,analysis_type,severity,summary,status,last_observed',
    order: 'last_observed.desc,id',
    limit: INSIGHTS_PAGE_SIZE,
    offset: page * INSIGHTS_PAGE_SIZE,
  }),
  checks: (id: string) => ({ component_id: `eq.${id}`, select: 'id,name,type,status,severity', order: 'name' }),
  incidents: (id: string) => ({
    component_id: `eq.${id}`,
    select: 'id,incident_id,title,type,status,severity,created_at',
    order: 'created_at.desc',
  }),
  teams: (id: string) => ({ component_id: `eq.${id}`, select: 'team_id,role,teams(id,name,icon)' }),
  /** The Link to Catalog search: names containing the text, live items only, 50 at most. */
  configSearch: (q: string) => ({
    ...(q.trim() ? { name: ilikeFilter(q) } : {}),
    deleted_at: 'is.null',
    select: 'id,name,type',
    order: 'name',
    limit: CONFIG_SEARCH_LIMIT,
  }),
};

/** Links to configs; with "Show deleted" off, those whose config is deleted are left out. */
export function visibleConfigs(links: LinkedConfig[], showDeleted: boolean): LinkedConfig[] {
  return links.filter((l) => l.configs && (showDeleted || !l.configs.deleted_at));
}

/** Each panel's options; `refetchInterval` is the page's refresh rate (0: off). */
interface Opts {
  enabled?: boolean;
  refetchInterval?: number;
}
const common = (o: Opts) => ({ enabled: o.enabled ?? true, refetchInterval: o.refetchInterval || (false as const) });

export function useComponentDetails(id: string, o: Opts = {}) {
  return useQuery({
    queryKey: sidebarKeys.details(id),
    queryFn: ({ signal }) => api.get('/api/db/components', { query: sidebarQuery.details(id), schema: z.array(ComponentDetails), signal }).then((r) => r[0] ?? null),
    ...common(o),
  });
}

export function useComponentConfigs(id: string, o: Opts = {}) {
  return useQuery({
    queryKey: sidebarKeys.configs(id),
    queryFn: ({ signal }) => api.get('/api/db/config_component_relationships', { query: sidebarQuery.configs(id), schema: z.array(LinkedConfig), signal }),
    ...common(o),
  });
}

/** The live configs' ids, the changes and insights panels' input. */
export function useLinkedConfigIds(id: string, o: Opts = {}): { ids: string[] | undefined; isError: boolean } {
  const links = useComponentConfigs(id, o);
  const ids = links.data ? visibleConfigs(links.data, false).map((l) => l.config_id).sort() : undefined;
  return { ids, isError: links.isError };
}

export function useComponentChanges(id: string, configIds: string[] | undefined, o: Opts = {}) {
  return useQuery({
    queryKey: sidebarKeys.changes(id, configIds ?? []),
    queryFn: ({ signal }) =>
      configIds?.length
        ? api.get('/api/db/config_changes', { query: sidebarQuery.changes(configIds), schema: z.array(ComponentChange), signal })
        : Promise.resolve([]),
    ...common({ ...o, enabled: (o.enabled ?? true) && configIds !== undefined }),
  });
}

export function useComponentInsights(id: string, configIds: string[] | undefined, page: number, o: Opts = {}) {
  return useQuery({
    queryKey: sidebarKeys.insights(id, configIds ?? [], page),
    queryFn: async ({ signal }) => {
      if (!configIds?.length) return { rows: [] as ComponentInsight[], total: 0 };
      let total: number | null = null;
      const rows = await api.get('/api/db/config_analysis', {
        query: sidebarQuery.insights(configIds, page),
        headers: { prefer: 'count=exact' },
        onHeaders: (h) => (total = contentRangeTotal(h)),
        schema: z.array(ComponentInsight),
        signal,
      });
      return { rows, total: total ?? rows.length };
    },
    placeholderData: keepPreviousData,
    ...common({ ...o, enabled: (o.enabled ?? true) && configIds !== undefined }),
  });
}

export function useComponentChecks(id: string, o: Opts = {}) {
  return useQuery({
    queryKey: sidebarKeys.checks(id),
    queryFn: ({ signal }) => api.get('/api/db/checks_by_component', { query: sidebarQuery.checks(id), schema: z.array(ComponentCheck), signal }),
    ...common(o),
  });
}

export function useComponentIncidents(id: string, o: Opts = {}) {
  return useQuery({
    queryKey: sidebarKeys.incidents(id),
    queryFn: ({ signal }) => api.get('/api/db/incidents_by_component', { query: sidebarQuery.incidents(id), schema: z.array(ComponentIncident), signal }),
    ...common(o),
  });
}

export function useComponentTeams(id: string, o: Opts = {}) {
  return useQuery({
    queryKey: sidebarKeys.teams(id),
    queryFn: ({ signal }) => api.get('/api/db/team_components', { query: sidebarQuery.teams(id), schema: z.array(ComponentTeam), signal }),
    ...common(o),
  });
}

export function useConfigSearch(q: string, enabled: boolean) {
  return useQuery({
    queryKey: sidebarKeys.configSearch(q),
    queryFn: ({ signal }) => api.get('/api/db/config_names', { query: sidebarQuery.configSearch(q), schema: z.array(ConfigOption), signal }),
    enabled,
    placeholderData: keepPreviousData,
  });
}

/** Link to Catalog: a manual link (the server's trigger accepts only `selector_id: 'manual'` from people). */
export function useLinkConfig(componentId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (configId: string) =>
      api.post('/api/db/config_component_relationships', { component_id: componentId, config_id: configId, selector_id: 'manual' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['db', 'config_component_relationships'] }),
  });
}

/** "Delete config link": manual links only; scraped ones come back with the next scrape. */
export function useUnlinkConfig(componentId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (configId: string) =>
      api.delete('/api/db/config_component_relationships', {
        query: { component_id: `eq.${componentId}`, config_id: `eq.${configId}`, selector_id: 'eq.manual' },
      }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['db', 'config_component_relationships'] }),
  });
}

/** `GET /api/snapshot/topology/{id}` (a zip): the blob and the file name the server gave. */
export async function downloadSnapshot(id: string, q: { start: string; end: string; related: boolean }): Promise<{ blob: Blob; filename: string }> {
  const params = new URLSearchParams({ start: q.start, end: q.end, related: String(q.related) });
  const res = await fetch(`/api/snapshot/topology/${encodeURIComponent(id)}?${params}`, { credentials: 'include' });
  if (!res.ok) throw new Error('Error downloading file');
  const disposition = res.headers.get('content-disposition') ?? '';
  const filename = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? `snapshot-${id}.zip`;
  return { blob: await res.blob(), filename };
}
