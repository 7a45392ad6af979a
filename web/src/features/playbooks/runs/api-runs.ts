import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, ApiError, contentRangeTotal } from '../../../lib/api-client';
import { resolveTimeRange, type TimeRange } from '../../../lib/time-range';

/**
 * Playbook runs over /api/db (the reference UI's reads: `playbook_runs` with its embeds and `count=exact`, the rpc
 * `get_playbook_run_actions`) and the /api/playbook routes that act (cancel, approve, run, retry). Every key lives
 * under `['db', 'playbook_runs']`: the engine announces run and action changes as relation `playbook_runs`, so one
 * live event refreshes the list, the detail and its actions (live-socket.ts).
 */
export const runKeys = {
  all: ['db', 'playbook_runs'] as const,
  list: (filters: RunFilters, range: TimeRange, page: RunPage) => [...runKeys.all, 'list', filters, range, page] as const,
  detail: (id: string) => [...runKeys.all, 'detail', id] as const,
  actions: (id: string) => [...runKeys.all, 'actions', id] as const,
  children: (id: string) => [...runKeys.all, 'children', id] as const,
  action: (id: string) => [...runKeys.all, 'action', id] as const,
  /**
   * An action's stored lines, read once when it is opened (and every 2 s while the socket is down): outside ['db', …]
   * on purpose, so the relation's change events (one per stored batch) do not refetch them; the socket's watch
   * brings the new lines while it is up.
   */
  lines: (actionId: string) => ['playbook-runs', 'lines', actionId] as const,
  names: ['db', 'playbooks', 'names'] as const,
};

const Person = z.object({ id: z.string(), name: z.string().nullish(), avatar: z.string().nullish() });
const Named = z.object({ id: z.string(), name: z.string().nullish(), icon: z.string().nullish(), type: z.string().nullish() });

export const RunRow = z.object({
  id: z.string(),
  playbook_id: z.string(),
  status: z.string(),
  created_at: z.string(),
  start_time: z.string().nullish(),
  end_time: z.string().nullish(),
  scheduled_time: z.string().nullish(),
  error: z.string().nullish(),
  parent_id: z.string().nullish(),
  check_id: z.string().nullish(),
  config_id: z.string().nullish(),
  component_id: z.string().nullish(),
  playbooks: z.object({ id: z.string(), name: z.string(), title: z.string().nullish(), icon: z.string().nullish() }).nullish(),
  created_by: Person.nullish(),
  check: Named.nullish(),
  config: Named.nullish(),
  component: Named.nullish(),
});
export type RunRow = z.infer<typeof RunRow>;

export const Approval = z.object({
  id: z.string(),
  created_at: z.string(),
  person_id: Person.nullish(),
  team_id: z.object({ id: z.string(), name: z.string().nullish() }).nullish(),
});

export const RunDetail = RunRow.extend({
  spec: z.record(z.string(), z.unknown()).nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  playbook_approvals: z.array(Approval).default([]),
});
export type RunDetail = z.infer<typeof RunDetail>;

export const Artifact = z.looseObject({
  id: z.string(),
  filename: z.string().nullish(),
  path: z.string().nullish(),
  content_type: z.string().nullish(),
  size: z.number().nullish(),
});
export type Artifact = z.infer<typeof Artifact>;

export const RunAction = z.looseObject({
  id: z.string(),
  name: z.string(),
  status: z.string(),
  playbook_run_id: z.string().optional(),
  start_time: z.string().nullish(),
  end_time: z.string().nullish(),
  scheduled_time: z.string().nullish(),
  result: z.unknown().optional(),
  error: z.string().nullish(),
  retry_count: z.number().nullish(),
  artifacts: z.array(Artifact).nullish(),
});
export type RunAction = z.infer<typeof RunAction>;

/** The list's filters as the URL holds them; empty means all. */
export type RunFilters = {
  status: string;
  playbook: string;
};
export interface RunPage {
  pageIndex: number;
  pageSize: number;
}

const LIST_SELECT = [
  'id,playbook_id,status,created_at,start_time,end_time,scheduled_time,error,parent_id,check_id,config_id,component_id',
  'playbooks(id,name,title,icon)',
  'created_by(id,name,avatar)',
  'check:checks(id,name,icon,type)',
  'config:config_items(id,name,type)',
  'component:components(id,name,icon,type)',
].join(',');

