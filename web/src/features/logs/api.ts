import { useQuery } from '@tanstack/react-query';
import { api, apiStream } from '../../lib/api-client';
import { readNdjson } from './ndjson';
import { parseSelectors, toStreamMessage, type LogSelector, type StreamMessage } from './model';

export interface ComponentWithLogs {
  id: string;
  name: string;
  type?: string | null;
  icon?: string | null;
}

export const logsKeys = {
  components: ['db', 'components_with_logs'] as const,
  selectors: (id: string) => ['db', 'components', id, 'log_selectors'] as const,
};

/** The component picker's list: live components with log selectors, by name (as the reference client asks). */
export function useComponentsWithLogs() {
  return useQuery({
    queryKey: logsKeys.components,
    queryFn: ({ signal }) =>
      api.get<ComponentWithLogs[]>('/api/db/components_with_logs', { query: { order: 'name.asc' }, signal }),
  });
}

/** The chosen component's `log_selectors` (the selector picker). */
export function useLogSelectors(id: string) {
  return useQuery({
    queryKey: logsKeys.selectors(id),
    queryFn: async ({ signal }): Promise<LogSelector[]> => {
      const rows = await api.get<{ log_selectors: unknown }[]>('/api/db/components', {
        query: { id: `eq.${id}`, select: 'log_selectors' },
        signal,
      });
      return parseSelectors(rows[0]?.log_selectors);
    },
    enabled: !!id,
  });
}

/** The body of POST /api/logs (server/contracts/logs.ts LogsRequest). */
export interface LogsSearch {
  id: string;
  name?: string;
  query?: string;
  start?: string;
  end?: string;
  limit?: number;
  page?: string;
  follow?: boolean;
}

/**
 * Runs one search, handing each batch of stream messages on as it arrives; resolves when the stream ends. Aborting
 * `signal` ends the request (and, server side, the backend's). An answer that is not 2xx rejects with its ApiError.
 */
export async function streamLogs(search: LogsSearch, signal: AbortSignal, onBatch: (messages: StreamMessage[]) => void): Promise<void> {
  const res = await apiStream('/api/logs', {
    method: 'POST',
    body: search,
    headers: { accept: 'application/x-ndjson' },
    signal,
  });
  if (!res.body) return;
  for await (const batch of readNdjson(res.body)) {
    if (signal.aborted) return;
    const messages: StreamMessage[] = [];
    for (const value of batch) {
      const m = toStreamMessage(value);
      if (m) messages.push(m);
    }
    if (messages.length) onBatch(messages);
  }
}
