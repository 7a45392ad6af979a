import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, contentRangeTotal } from '../../../lib/api-client';
import { toast } from '../../../lib/toast';
import { SilenceRow } from './model';

/** Under `['db', 'notification_silences']`: live updates of the relation refresh the list. */
export const silenceKeys = {
  all: ['db', 'notification_silences'] as const,
  page: (pageIndex: number, pageSize: number) => [...silenceKeys.all, 'page', pageIndex, pageSize] as const,
};

/** The reference UI's embeds: the check (`checks:check_id`), the other targets by name, `createdBy:created_by`. */
export const SILENCE_SELECT =
  '*,checks:check_id(id,name,type),canary:canary_id(id,name),config:config_id(id,name,type),' +
  'component:component_id(id,name,icon),createdBy:created_by(id,name,avatar,email)';

export function silenceListQuery(pageIndex: number, pageSize: number) {
  return {
    select: SILENCE_SELECT,
    deleted_at: 'is.null',
    order: 'created_at.desc',
    limit: pageSize,
    offset: pageIndex * pageSize,
  };
}

/** A page of live (not deleted) silences, newest first, with the exact total. */
export function useSilences(pageIndex: number, pageSize: number) {
  return useQuery({
    queryKey: silenceKeys.page(pageIndex, pageSize),
    queryFn: async ({ signal }) => {
      let total: number | null = null;
      const rows = await api.get('/api/db/notification_silences', {
        query: silenceListQuery(pageIndex, pageSize),
        headers: { prefer: 'count=exact' },
        schema: z.array(SilenceRow),
        signal,
        onHeaders: (h) => (total = contentRangeTotal(h)),
      });
      return { rows, total: total ?? rows.length };
    },
    placeholderData: keepPreviousData,
  });
}

function useRefresh() {
  const qc = useQueryClient();
  return () => void qc.invalidateQueries({ queryKey: silenceKeys.all });
}

/** POST /api/notification/silence (api.md body; the server forces source UI). The form shows a 400 itself. */
export function useCreateSilence() {
  const refresh = useRefresh();
  return useMutation({
    meta: { silent: true },
    mutationFn: (body: Record<string, unknown>) => api.post('/api/notification/silence', body),
    onSuccess: () => {
      toast.success('Notification silence created successfully');
      refresh();
    },
  });
}

/** Edit Notification Silence: PATCH the row (the server sets updated_at); `until: null` is indefinitely. */
export function useUpdateSilence() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: { description: string | null; until: string | null } }) =>
      api.patch('/api/db/notification_silences', body, { query: { id: `eq.${id}` } }),
    onSuccess: () => {
      toast.success('Notification silence updated successfully');
      refresh();
    },
  });
}

/** Soft delete (deleted_at), as the reference UI does it. */
export function useDeleteSilence() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: (id: string) =>
      api.patch('/api/db/notification_silences', { deleted_at: new Date().toISOString() }, { query: { id: `eq.${id}` } }),
    onSuccess: () => {
      toast.success('Notification silence deleted successfully');
      refresh();
    },
  });
}

/** A send the draft silence would have silenced: the history row with its resource (lenient: fields vary). */
export const PreviewRow = z
  .object({
    id: z.string(),
    created_at: z.string().nullish(),
    source_event: z.string().nullish(),
    status: z.string().nullish(),
    resource_id: z.string().nullish(),
    resource: z.object({ name: z.string().nullish(), type: z.string().nullish() }).passthrough().nullish(),
    resource_type: z.string().nullish(),
  })
  .passthrough();
export type PreviewRow = z.infer<typeof PreviewRow>;

/** GET /api/notification/silence_preview: the sent rows of 15 days the draft would silence (a bare list or `payload`). */
export function usePreviewSilence() {
  return useMutation({
    meta: { silent: true },
    mutationFn: (query: Record<string, string>) =>
      api.get('/api/notification/silence_preview', {
        query: { ...query, limit: 50 },
        schema: z.union([z.array(PreviewRow), z.object({ payload: z.array(PreviewRow).nullish() }).transform((p) => p.payload ?? [])]),
      }),
  });
}
