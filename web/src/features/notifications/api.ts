import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, contentRangeTotal } from '../../lib/api-client';
import { historyQuery, type EventQueueSummaryRow, type HistoryFilters, type SendHistoryRow } from './model';

/**
 * Under `['db', <relation>]` (live-socket.ts's convention): a send written or updated reaches open pages as a change to
 * notification_send_history; a queued, consumed or failed event as a change to event_queue.
 */
export const notificationKeys = {
  history: ['db', 'notification_send_history'] as const,
  historyPage: (filters: HistoryFilters, pageIndex: number, pageSize: number) =>
    [...notificationKeys.history, 'page', filters, pageIndex, pageSize] as const,
  historyItem: (id: string) => [...notificationKeys.history, 'item', id] as const,
  resourceTypes: () => [...notificationKeys.history, 'resource_types'] as const,
  eventQueue: ['db', 'event_queue', 'summary'] as const,
};

/** A page of the send history, newest first, with the exact total (`Prefer: count=exact`). */
export function useSendHistory(filters: HistoryFilters, pageIndex: number, pageSize: number) {
  return useQuery({
    queryKey: notificationKeys.historyPage(filters, pageIndex, pageSize),
    queryFn: async ({ signal }) => {
      let total: number | null = null;
      const rows = await api.get<SendHistoryRow[]>('/api/db/notification_send_history_summary', {
        query: historyQuery(filters, pageIndex, pageSize),
        headers: { prefer: 'count=exact' },
        signal,
        onHeaders: (h) => (total = contentRangeTotal(h)),
      });
      return { rows: rows ?? [], total: total ?? rows?.length ?? 0 };
    },
    placeholderData: keepPreviousData,
  });
}

/** One send with its resource and rendered markdown (GET /api/notification/send_history/:id). */
export function useSendHistoryItem(id: string | null) {
  return useQuery({
    queryKey: notificationKeys.historyItem(id ?? ''),
    enabled: !!id,
    queryFn: ({ signal }) => api.get<SendHistoryRow>(`/api/notification/send_history/${encodeURIComponent(id ?? '')}`, { signal }),
  });
}

/** The resource types seen in the history, for the filter. */
export function useHistoryResourceTypes() {
  return useQuery({
    queryKey: notificationKeys.resourceTypes(),
    queryFn: ({ signal }) =>
      api.get<{ resource_type: string | null }[]>('/api/db/notification_send_history_resource_types', {
        query: { select: 'resource_type' },
        signal,
      }).then((rows) => (rows ?? []).map((r) => r.resource_type).filter((t): t is string => !!t)),
    staleTime: 60_000,
  });
}

/** event_queue_summary: one row per event name and event (the page folds them per name). */
export function useEventQueueSummary() {
  return useQuery({
    queryKey: notificationKeys.eventQueue,
    queryFn: ({ signal }) => api.get<EventQueueSummaryRow[]>('/api/db/event_queue_summary', { signal }).then((r) => r ?? []),
  });
}
