import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, contentRangeTotal } from '../../lib/api-client';
import { toast } from '../../lib/toast';

/**
 * Incidents over /api/db (spec 000 §7). Keys live under `['db', <relation>]` so live updates refresh them; the
 * incident's hypotheses and evidences come embedded in the incident, comments and responders have their own reads.
 */
export const incidentKeys = {
  all: ['db', 'incidents'] as const,
  list: (filters: IncidentFilters, page: PageRequest) => [...incidentKeys.all, 'list', filters, page] as const,
  detail: (id: string) => [...incidentKeys.all, 'detail', id] as const,
  search: (q: string) => [...incidentKeys.all, 'search', q] as const,
  history: (id: string) => ['db', 'incident_histories', id] as const,
  comments: (id: string) => ['db', 'comments', id] as const,
  responders: (id: string) => ['db', 'responders', id] as const,
};

export const PersonRef = z.object({ id: z.string(), name: z.string(), avatar: z.string().nullish() });
export type PersonRef = z.infer<typeof PersonRef>;
export const TeamRef = z.object({ id: z.string(), name: z.string(), icon: z.string().nullish(), spec: z.unknown().optional() });
export type TeamRef = z.infer<typeof TeamRef>;

const ListResponder = z.object({ id: z.string(), team: TeamRef.nullish(), person: PersonRef.nullish() });

export const IncidentRow = z.object({
  id: z.string(),
  incident_id: z.string(),
  title: z.string(),
  severity: z.string(),
  type: z.string(),
  status: z.string(),
  created_at: z.string(),
  updated_at: z.string().nullish(),
  responders: z.array(ListResponder).default([]),
});
export type IncidentRow = z.infer<typeof IncidentRow>;

export const Evidence = z.object({
  id: z.string(),
  hypothesis_id: z.string(),
  type: z.string(),
  description: z.string().nullish(),
  created_by: PersonRef.nullish(),
  created_at: z.string(),
  component_id: z.string().nullish(),
  config_id: z.string().nullish(),
  check_id: z.string().nullish(),
  config_change_id: z.string().nullish(),
  config_analysis_id: z.string().nullish(),
  definition_of_done: z.boolean().nullish(),
  done: z.boolean().nullish(),
  script: z.string().nullish(),
  evidence: z.record(z.string(), z.unknown()).nullish(),
  properties: z.record(z.string(), z.unknown()).nullish(),
  check: z.object({ id: z.string(), name: z.string(), type: z.string().nullish(), status: z.string().nullish() }).nullish(),
});
export type Evidence = z.infer<typeof Evidence>;

export const Hypothesis = z.object({
  id: z.string(),
  incident_id: z.string(),
  parent_id: z.string().nullish(),
  title: z.string(),
  type: z.string(),
  status: z.string(),
  created_at: z.string(),
  created_by: PersonRef.nullish(),
  evidences: z.array(Evidence).default([]),
});
export type Hypothesis = z.infer<typeof Hypothesis>;

export const Incident = z.object({
  id: z.string(),
  incident_id: z.string(),
  title: z.string(),
  description: z.string().nullish(),
  severity: z.string(),
  type: z.string(),
  status: z.string(),
  created_at: z.string(),
  updated_at: z.string().nullish(),
  acknowledged: z.string().nullish(),
  resolved: z.string().nullish(),
  closed: z.string().nullish(),
  created_by: PersonRef.nullish(),
  commander: PersonRef.nullish(),
  communicator: PersonRef.nullish(),
  hypotheses: z.array(Hypothesis).default([]),
});
export type Incident = z.infer<typeof Incident>;

/** The list's filters as the URL holds them; empty means "all" and is left out of the query. */
export type IncidentFilters = {
  severity: string;
  status: string;
  owner: string;
  type: string;
  component: string;
  search: string;
};

export interface PageRequest {
  pageIndex: number;
  pageSize: number;
  sortBy: string;
  desc: boolean;
}

/** Sortable columns of the list and the column each orders by. */
const SORT_COLUMNS: Record<string, string> = {
  incident_id: 'incident_id', type: 'type', severity: 'severity', status: 'status', title: 'title', age: 'created_at',
};

const LIST_SELECT = 'id,incident_id,title,severity,type,status,created_at,updated_at,responders(id,team:team_id(id,name,icon),person:person_id(id,name,avatar))';

/**
 * An ilike pattern for "contains": PostgREST's own characters (`*,()"\`) and LIKE's `%` cannot appear in the value,
 * so each becomes `_` (any one character), which still matches the text as typed.
 */
export function ilikeValue(text: string): string {
  return `*${text.trim().replace(/[*%,()"\\]/g, '_')}*`;
}

