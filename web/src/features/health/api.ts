import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api-client';
import { toast } from '../../lib/toast';
import { formatDuration } from '../../lib/format';
import { windowBefore, type ChartWindow } from './chart-model';

// The zod contracts (and zod) load with the first request instead of with the page's code.
const contract = () => import('@contracts/health');

/**
 * Under `['db', relation]`: live updates invalidate them when the scheduler writes results (checks,
 * check_statuses, check_summary).
 */
export const healthKeys = {
  summary: (window: string) => ['db', 'check_summary', window] as const,
  detail: (id: string, window: string) => ['db', 'checks', 'detail', id, window] as const,
  history: (id: string, params: HistoryParams) => ['db', 'check_statuses', 'history', id, params] as const,
  graph: (id: string, range: GraphRange) => ['db', 'check_statuses', 'graph', id, range] as const,
};

/** Spec 000 §9: check history stays fresh for 10 s. */
export const HISTORY_STALE_MS = 10_000;

/**
 * Every check with its uptime and latency over `window`. A new window or a refresh aborts the request in flight
 * (TanStack Query hands the `signal` to the client); the last answer stays on screen meanwhile.
 */
export function useCheckSummary(window: string, refetchInterval: number) {
  return useQuery({
    queryKey: healthKeys.summary(window),
    queryFn: ({ signal }) =>
      api.get('/api/canary/api/summary', { query: { window }, schema: () => contract().then((m) => m.SummaryResponse), signal }).then((r) => r.checks_summary),
    placeholderData: (prev) => prev,
    refetchInterval: refetchInterval || false,
  });
}

export function useCheckDetail(id: string, window: string) {
  return useQuery({
    queryKey: healthKeys.detail(id, window),
    queryFn: ({ signal }) => api.get(`/api/canary/api/check/${encodeURIComponent(id)}`, { query: { window }, schema: () => contract().then((m) => m.CheckDetail), signal }),
    enabled: !!id,
    placeholderData: (prev) => prev,
  });
}

export interface HistoryParams {
  /** A duration back from now (`1h`), or the start of an absolute range (ISO) with `end`. */
  start: string;
  /** The end of an absolute range (ISO). */
  end?: string;
  page: number;
  pageSize: number;
  /** '1' passed only, '0' failed only. */
  status?: '1' | '0';
  /** Minimum duration in ms. */
  duration?: number;
}

export function useCheckHistory(id: string, params: HistoryParams) {
  return useQuery({
    queryKey: healthKeys.history(id, params),
    queryFn: ({ signal }) =>
      api.get('/api/canary/api/history', { query: { check: id, ...params }, schema: () => contract().then((m) => m.HistoryResponse), signal }),
    enabled: !!id,
    staleTime: HISTORY_STALE_MS,
    placeholderData: (prev) => prev,
  });
}

/** A graph's range: a duration counted back from now (`1h`), or two instants (ISO). */
export type GraphRange = { since: string } | { from: string; to: string };

/**
 * The graph of a check over a range. The window is fixed when the request starts and sent as two instants, so that
 * the buckets and the chart's x scale (`window`) cover the same span whatever the data.
 */
export function useCheckGraph(id: string, range: GraphRange) {
  return useQuery({
    queryKey: healthKeys.graph(id, range),
    queryFn: async ({ signal }) => {
      const window: ChartWindow = 'since' in range ? windowBefore(range.since) : { from: Date.parse(range.from), to: Date.parse(range.to) };
      const query = { check: id, start: new Date(window.from).toISOString(), end: new Date(window.to).toISOString() };
      const res = await api.get('/api/canary/api/graph', { query, schema: () => contract().then((m) => m.GraphResponse), signal });
      return { ...res, window };
    },
    enabled: !!id,
    staleTime: HISTORY_STALE_MS,
    placeholderData: (prev) => prev,
  });
}

/** Run Now: runs the check once on the server and tells the result. */
export function useRunCheck() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.post(`/api/canary/run/check/${encodeURIComponent(id)}`, undefined, { schema: () => contract().then((m) => m.RunCheckResponse) }),
    onSuccess: (r) => {
      const took = formatDuration(r.duration);
      if (r.pass) toast.success(`${r.name} passed in ${took}${r.message ? `: ${r.message}` : ''}`);
      else toast.error(`${r.name} failed in ${took}: ${r.error || r.message || 'no details'}`);
      for (const relation of ['checks', 'check_statuses', 'check_summary']) void qc.invalidateQueries({ queryKey: ['db', relation] });
    },
  });
}
