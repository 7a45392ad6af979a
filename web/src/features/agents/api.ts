import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, contentRangeTotal } from '../../lib/api-client';
import { toast } from '../../lib/toast';
import { AgentSummary, agentListQuery, GeneratedAgent, InstallInfo, TelemetryPoint, type AgentListParams } from './model';

/**
 * Under `['db', <relation>]` (live-socket.ts's convention): an `agents` change event (a ping, a push, an edit)
 * refreshes agents_summary reads too, so the list, the editor and the install dialog's "Connected" follow it live.
 */
export const agentKeys = {
  summary: ['db', 'agents_summary'] as const,
  list: (p: AgentListParams) => [...agentKeys.summary, 'list', p] as const,
  one: (id: string) => [...agentKeys.summary, 'one', id] as const,
  telemetry: (id: string) => ['db', 'agent_telemetry', id] as const,
  install: ['agents', 'install'] as const,
};

/** A page of agents_summary with `created_by` embedded and the exact total (`Prefer: count=exact`). */
export function useAgentsList(p: AgentListParams) {
  return useQuery({
    queryKey: agentKeys.list(p),
    queryFn: async ({ signal }) => {
      let total: number | null = null;
      const rows = await api.get('/api/db/agents_summary', {
        query: agentListQuery(p),
        headers: { prefer: 'count=exact' },
        schema: z.array(AgentSummary),
        signal,
        onHeaders: (h) => (total = contentRangeTotal(h)),
      });
      return { rows, total: total ?? rows.length };
    },
    placeholderData: keepPreviousData,
  });
}

/** One agent (`agents_summary?select=*&id=eq.{id}`, as the reference client reads it); null when gone. */
export function useAgent(id: string | null, opts: { pollUntilSeenMs?: number } = {}) {
  return useQuery({
    queryKey: agentKeys.one(id ?? ''),
    enabled: !!id,
    // the install dialog waits for the first ping: live events are throttled (one per agent per 10 s) and the socket
    // may be down, so it also asks every few seconds until last_seen is set
    refetchInterval: opts.pollUntilSeenMs
      ? (q: { state: { data?: AgentSummary | null } }) => (q.state.data?.last_seen ? false : opts.pollUntilSeenMs!)
      : undefined,
    queryFn: ({ signal }) =>
      api
        .get('/api/db/agents_summary', { query: { select: '*', id: `eq.${id}` }, schema: z.array(AgentSummary), signal })
        .then((rows): AgentSummary | null => rows[0] ?? null),
  });
}

/** Where agents reach this console and its Helm chart (GET /api/agent/install). */
export function useInstallInfo(enabled: boolean) {
  return useQuery({
    queryKey: agentKeys.install,
    enabled,
    staleTime: 5 * 60_000,
    queryFn: ({ signal }) => api.get('/api/agent/install', { schema: InstallInfo, signal }),
  });
}

/** 24 h of one agent's ping telemetry (agent_telemetry), oldest first; [] when the relation is not there. */
export function useAgentTelemetry(id: string, since: string) {
  return useQuery({
    queryKey: agentKeys.telemetry(id),
    queryFn: ({ signal }) =>
      api.get('/api/db/agent_telemetry', {
        query: { select: 'time,push_lag_ms,buffer_rows,dropped_rows', agent_id: `eq.${id}`, time: `gte.${since}`, order: 'time.asc', limit: 5000 },
        schema: z.array(TelemetryPoint),
        signal,
      }),
    retry: false,
  });
}

function useRefresh() {
  const qc = useQueryClient();
  return () => void qc.invalidateQueries({ queryKey: agentKeys.summary });
}

/** POST /api/agent/generate `{name, properties}` → 201 with the token shown once. The form shows a 4xx itself. */
export function useGenerateAgent() {
  const refresh = useRefresh();
  return useMutation({
    meta: { silent: true },
    mutationFn: (body: { name: string; properties: Record<string, string> }) =>
      api.post('/api/agent/generate', body, { schema: GeneratedAgent }),
    onSuccess: () => {
      toast.success('Agent created');
      refresh();
    },
  });
}

/** PATCH /api/db/agents?id=eq.{id} `{properties}` (the name stays as it is). */
export function useUpdateAgent() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: ({ id, properties }: { id: string; properties: Record<string, string> }) =>
      api.patch('/api/db/agents', { properties }, { query: { id: `eq.${id}` } }),
    onSuccess: () => {
      toast.success('Agent updated');
      refresh();
    },
  });
}

/** Soft delete: `{deleted_at: "now()", cleanup}`; cleanup also soft-deletes what the agent pushed. */
export function useDeleteAgent() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: ({ id, cleanup }: { id: string; cleanup: boolean }) =>
      api.patch('/api/db/agents', { deleted_at: 'now()', cleanup }, { query: { id: `eq.${id}` } }),
    onSuccess: () => {
      toast.success('Agent deleted');
      refresh();
    },
  });
}