/** The list query of spec 000 §7: eq on severity, status, type, created_by and the evidences' component, a title search. */
export function listQuery(raw: IncidentFilters, page: PageRequest) {
  // "all" is omitted from the query
  const pick = (v: string) => (v && v !== 'all' ? v : '');
  const filters = { ...raw, severity: pick(raw.severity), status: pick(raw.status), type: pick(raw.type), owner: pick(raw.owner), component: pick(raw.component) };
  const query: Record<string, string | number> = {
    select: filters.component ? `${LIST_SELECT},hypotheses!inner(id,evidences!inner(component_id))` : LIST_SELECT,
    'responders.deleted_at': 'is.null',
    order: `${SORT_COLUMNS[page.sortBy] ?? 'created_at'}.${page.desc ? 'desc' : 'asc'}`,
    limit: page.pageSize,
    offset: page.pageIndex * page.pageSize,
  };
  if (filters.severity) query.severity = `eq.${filters.severity}`;
  if (filters.status) query.status = `eq.${filters.status}`;
  if (filters.type) query.type = `eq.${filters.type}`;
  if (filters.owner) query.created_by = `eq.${filters.owner}`;
  if (filters.component) query['hypotheses.evidences.component_id'] = `eq.${filters.component}`;
  if (filters.search.trim()) query.title = `ilike.${ilikeValue(filters.search)}`;
  return query;
}

export function useIncidents(filters: IncidentFilters, page: PageRequest) {
  return useQuery({
    queryKey: incidentKeys.list(filters, page),
    queryFn: async ({ signal }) => {
      let total: number | null = null;
      const rows = await api.get('/api/db/incidents', {
        query: listQuery(filters, page),
        headers: { prefer: 'count=exact' },
        schema: z.array(IncidentRow),
        signal,
        onHeaders: (h) => (total = contentRangeTotal(h)),
      });
      return { rows, total: total ?? rows.length };
    },
    placeholderData: keepPreviousData,
  });
}

const DETAIL_SELECT = [
  '*',
  'created_by(id,name,avatar)',
  'commander:commander_id(id,name,avatar)',
  'communicator:communicator_id(id,name,avatar)',
  'hypotheses(id,incident_id,parent_id,title,type,status,created_at,created_by(id,name,avatar),evidences(*,created_by(id,name,avatar),check:check_id(id,name,type,status)))',
].join(',');

const byCreated = <T extends { created_at: string }>(a: T, b: T) => a.created_at.localeCompare(b.created_at);

/** One incident with its hypothesis tree and evidence; `null` when there is none with that id. */
export function useIncident(id: string) {
  return useQuery({
    queryKey: incidentKeys.detail(id),
    queryFn: async ({ signal }) => {
      // an id that is not a uuid cannot exist: answer "not found" instead of the database's syntax error
      if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
      const rows = await api.get('/api/db/incidents', {
        query: { select: DETAIL_SELECT, id: `eq.${id}` },
        schema: z.array(Incident),
        signal,
      });
      const incident = rows[0];
      if (!incident) return null;
      incident.hypotheses.sort(byCreated);
      for (const h of incident.hypotheses) h.evidences.sort(byCreated);
      return incident;
    },
  });
}

/** Incidents whose title contains `q` (the Link to Incident picker), newest first. */
export function useIncidentSearch(q: string, enabled: boolean) {
  return useQuery({
    queryKey: incidentKeys.search(q),
    queryFn: ({ signal }) =>
      api.get('/api/db/incidents', {
        query: {
          select: 'id,incident_id,title,status,hypotheses(id,title,type,parent_id)',
          ...(q.trim() ? { title: `ilike.${ilikeValue(q)}` } : {}),
          order: 'created_at.desc',
          limit: 20,
        },
        schema: z.array(
          z.object({
            id: z.string(),
            incident_id: z.string(),
            title: z.string(),
            status: z.string(),
            hypotheses: z.array(z.object({ id: z.string(), title: z.string(), type: z.string(), parent_id: z.string().nullish() })).default([]),
          }),
        ),
        signal,
      }),
    enabled,
    placeholderData: keepPreviousData,
  });
}

/** People for the owner filter and mentions: `q` searches names and emails (GET people). */
export function usePeopleSearch(q: string, enabled = true) {
  return useQuery({
    queryKey: ['db', 'people', 'incident-search', q] as const,
    queryFn: ({ signal }) =>
      api.get('/api/db/people', {
        query: {
          select: 'id,name,avatar,email',
          deleted_at: 'is.null',
          ...(q.trim() ? { or: `(name.ilike.${ilikeValue(q)},email.ilike.${ilikeValue(q)})` } : {}),
          and: '(or(type.is.null,type.not.in.(system,access_token,agent)))',
          order: 'name.asc',
          limit: 20,
        },
        schema: z.array(PersonRef.extend({ email: z.string().nullish() })),
        signal,
      }),
    enabled,
    placeholderData: keepPreviousData,
  });
}

