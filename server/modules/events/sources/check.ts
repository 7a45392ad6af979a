import { eventScoped } from '../scope.js';
import type { EventResource, EventSource, Q } from '../types.js';

/**
 * A check and its canary as CEL filters and templates see them (the check's labels over its canary's). Read once per
 * event's handling (the notification rules and the playbook triggers both read it for a check event).
 */
export async function checkWithCanary(q: Q, checkId: string): Promise<{ check: Record<string, unknown>; canary: Record<string, unknown> } | null> {
  return eventScoped(`check:${checkId}`, () => loadCheckWithCanary(q, checkId));
}

async function loadCheckWithCanary(q: Q, checkId: string): Promise<{ check: Record<string, unknown>; canary: Record<string, unknown> } | null> {
  const { rows } = await q.query<{ check: Record<string, unknown>; canary: Record<string, unknown> }>({
    // prepared once per connection: every check event reads it
    name: 'check_with_canary',
    text: `SELECT to_jsonb(k) - 'spec' || jsonb_build_object('labels', coalesce(n.labels, '{}'::jsonb) || coalesce(k.labels, '{}'::jsonb),
              'last_runtime', u.last_runtime, 'last_error', u.last_error, 'last_message', u.last_message) AS check,
            to_jsonb(n) - 'spec' AS canary
       FROM checks k JOIN canaries n ON n.id = k.canary_id
       LEFT JOIN checks_unlogged u ON u.check_id = k.id
      WHERE k.id = $1`,
    values: [checkId],
  });
  return rows[0] ?? null;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const strings = (v: unknown): Record<string, string> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]))
    : {};

/** check.failed / check.passed, written by 0073's trigger when checks.status flips; the resource is the check. */
export const checkSource: EventSource = {
  kind: 'check',
  events: ['check.failed', 'check.passed'],
  variables: ['check', 'canary'],
  async load(db, event): Promise<EventResource | null> {
    if (!event.event_id) return null;
    const found = await checkWithCanary(db, event.event_id);
    if (!found || found.check.deleted_at) return null;
    const { check, canary } = found;
    const status = str(check.status);
    return {
      kind: 'check',
      id: event.event_id,
      name: str(check.name) ?? event.event_id,
      type: str(check.type),
      health: status === 'healthy' ? 'healthy' : status === 'unhealthy' ? 'unhealthy' : status ? 'unknown' : null,
      status,
      description: str(check.description) ?? str(check.last_error) ?? str(check.last_message),
      labels: strings(check.labels),
      permalink: `/health?checkId=${encodeURIComponent(event.event_id)}`,
      silenceLink: `/notifications/silences/add?check_id=${encodeURIComponent(event.event_id)}`,
      env: { check, canary },
      silenceKeys: { check_id: event.event_id, canary_id: str(canary.id) ?? undefined },
    };
  },
  stillMatches: (resource, eventName) =>
    eventName === 'check.failed' ? resource.health === 'unhealthy' : eventName === 'check.passed' ? resource.health === 'healthy' : true,
};
