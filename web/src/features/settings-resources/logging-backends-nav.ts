import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api-client';

export interface NamedRow {
  id: string;
  name: string;
}

// No zod here: the sidebar loads with the app shell, which keeps zod out of its start-up bundle
const named = (body: unknown): NamedRow[] =>
  (Array.isArray(body) ? body : []).filter(
    (r): r is NamedRow => !!r && typeof (r as NamedRow).id === 'string' && typeof (r as NamedRow).name === 'string',
  );

/**
 * The logging backends by name, for the settings menu (spec 001 §2: "The settings menu also lists logging backends
 * sorted by name"). Empty when the user may not read them, the feature is off, or this server has no such table.
 */
export function useLoggingBackendNames(enabled: boolean) {
  return useQuery({
    queryKey: ['db', 'logging_backends', 'menu'],
    enabled,
    retry: false,
    queryFn: ({ signal }) =>
      api
        .get('/api/db/logging_backends', { query: { select: 'id,name', deleted_at: 'is.null', order: 'name.asc' }, signal })
        .then(named)
        .catch(() => [] as NamedRow[]),
  });
}
