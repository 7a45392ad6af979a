import {
  EvidenceType, HypothesisStatus, HypothesisType as HypothesisTypes, IncidentSeverity, IncidentStatus, IncidentType, INCIDENT_DEFAULTS as DEFAULTS,
  ResponderType as ResponderTypes, STATUS_TRANSITIONS, TimelineEvent,
} from '@contracts/incidents';

/**
 * The incident model's fixed vocabulary (spec 000 §4), from the shared contract the database also enforces:
 * statuses and their transitions, severities, types, hypothesis statuses and hierarchy, responder types and their
 * form fields, and the changelog's event names. Pure data and helpers.
 */

export { STATUS_TRANSITIONS };
export const INCIDENT_STATUSES = IncidentStatus.options;

export function allowedTargets(from: string): readonly string[] {
  return STATUS_TRANSITIONS[from as keyof typeof STATUS_TRANSITIONS] ?? INCIDENT_STATUSES;
}

/** Moving to these first asks for contributing factors to add to the definition of done. */
export function asksForDefinitionOfDone(to: string): boolean {
  return to === 'mitigated' || to === 'resolved';
}

/** The incident enum, lowest first; numeric codes 0 (low) to 4 (critical). */
export const INCIDENT_SEVERITIES = IncidentSeverity.options;
export const INCIDENT_TYPES = IncidentType.options;
export const INCIDENT_DEFAULTS = DEFAULTS;
export const HYPOTHESIS_STATUSES = HypothesisStatus.options;
export const HYPOTHESIS_TYPES = HypothesisTypes.options;
export type HypothesisType = (typeof HYPOTHESIS_TYPES)[number];

/** The kind of node a hypothesis of this type may hold: root → factor → solution; solutions are leaves. */
export function childType(type: string): HypothesisType | null {
  if (type === 'root') return 'factor';
  if (type === 'factor') return 'solution';
  return null;
}

export const EVIDENCE_TYPES = EvidenceType.options;

/** Words as a person reads them: "technicalDebt" → "Technical Debt", "config_change" → "Config Change". */
export function humanize(value: string): string {
  return value
    .replace(/_/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/\b\w/g, (c) => c.toUpperCase());
}

// ---- Responders ----

export const RESPONDER_TYPES = ResponderTypes.options;
export type ResponderType = (typeof RESPONDER_TYPES)[number];

export const RESPONDER_TYPE_LABELS: Record<ResponderType, string> = {
  email: 'Email',
  jira: 'Jira',
  service_now: 'ServiceNow',
  ca: 'CA',
  aws_support: 'AWS Support',
  aws_ams_services_request: 'AWS AMS Service Request',
  redhat: 'Red Hat',
  oracle: 'Oracle',
  ms_planner: 'Microsoft Planner',
  vmware: 'VMware',
  person: 'Person',
};

export interface ResponderFieldDef {
  name: string;
  label: string;
  multiline?: boolean;
}

const f = (name: string, label: string, multiline = false): ResponderFieldDef => ({ name, label, multiline });
const TICKET = [f('category', 'Category'), f('description', 'Description'), f('body', 'Body', true)];
const VENDOR = [f('product', 'Product'), ...TICKET];

/** The details form of each responder type (spec 000 §3); every type also records an external id. */
export const RESPONDER_FIELDS: Record<Exclude<ResponderType, 'person'>, ResponderFieldDef[]> = {
  email: [f('to', 'To'), f('subject', 'Subject'), f('body', 'Body', true)],
  jira: [f('project', 'Project'), f('issueType', 'Issue Type'), f('summary', 'Summary'), f('description', 'Description', true), f('priority', 'Priority')],
  service_now: TICKET,
  ca: TICKET,
  aws_support: TICKET,
  aws_ams_services_request: TICKET,
  redhat: VENDOR,
  oracle: VENDOR,
  vmware: VENDOR,
  ms_planner: [f('plan_id', 'Plan'), f('bucket_id', 'Bucket'), f('priority', 'Priority'), f('title', 'Title'), f('description', 'Description', true)],
};

export const EXTERNAL_ID_FIELD = f('external_id', 'External ID');

/** The responder types a team offers: the keys of its `spec.responder_clients` that the console knows. */
export function teamResponderTypes(spec: unknown): Exclude<ResponderType, 'person'>[] {
  const clients = (spec as { responder_clients?: unknown } | null)?.responder_clients;
  if (!clients || typeof clients !== 'object') return [];
  return Object.keys(clients).filter((k): k is Exclude<ResponderType, 'person'> => k in RESPONDER_FIELDS);
}

/** A team's configured defaults for one responder type (`responder_clients[type].defaults` or `.values`). */
export function teamResponderDefaults(spec: unknown, type: string): Record<string, string> {
  const client = (spec as { responder_clients?: Record<string, unknown> } | null)?.responder_clients?.[type];
  const out: Record<string, string> = {};
  if (!client || typeof client !== 'object') return out;
  for (const key of ['values', 'defaults'] as const) {
    const v = (client as Record<string, unknown>)[key];
    if (v && typeof v === 'object') {
      for (const [k, val] of Object.entries(v)) if (typeof val === 'string' || typeof val === 'number') out[k] = String(val);
    }
  }
  return out;
}

// ---- Changelog ----

export const TIMELINE_EVENTS = TimelineEvent.options;
