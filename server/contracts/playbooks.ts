import { z } from 'zod';
import { ExecAction } from './playbook-actions/exec.js';
import { HttpAction } from './playbook-actions/http.js';
import { LogsAction } from './playbook-actions/logs.js';
import { NotificationAction } from './playbook-actions/notification.js';
import { PodAction } from './playbook-actions/pod.js';
import { SqlAction } from './playbook-actions/sql.js';

// The Playbook spec (issue 14; reference: crds.md "Playbook", "Playbook actions"; mission-control api/v1
// playbook_types.go). One schema judges console saves and CRs, generates the CRD and the editor's JSON Schema.
// Structural checks live here; template and CEL checks run in server/modules/playbooks/spec.ts.

/** Parameter types a playbook may declare (the run dialog renders one field per type). */
export const PLAYBOOK_PARAMETER_TYPES = [
  'text', 'checkbox', 'list', 'people', 'team', 'check', 'config', 'component', 'code', 'secret', 'millicores', 'bytes',
  'duration',
] as const;
export type PlaybookParameterType = (typeof PLAYBOOK_PARAMETER_TYPES)[number];

/** A run's statuses: `pending_approval` is the reference UI's "pending". */
export const PLAYBOOK_RUN_STATUSES = [
  'pending_approval', 'scheduled', 'running', 'sleeping', 'waiting', 'retrying', 'completed', 'failed', 'cancelled',
  'timed_out',
] as const;
export type PlaybookRunStatus = (typeof PLAYBOOK_RUN_STATUSES)[number];

export const PLAYBOOK_ACTION_STATUSES = ['scheduled', 'running', 'waiting', 'sleeping', 'skipped', 'completed', 'failed'] as const;
export type PlaybookActionStatus = (typeof PLAYBOOK_ACTION_STATUSES)[number];

/** The action types this console runs, each with its block's schema (server/contracts/playbook-actions). */
export const PLAYBOOK_ACTION_TYPES = ['exec', 'http', 'sql', 'notification', 'pod', 'logs'] as const;
export type PlaybookActionType = (typeof PLAYBOOK_ACTION_TYPES)[number];
/** Action types of the reference this console refuses at save, by path. */
export const UNSUPPORTED_ACTION_TYPES = ['gitops', 'github', 'ai', 'prometheus', 'catalog', 'report', 'azureDevopsPipeline'] as const;

/** Go durations plus d and w ("30s", "1h30m", "2d"): timeouts, retry durations, a delay without CEL. */
export const DURATION_RE = /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h|d|w))+$/;
const Duration = z.string().regex(DURATION_RE, 'a duration such as 30s, 5m or 1h30m');
const DNS1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const Scalar = z.union([z.string(), z.number(), z.boolean()]);
const KeyRef = z.object({ name: z.string().optional(), key: z.string() }).loose();

/** duty's EnvVar: a literal `value` or `valueFrom` a secret, config map, helm release or service-account token. */
export const EnvVar = z.object({
  name: z.string().optional(),
  value: z.string().optional(),
  valueFrom: z.object({
    secretKeyRef: KeyRef.optional(),
    configMapKeyRef: KeyRef.optional(),
    helmRef: KeyRef.optional(),
    serviceAccount: z.string().optional(),
  }).loose().optional(),
}).loose();

/** A playbook's `env[]` entry: an EnvVar with its name. */
export const PlaybookEnvVar = EnvVar.extend({ name: z.string().min(1, 'name is required') });

/** duty's ResourceSelector, as NotificationSilence, Playbook and Topology use it (kinds.ts takes it from here). */
export const ResourceSelector = z.object({
  id: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  agent: z.string().optional(),
  scope: z.string().optional(),
  cache: z.string().optional(),
  search: z.string().optional(),
  types: z.array(z.string()).optional(),
  statuses: z.array(z.string()).optional(),
  health: z.string().optional(),
  labelSelector: z.string().optional(),
  fieldSelector: z.string().optional(),
  tagSelector: z.string().optional(),
  includeDeleted: z.boolean().optional(),
  limit: z.number().int().optional(),
}).loose();
export const PlaybookResourceSelector = ResourceSelector;

// ---- parameters ----

/** A `list` or `duration` parameter's option: `{label?, value}`, or a plain string `s` meaning `{label: s, value: s}`. */
export const PlaybookParameterOption = z.union([
  z.object({ label: z.string().optional(), value: z.string() }).loose(),
  z.string(),
]);

const NUMERIC_RE = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
const DURATION_UNIT_MS: Record<string, number> = {
  ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000,
};
/** A `min`/`max` bound: a number (text bounds) or a duration string such as `5m` or `7d` (duration bounds). */
const ParameterBound = z.union([z.number(), z.string()]);

