import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../lib/api-client';
import { toast } from '../../lib/toast';

/** Under `['db', relation]`: live updates invalidate by relation. */
export const featureFlagKeys = {
  all: ['db', 'properties'] as const,
  list: () => [...featureFlagKeys.all, 'list'] as const,
};

// whoami carries the feature map the sidebar and route gates read (the auth feature's key, not imported:
// features do not import each other)
const SESSION_KEY = ['auth', 'whoami'] as const;

/** Where a flag comes from: the database (editable) or a file on the server (read-only). */
export const FlagSource = z.enum(['UI', 'local']);
export type FlagSource = z.infer<typeof FlagSource>;

/** A `properties` row as the Feature Flags page shows it (spec 001, section 3 "Feature flag"). */
export const FeatureFlag = z.object({
  name: z.string(),
  value: z.string(),
  description: z.string().nullish(),
  // the table has no source column yet: every row from the database is a UI flag
  source: FlagSource.catch('UI'),
  created_by: z.object({ id: z.string(), name: z.string(), avatar: z.string().nullable() }).nullable(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export type FeatureFlag = z.infer<typeof FeatureFlag>;

const REQUIRED = 'please provide all details';

/** The add/edit dialog: name and value are both needed (spec 001, section 5). */
export const FeatureFlagForm = z.object({
  name: z.string().trim().min(1, REQUIRED).max(255, 'Name is too long'),
  value: z.string().trim().min(1, REQUIRED).max(4096, 'Value is too long'),
});
export type FeatureFlagForm = z.infer<typeof FeatureFlagForm>;

/** Spec 001, section 6: flags read from local files are not editable here. */
export const LOCAL_FLAG_TEXT = 'Cannot edit local feature flags';
export const isEditable = (flag: Pick<FeatureFlag, 'source'>) => flag.source !== 'local';

/** Live feature flags by name. */
export function useFeatureFlags() {
  return useQuery({
    queryKey: featureFlagKeys.list(),
    queryFn: ({ signal }) =>
      api.get('/api/db/properties', {
        query: { select: '*,created_by(id,name,avatar)', deleted_at: 'is.null', order: 'name.asc' },
        schema: z.array(FeatureFlag),
        signal,
      }),
  });
}

function useRefresh() {
  const qc = useQueryClient();
  return () => {
    void qc.invalidateQueries({ queryKey: featureFlagKeys.all });
    // `{feature}.disable` changes what the sidebar shows
    void qc.invalidateQueries({ queryKey: SESSION_KEY });
  };
}

/**
 * Adds a flag. An upsert on the name, so a flag deleted earlier (soft-deleted row) comes back; the dialog refuses
 * a name already in the list before calling.
 */
export function useAddFeatureFlag() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: ({ form, createdBy }: { form: FeatureFlagForm; createdBy: string }) =>
      api.post(
        '/api/db/properties',
        { name: form.name, value: form.value, created_by: createdBy, deleted_at: null },
        { query: { on_conflict: 'name' }, headers: { prefer: 'resolution=merge-duplicates' } },
      ),
    onSuccess: () => {
      toast.success('Feature flag added successfully');
      refresh();
    },
  });
}

export function useUpdateFeatureFlag() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: (form: FeatureFlagForm) =>
      api.patch('/api/db/properties', { value: form.value }, { query: { name: `eq.${form.name}` } }),
    onSuccess: () => {
      toast.success('Feature flag updated successfully');
      refresh();
    },
  });
}

export function useDeleteFeatureFlag() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: (flag: FeatureFlag) => api.delete('/api/db/properties', { query: { name: `eq.${flag.name}` } }),
    onSuccess: () => {
      toast.success('Feature flag removed successfully');
      refresh();
    },
  });
}
