import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, ApiError } from '../../lib/api-client';
import { toast } from '../../lib/toast';
import type { ResourceDescriptor } from './descriptors';

/** Under `['db', table]`: a live change of the table refreshes its list and detail (views included). */
export const resourceKeys = {
  all: (table: string) => ['db', table] as const,
  list: (table: string) => ['db', table, 'settings-list'] as const,
  detail: (table: string, id: string) => ['db', table, 'settings-detail', id] as const,
  schema: (table: string) => ['schemas', table] as const,
};

const PersonRef = z.object({ id: z.string(), name: z.string(), avatar: z.string().nullable().optional() });
const text = z.string().nullable().optional();

/**
 * One row of a settings table or its `*_with_status` view (spec 001 §3 "Settings resource"). Tables differ in which
 * columns they have, so every column but id is optional; the job columns come from the views.
 */
export const ResourceRow = z.looseObject({
  id: z.string(),
  name: text,
  namespace: text,
  schedule: text,
  source: text,
  icon: text,
  agent_id: text,
  labels: z.record(z.string(), z.unknown()).nullable().optional(),
  spec: z.unknown().optional(),
  created_at: text,
  updated_at: text,
  created_by: z.union([PersonRef, z.string()]).nullable().optional(),
  job_status: text,
  job_name: text,
  job_time_start: text,
  job_created_at: text,
  last_runtime: text,
  job_last_failed: text,
  team_members: z.array(z.object({ person_id: z.string() })).optional(),
});
export type ResourceRow = z.infer<typeof ResourceRow>;

const LIMIT = 100;

/** Whether a relation is missing from this server (its view not migrated yet), rather than a real failure. */
const missing = (err: unknown) => err instanceof ApiError && (err.status === 404 || err.code === 'PGRST200' || err.code === 'PGRST205');

/**
 * The live rows of a table, by name, at most 100 (spec 001 §2). Read from its `*_with_status` view; while this server
 * has no such view, from the table itself (no job columns).
 */
export function useResources(d: ResourceDescriptor) {
  return useQuery({
    queryKey: resourceKeys.list(d.table),
    queryFn: async ({ signal }) => {
      const read = (relation: string) =>
        api.get(`/api/db/${relation}`, {
          query: {
            select: ['*', 'created_by(id,name,avatar)', d.listEmbeds].filter(Boolean).join(','),
            ...(d.table !== 'properties' && { deleted_at: 'is.null' }),
            order: 'name.asc',
            limit: d.listLimit ?? LIMIT,
          },
          schema: z.array(ResourceRow),
          signal,
        });
      if (d.listRelation === d.table) return read(d.table);
      return read(d.listRelation).catch((err) => (missing(err) ? read(d.table) : Promise.reject(err)));
    },
  });
}

/** One live row with its spec; `null` when there is none (or it was deleted). */
export function useResource(d: ResourceDescriptor, id: string | undefined) {
  return useQuery({
    queryKey: resourceKeys.detail(d.table, id ?? ''),
    enabled: !!id,
    queryFn: ({ signal }) =>
      api
        .get(`/api/db/${d.table}`, {
          query: { select: '*,created_by(id,name,avatar)', id: `eq.${id}`, deleted_at: 'is.null' },
          schema: z.array(ResourceRow),
          signal,
        })
        .then((rows) => rows[0] ?? null),
  });
}

/** The agent's name for "Linked to {agent}"; the id when it cannot be read. */
export function useAgentName(agentId: string | null) {
  return useQuery({
    queryKey: ['db', 'agents', 'name', agentId ?? ''],
    enabled: !!agentId,
    queryFn: ({ signal }) =>
      api
        .get('/api/db/agents', { query: { select: 'id,name', id: `eq.${agentId}` }, schema: z.array(z.object({ id: z.string(), name: z.string() })), signal })
        .then((rows) => rows[0]?.name ?? agentId)
        .catch(() => agentId),
  });
}

/** The kind's spec schema for the Code tab; it changes only with the server. */
export function useResourceSchema(d: ResourceDescriptor) {
  return useQuery({
    queryKey: resourceKeys.schema(d.table),
    enabled: !!d.schema,
    staleTime: Infinity,
    queryFn: () => d.schema!(),
  });
}

/** The body the form posts: the descriptor's fields only (the server refuses any other column). */
export type ResourceBody = Partial<Record<'name' | 'namespace' | 'labels' | 'spec' | 'schedule' | 'icon' | 'source', unknown>>;

/**
 * Creates (no id) or updates a row through /api/db as the reference UI does: POST with `created_by` and source 'UI',
 * PATCH `?id=eq.{id}`. Answers the row's id.
 */
export function useSaveResource(d: ResourceDescriptor, id: string | undefined, currentUserId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: ResourceBody): Promise<string> => {
      const only = Object.fromEntries(Object.entries(body).filter(([k]) => (d.fields as readonly string[]).includes(k)));
      if (id) {
        await api.patch(`/api/db/${d.table}`, only, { query: { id: `eq.${id}` } });
        return id;
      }
      const rows = await api.post(
        `/api/db/${d.table}`,
        { ...only, source: 'UI', created_by: currentUserId },
        { query: { select: 'id' }, headers: { prefer: 'return=representation' }, schema: z.array(z.object({ id: z.string() })) },
      );
      return rows[0].id;
    },
    onSuccess: (_, body) => {
      toast.success(`${String(body.name ?? d.singular)} ${id ? 'updated' : 'created'} successfully`);
      void qc.invalidateQueries({ queryKey: resourceKeys.all(d.table) });
    },
  });
}

/** Soft delete (spec 001 §4: deleted_at set to now); an instant rather than `now()`, which every writer reads alike. */
export function useDeleteResource(d: ResourceDescriptor) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (row: { id: string; name: string }) =>
      api.patch(`/api/db/${d.table}`, { deleted_at: new Date().toISOString() }, { query: { id: `eq.${row.id}` } }),
    onSuccess: (_, row) => {
      toast.success(`${row.name} deleted successfully`);
      qc.removeQueries({ queryKey: resourceKeys.detail(d.table, row.id) });
      void qc.invalidateQueries({ queryKey: resourceKeys.all(d.table) });
    },
  });
}

export const jobHistoryKeys = {
  all: ['db', 'job_history'] as const,
  forResource: (id: string) => [...jobHistoryKeys.all, 'resource', id] as const,
};

export const JobRun = z.object({
  id: z.string(),
  name: z.string().nullable(),
  status: z.string().nullable(),
  success_count: z.number().nullable(),
  error_count: z.number().nullable(),
  duration_millis: z.number().nullable(),
  hostname: z.string().nullable(),
  time_start: z.string().nullable(),
  time_end: z.string().nullable(),
  created_at: z.string(),
});
export type JobRun = z.infer<typeof JobRun>;

/** A resource's job runs (job_history by resource_id), newest first. */
export function useJobHistory(id: string) {
  return useQuery({
    queryKey: jobHistoryKeys.forResource(id),
    queryFn: ({ signal }) =>
      api.get('/api/db/job_history', {
        query: {
          select: 'id,name,status,success_count,error_count,duration_millis,hostname,time_start,time_end,created_at',
          resource_id: `eq.${id}`,
          order: 'created_at.desc',
          limit: 100,
        },
        schema: z.array(JobRun),
        signal,
      }),
  });
}