/** The runs-list query: newest first, the time range on created_at, status and playbook by equality. */
export function runsListQuery(filters: RunFilters, range: TimeRange, page: RunPage, now = new Date()) {
  const { from, to } = resolveTimeRange(range, now);
  const query: Record<string, string | string[] | number> = {
    select: LIST_SELECT,
    order: 'created_at.desc',
    limit: page.pageSize,
    offset: page.pageIndex * page.pageSize,
    created_at: [`gte.${from.toISOString()}`, `lte.${to.toISOString()}`],
  };
  if (filters.status) query.status = `eq.${filters.status}`;
  if (filters.playbook) query.playbook_id = `eq.${filters.playbook}`;
  return query;
}

/**
 * Refetch every 2 s while the live socket is down (it pushes the changes while up) and the thing shown can still
 * change; `live` is the socket's state.
 */
export const fallbackInterval = (live: boolean, changing: boolean) => (!live && changing ? 2_000 : false);

export function useRuns(filters: RunFilters, range: TimeRange, page: RunPage, live: boolean) {
  return useQuery({
    queryKey: runKeys.list(filters, range, page),
    queryFn: async ({ signal }) => {
      let total: number | null = null;
      const rows = await api.get('/api/db/playbook_runs', {
        query: runsListQuery(filters, range, page),
        headers: { prefer: 'count=exact' },
        schema: z.array(RunRow),
        signal,
        onHeaders: (h) => (total = contentRangeTotal(h)),
      });
      return { rows, total: total ?? rows.length };
    },
    placeholderData: keepPreviousData,
    refetchInterval: fallbackInterval(live, true),
  });
}

/** Playbook names for the list's filter. */
export function usePlaybookNames() {
  return useQuery({
    queryKey: runKeys.names,
    queryFn: ({ signal }) =>
      api.get('/api/db/playbooks', {
        query: { select: 'id,name,title', deleted_at: 'is.null', order: 'name.asc' },
        schema: z.array(z.object({ id: z.string(), name: z.string(), title: z.string().nullish() })),
        signal,
      }),
    staleTime: 60_000,
  });
}

const DETAIL_SELECT = [
  '*',
  'playbooks(id,name,title,icon)',
  'created_by(id,name,avatar)',
  'check:checks(id,name,icon,type)',
  'config:config_items(id,name,type)',
  'component:components(id,name,icon,type)',
  'playbook_approvals(id,created_at,person_id(id,name,avatar),team_id(id,name))',
].join(',');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One run with its playbook, resource, creator and approvals; `null` when there is none with that id. */
export function useRun(id: string, live: boolean) {
  return useQuery({
    queryKey: runKeys.detail(id),
    queryFn: async ({ signal }) => {
      if (!UUID.test(id)) return null;
      const rows = await api.get('/api/db/playbook_runs', {
        query: { select: DETAIL_SELECT, id: `eq.${id}` },
        schema: z.array(RunDetail),
        signal,
      });
      return rows[0] ?? null;
    },
    refetchInterval: (q) => fallbackInterval(live, !!q.state.data && !FINAL.has(q.state.data.status)),
  });
}

const FINAL = new Set(['completed', 'failed', 'cancelled', 'timed_out']);

/**
 * The run's own actions with their artifacts, by `rpc/get_playbook_run_actions` as the reference UI reads them
 * (without the child runs' actions it also returns); the plain relation when the rpc is not there.
 */
export function useRunActions(id: string, live: boolean, changing: boolean) {
  return useQuery({
    queryKey: runKeys.actions(id),
    queryFn: async ({ signal }) => {
      if (!UUID.test(id)) return [];
      try {
        const rows = await api.post('/api/db/rpc/get_playbook_run_actions', { run_id: id }, { schema: z.array(RunAction), signal });
        // the rpc also returns the child runs' actions (a retry's): those belong to the Child runs section, not here
        return sortActions(rows.filter((r) => !r.playbook_run_id || r.playbook_run_id === id));
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 404) throw err;
      }
      const rows = await api.get('/api/db/playbook_run_actions', {
        query: { select: '*', playbook_run_id: `eq.${id}`, order: 'scheduled_time.asc' },
        schema: z.array(RunAction),
        signal,
      });
      return sortActions(rows);
    },
    refetchInterval: fallbackInterval(live, changing),
  });
}

const actionTime = (a: RunAction) => a.start_time ?? a.scheduled_time ?? '';
function sortActions(rows: RunAction[]): RunAction[] {
  return rows.sort((a, b) => actionTime(a).localeCompare(actionTime(b)) || a.id.localeCompare(b.id));
}

