import { createContext, useContext } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api-client';

/** Agent id → name, for the agent badge and Tab By Agent; empty until loaded (the id shows meanwhile). */
export type AgentNames = ReadonlyMap<string, string>;

const NO_NAMES: AgentNames = new Map();

/** The dashboard provides the names; check rows and the drawer read them without a request each. */
export const AgentNamesContext = createContext<AgentNames>(NO_NAMES);

export const useAgentNamesContext = () => useContext(AgentNamesContext);

/**
 * Every agent's name from /api/db/agents (deleted ones too: their checks may remain), loaded only when some check
 * comes from a remote agent. Under ['db', 'agents']: a new or renamed agent refreshes it live.
 */
export function useAgentNames(enabled: boolean): AgentNames {
  const q = useQuery({
    queryKey: ['db', 'agents', 'names'],
    enabled,
    staleTime: 60_000,
    retry: false,
    queryFn: ({ signal }) =>
      api
        .get<{ id: string; name: string }[]>('/api/db/agents', { query: { select: 'id,name' }, signal })
        .then((rows) => new Map((rows ?? []).map((r) => [r.id, r.name])) as AgentNames),
  });
  return q.data ?? NO_NAMES;
}