/** Topology components named by topology evidence: the component filter's choices. */
export function useEvidenceComponents() {
  return useQuery({
    queryKey: ['db', 'evidences', 'components'] as const,
    queryFn: async ({ signal }) => {
      const rows = await api.get('/api/db/evidences', {
        query: { select: 'component_id,evidence', component_id: 'not.is.null', order: 'created_at.desc', limit: 500 },
        schema: z.array(z.object({ component_id: z.string(), evidence: z.record(z.string(), z.unknown()).nullish() })),
        signal,
      });
      const byId = new Map<string, string>();
      for (const r of rows) {
        if (byId.has(r.component_id)) continue;
        const name = r.evidence?.name;
        byId.set(r.component_id, typeof name === 'string' && name ? name : r.component_id.slice(0, 8));
      }
      return [...byId].map(([id, name]) => ({ id, name })).sort((a, b) => a.name.localeCompare(b.name));
    },
  });
}

export interface NewIncident {
  title: string;
  description: string;
  severity: string;
  status: string;
  type: string;
}

const Created = z.array(z.object({ id: z.string() }).passthrough());

async function insert<T extends { id: string }>(relation: string, body: unknown): Promise<T> {
  const rows = await api.post(`/api/db/${relation}`, body, {
    query: { select: '*' },
    headers: { prefer: 'return=representation' },
    schema: Created,
  });
  return rows[0] as T;
}

const CreatedIncident = z.object({
  incident: z.object({ id: z.string(), incident_id: z.string() }).passthrough(),
  hypothesis: z.object({ id: z.string() }).passthrough(),
});

/**
 * The creation sequence of spec 000 §7: the incident, then its root hypothesis (the incident's title, type root,
 * status possible), then the optional evidence on that hypothesis. Sent as one call to `rpc/create_incident`, which
 * runs the same three inserts in one transaction: a failure part-way (a refused evidence, a dropped connection)
 * leaves nothing behind, where three separate POSTs could leave an incident without its root hypothesis. The creator
 * (commander and communicator too) is the signed-in person; the server takes it from the session.
 */
export async function createIncidentSequence(
  incident: NewIncident,
  createdBy: string,
  options: { hypothesisTitle?: string; evidence?: Record<string, unknown> } = {},
) {
  const created = await api.post('/api/db/rpc/create_incident', {
    title: incident.title,
    description: incident.description,
    severity: incident.severity,
    status: incident.status,
    type: incident.type,
    commander_id: createdBy,
    communicator_id: createdBy,
    hypothesis_title: options.hypothesisTitle?.trim() || undefined,
    evidence: options.evidence,
  }, { schema: CreatedIncident });
  return { id: created.incident.id, incidentId: created.incident.incident_id, hypothesisId: created.hypothesis.id };
}

export function useCreateIncident() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ incident, createdBy }: { incident: NewIncident; createdBy: string }) =>
      createIncidentSequence(incident, createdBy),
    onSettled: () => qc.invalidateQueries({ queryKey: incidentKeys.all }),
  });
}

/** PATCH incidents?id=eq: the status dropdown and the Close/Reopen toggle, with the spec's toasts. */
export function useUpdateIncidentStatus(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (status: string) => api.patch('/api/db/incidents', { status }, { query: { id: `eq.${id}` } }),
    meta: { silent: true },
    onSuccess: () => toast.success('Incident status updated successfully'),
    onError: () => toast.error('Incident status updated failed'),
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: incidentKeys.all });
      void qc.invalidateQueries({ queryKey: incidentKeys.history(id) });
    },
  });
}

/** PATCH incidents?id=eq with severity and type. */
export function useUpdateIncident(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (patch: { severity?: string; type?: string }) => api.patch('/api/db/incidents', patch, { query: { id: `eq.${id}` } }),
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: incidentKeys.all });
      void qc.invalidateQueries({ queryKey: incidentKeys.history(id) });
    },
  });
}

export const HistoryEntry = z.object({
  id: z.string(),
  type: z.string().nullish(),
  description: z.string().nullish(),
  created_at: z.string(),
  created_by: PersonRef.nullish(),
  hypothesis: z.object({ id: z.string(), title: z.string() }).nullish(),
  evidence: z.object({ id: z.string(), description: z.string().nullish(), type: z.string() }).nullish(),
  comment: z.object({ id: z.string(), comment: z.string() }).nullish(),
  responder: z.object({ id: z.string(), person: PersonRef.nullish(), team: TeamRef.nullish() }).nullish(),
});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

/** The changelog, newest first (incident_histories, written by the server for each event). */
export function useIncidentHistory(id: string) {
  return useQuery({
    queryKey: incidentKeys.history(id),
    queryFn: ({ signal }) =>
      api.get('/api/db/incident_histories', {
        query: {
          incident_id: `eq.${id}`,
          select:
            'id,type,description,created_at,created_by(id,name,avatar),hypothesis:hypothesis_id(id,title),evidence:evidence_id(id,description,type),comment:comment_id(id,comment),responder:responder_id(id,person:person_id(id,name,avatar),team:team_id(id,name,icon))',
          order: 'created_at.desc',
          limit: 200,
        },
        schema: z.array(HistoryEntry),
        signal,
      }),
  });
}
