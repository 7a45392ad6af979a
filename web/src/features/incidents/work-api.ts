import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../lib/api-client';
import { toast } from '../../lib/toast';
import { incidentKeys, PersonRef, TeamRef, type Evidence } from './api';

/** Hypotheses, evidences, comments and responders of one incident (spec 000 §7). */

function refresh(qc: QueryClient, incidentId: string) {
  void qc.invalidateQueries({ queryKey: incidentKeys.detail(incidentId) });
  void qc.invalidateQueries({ queryKey: incidentKeys.history(incidentId) });
}

// ---- Hypotheses ----

export interface NewHypothesis {
  parent_id: string | null;
  title: string;
  type: string;
  status?: string;
}

export function useCreateHypothesis(incidentId: string, createdBy: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (h: NewHypothesis) =>
      api.post('/api/db/hypotheses', { incident_id: incidentId, created_by: createdBy, status: 'possible', ...h }),
    onError: (err) => console.error('hypothesis create failed', err),
    onSettled: () => refresh(qc, incidentId),
  });
}

/** Title and status edits (the callers debounce: 1 s for a title, 200 ms for a status). */
export function useUpdateHypothesis(incidentId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...patch }: { id: string; title?: string; status?: string }) =>
      api.patch('/api/db/hypotheses', patch, { query: { id: `eq.${id}` } }),
    onSettled: () => refresh(qc, incidentId),
  });
}

/** Deletes hypotheses (a node and its descendants): their comments and evidences first, then the nodes, leaves first. */
export function useDeleteHypotheses(incidentId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (idsLeavesFirst: string[]) => {
      const list = `in.(${idsLeavesFirst.join(',')})`;
      await api.delete('/api/db/comments', { query: { hypothesis_id: list } });
      await api.delete('/api/db/evidences', { query: { hypothesis_id: list } });
      for (const id of idsLeavesFirst) await api.delete('/api/db/hypotheses', { query: { id: `eq.${id}` } });
    },
    meta: { silent: true },
    // spec 000 §8: logged, and the page is unblocked
    onError: (err) => {
      console.error('hypothesis delete failed', err);
      toast.error('Hypothesis delete failed');
    },
    onSettled: () => {
      refresh(qc, incidentId);
      void qc.invalidateQueries({ queryKey: incidentKeys.comments(incidentId) });
    },
  });
}

// ---- Evidences ----

export function useCreateEvidence(incidentId: string, createdBy: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (e: Record<string, unknown> & { hypothesis_id: string; type: string; description: string }) =>
      api.post('/api/db/evidences', { created_by: createdBy, ...e }),
    onError: (err) => console.error('evidence create failed', err),
    onSettled: () => refresh(qc, incidentId),
  });
}

type EvidencePatch = Partial<Pick<Evidence, 'definition_of_done' | 'done' | 'script' | 'description'>>;

/** PATCH evidences by ids, with the spec's failure toast for the change (spec 000 §8). */
export function useUpdateEvidences(incidentId: string, failure: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ ids, patch }: { ids: string[]; patch: EvidencePatch }) =>
      api.patch('/api/db/evidences', patch, { query: { id: `in.(${ids.join(',')})` } }),
    meta: { silent: true },
    onError: () => toast.error(failure),
    onSettled: () => refresh(qc, incidentId),
  });
}

export function useDeleteEvidence(incidentId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete('/api/db/evidences', { query: { id: `eq.${id}` } }),
    meta: { silent: true },
    onError: () => toast.error('Evidence delete failed'),
    onSettled: () => refresh(qc, incidentId),
  });
}

// ---- Comments ----

export const Comment = z.object({
  id: z.string(),
  comment: z.string(),
  hypothesis_id: z.string().nullish(),
  responder_id: z.string().nullish(),
  external_created_by: z.string().nullish(),
  created_at: z.string(),
  created_by: PersonRef.nullish(),
});
export type Comment = z.infer<typeof Comment>;

export function useComments(incidentId: string) {
  return useQuery({
    queryKey: incidentKeys.comments(incidentId),
    queryFn: ({ signal }) =>
      api.get('/api/db/comments', {
        query: { incident_id: `eq.${incidentId}`, select: 'id,comment,hypothesis_id,responder_id,external_created_by,created_at,created_by(id,name,avatar)', order: 'created_at.asc' },
        schema: z.array(Comment),
        signal,
      }),
  });
}

