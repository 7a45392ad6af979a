import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, errorMessage } from '../../lib/api-client';
import { toast } from '../../lib/toast';

// The tree's zod contract loads with the first request instead of with the page's code.
const contract = () => import('@contracts/topology');

/**
 * Under `['db', 'components']`: the roll-up announces every component whose health changed as a live `components`
 * event, which invalidates these (the socket batches a burst into one refetch), so a failing check turns its card red
 * without a reload. The sidebar (api-sidebar.ts) and the graph keep their own keys under the same prefix.
 */
export const topologyKeys = {
  all: ['db', 'components'] as const,
  tree: (query: Record<string, string>) => ['db', 'components', 'tree', query] as const,
  names: (ids: readonly string[]) => ['db', 'components', 'names', ids] as const,
  agents: ['db', 'agents', 'topology-filter'] as const,
};

/** GET /api/topology with these parameters: the cards, their children, and the filters' choices. */
export function useTopology(query: Record<string, string>, refetchInterval = 0) {
  return useQuery({
    queryKey: topologyKeys.tree(query),
    queryFn: ({ signal }) =>
      api.get('/api/topology', { query, schema: () => contract().then((m) => m.TopologyResponse), signal }),
    placeholderData: (prev) => prev,
    refetchInterval: refetchInterval || false,
  });
}

const Named = z.array(z.object({ id: z.string(), name: z.string() }));

/** The names of the breadcrumb's ancestors (hidden or not: a path is a path). */
export function useComponentNames(ids: readonly string[]) {
  return useQuery({
    queryKey: topologyKeys.names(ids),
    queryFn: ({ signal }) =>
      api.get('/api/db/components', { query: { select: 'id,name', id: `in.(${ids.join(',')})` }, schema: Named, signal }),
    enabled: ids.length > 0,
    staleTime: 60_000,
  });
}

/** The Agent filter's choices. */
export function useAgents(enabled = true) {
  return useQuery({
    queryKey: topologyKeys.agents,
    queryFn: ({ signal }) =>
      api.get('/api/db/agents', { query: { select: 'id,name', order: 'name.asc' }, schema: Named, signal }),
    enabled,
    staleTime: 60_000,
  });
}

/** Hide or show a component (PATCH components, admin and editor): the cards refetch through the live event. */
export function useSetHidden() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, hidden }: { id: string; hidden: boolean }) =>
      api.patch('/api/db/components', { hidden }, { query: { id: `eq.${id}` } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: topologyKeys.all }),
    onError: (err) => toast.error(`Could not change the component: ${errorMessage(err)}`),
  });
}