/** Runs started from this one (retries from a failed action, child runs). */
export function useChildRuns(id: string) {
  return useQuery({
    queryKey: runKeys.children(id),
    queryFn: ({ signal }) =>
      UUID.test(id)
        ? api.get('/api/db/playbook_runs', {
          query: { select: 'id,status,created_at,playbooks(id,name,title)', parent_id: `eq.${id}`, order: 'created_at.asc' },
          schema: z.array(z.object({
            id: z.string(), status: z.string(), created_at: z.string(),
            playbooks: z.object({ id: z.string(), name: z.string(), title: z.string().nullish() }).nullish(),
          })),
          signal,
        })
        : Promise.resolve([]),
  });
}

const StoredLine = z.object({ action_id: z.string(), seq: z.number(), stream: z.string(), text: z.string() });
/** The most stored lines one action's view reads (the download reads them all). */
export const STORED_LINES_LIMIT = 5_000;

/** One action with its result (the rpc leaves results out, as the reference UI reads them one action at a time). */
export function useRunAction(actionId: string | null, live: boolean, changing: boolean) {
  return useQuery({
    queryKey: runKeys.action(actionId ?? ''),
    enabled: !!actionId && UUID.test(actionId),
    queryFn: async ({ signal }) => {
      const rows = await api.get('/api/db/playbook_run_actions', { query: { select: '*', id: `eq.${actionId}` }, schema: z.array(RunAction), signal });
      return rows[0] ?? null;
    },
    refetchInterval: fallbackInterval(live, changing),
  });
}

/** An action's stored output lines (the last STORED_LINES_LIMIT), in seq order; the socket's watch adds the new ones. */
export function useStoredLines(actionId: string | null, live: boolean, changing: boolean) {
  return useQuery({
    queryKey: runKeys.lines(actionId ?? ''),
    enabled: !!actionId && UUID.test(actionId),
    queryFn: async ({ signal }) => {
      const rows = await api.get('/api/db/playbook_run_action_logs', {
        query: { select: 'action_id,seq,stream,text', action_id: `eq.${actionId}`, order: 'seq.desc', limit: STORED_LINES_LIMIT },
        schema: z.array(StoredLine),
        signal,
      });
      return rows.reverse();
    },
    placeholderData: keepPreviousData,
    refetchInterval: fallbackInterval(live, changing),
  });
}

/** Everything Download logs saves: every action's result and every stored line of the run. */
export async function fetchRunOutput(runId: string) {
  const [actions, lines] = await Promise.all([
    api.get('/api/db/playbook_run_actions', {
      query: { select: 'id,result', playbook_run_id: `eq.${runId}` },
      schema: z.array(z.object({ id: z.string(), result: z.unknown().optional() })),
    }),
    api.get('/api/db/playbook_run_action_logs', {
      query: { select: 'action_id,seq,stream,text', run_id: `eq.${runId}`, order: 'action_id.asc,seq.asc' },
      schema: z.array(StoredLine),
    }),
  ]);
  const results = new Map(actions.map((a) => [a.id, a.result]));
  const byAction = new Map<string, z.infer<typeof StoredLine>[]>();
  for (const l of lines) byAction.set(l.action_id, [...(byAction.get(l.action_id) ?? []), l]);
  return { results, lines: byAction };
}

const RunStarted = z.object({ run_id: z.string(), starts_at: z.string().optional() });
const Message = z.looseObject({ message: z.string().optional() });

/** Cancel, approve, retry from the failed action, and a plain re-run; each refreshes the run's reads. */
export function useRunCommands(id: string) {
  const qc = useQueryClient();
  const refresh = () => qc.invalidateQueries({ queryKey: runKeys.all });
  return {
    cancel: useMutation({
      mutationFn: () => api.post(`/api/playbook/run/cancel/${id}`, undefined, { schema: Message }),
      onSettled: refresh,
    }),
    approve: useMutation({
      mutationFn: () => api.post(`/api/playbook/run/approve/${id}`, undefined, { schema: Message }),
      onSettled: refresh,
    }),
    retry: useMutation({
      mutationFn: () => api.post(`/api/playbook/run/${id}/retry`, undefined, { schema: RunStarted }),
      onSettled: refresh,
    }),
    rerun: useMutation({
      mutationFn: (body: Record<string, unknown>) => api.post('/api/playbook/run', body, { schema: RunStarted }),
      onSettled: refresh,
    }),
  };
}
