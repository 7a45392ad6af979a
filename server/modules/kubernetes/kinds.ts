import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CHECK_TYPES } from '../../lib/checks/index.js';
import { acceptsSingleCheck, CanaryFields, CommonCheck, SpecError, validateCanarySpec } from '../health/spec.js';
import { IncidentRuleSpec } from './specs/incident-rule.js';
import { LoggingBackendSpec } from './specs/logging-backend.js';
import { ScrapeConfigSpec } from '../catalog/spec.js';
import { TopologySpec } from '../topology/spec.js';
import { CheckedPlaybookSpec } from '../playbooks/spec.js';
import { EnvVar, ResourceSelector } from '../../contracts/playbooks.js';

/**
 * The custom resources the console watches, one descriptor each: API coordinates, the database table the CRs
 * reconcile into, and the zod schema of `spec`. `crds/<plural>.<group>.yaml` is generated from these descriptors
 * (`npx tsx scripts/gen-crds.ts`), and `tests/kube/kinds.test.ts` fails when the two drift apart.
 *
 * `spec` validates a CR's spec; reconcilers should store the spec as written, since the parse output may carry
 * defaults and normalised values (e.g. a lower-cased severity).
 */
export interface KindDef {
  kind: string;
  group: string;
  version: string;
  plural: string;
  singular: string;
  shortNames: readonly string[];
  /** The table the CRs of this kind reconcile into (rows with source = 'KubernetesCRD'). */
  table: 'canaries' | 'topologies' | 'config_scrapers' | 'playbooks' | 'connections' | 'notifications' | 'notification_silences'
    | 'incident_rules' | 'logging_backends';
  spec: z.ZodType;
  /**
   * Checks of a valid spec that need the database (a Notification's person or team), run by the reconciler after
   * `spec`: the problems as `spec.<path>: message; …`, or null. A CR that fails keeps its last row, as a bad spec.
   */
  check?(db: Pick<import('pg').Pool, 'query'>, spec: Record<string, unknown>, meta: { namespace: string; name: string }): Promise<string | null>;
}

// ---- shared shapes (reference: duty types) ----

// EnvVar and ResourceSelector: the contract's (server/contracts/playbooks.ts), one schema for every kind
export { EnvVar, ResourceSelector };

const StringMap = z.record(z.string(), z.string());

// ---- Canary: the health module's spec, one typed array per check type the runner knows ----

function checkEntry(schema: z.ZodType): z.ZodType {
  // a check entry must satisfy both the common fields and its type's fields; validateCanarySpec checks both
  return schema instanceof z.ZodObject ? CommonCheck.extend(schema.shape).loose() : CommonCheck.and(schema);
}

const canaryShape = {
  ...CanaryFields.shape,
  // webhook is one object in the reference (a list is accepted too): an untyped node in the CRD
  ...Object.fromEntries(Object.entries(CHECK_TYPES).map(([key, t]) => {
    const entry = checkEntry(t.schema);
    return [key, (acceptsSingleCheck(key) ? z.union([z.array(entry), entry]) : z.array(entry)).optional()];
  })),
};

/**
 * The Canary spec. The typed shape documents and generates the CRD schema; the refinement runs the health
 * module's own validation (schedules, CEL, unsupported check types, duplicate names), so a CR is judged exactly
 * as a canary saved in the console is. Unknown keys are kept: the reference's other check types apply to the
 * cluster and are reported as unsupported on the CR's status.
 */
export const CanarySpec = z.object(canaryShape).loose().superRefine((spec, ctx) => {
  try {
    validateCanarySpec(spec);
  } catch (err) {
    if (!(err instanceof SpecError)) throw err;
    for (const p of err.problems) {
      const path = p.path.split('.').slice(1).map((s) => (/^\d+$/.test(s) ? Number(s) : s));
      ctx.addIssue({ code: 'custom', path, message: p.message });
    }
  }
});

// ---- the other kinds: known fields typed, the rest kept ----

// Topology: the topology module's own spec and checks (server/modules/topology/spec.ts)
export { TopologySpec };

// ScrapeConfig: the catalog's own contract and checks (server/contracts/catalog.ts, server/modules/catalog/spec.ts)
export { ScrapeConfigSpec };

// Playbook: the playbooks module's contract and checks (server/contracts/playbooks.ts, server/modules/playbooks/spec.ts)
export const PlaybookSpec = CheckedPlaybookSpec;

export const ConnectionSpec = z.object({
  type: z.string().optional(),
  url: EnvVar.optional(),
  username: EnvVar.optional(),
  password: EnvVar.optional(),
  certificate: EnvVar.optional(),
  insecure_tls: z.boolean().optional(),
  port: EnvVar.optional(),
  properties: StringMap.optional(),
}).loose();

const Recipient = {
  person: z.string().optional(),
  team: z.string().optional(),
  email: z.string().optional(),
  connection: z.string().optional(),
  url: z.string().optional(),
  playbook: z.string().optional(),
  webhook: z.string().optional(),
  properties: StringMap.optional(),
};

