import type { EventResource, EventSource, Q } from '../types.js';

export const INCIDENT_STATUS_EVENTS = ['open', 'investigating', 'mitigated', 'resolved', 'closed', 'cancelled'].map((s) => `incident.status.${s}`);

export const INCIDENT_EVENTS = [
  'incident.created', ...INCIDENT_STATUS_EVENTS,
  'incident.responder.added', 'incident.responder.removed', 'incident.comment.added',
  'incident.dod.added', 'incident.dod.passed', 'incident.dod.regressed',
] as const;

type Row = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const isRow = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

async function one(db: Q, sql: string, id: string): Promise<Row | null> {
  const { rows } = await db.query<{ r: Row }>(sql, [id]);
  return rows[0]?.r ?? null;
}

/** The row the event is about besides the incident (responder, comment, evidence), and the incident's id. */
async function subject(db: Q, name: string, id: string, props: Row): Promise<{ incidentId: string | null; extra: Row }> {
  if (name.startsWith('incident.responder.')) {
    const responder = (await one(db, `SELECT to_jsonb(r) - 'properties' AS r FROM responders r WHERE r.id = $1`, id))
      ?? (isRow(props.responder) ? props.responder : null);
    return { incidentId: str(responder?.incident_id) ?? str(props.incident_id), extra: responder ? { responder } : {} };
  }
  if (name === 'incident.comment.added') {
    const comment = await one(db, 'SELECT to_jsonb(c) AS r FROM comments c WHERE c.id = $1', id);
    return { incidentId: str(comment?.incident_id), extra: comment ? { comment } : {} };
  }
  if (name.startsWith('incident.dod.')) {
    const evidence = await one(db,
      `SELECT to_jsonb(e) || jsonb_build_object('incident_id', h.incident_id) AS r
         FROM evidences e JOIN hypotheses h ON h.id = e.hypothesis_id WHERE e.id = $1`, id);
    return { incidentId: str(evidence?.incident_id), extra: evidence ? { evidence } : {} };
  }
  return { incidentId: id, extra: {} };
}

/**
 * incident.created, incident.status.<status>, incident.responder.added|removed, incident.comment.added and
 * incident.dod.added|passed|regressed, written by 0081's triggers. event_id is the incident, responder, comment or
 * evidence; the resource is always the incident, and env carries the other row ({incident, responder | comment |
 * evidence}). A removed responder is loaded from the copy its event carries. Incidents have no health.
 */
export const incidentSource: EventSource = {
  kind: 'incident',
  events: INCIDENT_EVENTS,
  variables: ['incident', 'responder', 'comment', 'evidence'],
  async load(db, event): Promise<EventResource | null> {
    if (!event.event_id) return null;
    const { incidentId, extra } = await subject(db, event.name, event.event_id, isRow(event.properties) ? event.properties : {});
    if (!incidentId) return null;
    const incident = await one(db, 'SELECT to_jsonb(i) AS r FROM incidents i WHERE i.id = $1', incidentId);
    if (!incident) return null;
    return {
      kind: 'incident',
      id: incidentId,
      name: str(incident.title) ?? incidentId,
      type: str(incident.type),
      health: null,
      status: str(incident.status),
      description: str(incident.description),
      permalink: `/incidents/${encodeURIComponent(incidentId)}`,
      env: { incident, ...extra },
      silenceKeys: {},
    };
  },
  stillMatches(resource, eventName) {
    if (eventName.startsWith('incident.status.')) return eventName === `incident.status.${resource.status}`;
    if (eventName === 'incident.dod.passed' || eventName === 'incident.dod.regressed') {
      const done = (resource.env.evidence as Row | undefined)?.done === true;
      return eventName === 'incident.dod.passed' ? done : !done;
    }
    return true;
  },
};
