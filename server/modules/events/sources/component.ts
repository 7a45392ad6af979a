import type { EventResource, EventSource } from '../types.js';

export const COMPONENT_HEALTHS = ['healthy', 'unhealthy', 'warning', 'unknown'] as const;

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const strings = (v: unknown): Record<string, string> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]))
    : {};

/** component.<health>, written by 0081 when a live component's health changes; the resource is the component. */
export const componentSource: EventSource = {
  kind: 'component',
  events: COMPONENT_HEALTHS.map((h) => `component.${h}`),
  variables: ['component'],
  async load(db, event): Promise<EventResource | null> {
    if (!event.event_id) return null;
    const { rows } = await db.query<{ component: Record<string, unknown> }>(
      `SELECT to_jsonb(c) - 'properties_values' AS component FROM components c WHERE c.id = $1 AND c.deleted_at IS NULL`,
      [event.event_id]);
    const component = rows[0]?.component;
    if (!component) return null;
    const path = str(component.path);
    return {
      kind: 'component',
      id: event.event_id,
      name: str(component.name) ?? event.event_id,
      type: str(component.type),
      health: str(component.health),
      status: str(component.status),
      description: str(component.status_reason) ?? str(component.description),
      labels: strings(component.labels),
      permalink: `/topology/${encodeURIComponent(event.event_id)}`,
      silenceLink: `/notifications/silences/add?component_id=${encodeURIComponent(event.event_id)}`,
      env: { component },
      silenceKeys: { component_id: event.event_id, parents: path ? path.split('.').filter(Boolean) : [] },
    };
  },
  stillMatches: (resource, eventName) => eventName === `component.${resource.health}`,
};
