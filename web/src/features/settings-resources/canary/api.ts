import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { CanaryResponse } from '@contracts/health';
import { SourceLink } from '@contracts/kubernetes';
import { api } from '../../../lib/api-client';
import { toast } from '../../../lib/toast';

/** Under `['db', relation]`: live updates invalidate by relation. */
export const canaryKeys = {
  all: ['db', 'canaries'] as const,
  list: () => [...canaryKeys.all, 'list'] as const,
  detail: (id: string) => [...canaryKeys.all, 'detail', id] as const,
};

export const schemaKeys = { canary: ['schemas', 'canary'] as const };

const PersonRef = z.object({ id: z.string(), name: z.string(), avatar: z.string().nullable() });

/** One row of `canaries_with_status`: the canary and its latest job run. */
export const CanaryRow = z.object({
  id: z.string(),
  name: z.string(),
  namespace: z.string(),
  schedule: z.string().nullable(),
  interval: z.string().nullable(),
  labels: z.record(z.string(), z.string()).nullable(),
  source: z.string().nullable(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
  created_by: PersonRef.nullable(),
  job_status: z.string().nullable(),
  job_time_start: z.string().nullable(),
  job_created_at: z.string().nullable(),
  job_last_failed: z.string().nullable(),
});
export type CanaryRow = z.infer<typeof CanaryRow>;

/**
 * A canary's detail: `GET /api/canary/:id` adds where it comes from (source link fields, when the server has them): a
 * canary from a Canary custom resource carries its `kubernetes` identity and resourceVersion, and `read_only` when
 * GitOps manages it.
 */
export const CanaryDetail = CanaryResponse.extend(SourceLink.partial().shape);
export type Canary = z.infer<typeof CanaryDetail>;

/** What the page saves: the flat body of POST/PUT /api/canary. */
export interface CanaryBody {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  spec: Record<string, unknown>;
  /** For a canary from a custom resource: the resourceVersion the user edited, so a change made meanwhile in the
   *  cluster answers 409 instead of being overwritten. */
  resource_version?: string;
}

const LIST_SELECT =
  'id,name,namespace,schedule,interval,labels,source,created_at,updated_at,created_by(id,name,avatar),job_status,job_time_start,job_created_at,job_last_failed';

/** Live canaries by name, with their latest job run. */
export function useCanaries() {
  return useQuery({
    queryKey: canaryKeys.list(),
    queryFn: ({ signal }) =>
      api.get('/api/db/canaries_with_status', {
        query: { select: LIST_SELECT, deleted_at: 'is.null', order: 'name.asc' },
        schema: z.array(CanaryRow),
        signal,
      }),
  });
}

/** One canary with its spec; `null` when it does not exist (or was deleted). */
export function useCanary(id: string | undefined) {
  return useQuery({
    queryKey: canaryKeys.detail(id ?? ''),
    enabled: !!id,
    queryFn: ({ signal }) =>
      api.get(`/api/canary/${encodeURIComponent(id!)}`, { schema: CanaryDetail, signal }).catch((err) => {
        if ((err as { status?: number }).status === 404) return null;
        throw err;
      }),
  });
}

/** The Canary spec as JSON Schema, for the Code tab's markers; it changes only with the server. */
export function useCanarySchema() {
  return useQuery({
    queryKey: schemaKeys.canary,
    staleTime: Infinity,
    queryFn: ({ signal }) => api.get('/api/schemas/canary.schema.json', { schema: z.record(z.string(), z.unknown()), signal }),
  });
}

/** Creates (no id) or replaces a canary; answers with the saved canary. */
export function useSaveCanary(id: string | undefined) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: CanaryBody) =>
      id
        ? api.put(`/api/canary/${encodeURIComponent(id)}`, body, { schema: CanaryDetail })
        : api.post('/api/canary', body, { schema: CanaryDetail }),
    onSuccess: (saved) => {
      toast.success(`${saved.name} ${id ? 'updated' : 'created'} successfully`);
      qc.setQueryData(canaryKeys.detail(saved.id), saved);
      void qc.invalidateQueries({ queryKey: canaryKeys.all });
      void qc.invalidateQueries({ queryKey: ['db', 'checks'] });
    },
  });
}

export function useDeleteCanary() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (c: { id: string; name: string }) => api.delete(`/api/canary/${encodeURIComponent(c.id)}`),
    onSuccess: (_, c) => {
      toast.success(`${c.name} deleted successfully`);
      qc.removeQueries({ queryKey: canaryKeys.detail(c.id) });
      void qc.invalidateQueries({ queryKey: canaryKeys.all });
      void qc.invalidateQueries({ queryKey: ['db', 'checks'] });
    },
  });
}
