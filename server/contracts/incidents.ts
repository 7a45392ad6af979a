import { z } from 'zod';

/**
 * Incidents (spec 000 §3, §4): the vocabulary the database enforces (0030_incidents.sql) and the shapes of the writes
 * and RPC results of /api/db. Rows are read and written through /api/db (incidents, hypotheses, evidences, comments,
 * responders, incident_histories, incident_summary, incidents_by_component|config|check); the rules below are checked
 * by triggers, so a refused write answers 400 with the reason in `message` (and the allowed values in `details`).
 */

export const IncidentStatus = z.enum(['new', 'open', 'investigating', 'mitigated', 'resolved', 'closed']);
export type IncidentStatus = z.infer<typeof IncidentStatus>;

/** Allowed status targets, each including itself (spec 000 §4); the server refuses any other change. */
export const STATUS_TRANSITIONS: Readonly<Record<IncidentStatus, readonly IncidentStatus[]>> = {
  new: IncidentStatus.options,
  open: ['open', 'investigating', 'mitigated', 'resolved', 'closed'],
  investigating: ['investigating', 'mitigated', 'resolved', 'closed'],
  mitigated: ['mitigated', 'resolved', 'closed', 'open'],
  resolved: ['resolved', 'closed', 'open'],
  closed: ['closed', 'open'],
};

/** Stored lowercase; the server also accepts any case and the numeric codes 0 (low) … 4 (critical). */
export const IncidentSeverity = z.enum(['low', 'medium', 'high', 'blocker', 'critical']);
export type IncidentSeverity = z.infer<typeof IncidentSeverity>;

export const IncidentType = z.enum([
  'cost', 'availability', 'performance', 'security', 'integration', 'compliance', 'technicalDebt', 'reliability',
]);
export type IncidentType = z.infer<typeof IncidentType>;

/** Column defaults of a new incident (spec 000 §4). */
export const INCIDENT_DEFAULTS = { status: 'open', type: 'availability', severity: 'low' } as const;

export const HypothesisType = z.enum(['root', 'factor', 'solution']);
export type HypothesisType = z.infer<typeof HypothesisType>;
export const HypothesisStatus = z.enum(['proven', 'likely', 'possible', 'unlikely', 'improbable', 'disproven']);
export type HypothesisStatus = z.infer<typeof HypothesisStatus>;

/** The parent type each hypothesis type needs (root has none): root → factor → solution. */
export const HYPOTHESIS_PARENT: Readonly<Record<HypothesisType, HypothesisType | null>> = {
  root: null, factor: 'root', solution: 'factor',
};

export const EvidenceType = z.enum(['log', 'config', 'topology', 'check', 'config_analysis', 'config_change', 'comment']);
export type EvidenceType = z.infer<typeof EvidenceType>;

export const ResponderType = z.enum([
  'email', 'jira', 'service_now', 'ca', 'aws_support', 'aws_ams_services_request', 'redhat', 'oracle', 'ms_planner',
  'vmware', 'person',
]);
export type ResponderType = z.infer<typeof ResponderType>;

/** Required `properties` fields by responder type (spec 000 §3); the server refuses a responder missing one. */
export const RESPONDER_FIELDS: Readonly<Record<ResponderType, readonly string[]>> = {
  email: ['to', 'subject', 'body'],
  jira: ['project', 'issueType', 'summary', 'description', 'priority'],
  service_now: ['category', 'description', 'body'],
  ca: ['category', 'description', 'body'],
  aws_support: ['category', 'description', 'body'],
  aws_ams_services_request: ['category', 'description', 'body'],
  redhat: ['product', 'category', 'description', 'body'],
  oracle: ['product', 'category', 'description', 'body'],
  vmware: ['product', 'category', 'description', 'body'],
  ms_planner: ['plan_id', 'bucket_id', 'priority', 'title', 'description'],
  person: [],
};

/**
 * What happened to a team responder's notification (responders.delivery_status, ours): `pending` until the server
 * picks it up, `sent` (email delivered to the SMTP server; `external_id` holds the Message-ID), `failed`
 * (`delivery_error` says why), `recorded` (a type with no client here: the request stays in `properties`); `none`
 * for person responders.
 */
export const DeliveryStatus = z.enum(['none', 'pending', 'sending', 'sent', 'failed', 'recorded']);
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

/**
 * POST /api/db/responders body. `type` is `person` (with person_id) or `system` (a team, with team_id and a
 * `properties.responderType` configured in the team's `spec.responder_clients`). created_by is the caller.
 */
export const NewResponder = z.object({
  incident_id: z.guid(),
  type: z.enum(['person', 'system']),
  team_id: z.guid().optional(),
  person_id: z.guid().optional(),
  external_id: z.string().optional(),
  properties: z.record(z.string(), z.unknown()).and(z.object({ responderType: ResponderType.optional() })).optional(),
});
export type NewResponder = z.infer<typeof NewResponder>;

/** Timeline event names (spec 000 §4), each written by a trigger. */
export const TimelineEvent = z.enum([
  'incident.created', // an incident row is inserted
  'responder.created', // a responder is added
  'evidence.created', // an evidence is added
  'incident.status_updated', // the status changed
  'evidence.done_definition_added', // an evidence joined the definition of done
  'incident_status.updated', // another state field changed: severity, type, title, commander or communicator
  'responder.commented', // a comment was posted
  'hypothesis.created', // a hypothesis is added
  'hypothesis.status_updated', // a hypothesis' status changed
]);
export type TimelineEvent = z.infer<typeof TimelineEvent>;

/** POST /api/db/rpc/create_incident: the creation sequence in one transaction. */
export const CreateIncidentArgs = z.object({
  title: z.string().min(1),
  description: z.string().optional(),
  severity: IncidentSeverity.optional(),
  type: IncidentType.optional(),
  status: IncidentStatus.optional(),
  commander_id: z.guid().optional(),
  communicator_id: z.guid().optional(),
  /** The root hypothesis' title; the incident's title when absent. */
  hypothesis_title: z.string().optional(),
  /** One evidence under the root hypothesis: evidences columns (type required). */
  evidence: z.record(z.string(), z.unknown()).optional(),
});
export type CreateIncidentArgs = z.infer<typeof CreateIncidentArgs>;

/** POST /api/db/rpc/link_to_incident: evidence under an existing hypothesis, or under a new root hypothesis. */
export const LinkToIncidentArgs = z.object({
  incident_id: z.guid(),
  evidence: z.record(z.string(), z.unknown()),
  hypothesis_id: z.guid().optional(),
  hypothesis_title: z.string().optional(),
});
export type LinkToIncidentArgs = z.infer<typeof LinkToIncidentArgs>;

const Row = z.looseObject({ id: z.string() });
/** Result of create_incident (`evidence` null without one) and of link_to_incident (no `incident`). */
export const CreateIncidentResult = z.object({ incident: Row, hypothesis: Row, evidence: Row.nullable() });
export const LinkToIncidentResult = z.object({ hypothesis: Row, evidence: Row });

/** POST /api/incidents/responders/:id/resend (202): the team responder is queued for delivery again. */
export const ResendResponderResult = z.object({ id: z.string(), delivery_status: z.literal('pending') });
export type ResendResponderResult = z.infer<typeof ResendResponderResult>;
