import { z } from 'zod';

/**
 * Notifications (issue 15): event names, statuses and the shapes of the rule, silence and /api/notification calls.
 * Part E fills in the rule and silence bodies; the names below are shared by every part.
 */

/** Every event a rule may name: spec 001 §9 plus the reference's list (crds.md, mission-control api/event.go). */
export const NOTIFICATION_EVENTS = [
  'check.passed', 'check.failed',
  'config.created', 'config.updated', 'config.changed', 'config.deleted',
  'config.healthy', 'config.unhealthy', 'config.degraded', 'config.warning', 'config.unknown',
  'component.healthy', 'component.unhealthy', 'component.warning', 'component.unknown',
  'playbook.run', 'playbook.spec.approval.updated', 'playbook.approval.inserted',
  'incident.created',
  'incident.status.open', 'incident.status.investigating', 'incident.status.mitigated', 'incident.status.resolved',
  'incident.status.closed', 'incident.status.cancelled',
  'incident.responder.added', 'incident.responder.removed', 'incident.comment.added',
  'incident.dod.added', 'incident.dod.passed', 'incident.dod.regressed',
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** The queue's own event: one per recipient of a matched rule. */
export const NOTIFICATION_SEND_EVENT = 'notification.send';

/** Send history statuses (duty models/notifications.go); the screens show repeat-interval as Repeated. */
export const SEND_HISTORY_STATUSES = [
  'sent', 'error', 'pending', 'cancelled', 'repeat-interval', 'silenced',
  'skipped', 'inhibited', 'evaluating-waitfor', 'sending',
] as const;
export type SendHistoryStatus = (typeof SEND_HISTORY_STATUSES)[number];

/** Silence resource types (spec 001 §9). */
export const SILENCE_RESOURCE_TYPES = ['canary', 'check', 'component', 'config'] as const;

/** Repeat interval options (spec 001 §9: "1m" is a minute, as the reference parses it). */
export const REPEAT_INTERVAL_OPTIONS = ['1h', '2h', '3h', '6h', '1d', '1w', '1m'] as const;

/** Wait-for and silence duration choices (spec 001 §9). */
export const DURATION_OPTIONS = ['3m', '5m', '10m', '15m', '30m', '1h', '4h', '8h', '1d', '3d', '7d'] as const;

/** An entry of custom_services / a team's spec.notifications: a connection or a URL, properties, an optional filter. */
export const NotificationServiceEntry = z.object({
  name: z.string().optional(),
  connection: z.string().optional(),
  url: z.string().optional(),
  properties: z.record(z.string(), z.string()).optional(),
  filter: z.string().optional(),
});
export type NotificationServiceEntry = z.infer<typeof NotificationServiceEntry>;
