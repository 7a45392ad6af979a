import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../../lib/api-client';
import { ilikeFilter } from '../api-sidebar';

/** Open incidents to attach a component to, found by title (the newest first, 20 at most). */
export const IncidentChoice = z.object({
  id: z.string(),
  incident_id: z.string(),
  title: z.string(),
  status: z.string(),
  hypotheses: z.array(z.object({ id: z.string(), type: z.string() })).default([]),
});
export type IncidentChoice = z.infer<typeof IncidentChoice>;

export const incidentSearchQuery = (q: string) => ({
  ...(q.trim() ? { title: ilikeFilter(q) } : {}),
  status: 'not.in.(resolved,closed)',
  select: 'id,incident_id,title,status,hypotheses(id,type)',
  order: 'created_at.desc',
  limit: 20,
});

/** The evidence a component becomes (type `topology`, as the incident's component strip reads it). */
export function componentEvidence(component: { id: string; name: string }, description: string) {
  return { type: 'topology', component_id: component.id, description: description.trim() || component.name, evidence: { name: component.name } };
}

export function useIncidentChoices(q: string, enabled: boolean) {
  return useQuery({
    queryKey: ['db', 'incidents', 'topology-link', q],
    queryFn: ({ signal }) => api.get('/api/db/incidents', { query: incidentSearchQuery(q), schema: z.array(IncidentChoice), signal }),
    enabled,
    placeholderData: keepPreviousData,
  });
}

export type IncidentLink =
  | { kind: 'existing'; incident: IncidentChoice; evidence: Record<string, unknown> }
  | { kind: 'new'; title: string; severity: string; type: string; evidence: Record<string, unknown> };

/** One transaction either way: the incidents' RPCs `link_to_incident` (root hypothesis) and `create_incident`. */
export function useLinkComponentToIncident() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (link: IncidentLink) => {
      if (link.kind === 'new') {
        return api.post('/api/db/rpc/create_incident', { title: link.title, severity: link.severity, type: link.type, status: 'open', evidence: link.evidence });
      }
      const root = link.incident.hypotheses.find((h) => h.type === 'root') ?? link.incident.hypotheses[0];
      return api.post('/api/db/rpc/link_to_incident', { incident_id: link.incident.id, hypothesis_id: root?.id, evidence: link.evidence });
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: ['db', 'incidents'] }),
  });
}