/** A bound as a number, or as milliseconds when it is a duration; null when it is neither. */
function boundValue(v: number | string): { n: number; duration: boolean } | null {
  if (typeof v === 'number') return Number.isFinite(v) ? { n: v, duration: false } : null;
  if (NUMERIC_RE.test(v)) return { n: Number(v), duration: false };
  const t = v.trim();
  if (!DURATION_RE.test(t)) return null;
  let ms = 0;
  for (const part of t.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d|w)/g)) ms += Number(part[1]) * DURATION_UNIT_MS[part[2]];
  return { n: ms, duration: true };
}

/** A parameter's `properties`: what each type reads of them (text bounds and format, list options, code language). */
export const PlaybookParameterProperties = z.object({
  minLength: z.coerce.number().int().min(0).optional(),
  maxLength: z.coerce.number().int().min(0).optional(),
  min: ParameterBound.optional(),
  max: ParameterBound.optional(),
  regex: z.string().optional(),
  format: z.enum(['dns1123'], { message: 'format: dns1123 is the one format' }).optional(),
  multiline: z.union([z.boolean(), z.enum(['true', 'false'])]).optional(),
  options: z.array(PlaybookParameterOption).optional(),
  /** Free-form, as the reference's (Monaco's language id); only json and yaml/yml are checked at run time. */
  language: z.string().trim().min(1, 'language: a language such as yaml, json or shell').optional(),
  colSpan: Scalar.optional(),
}).loose();

export const PlaybookParameter = z.object({
  name: z.string().min(1, 'name is required'),
  label: z.string().optional(),
  /** A template rendered against the run's resource when the dialog asks for the parameters. */
  default: Scalar.optional(),
  required: z.boolean().optional(),
  icon: z.string().optional(),
  description: z.string().optional(),
  type: z.enum(PLAYBOOK_PARAMETER_TYPES, { message: `unknown parameter type; one of ${PLAYBOOK_PARAMETER_TYPES.join(', ')}` }).optional(),
  properties: PlaybookParameterProperties.optional(),
  dependsOn: z.array(z.string()).optional(),
}).loose().superRefine((p, ctx) => {
  const props = p.properties;
  if (!props) return;
  if (p.type === 'list' && props.options !== undefined && props.options.length === 0) {
    ctx.addIssue({ code: 'custom', path: ['properties', 'options'], message: 'a list needs at least one option' });
  }
  if (props.regex !== undefined) {
    try {
      new RegExp(props.regex);
    } catch {
      ctx.addIssue({ code: 'custom', path: ['properties', 'regex'], message: 'not a valid regular expression' });
    }
  }
  if (props.minLength !== undefined && props.maxLength !== undefined && props.minLength > props.maxLength) {
    ctx.addIssue({ code: 'custom', path: ['properties', 'maxLength'], message: 'maxLength is below minLength' });
  }
  // Text bounds compare numbers; a duration parameter's also take durations (compared as milliseconds).
  const numericOnly = p.type === undefined || p.type === 'text' || p.type === 'secret';
  const bounds: Partial<Record<'min' | 'max', number>> = {};
  for (const key of ['min', 'max'] as const) {
    const v = props[key];
    if (v === undefined) continue;
    const b = boundValue(v);
    if (!b) {
      ctx.addIssue({ code: 'custom', path: ['properties', key], message: `${key}: a number or a duration such as 30s, 5m or 1h30m` });
    } else if (b.duration && numericOnly) {
      ctx.addIssue({ code: 'custom', path: ['properties', key], message: `${key}: a number (a duration bounds a duration parameter only)` });
    } else if (!b.duration && b.n !== 0 && p.type === 'duration') {
      ctx.addIssue({ code: 'custom', path: ['properties', key], message: `${key}: a duration such as 30s, 5m or 1h30m` });
    } else bounds[key] = b.n;
  }
  if (bounds.min !== undefined && bounds.max !== undefined && bounds.min > bounds.max) {
    ctx.addIssue({ code: 'custom', path: ['properties', 'max'], message: 'max is below min' });
  }
});
export type PlaybookParameter = z.infer<typeof PlaybookParameter>;

// ---- actions ----

export const PlaybookRetry = z.object({
  limit: z.number().int().min(0).optional(),
  duration: Duration.optional(),
  exponent: z.object({ multiplier: z.number().min(0).optional() }).loose().optional(),
  jitter: z.number().min(0).max(100).optional(),
}).loose();

