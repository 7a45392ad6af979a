import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../lib/api-client';
import { relatedQuery, type RelationToggles } from './toggles';

/** Under `['db', 'config_relationships']`: a scrape's new links reach the open tab as live updates. */
export const relationshipKeys = {
  all: ['db', 'config_relationships'] as const,
  related: (configId: string, t: RelationToggles, includeDeleted: boolean) => [...relationshipKeys.all, 'related', configId, t, includeDeleted] as const,
  manual: (configId: string) => [...relationshipKeys.all, 'manual', configId] as const,
};

const str = z.string().nullish();

/** A row of `rpc/related_configs_recursive` (0051_catalog_views.sql). */
export const RelatedConfig = z
  .object({
    id: z.string(),
    name: str,
    type: str,
    related_ids: z.array(z.string()).nullish(),
    tags: z.record(z.string(), z.unknown()).nullish(),
    changes: z.union([z.number(), z.string()]).nullish(),
    analysis: z.record(z.string(), z.unknown()).nullish(),
    health: str,
    status: str,
    deleted_at: str,
    created_at: str,
    updated_at: str,
    config_class: str,
    depth: z.number().nullish(),
  })
  .passthrough();
export type RelatedConfig = z.infer<typeof RelatedConfig>;

export function useRelatedConfigs(configId: string, t: RelationToggles, includeDeleted: boolean) {
  return useQuery({
    queryKey: relationshipKeys.related(configId, t, includeDeleted),
    queryFn: ({ signal }) =>
      api.get('/api/db/rpc/related_configs_recursive', { query: relatedQuery(configId, t, includeDeleted), schema: z.array(RelatedConfig), signal }),
    placeholderData: keepPreviousData,
  });
}

/** A link made by hand (selector_id `manual`, no scraper): the only kind the tab can unlink. */
export const ManualLink = z.object({ config_id: z.string(), related_id: z.string(), relation: str });
export type ManualLink = z.infer<typeof ManualLink>;

export function useManualLinks(configId: string) {
  return useQuery({
    queryKey: relationshipKeys.manual(configId),
    queryFn: ({ signal }) =>
      api.get('/api/db/config_relationships', {
        query: {
          or: `(config_id.eq.${configId},related_id.eq.${configId})`,
          selector_id: 'eq.manual',
          scraper_id: 'is.null',
          deleted_at: 'is.null',
          select: 'config_id,related_id,relation',
        },
        schema: z.array(ManualLink),
        signal,
      }),
  });
}

/** Removes a hand-made link, as the reference's "Delete config link" does (the server refuses scraped links). */
export function useUnlink() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (link: ManualLink) =>
      api.delete('/api/db/config_relationships', {
        query: { config_id: `eq.${link.config_id}`, related_id: `eq.${link.related_id}`, selector_id: 'eq.manual' },
      }),
    onSuccess: () => qc.invalidateQueries({ queryKey: relationshipKeys.all }),
  });
}
