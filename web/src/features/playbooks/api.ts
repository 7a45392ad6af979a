import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, errorMessage } from '../../lib/api-client';
import { toast } from '../../lib/toast';
import { PlaybookLite } from '../../components/playbooks/api';
import type { PlaybookItem } from './model';

/** Reads of /api/db relations live under `['db', <relation>]` so live updates refresh them. */
export const playbooksKeys = {
  all: ['db', 'playbooks'] as const,
  list: () => ['db', 'playbooks', 'list'] as const,
  detail: (id: string) => ['db', 'playbooks', 'detail', id] as const,
  schema: ['playbook-spec-schema'] as const,
};

const str = z.string().nullish();

/** A playbooks row: what the run dialog reads of it (PlaybookLite), and its source, namespace and stamps. */
export const PlaybookRowView = PlaybookLite.extend({
  namespace: str,
  created_at: str,
  updated_at: str,
  created_by: str,
}) satisfies z.ZodType<PlaybookItem>;
export type PlaybookRowView = z.infer<typeof PlaybookRowView>;

const SELECT = 'id,name,namespace,title,icon,description,category,source,spec,created_at,updated_at,created_by';

/** Every live playbook (not soft-deleted), by title. */
export function usePlaybooks() {
  return useQuery({
    queryKey: playbooksKeys.list(),
    queryFn: ({ signal }) =>
      api.get('/api/db/playbooks', {
        query: { select: SELECT, deleted_at: 'is.null', order: 'title.asc' },
        schema: z.array(PlaybookRowView),
        signal,
      }),
  });
}

export function usePlaybook(id: string) {
  return useQuery({
    queryKey: playbooksKeys.detail(id),
    queryFn: async ({ signal }) => {
      const rows = await api.get('/api/db/playbooks', {
        query: { select: SELECT, id: `eq.${id}`, deleted_at: 'is.null' },
        schema: z.array(PlaybookRowView),
        signal,
      });
      return rows[0] ?? null;
    },
    enabled: !!id,
  });
}

/** The playbook spec's JSON schema (the editor's markers and completion). */
export function usePlaybookSpecSchema(enabled: boolean) {
  return useQuery({
    queryKey: playbooksKeys.schema,
    queryFn: ({ signal }) => api.get<object>('/api/schemas/playbook-spec.schema.json', { signal }),
    enabled,
    staleTime: Infinity,
  });
}

/** What a save writes: the reference UI's body (name = title, source UI; category, description and icon from the spec). */
export interface PlaybookWrite {
  title: string;
  spec: Record<string, unknown>;
}

const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

export function writeBody({ title, spec }: PlaybookWrite) {
  return {
    name: title,
    title,
    spec,
    source: 'UI',
    category: text(spec.category) ?? '',
    description: text(spec.description) ?? '',
    icon: text(spec.icon) ?? '',
  };
}

/** Creates (no id) or updates a console playbook; the spec's toasts. Errors are the caller's to place (by path). */
export function useSavePlaybook() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...w }: PlaybookWrite & { id?: string }) =>
      id
        ? api.patch('/api/db/playbooks', writeBody(w), { query: { id: `eq.${id}` }, headers: { prefer: 'return=representation' } })
        : api.post('/api/db/playbooks', writeBody(w), { headers: { prefer: 'return=representation' } }),
    onSuccess: (_, v) => {
      toast.success(v.id ? 'Playbook Spec updated successfully' : 'Playbook Spec created successfully');
      void qc.invalidateQueries({ queryKey: playbooksKeys.all });
    },
    onError: (err, v) => {
      if (v.id) toast.error(`Unable to update playbook spec: ${errorMessage(err)}`);
    },
  });
}

/** Soft delete: `deleted_at` now (spec 000 "Soft delete"). */
export function useDeletePlaybook() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      api.patch('/api/db/playbooks', { deleted_at: new Date().toISOString() }, { query: { id: `eq.${id}` } }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: playbooksKeys.all }),
    onError: (err) => toast.error(`Unable to delete playbook spec: ${errorMessage(err)}`),
  });
}