/** POST /comments, shown at once and taken back if the server refuses (spec 000 §8). */
export function useAddComment(incidentId: string, author: PersonRef) {
  const qc = useQueryClient();
  const key = incidentKeys.comments(incidentId);
  return useMutation({
    mutationFn: ({ hypothesisId, comment }: { hypothesisId: string; comment: string }) =>
      api.post('/api/db/comments', { created_by: author.id, incident_id: incidentId, hypothesis_id: hypothesisId, comment }),
    onMutate: async ({ hypothesisId, comment }) => {
      await qc.cancelQueries({ queryKey: key });
      const before = qc.getQueryData<Comment[]>(key);
      const pending: Comment = {
        id: `pending-${Date.now()}`,
        comment,
        hypothesis_id: hypothesisId,
        created_at: new Date().toISOString(),
        created_by: author,
      };
      qc.setQueryData<Comment[]>(key, [...(before ?? []), pending]);
      return { before };
    },
    onError: (err, _vars, ctx) => {
      console.error('comment create failed', err);
      qc.setQueryData(key, ctx?.before);
    },
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: key });
      void qc.invalidateQueries({ queryKey: incidentKeys.history(incidentId) });
    },
  });
}

// ---- Responders ----

export const Responder = z.object({
  id: z.string(),
  type: z.string(),
  team_id: z.string().nullish(),
  person_id: z.string().nullish(),
  external_id: z.string().nullish(),
  properties: z.record(z.string(), z.unknown()).nullish(),
  created_at: z.string(),
  acknowledged: z.string().nullish(),
  resolved: z.string().nullish(),
  closed: z.string().nullish(),
  delivery_status: z.string().nullish(),
  delivery_error: z.string().nullish(),
  team: TeamRef.nullish(),
  person: PersonRef.nullish(),
});
export type Responder = z.infer<typeof Responder>;

export function useResponders(incidentId: string) {
  return useQuery({
    queryKey: incidentKeys.responders(incidentId),
    queryFn: ({ signal }) =>
      api.get('/api/db/responders', {
        query: {
          incident_id: `eq.${incidentId}`,
          deleted_at: 'is.null',
          select: '*,team:team_id(id,name,icon,spec),person:person_id(id,name,avatar)',
          order: 'created_at.asc',
        },
        schema: z.array(Responder),
        signal,
      }),
  });
}

export interface NewResponder {
  team_id?: string;
  person_id?: string;
  type: string;
  properties: Record<string, string>;
  external_id?: string;
}

/** POST /responders?select=*: "Responder added successfully"; a failure shows the error (the wizard closes). */
export function useAddResponder(incidentId: string, createdBy: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (r: NewResponder) =>
      api.post('/api/db/responders', { incident_id: incidentId, created_by: createdBy, ...r }, { query: { select: '*' }, headers: { prefer: 'return=representation' } }),
    onSuccess: () => toast.success('Responder added successfully'),
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: incidentKeys.responders(incidentId) });
      refresh(qc, incidentId);
      void qc.invalidateQueries({ queryKey: incidentKeys.all });
    },
  });
}

/** PATCH /responders?id=eq with deleted_at (soft delete). */
export function useDeleteResponder(incidentId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.patch('/api/db/responders', { deleted_at: new Date().toISOString() }, { query: { id: `eq.${id}` } }),
    onSuccess: () => toast.success('Responder deleted successfully'),
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: incidentKeys.responders(incidentId) });
      refresh(qc, incidentId);
      void qc.invalidateQueries({ queryKey: incidentKeys.all });
    },
  });
}

/** GET /teams?deleted_at=is.null&order=name.asc, with their responder clients. */
export function useResponderTeams(enabled: boolean) {
  return useQuery({
    queryKey: ['db', 'teams', 'responders'] as const,
    queryFn: ({ signal }) =>
      api.get('/api/db/teams', {
        query: { select: 'id,name,icon,spec', deleted_at: 'is.null', order: 'name.asc' },
        schema: z.array(TeamRef),
        signal,
      }),
    enabled,
  });
}