export const NotificationSpec = z.object({
  events: z.array(z.string().min(1)).min(1, 'a notification needs at least one event'),
  to: z.object(Recipient).loose(),
  title: z.string().optional(),
  template: z.string().optional(),
  filter: z.string().optional(),
  repeatInterval: z.string().optional(),
  waitFor: z.string().optional(),
  waitForEvalPeriod: z.string().optional(),
  groupBy: z.array(z.string()).optional(),
  groupByInterval: z.string().optional(),
  inhibitions: z.array(z.object({
    direction: z.string().optional(),
    soft: z.boolean().optional(),
    depth: z.number().int().optional(),
    from: z.string().optional(),
    to: z.array(z.string()).optional(),
  }).loose()).optional(),
  fallback: z.object({ ...Recipient, delay: z.string().optional() }).loose().optional(),
}).loose();

export const NotificationSilenceSpec = z.object({
  description: z.string().optional(),
  filter: z.string().optional(),
  from: z.string().optional(),
  until: z.string().optional(),
  recursive: z.boolean().optional(),
  selectors: z.array(ResourceSelector).optional(),
  // the reference's inline NotificationSilenceResource: one resource by id
  check_id: z.string().optional(),
  canary_id: z.string().optional(),
  component_id: z.string().optional(),
  config_id: z.string().optional(),
}).loose();

// the database checks of the notification kinds (server/modules/notifications/cr/check.ts), loaded when first used
const notificationCheck: KindDef['check'] = async (db, spec, meta) =>
  (await import('../notifications/cr/check.js')).notificationCrProblems(db, spec, meta);
const silenceCheck: KindDef['check'] = async (db, spec, meta) =>
  (await import('../notifications/cr/check.js')).silenceCrProblems(db, spec, meta);

// ---- the registry ----

const CANARIES = 'canaries.flanksource.com';
const CONFIGS = 'configs.flanksource.com';
const MISSION_CONTROL = 'mission-control.flanksource.com';
const APM_HUB = 'apm-hub.flanksource.com';

export const KINDS: readonly KindDef[] = [
  { kind: 'Canary', group: CANARIES, version: 'v1', plural: 'canaries', singular: 'canary', shortNames: [], table: 'canaries', spec: CanarySpec },
  { kind: 'Topology', group: CANARIES, version: 'v1', plural: 'topologies', singular: 'topology', shortNames: [], table: 'topologies', spec: TopologySpec },
  { kind: 'ScrapeConfig', group: CONFIGS, version: 'v1', plural: 'scrapeconfigs', singular: 'scrapeconfig', shortNames: [], table: 'config_scrapers', spec: ScrapeConfigSpec },
  { kind: 'Playbook', group: MISSION_CONTROL, version: 'v1', plural: 'playbooks', singular: 'playbook', shortNames: [], table: 'playbooks', spec: PlaybookSpec },
  { kind: 'Connection', group: MISSION_CONTROL, version: 'v1', plural: 'connections', singular: 'connection', shortNames: [], table: 'connections', spec: ConnectionSpec },
  { kind: 'Notification', group: MISSION_CONTROL, version: 'v1', plural: 'notifications', singular: 'notification', shortNames: [], table: 'notifications', spec: NotificationSpec, check: notificationCheck },
  { kind: 'NotificationSilence', group: MISSION_CONTROL, version: 'v1', plural: 'notificationsilences', singular: 'notificationsilence', shortNames: [], table: 'notification_silences', spec: NotificationSilenceSpec, check: silenceCheck },
  { kind: 'IncidentRule', group: MISSION_CONTROL, version: 'v1', plural: 'incidentrules', singular: 'incidentrule', shortNames: [], table: 'incident_rules', spec: IncidentRuleSpec },
  { kind: 'LoggingBackend', group: APM_HUB, version: 'v1', plural: 'loggingbackends', singular: 'loggingbackend', shortNames: [], table: 'logging_backends', spec: LoggingBackendSpec },
];

/** The kind served at `plural` (optionally in `group`, since plurals are unique only per group). */
export function kindByPlural(plural: string, group?: string): KindDef | undefined {
  return KINDS.find((k) => k.plural === plural && (group === undefined || k.group === group));
}

/** The kind called `kind` (optionally in `group`). */
export function kindByKind(kind: string, group?: string): KindDef | undefined {
  return KINDS.find((k) => k.kind === kind && (group === undefined || k.group === group));
}

/** `<group>/<version>`, as in a manifest's apiVersion. */
export function apiVersionOf(k: KindDef): string {
  return `${k.group}/${k.version}`;
}

/** The CRD's name, `<plural>.<group>`. */
export function crdName(k: KindDef): string {
  return `${k.plural}.${k.group}`;
}

/** Absolute path of the kind's CRD file in `crds/` (`<plural>.<group>.yaml`); accepts a KindDef or a kind name. */
export function crdFile(kind: KindDef | string): string {
  const k = typeof kind === 'string' ? kindByKind(kind) : kind;
  if (!k) throw new Error(`unknown kind ${String(kind)}`);
  return fileURLToPath(new URL(`../../../crds/${crdName(k)}.yaml`, import.meta.url));
}
