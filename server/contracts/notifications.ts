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

/** A rule as /api/db writes it (notifications); validateRule checks the rest (events known, CEL, templates, recipients). */
export const NotificationRuleBody = z.object({
  name: z.string(),
  namespace: z.string().nullish(),
  events: z.array(z.string()),
  title: z.string().nullish(),
  template: z.string().nullish(),
  filter: z.string().nullish(),
  properties: z.record(z.string(), z.string()).nullish(),
  repeat_interval: z.string().nullish(),
  /** nanoseconds (a duration text such as "5m" is converted) */
  wait_for: z.union([z.number(), z.string()]).nullish(),
  person_id: z.string().nullish(),
  team_id: z.string().nullish(),
  custom_services: z.array(NotificationServiceEntry).nullish(),
}).passthrough();
export type NotificationRuleBody = z.infer<typeof NotificationRuleBody>;

/**
 * POST /api/notification/test (issue 15 "Beyond the reference"): a rule as the form holds it (unsaved edits over the
 * saved rule `id`, masked URLs kept), one of its events and the resource to render it for; sent now to each recipient.
 */
export const TestSendRequest = z.object({
  id: z.string().optional(),
  rule: z.record(z.string(), z.unknown()).default({}),
  event: z.string().min(1, 'event: choose one of the rule\'s events'),
  resource_id: z.string().min(1, 'resource_id: choose a resource'),
}).strict();
export type TestSendRequest = z.infer<typeof TestSendRequest>;

/** One recipient's outcome of a test send; `recipient` is what the history shows (URLs masked). */
export interface TestSendResult {
  recipient: Record<string, unknown>;
  status: 'sent' | 'error';
  error: string | null;
  duration_millis: number | null;
}

export interface TestSendResponse {
  event: string;
  resource: { kind: string; id: string; name: string; health: string | null };
  /** The rule's filter on this resource: true/false, null without a filter; the send goes either way. */
  filter: boolean | null;
  filter_error?: string;
  title: string;
  results: TestSendResult[];
}

/** POST /api/notification/silence (api.md): one target id, or a filter, or selectors; from/until RFC 3339 or date math. */
export const SilenceSaveRequest = z.object({
  name: z.string().optional(),
  namespace: z.string().optional(),
  description: z.string().nullish(),
  from: z.string().nullish(),
  /** null or "indefinitely": no end */
  until: z.string().nullish(),
  recursive: z.boolean().nullish(),
  filter: z.string().nullish(),
  selectors: z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]).nullish(),
  check_id: z.string().nullish(),
  canary_id: z.string().nullish(),
  config_id: z.string().nullish(),
  component_id: z.string().nullish(),
});
export type SilenceSaveRequest = z.infer<typeof SilenceSaveRequest>;

/** GET /api/notification/silence_preview: the draft silence (id of any kind, filter, selectors as JSON, recursive). */
export const SilencePreviewQuery = z.object({
  id: z.string().optional(),
  type: z.string().optional(),
  recursive: z.string().optional(),
  filter: z.string().optional(),
  selectors: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});
export type SilencePreviewQuery = z.infer<typeof SilencePreviewQuery>;

/** The largest page of POST /api/notification/summary. */
export const SUMMARY_MAX_PAGE_SIZE = 50;
export const SUMMARY_GROUP_BY = ['resource', 'resource_id', 'resource_type', 'status', 'source_event'] as const;

/** POST /api/notification/summary (the reference's NotificationSendHistorySummaryRequest). */
export const SendHistorySummaryRequest = z.object({
  groupBy: z.array(z.enum(SUMMARY_GROUP_BY)).optional(),
  /** "sent,error", "!silenced" (the reference's match expression) */
  status: z.string().optional(),
  resourceType: z.string().optional(),
  resourceKind: z.string().optional(),
  /** "key=value,key2=value2" */
  tags: z.string().optional(),
  search: z.string().optional(),
  /** RFC 3339 or date math (now-7d) */
  from: z.string().optional(),
  to: z.string().optional(),
  includeDeletedResources: z.boolean().optional(),
  pageIndex: z.number().int().min(0).optional(),
  pageSize: z.number().int().min(1).max(SUMMARY_MAX_PAGE_SIZE, { error: `pageSize: at most ${SUMMARY_MAX_PAGE_SIZE}` }).optional(),
});
export type SendHistorySummaryRequest = z.infer<typeof SendHistorySummaryRequest>;

/** One group of the summary (grouped by resource by default). */
export interface SendHistorySummaryRow {
  resource: Record<string, unknown> | null;
  resource_id?: string;
  resource_kind?: string | null;
  resource_type: string | null;
  resource_tags: Record<string, string> | null;
  resource_health: string | null;
  resource_status: string | null;
  resource_health_description: string | null;
  status?: string;
  source_event?: string;
  first_observed: string;
  last_seen: string;
  total: number;
  last_message: string | null;
  sent: number;
  error: number;
  suppressed: number;
}

export interface SendHistorySummaryResponse {
  total: number;
  results: SendHistorySummaryRow[];
}
