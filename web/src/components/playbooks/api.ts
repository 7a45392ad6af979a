import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api, contentRangeTotal } from '../../lib/api-client';

/**
 * The playbook reads and calls shared by every feature that runs playbooks (health's check drawer, the catalog item,
 * the topology sidebar, the playbooks pages). Reads of /api/db relations live under `['db', <relation>]` so live
 * updates refresh them.
 */
export const playbookKeys = {
  all: ['db', 'playbooks'] as const,
  forResource: (r: PlaybookResource | null) => ['db', 'playbooks', 'for', r] as const,
  params: (id: string, r: PlaybookResource | null) => ['db', 'playbooks', 'params', id, r] as const,
  runs: (r: RunsFilter, page: number) => ['db', 'playbook_runs', 'for', r, page] as const,
  search: (kind: ResourceKind, text: string) => ['db', RESOURCE_RELATION[kind], 'playbook-picker', text] as const,
};

/** The resource a run is about: at most one of the three. */
export type PlaybookResource = { check_id: string } | { config_id: string } | { component_id: string };
export type ResourceKind = 'check' | 'config' | 'component';

export const RESOURCE_ID_KEY = { check: 'check_id', config: 'config_id', component: 'component_id' } as const;
const RESOURCE_RELATION = { check: 'checks', config: 'config_items', component: 'components' } as const;

/** The kind and id of a resource, or null. */
export function resourceOf(r: PlaybookResource | null | undefined): { kind: ResourceKind; id: string } | null {
  if (!r) return null;
  if ('check_id' in r && r.check_id) return { kind: 'check', id: r.check_id };
  if ('config_id' in r && r.config_id) return { kind: 'config', id: r.config_id };
  if ('component_id' in r && r.component_id) return { kind: 'component', id: r.component_id };
  return null;
}

export function makeResource(kind: ResourceKind, id: string): PlaybookResource {
  return { [RESOURCE_ID_KEY[kind]]: id } as PlaybookResource;
}

const str = z.string().nullish();

/** One parameter as `/params` and the spec carry it (`properties` are loose: numbers or strings, per type). */
export const PlaybookParameter = z
  .object({
    name: z.string(),
    label: str,
    default: z.unknown().optional(),
    required: z.boolean().nullish(),
    icon: str,
    description: str,
    type: str,
    properties: z.record(z.string(), z.unknown()).nullish(),
    dependsOn: z.array(z.string()).nullish(),
  })
  .loose();
export type PlaybookParameter = z.infer<typeof PlaybookParameter>;

/** What the run dialog needs of a playbook: the spec tells whether it targets a resource, and its parameters. */
export const PlaybookLite = z
  .object({
    id: z.string(),
    name: z.string(),
    title: str,
    icon: str,
    description: str,
    category: str,
    source: str,
    spec: z.record(z.string(), z.unknown()).nullish(),
    parameters: z.array(PlaybookParameter).nullish(),
  })
  .loose();
export type PlaybookLite = z.infer<typeof PlaybookLite>;

/** What the run dialog reads of a playbook (any row or list item has it). */
export interface RunnablePlaybook {
  id: string;
  name: string;
  title?: string | null;
  description?: string | null;
  spec?: Record<string, unknown> | null;
}

export const playbookTitle = (p: { title?: string | null; name: string }) => p.title || p.name;

/** True when the spec selects checks, configs or components: a run then needs one of them. */
export function needsResource(p: RunnablePlaybook): boolean {
  const spec = p.spec ?? {};
  return ['checks', 'configs', 'components'].some((k) => Array.isArray(spec[k]) && (spec[k] as unknown[]).length > 0);
}

/** Which resource kinds the spec selects (all three when it selects none: any may be given). */
export function resourceKinds(p: RunnablePlaybook): ResourceKind[] {
  const spec = p.spec ?? {};
  const kinds: ResourceKind[] = [];
  if (Array.isArray(spec.checks) && spec.checks.length) kinds.push('check');
  if (Array.isArray(spec.configs) && spec.configs.length) kinds.push('config');
  if (Array.isArray(spec.components) && spec.components.length) kinds.push('component');
  return kinds;
}

/** `GET /api/playbook/list?check_id=|config_id=|component_id=`: the playbooks that may run on the resource. */
export function usePlaybooksFor(resource: PlaybookResource | null, enabled = true) {
  return useQuery({
    queryKey: playbookKeys.forResource(resource),
    queryFn: ({ signal }) =>
      api.get('/api/playbook/list', { query: resource ?? undefined, schema: z.array(PlaybookLite), signal }),
    enabled: enabled && !!resource,
  });
}

/** `POST /api/playbook/{id}/params`: the parameters with their defaults rendered against the resource. */
export function usePlaybookParams(id: string, resource: PlaybookResource | null, enabled: boolean) {
  return useQuery({
    queryKey: playbookKeys.params(id, resource),
    queryFn: ({ signal }) =>
      api.post(`/api/playbook/${encodeURIComponent(id)}/params`, { id, ...(resource ?? {}) }, {
        schema: z.object({ params: z.array(PlaybookParameter).nullish() }).loose(),
        signal,
      }),
    enabled,
    staleTime: 0,
  });
}

/** The body of `POST /api/playbook/run` (and `/plan`): parameters as strings, as the reference sends them. */
export interface RunRequest {
  id: string;
  params: Record<string, string>;
  check_id?: string;
  config_id?: string;
  component_id?: string;
}

export const RunResponse = z.object({ run_id: z.string(), starts_at: z.string().nullish() }).loose();

