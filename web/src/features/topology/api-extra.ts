import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../lib/api-client';

// The history and impact reads (H5's routes, server/modules/topology/extra-routes.ts). Under `['db', 'components']`
// so the live channel's `{relation: 'components'}` events refresh them with the cards.
export const topologyExtraKeys = {
  all: ['db', 'components', 'extra'] as const,
  history: (id: string, since: string) => [...topologyExtraKeys.all, 'history', id, since] as const,
  impact: (id: string) => [...topologyExtraKeys.all, 'impact', id] as const,
};

const str = z.string().nullish();

/** One bucket of the strip: from `start` to the next bucket's start (or now), the worst status seen in it. */
export const HistoryBucket = z.object({ start: z.string(), status: z.string() }).passthrough();
export type HistoryBucket = z.infer<typeof HistoryBucket>;

export const ComponentHistory = z.object({
  transitions: z.array(z.object({ status: z.string(), previous: str, at: z.string() }).passthrough()).default([]),
  buckets: z.array(HistoryBucket),
}).passthrough();
export type ComponentHistory = z.infer<typeof ComponentHistory>;

export function useComponentHistory(componentId: string, since = '7d') {
  return useQuery({
    queryKey: topologyExtraKeys.history(componentId, since),
    queryFn: ({ signal }) =>
      api.get(`/api/topology/${encodeURIComponent(componentId)}/history`, { query: { since }, schema: ComponentHistory, signal }),
  });
}

/** A component that depends on the one asked about, and the relationship it depends through. */
export const ImpactedComponent = z.object({
  id: z.string(),
  name: z.string(),
  type: str,
  icon: str,
  status: str,
  path: str,
  via: str,
}).passthrough();
export type ImpactedComponent = z.infer<typeof ImpactedComponent>;

export const ComponentImpact = z.object({
  components: z.array(ImpactedComponent),
  teams: z.array(z.object({ id: z.string(), name: z.string() }).passthrough()),
  depth: z.number().nullish(),
  truncated: z.boolean().nullish(),
}).passthrough();
export type ComponentImpact = z.infer<typeof ComponentImpact>;

export function useComponentImpact(componentId: string) {
  return useQuery({
    queryKey: topologyExtraKeys.impact(componentId),
    queryFn: ({ signal }) => api.get(`/api/topology/${encodeURIComponent(componentId)}/impact`, { schema: ComponentImpact, signal }),
  });
}
