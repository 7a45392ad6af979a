import type { EventResource, EventSource } from '../types.js';

export const CONFIG_EVENTS = [
  'config.created', 'config.updated', 'config.deleted',
  'config.healthy', 'config.unhealthy', 'config.warning', 'config.unknown',
] as const;

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const strings = (v: unknown): Record<string, string> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]))
    : {};

/**
 * config.created / updated / deleted / <health>, written by 0081 as config items are inserted, change their config
 * or health, or are soft deleted; the resource is the config item (a deleted one is loaded for config.deleted only).
 */
export const configSource: EventSource = {
  kind: 'config',
  events: CONFIG_EVENTS,
  variables: ['config'],
  async load(db, event): Promise<EventResource | null> {
    if (!event.event_id) return null;
    const { rows } = await db.query<{ config: Record<string, unknown> }>(
      `SELECT to_jsonb(c) - 'tags_values' AS config FROM config_items c WHERE c.id = $1`, [event.event_id]);
    const config = rows[0]?.config;
    if (!config || (config.deleted_at && event.name !== 'config.deleted')) return null;
    const path = str(config.path);
    const tags = strings(config.tags);
    return {
      kind: 'config',
      id: event.event_id,
      name: str(config.name) ?? event.event_id,
      type: str(config.type),
      health: str(config.health),
      status: str(config.status),
      description: str(config.description),
      labels: strings(config.labels),
      tags,
      permalink: `/catalog/${encodeURIComponent(event.event_id)}`,
      silenceLink: `/notifications/silences/add?config_id=${encodeURIComponent(event.event_id)}`,
      env: { config },
      silenceKeys: { config_id: event.event_id, parents: path ? path.split('.').filter(Boolean) : [] },
    };
  },
  stillMatches(resource, eventName) {
    const deleted = Boolean((resource.env.config as Record<string, unknown> | undefined)?.deleted_at);
    if (eventName === 'config.deleted') return deleted;
    if (deleted) return false;
    if (eventName === 'config.created' || eventName === 'config.updated') return true;
    return eventName === `config.${resource.health}`;
  },
};
