import type { FastifyPluginAsync } from 'fastify';
import { NOTIFICATION_EVENTS } from '../../contracts/notifications.js';
import { latestEventsPerName, type QueueRow } from './queries.js';
import { knownEvents, sourceOfEvent } from './sources/index.js';

const READ = { access: { resource: 'notifications', action: 'read' } } as const;

/** Rows of each event name GET /api/notification/events returns. */
export const EVENTS_PER_NAME = 20;

/** One event name of GET /api/notification/events. */
export interface EventNameEntry {
  name: string;
  /** The kind of resource its source loads (check, incident…); null when no source writes it yet. */
  kind: string | null;
  /** The newest queued rows of the name (pending, retrying, or failed for good), at most 20, newest first. */
  events: QueueRow[];
}

/**
 * GET /api/notification/events (notifications read): every event name a rule may name or a source writes (the
 * reference lists the names), each with its latest event_queue rows. Consumed rows are deleted, so what is listed is
 * what is still pending or failed; the send history keeps what was sent.
 */
export const eventRoutes: FastifyPluginAsync = async (app) => {
  app.get('/api/notification/events', { config: READ }, async (): Promise<EventNameEntry[]> => {
    const rows = await latestEventsPerName(app.db, EVENTS_PER_NAME);
    const names = [...new Set<string>([...NOTIFICATION_EVENTS, ...knownEvents(), ...rows.map((r) => r.name)])];
    return names.map((name) => ({ name, kind: sourceOfEvent(name)?.kind ?? null, events: rows.filter((r) => r.name === name) }));
  });
};
