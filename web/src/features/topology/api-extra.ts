import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api-client';
export type { HistoryResponse, ImpactComponent, ImpactResponse } from '@contracts/topology-extra';

// The history and impact reads (H5's routes, server/modules/topology/extra-routes.ts). Under `['db', 'components']`
// so the live channel's `{relation: 'components'}` events refresh them with the cards.
export const topologyExtraKeys = {
  all: ['db', 'components', 'extra'] as const,
  history: (id: string, since: string) => [...topologyExtraKeys.all, 'history', id, since] as const,
  impact: (id: string) => [...topologyExtraKeys.all, 'impact', id] as const,
};

// the contracts load with the request, not in the page's chunk
const historySchema = () => import('@contracts/topology-extra').then((m) => m.HistoryResponse);
const impactSchema = () => import('@contracts/topology-extra').then((m) => m.ImpactResponse);

export function useComponentHistory(componentId: string, since = '7d') {
  return useQuery({
    queryKey: topologyExtraKeys.history(componentId, since),
    queryFn: ({ signal }) =>
      api.get(`/api/topology/${encodeURIComponent(componentId)}/history`, { query: { since }, schema: historySchema, signal }),
  });
}

export function useComponentImpact(componentId: string) {
  return useQuery({
    queryKey: topologyExtraKeys.impact(componentId),
    queryFn: ({ signal }) => api.get(`/api/topology/${encodeURIComponent(componentId)}/impact`, { schema: impactSchema, signal }),
  });
}