/** The fields every action has, whatever its type. */
export const PlaybookActionCommon = z.object({
  name: z.string().min(1, 'name is required'),
  /** CEL (`success()`, `failure()`, `always()`, `skip()`, `timeout()` and the env) or a template rendering "true". */
  if: z.string().optional(),
  /** CEL giving a duration, or a duration ("5m"). */
  delay: z.string().optional(),
  timeout: Duration.optional(),
  retry: PlaybookRetry.optional(),
  runsOn: z.array(z.string()).optional(),
  templatesOn: z.enum(['host', 'agent'], { message: 'templatesOn: host or agent' }).optional(),
  contentType: z.string().optional(),
});
export type PlaybookActionCommon = z.infer<typeof PlaybookActionCommon>;

const ACTION_BLOCKS = {
  exec: ExecAction, http: HttpAction, sql: SqlAction, notification: NotificationAction, pod: PodAction, logs: LogsAction,
} as const;

/** One action: the common fields and exactly one of exec, http, sql, notification, pod, logs. */
export const PlaybookAction = PlaybookActionCommon.extend({
  exec: ExecAction.optional(),
  http: HttpAction.optional(),
  sql: SqlAction.optional(),
  notification: NotificationAction.optional(),
  pod: PodAction.optional(),
  logs: LogsAction.optional(),
}).loose().superRefine((a, ctx) => {
  const row = a as Record<string, unknown>;
  for (const t of UNSUPPORTED_ACTION_TYPES) {
    if (row[t] !== undefined) ctx.addIssue({ code: 'custom', path: [t], message: `action type ${t} is not supported by this console` });
  }
  const given = PLAYBOOK_ACTION_TYPES.filter((t) => row[t] !== undefined && row[t] !== null);
  if (given.length > 1) {
    ctx.addIssue({ code: 'custom', path: [given[1]], message: `an action has exactly one type; this one has ${given.join(' and ')}` });
  } else if (given.length === 0 && !UNSUPPORTED_ACTION_TYPES.some((t) => row[t] !== undefined)) {
    ctx.addIssue({ code: 'custom', path: [], message: `an action needs one of ${PLAYBOOK_ACTION_TYPES.join(', ')}` });
  }
});
export type PlaybookAction = z.infer<typeof PlaybookAction>;

/** The action's type key (`exec`...) and its block; undefined when it has none this console runs. */
export function actionTypeOf(action: Record<string, unknown>): { type: PlaybookActionType; block: Record<string, unknown> } | undefined {
  const type = PLAYBOOK_ACTION_TYPES.find((t) => action[t] !== undefined && action[t] !== null);
  return type ? { type, block: action[type] as Record<string, unknown> } : undefined;
}
export { ACTION_BLOCKS as PLAYBOOK_ACTION_BLOCKS };

// ---- triggers ----

/** `on.canary[]`, `on.component[]`, `on.config[]`: an event (failed, passed, unhealthy, created…), labels, a CEL filter. */
export const PlaybookEventTrigger = z.object({
  event: z.string().min(1, 'event is required'),
  filter: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
}).loose();

export const PlaybookScheduleTrigger = z.object({
  /** Cron (5 fields, or 6 with seconds), `@hourly`-style names or `@every 1h30m`. */
  schedule: z.string().min(1, 'schedule is required'),
  parameters: z.record(z.string(), z.string()).optional(),
}).loose();

/** A webhook credential: the value, or an EnvVar (`{value}` or `{valueFrom: {secretKeyRef…}}`) as the reference writes it. */
const Credential = (what: string) => z.union([
  z.string().min(1, `${what} is required`),
  EnvVar.omit({ name: true }).refine((v) => !!(v.value || v.valueFrom), { message: `${what}: a value or valueFrom` }),
], { message: `${what}: a string, {value} or {valueFrom}` });

export const PlaybookWebhookAuth = z.object({
  basic: z.object({ username: Credential('username'), password: Credential('password') }).loose().optional(),
  github: z.object({ token: Credential('token') }).loose().optional(),
  svix: z.object({ secret: Credential('secret'), verifyTimestamp: z.string().optional() }).loose().optional(),
  jwt: z.object({ jwksUri: z.string().url('jwksUri: a URL') }).loose().optional(),
}).loose();

