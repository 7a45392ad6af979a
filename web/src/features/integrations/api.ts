import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api, contentRangeTotal } from '../../lib/api-client';
import { INTEGRATION_TYPES, type IntegrationType } from './types';

/** Under `['db', relation]`: live updates invalidate by relation. */
export const integrationKeys = {
  all: ['db', 'integrations_with_status'] as const,
  list: (page: PageRequest) => [...integrationKeys.all, 'list', page] as const,
  resource: (type: IntegrationType, id: string) => ['db', INTEGRATION_TYPES[type].table, 'integration', id] as const,
};

/** One row of `integrations_with_status` (spec 001 §3 "Integration row"): a scraper, topology or log backend with
 *  its latest job. */
export const IntegrationRow = z.object({
  id: z.string(),
  name: z.string(),
  namespace: z.string().nullish(),
  integration_type: z.string(),
  source: z.string().nullish(),
  agent: z.object({ id: z.string().nullish(), name: z.string().nullish() }).nullish(),
  job_status: z.string().nullish(),
  job_time_start: z.string().nullish(),
  job_name: z.string().nullish(),
  created_by: z.string().nullish(),
  creator_name: z.string().nullish(),
  creator_avatar: z.string().nullish(),
  created_at: z.string().nullish(),
  updated_at: z.string().nullish(),
});
export type IntegrationRow = z.infer<typeof IntegrationRow>;

const LIST_SELECT =
  'id,name,namespace,integration_type,source,agent,job_status,job_time_start,job_name,created_by,creator_name,creator_avatar,created_at,updated_at';

export interface PageRequest {
  pageIndex: number;
  pageSize: number;
  sortBy: string;
  desc: boolean;
}

/** The list's sortable columns and the view column each orders by. */
const SORT_COLUMNS: Record<string, string> = {
  name: 'name',
  type: 'integration_type',
  namespace: 'namespace',
  source: 'source',
  job_status: 'job_status',
  last_run: 'job_time_start',
  created_at: 'created_at',
  updated_at: 'updated_at',
};

/** The query of one page: live rows only, sorted on the server (name breaks ties so pages never overlap). */
export function listQuery(page: PageRequest) {
  const column = SORT_COLUMNS[page.sortBy] ?? 'name';
  const dir = page.desc ? 'desc.nullslast' : 'asc.nullslast';
  return {
    select: LIST_SELECT,
    deleted_at: 'is.null',
    order: column === 'name' ? `name.${dir}` : `${column}.${dir},name.asc`,
    limit: page.pageSize,
    offset: page.pageIndex * page.pageSize,
  };
}

/** A page of integrations with the total count (`Prefer: count=exact`). */
export function useIntegrations(page: PageRequest) {
  return useQuery({
    queryKey: integrationKeys.list(page),
    queryFn: async ({ signal }) => {
      let total: number | null = null;
      const rows = await api.get('/api/db/integrations_with_status', {
        query: listQuery(page),
        headers: { prefer: 'count=exact' },
        schema: z.array(IntegrationRow),
        signal,
        onHeaders: (h) => (total = contentRangeTotal(h)),
      });
      return { rows, total: total ?? rows.length };
    },
    placeholderData: keepPreviousData,
  });
}

/** What the detail's Spec tab shows of the stored row. */
export const IntegrationResource = z.object({
  id: z.string(),
  name: z.string(),
  source: z.string().nullish(),
  spec: z.unknown(),
});
export type IntegrationResource = z.infer<typeof IntegrationResource>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The integration's row in its own table; `null` when there is none with that id (or it was deleted). */
export function useIntegrationResource(type: IntegrationType, id: string) {
  return useQuery({
    queryKey: integrationKeys.resource(type, id),
    queryFn: async ({ signal }) => {
      // an id that is not a uuid cannot exist: answer "not found" instead of the database's syntax error
      if (!UUID.test(id)) return null;
      const rows = await api.get(`/api/db/${INTEGRATION_TYPES[type].table}`, {
        query: { select: 'id,name,source,spec', id: `eq.${id}`, deleted_at: 'is.null' },
        schema: z.array(IntegrationResource),
        signal,
      });
      return rows[0] ?? null;
    },
  });
}