export function useRunPlaybook() {
  return useMutation({
    mutationFn: (body: RunRequest) => api.post('/api/playbook/run', body, { schema: RunResponse }),
  });
}

/** One action of a plan (server/contracts/playbooks-api.ts PlannedAction): its block rendered, secrets `***`. */
export const PlanAction = z
  .object({ name: z.string().nullish(), type: z.string().nullish(), if: str, delay: str, rendered: z.unknown().optional(), error: str })
  .loose();
export type PlanAction = z.infer<typeof PlanAction>;
const PlanResponse = z.object({ actions: z.array(PlanAction).nullish() }).loose();

/** `POST /api/playbook/{id}/plan`: the actions rendered with these parameters, nothing run. */
export function usePlanPlaybook() {
  return useMutation({
    mutationFn: (body: RunRequest) =>
      api.post(`/api/playbook/${encodeURIComponent(body.id)}/plan`, body, { schema: PlanResponse }),
  });
}

/** A run as the resource's runs table lists it. */
export const ResourceRun = z
  .object({
    id: z.string(),
    status: z.string(),
    created_at: z.string(),
    start_time: z.string().nullish(),
    end_time: z.string().nullish(),
    error: z.string().nullish(),
    playbook_id: z.string().nullish(),
    playbook: z.object({ id: z.string(), name: z.string(), title: z.string().nullish(), icon: z.string().nullish() }).nullish(),
  })
  .loose();
export type ResourceRun = z.infer<typeof ResourceRun>;

/** Whose runs a table lists: a resource's, or one playbook's. */
export type RunsFilter = PlaybookResource | { playbook_id: string };

export const RUNS_PAGE_SIZE = 50;

/** Runs newest first, 50 a page, with the exact total. */
export function useRuns(filter: RunsFilter, page: number) {
  return useQuery({
    queryKey: playbookKeys.runs(filter, page),
    queryFn: async ({ signal }) => {
      let total: number | null = null;
      const [key, value] = Object.entries(filter)[0] as [string, string];
      const rows = await api.get('/api/db/playbook_runs', {
        query: {
          [key]: `eq.${value}`,
          select: 'id,status,created_at,start_time,end_time,error,playbook_id,playbook:playbooks(id,name,title,icon)',
          order: 'created_at.desc',
          limit: RUNS_PAGE_SIZE,
          offset: page * RUNS_PAGE_SIZE,
        },
        headers: { prefer: 'count=exact' },
        schema: z.array(ResourceRun),
        signal,
        onHeaders: (h) => (total = contentRangeTotal(h)),
      });
      return { rows, total: total ?? rows.length };
    },
    placeholderData: keepPreviousData,
  });
}

/** A resource offered by a picker. */
export interface PickerOption {
  id: string;
  name: string;
  detail?: string;
}

const Named = z.object({ id: z.string(), name: z.string().nullish(), type: z.string().nullish() }).loose();

const SEARCH_SELECT: Record<ResourceKind, string> = {
  check: 'id,name,type',
  config: 'id,name,type',
  component: 'id,name,type',
};

/** Searches checks, catalog items or components by name (20 at most), live ones only. */
export function useResourceSearch(kind: ResourceKind, text: string, enabled: boolean) {
  return useQuery({
    queryKey: playbookKeys.search(kind, text),
    queryFn: async ({ signal }): Promise<PickerOption[]> => {
      const rows = await api.get(`/api/db/${RESOURCE_RELATION[kind]}`, {
        query: {
          select: SEARCH_SELECT[kind],
          deleted_at: 'is.null',
          ...(text.trim() ? { name: `ilike.*${text.trim().replace(/[*,()]/g, '')}*` } : {}),
          order: 'name.asc',
          limit: 20,
        },
        schema: z.array(Named),
        signal,
      });
      return rows.map((r) => ({ id: r.id, name: r.name ?? r.id, detail: r.type ?? undefined }));
    },
    enabled,
    placeholderData: keepPreviousData,
  });
}

/** The name of one resource (a picker's chosen value given by id). */
export function useResourceName(kind: ResourceKind, id: string | undefined) {
  return useQuery({
    queryKey: ['db', RESOURCE_RELATION[kind], 'playbook-picker-name', id] as const,
    queryFn: async ({ signal }) => {
      const rows = await api.get(`/api/db/${RESOURCE_RELATION[kind]}`, {
        query: { select: 'id,name,type', id: `eq.${id}` },
        schema: z.array(Named),
        signal,
      });
      return rows[0]?.name ?? id ?? '';
    },
    enabled: !!id,
  });
}

/** People and teams for the people and team parameters. */
export function usePeopleOrTeams(kind: 'people' | 'team', enabled: boolean) {
  return useQuery({
    queryKey: ['db', kind === 'people' ? 'people' : 'teams', 'playbook-picker'] as const,
    queryFn: async ({ signal }): Promise<PickerOption[]> => {
      const rows = await api.get(`/api/db/${kind === 'people' ? 'people' : 'teams'}`, {
        query: {
          select: kind === 'people' ? 'id,name,email' : 'id,name',
          deleted_at: 'is.null',
          order: 'name.asc',
          limit: 500,
        },
        schema: z.array(z.object({ id: z.string(), name: z.string().nullish(), email: z.string().nullish() }).loose()),
        signal,
      });
      return rows.map((r) => ({ id: r.id, name: r.name ?? r.email ?? r.id, detail: r.email ?? undefined }));
    },
    enabled,
    staleTime: 60_000,
  });
}