export const PlaybookWebhookTrigger = z.object({
  /** `/api/playbook/webhook/{path}`: unique among live playbooks. */
  path: z.string().min(1, 'path is required').regex(/^[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/, 'path: letters, digits, . _ ~ - and /'),
  authentication: PlaybookWebhookAuth.optional(),
}).loose();

export const PlaybookTriggers = z.object({
  canary: z.array(PlaybookEventTrigger).optional(),
  component: z.array(PlaybookEventTrigger).optional(),
  config: z.array(PlaybookEventTrigger).optional(),
  schedule: z.array(PlaybookScheduleTrigger).optional(),
  webhook: PlaybookWebhookTrigger.optional(),
}).loose();

// ---- the spec ----

export const PlaybookApproval = z.object({
  type: z.enum(['any', 'all'], { message: 'type: any or all' }).optional(),
  approvers: z.object({
    /** People by email (or id). */
    people: z.array(z.string()).optional(),
    /** Teams by name (or id). */
    teams: z.array(z.string()).optional(),
  }).loose().optional(),
}).loose();

export const PlaybookPermission = z.object({
  ref: z.string().optional(),
  role: z.string().optional(),
  team: z.string().optional(),
}).loose();

/** The fields of a Playbook spec, typed (the CRD and the editor's schema come from this). */
export const PlaybookFields = z.object({
  title: z.string().optional(),
  description: z.string().optional(),
  icon: z.string().optional(),
  category: z.string().optional(),
  on: PlaybookTriggers.optional(),
  checks: z.array(PlaybookResourceSelector).optional(),
  configs: z.array(PlaybookResourceSelector).optional(),
  components: z.array(PlaybookResourceSelector).optional(),
  parameters: z.array(PlaybookParameter).optional(),
  actions: z.array(PlaybookAction).min(1, 'a playbook needs at least one action'),
  /** CEL over the resource: all must hold for the playbook to be offered and run on it. */
  filters: z.array(z.string()).optional(),
  /** Agent names. */
  runsOn: z.array(z.string()).optional(),
  templatesOn: z.enum(['host', 'agent'], { message: 'templatesOn: host or agent' }).optional(),
  env: z.array(PlaybookEnvVar).optional(),
  approval: PlaybookApproval.optional(),
  permissions: z.array(PlaybookPermission).optional(),
  /** The run's timeout (default 30m). */
  timeout: Duration.optional(),
  jsonSchema: z.record(z.string(), z.unknown()).optional(),
  mcp: z.object({ enabled: z.boolean().optional(), title: z.string().optional(), description: z.string().optional() }).loose().optional(),
  ui: z.record(z.string(), z.unknown()).optional(),
});

type Loose = Record<string, unknown>;
const objects = (v: unknown): Loose[] => (Array.isArray(v) ? v.map((x) => (x && typeof x === 'object' ? x as Loose : {})) : []);

/**
 * Names must be unique among the actions, and among the parameters; dependsOn names another parameter; a dns1123
 * text parameter's literal default is one. Runs even when the shape has problems (the editor marks them all at once).
 */
function uniqueNames(spec: unknown, ctx: z.RefinementCtx): void {
  const s = (spec && typeof spec === 'object' ? spec : {}) as Loose;
  const seen = new Set<unknown>();
  objects(s.actions).forEach((a, i) => {
    if (typeof a.name !== 'string') return;
    if (seen.has(a.name)) ctx.addIssue({ code: 'custom', path: ['actions', i, 'name'], message: `another action is named ${a.name}`, input: a.name });
    seen.add(a.name);
  });
  const params = objects(s.parameters);
  const names = new Set<unknown>();
  params.forEach((p, i) => {
    if (typeof p.name !== 'string') return;
    if (names.has(p.name)) ctx.addIssue({ code: 'custom', path: ['parameters', i, 'name'], message: `another parameter is named ${p.name}`, input: p.name });
    names.add(p.name);
  });
  params.forEach((p, i) => (Array.isArray(p.dependsOn) ? p.dependsOn : []).forEach((d, j) => {
    if (!names.has(d)) ctx.addIssue({ code: 'custom', path: ['parameters', i, 'dependsOn', j], message: `no parameter is named ${String(d)}`, input: d });
  }));
  params.forEach((p, i) => {
    const props = (p.properties && typeof p.properties === 'object' ? p.properties : {}) as Loose;
    if (p.type === 'text' && props.format === 'dns1123' && typeof p.default === 'string' && p.default
      && !p.default.includes('{{') && !DNS1123.test(p.default)) {
      ctx.addIssue({ code: 'custom', path: ['parameters', i, 'default'], message: 'not a DNS-1123 label', input: p.default });
    }
  });
}

/** The Playbook spec: the typed fields (unknown keys kept) and the structural checks. */
export const PlaybookSpec = PlaybookFields.loose().check(z.superRefine(uniqueNames, { when: () => true }));
export type PlaybookSpec = z.infer<typeof PlaybookSpec>;

/** The `playbooks` table's row as read (0020_kubernetes.sql). */
export const PlaybookRow = z.object({
  id: z.string(),
  namespace: z.string(),
  name: z.string(),
  title: z.string(),
  icon: z.string().nullable(),
  description: z.string().nullable(),
  category: z.string(),
  labels: z.record(z.string(), z.string()).nullable(),
  spec: PlaybookFields.loose(),
  source: z.string(),
  created_by: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  deleted_at: z.string().nullable(),
});
export type PlaybookRow = z.infer<typeof PlaybookRow>;
