import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import {
  Connection,
  ConnectionTestResult,
  ConnectionUsage,
  ConnectionUsageItem,
  type ConnectionWrite,
} from '@contracts/connections';
import { api, ApiError } from '../../lib/api-client';
import { toast } from '../../lib/toast';

/** Under `['db', relation]`: live updates invalidate by relation. */
export const connectionKeys = {
  all: ['db', 'connections'] as const,
  list: () => [...connectionKeys.all, 'list'] as const,
  usage: (id: string) => [...connectionKeys.all, 'usage', id] as const,
};

/** The list as the reference UI asks for it (spec 001 §7; issue 11 "Connections, server"). */
export const CONNECTION_LIST_QUERY = {
  select: '*,created_by(id,name,avatar,email)',
  deleted_at: 'is.null',
  order: 'name.asc',
  limit: 100,
} as const;

export function useConnections() {
  return useQuery({
    queryKey: connectionKeys.list(),
    queryFn: ({ signal }) =>
      api.get('/api/db/connections', { query: CONNECTION_LIST_QUERY, schema: z.array(Connection), signal }),
  });
}

function useRefresh() {
  const qc = useQueryClient();
  return () => void qc.invalidateQueries({ queryKey: connectionKeys.all });
}

/** Adds a connection; `created_by` is the caller (the server refuses another's unless an admin sends it). */
export function useAddConnection() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: ({ body, createdBy }: { body: ConnectionWrite; createdBy: string }) =>
      api.post('/api/db/connections', { ...body, created_by: createdBy }),
    onSuccess: () => {
      toast.success('Connection added successfully');
      refresh();
    },
  });
}

/** Saves a connection; a static secret left as `***` is sent back as `***`, which keeps the stored value. */
export function useUpdateConnection() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: ({ id, body, createdBy }: { id: string; body: ConnectionWrite; createdBy: string }) =>
      api.patch('/api/db/connections', { ...body, created_by: createdBy }, { query: { id: `eq.${id}` } }),
    onSuccess: () => {
      toast.success('Connection updated successfully');
      refresh();
    },
  });
}

/** Soft delete, as the reference UI does it. */
export function useDeleteConnection() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: (id: string) => api.patch('/api/db/connections', { deleted_at: 'now()' }, { query: { id: `eq.${id}` } }),
    onSuccess: () => {
      toast.success('Connection deleted successfully');
      refresh();
    },
  });
}

/** What a test said, in the words of spec 001 §8. */
export type TestOutcome =
  | { ok: true; payload: unknown }
  | { ok: false; message: string; /** The error was JSON: shown formatted. */ json?: string };

export const TEST_TEXT = {
  success: 'Connection successful',
  unsupported: 'We currently do not support testing this connection type',
  failed: 'Testing connection failed!',
} as const;

/** A failed test's answer as the results dialog shows it. */
export function testOutcome(err: unknown): TestOutcome {
  if (!(err instanceof ApiError) || err.status === 0) return { ok: false, message: TEST_TEXT.failed };
  if (err.status === 501) return { ok: false, message: TEST_TEXT.unsupported };
  if (err.status !== 400) return { ok: false, message: TEST_TEXT.failed };
  try {
    const parsed: unknown = JSON.parse(err.message);
    if (parsed !== null && typeof parsed === 'object') return { ok: false, message: TEST_TEXT.failed, json: JSON.stringify(parsed, null, 2) };
  } catch {
    // plain text: shown as it is
  }
  return { ok: false, message: err.message || TEST_TEXT.failed };
}

/**
 * Tests a saved connection (`/api/connection/test/{id}`) or a form (`/api/connection/test` with the body; with the
 * id of a saved connection being edited, which resolves `***` to its stored secret).
 * Silent: the results dialog shows the answer, not a toast.
 */
export function useTestConnection() {
  return useMutation({
    meta: { silent: true },
    mutationFn: async (target: { id: string } | { body: ConnectionWrite & { id?: string } }): Promise<TestOutcome> => {
      try {
        const res =
          'id' in target
            ? await api.post(`/api/connection/test/${encodeURIComponent(target.id)}`, undefined, { schema: ConnectionTestResult })
            : await api.post('/api/connection/test', target.body, { schema: ConnectionTestResult });
        return { ok: true, payload: res.payload };
      } catch (err) {
        return testOutcome(err);
      }
    },
  });
}

// The usage answer, read leniently: a flat list, or lists grouped by kind ({checks: [...], playbooks: [...]}).
const UsageAnswer = z.union([
  ConnectionUsage,
  z
    .record(
      z.string(),
      z.array(
        z.object({
          id: z.union([z.string(), z.number()]).nullish().transform((id) => (id === null || id === undefined ? null : String(id))),
          name: z.string().nullish().transform((n) => n ?? '(unnamed)'),
        }),
      ),
    )
    .transform((groups) => Object.entries(groups).flatMap(([kind, items]) => items.map((i) => ({ ...i, kind })))),
]);

/** What names the connection; `null` when the server has no usage endpoint (404) or could not say. */
export function useConnectionUsage(id: string | undefined) {
  return useQuery({
    queryKey: connectionKeys.usage(id ?? ''),
    enabled: !!id,
    retry: false,
    queryFn: async ({ signal }): Promise<z.infer<typeof ConnectionUsageItem>[] | null> => {
      try {
        return await api.get(`/api/connection/${encodeURIComponent(id ?? '')}/usage`, { schema: UsageAnswer, signal });
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
  });
}
