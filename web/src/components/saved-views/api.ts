import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../lib/api-client';
import { toast } from '../../lib/toast';
import { SavedView, type SaveViewForm } from './model';

/** Under `['db', relation]`: live updates invalidate by relation. */
export const savedViewKeys = {
  all: ['db', 'saved_query'] as const,
  page: (path: string) => [...savedViewKeys.all, 'page', path] as const,
};

/** Everyone's saved views whose URL starts with the page's path (viewsForPage keeps exactly the page's). */
export function useSavedViews(path: string) {
  return useQuery({
    queryKey: savedViewKeys.page(path),
    queryFn: ({ signal }) =>
      api.get('/api/db/saved_query', {
        query: { select: 'id,name,description,query,created_by', query: `like.${path}*`, order: 'name.asc' },
        schema: z.array(SavedView),
        signal,
      }),
  });
}

/** Saves the page's URL under a name; created_by is left to the server (the signed-in person). */
export function useSaveView() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ form, query }: { form: SaveViewForm; query: string }) =>
      api.post('/api/db/saved_query', { name: form.name, description: form.description || null, query }),
    onSuccess: (_, { form }) => {
      toast.success(`View "${form.name}" saved`);
      void qc.invalidateQueries({ queryKey: savedViewKeys.all });
    },
  });
}

export function useDeleteView() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (view: SavedView) => api.delete('/api/db/saved_query', { query: { id: `eq.${view.id}` } }),
    onSuccess: (_, view) => {
      toast.success(`${view.name} deleted successfully`);
      void qc.invalidateQueries({ queryKey: savedViewKeys.all });
    },
  });
}
