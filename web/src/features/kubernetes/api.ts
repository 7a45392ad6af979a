import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api-client';

/**
 * Under `['db', 'kubernetes_objects']`, the relation the informers write: a live-update event for it (a CR added,
 * changed or deleted) refetches the status at once. The connection, the leader and errors change without any row
 * changing, so the page also refetches every 10 s while it is open.
 */
export const kubernetesKeys = {
  all: ['db', 'kubernetes_objects'] as const,
  status: () => [...kubernetesKeys.all, 'status'] as const,
};

export const STATUS_REFETCH_MS = 10_000;

/** `GET /api/kubernetes/status`: the cluster connection, the leader, the watched kinds and the invalid CRs. */
export function useKubernetesStatus() {
  return useQuery({
    queryKey: kubernetesKeys.status(),
    queryFn: ({ signal }) =>
      api.get('/api/kubernetes/status', {
        schema: () => import('@contracts/kubernetes').then((m) => m.KubernetesStatus),
        signal,
      }),
    refetchInterval: STATUS_REFETCH_MS,
  });
}
