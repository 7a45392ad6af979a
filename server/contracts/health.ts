import { z } from 'zod';

/**
 * Health (canaries and checks): request and response contracts of /api/canary/*. Shapes follow the reference's
 * canary-checker API (reference/api.md) so its clients keep working.
 */

export const CheckStatus = z.enum(['healthy', 'unhealthy']);
export type CheckStatus = z.infer<typeof CheckStatus>;

export const Severity = z.enum(['info', 'low', 'medium', 'high', 'critical']);
export type Severity = z.infer<typeof Severity>;

/** A time window: a duration such as `15m`, `1h`, `7d`, `1w`, `1mo`, `1y`. */
export const WindowText = z.string().regex(/^\d+(\.\d+)?(ms|s|m|h|d|w|mo|y)$/, 'expected a duration such as 15m, 1h, 7d');

export const Uptime = z.object({
  passed: z.number().int(),
  failed: z.number().int(),
  last_pass: z.string().nullable().optional(),
  last_fail: z.string().nullable().optional(),
});
export const Latency = z.object({
  p95: z.number().nullable().optional(),
  p97: z.number().nullable().optional(),
  p99: z.number().nullable().optional(),
  avg: z.number().nullable().optional(),
  rolling1h: z.number(),
});

/** One row of `checks_summary`. */
export const CheckSummary = z.object({
  id: z.string(),
  canary_id: z.string(),
  canary_name: z.string(),
  canary_namespace: z.string(),
  agent_id: z.string(),
  name: z.string(),
  type: z.string(),
  namespace: z.string().nullable(),
  description: z.string().nullable().optional(),
  icon: z.string().nullable().optional(),
  labels: z.record(z.string(), z.string()),
  status: CheckStatus.nullable(),
  severity: z.string().nullable().optional(),
  owner: z.string().nullable().optional(),
  uptime: Uptime,
  latency: Latency,
  last_transition_time: z.string().nullable().optional(),
  last_runtime: z.string().nullable().optional(),
  next_runtime: z.string().nullable().optional(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
  deleted_at: z.string().nullable().optional(),
  silenced_at: z.string().nullable().optional(),
});
export type CheckSummary = z.infer<typeof CheckSummary>;

/**
 * Options of `GET|POST /api/canary/api/summary` (query string or JSON body; keys are matched case-insensitively
 * as the reference does). `window` (alias `timeRange`) sets the uptime/latency window, default 1h.
 */
export const SummaryRequest = z.object({
  checkID: z.string().uuid().optional(),
  canaryID: z.string().uuid().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  window: WindowText.optional(),
  sortBy: z.enum(['name', '-name']).optional(),
  deleteFrom: z.string().datetime({ offset: true }).optional(),
});
export type SummaryRequest = z.infer<typeof SummaryRequest>;

export const SummaryResponse = z.object({
  duration: z.number(),
  runnerName: z.string(),
  window: z.string(),
  checks_summary: z.array(CheckSummary),
});
export type SummaryResponse = z.infer<typeof SummaryResponse>;

/** `GET /api/canary/api/history`: one check's raw results, newest first. */
/** A duration counted back from now (`1h`) or an RFC 3339 instant. */
const PointInTime = z.union([WindowText, z.iso.datetime({ offset: true })], 'expected a duration such as 1h, or an RFC 3339 time');

export const HistoryRequest = z.object({
  check: z.string().uuid(),
  /** Where the window starts: a duration back from now, or an instant (an absolute range, with `end`). */
  start: PointInTime.default('1h'),
  /** Where an absolute window ends (RFC 3339, or a duration back from now); none: now. */
  end: PointInTime.optional(),
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(1000).default(50),
  /** 1 = passed only, 0 = failed only. */
  status: z.enum(['1', '0']).optional(),
  /** Minimum duration in ms. */
  duration: z.coerce.number().int().min(0).optional(),
});
export type HistoryRequest = z.infer<typeof HistoryRequest>;

export const CheckStatusEntry = z.object({
  time: z.string(),
  duration: z.number().nullable(),
  message: z.string().nullable(),
  error: z.string().nullable(),
  status: z.boolean().nullable(),
  invalid: z.boolean().nullable().optional(),
});
export type CheckStatusEntry = z.infer<typeof CheckStatusEntry>;

export const HistoryResponse = z.object({
  data: z.array(CheckStatusEntry),
  totalEntries: z.number().int(),
});
export type HistoryResponse = z.infer<typeof HistoryResponse>;

/** `GET /api/canary/api/graph`: bucketed series of one check. `since`/`start` and `until`/`end` are durations ago or RFC 3339. */
export const GraphRequest = z.object({
  check: z.string().uuid(),
  since: z.string().optional(),
  start: z.string().optional(),
  until: z.string().optional(),
  end: z.string().optional(),
});

export const GraphPoint = z.object({
  time: z.string(),
  status: z.boolean().optional(),
  duration: z.number(),
  passed: z.number().int(),
  failed: z.number().int(),
});
export const GraphResponse = z.object({
  duration: z.number(),
  runnerName: z.string(),
  /** Bucket width in seconds: <=2h 60, <=24h 900, <=7d 3600, else 14400. */
  bucketSeconds: z.number().int(),
  status: z.array(GraphPoint),
  latency: Latency,
  uptime: Uptime,
});
export type GraphResponse = z.infer<typeof GraphResponse>;

/** The result of `POST /api/canary/run/check/:id` (reference CheckResult fields). */
export const RunCheckResponse = z.object({
  id: z.string(),
  name: z.string(),
  start: z.string(),
  pass: z.boolean(),
  invalid: z.boolean(),
  duration: z.number(),
  message: z.string().optional(),
  error: z.string().optional(),
  detail: z.unknown().optional(),
  status: CheckStatus,
  transitioned: z.boolean(),
});
export type RunCheckResponse = z.infer<typeof RunCheckResponse>;

/** `GET /api/canary/api/check/:id`: a check with its spec, canary and schedule. */
export const CheckDetail = CheckSummary.extend({
  spec: z.unknown(),
  canary: z.object({ id: z.string(), name: z.string(), namespace: z.string(), spec: z.unknown(), source: z.string().nullable() }),
  last_status: z.object({ duration: z.number().nullable(), message: z.string().nullable(), error: z.string().nullable() }).nullable(),
});
export type CheckDetail = z.infer<typeof CheckDetail>;

const Name = z.string().min(1).max(253).regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'lower-case letters, digits, "-" and "."');

/**
 * Body of `POST /api/canary` and `PUT /api/canary/:id`: either flat (`name`, `namespace`, `labels`, `spec`) or the
 * Canary resource itself (`apiVersion`, `kind: Canary`, `metadata`, `spec`). The spec is validated by the server
 * against the check types it runs; a bad spec is refused with the reason.
 */
export const CanaryInput = z.union([
  z.object({
    name: Name,
    namespace: Name.default('default'),
    labels: z.record(z.string(), z.string()).optional(),
    spec: z.record(z.string(), z.unknown()),
  }),
  z.object({
    apiVersion: z.string().optional(),
    kind: z.literal('Canary'),
    metadata: z.object({ name: Name, namespace: Name.default('default'), labels: z.record(z.string(), z.string()).optional() }),
    spec: z.record(z.string(), z.unknown()),
  }),
]);
export type CanaryInput = z.infer<typeof CanaryInput>;

/** Body of `PATCH /api/canary/:id`: any of the flat fields; `spec` replaces the whole spec. */
export const CanaryPatch = z.object({
  name: Name.optional(),
  namespace: Name.optional(),
  labels: z.record(z.string(), z.string()).optional(),
  spec: z.record(z.string(), z.unknown()).optional(),
});
export type CanaryPatch = z.infer<typeof CanaryPatch>;

export const CanaryResponse = z.object({
  id: z.string(),
  name: z.string(),
  namespace: z.string(),
  labels: z.record(z.string(), z.string()).nullable(),
  spec: z.record(z.string(), z.unknown()),
  source: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  deleted_at: z.string().nullable(),
  checks: z.array(z.object({ id: z.string(), type: z.string(), name: z.string() })),
});
export type CanaryResponse = z.infer<typeof CanaryResponse>;

/**
 * POST /api/canary/api/push: a check (by `id`, or by `name` + `namespace`, created when missing) and one result,
 * inline as the reference's pkg.Check + pkg.CheckStatus.
 */
export const PushRequest = z.object({
  id: z.string().uuid().optional(),
  name: z.string().min(1).max(255).optional(),
  namespace: z.string().min(1).max(253).default('default'),
  /** The canary the check is created in (by name, in `namespace`); defaults to the check's name. */
  canary_name: z.string().min(1).max(255).optional(),
  type: z.string().min(1).max(63).default('push'),
  description: z.string().max(4_000).optional(),
  icon: z.string().max(255).optional(),
  owner: z.string().max(255).optional(),
  severity: Severity.optional(),
  labels: z.record(z.string(), z.string()).optional(),
  status: z.boolean(),
  invalid: z.boolean().default(false),
  time: z.string().datetime({ offset: true }).optional(),
  duration: z.number().int().min(0).max(2_147_483_647).default(0),
  message: z.string().max(100_000).optional(),
  error: z.string().max(100_000).optional(),
  detail: z.unknown().optional(),
}).refine((v) => v.id !== undefined || v.name !== undefined, { message: 'id or name is required', path: ['name'] });
export type PushRequest = z.infer<typeof PushRequest>;

export const PushResponse = z.object({
  id: z.string(),
  canary_id: z.string(),
  status: CheckStatus,
  transitioned: z.boolean(),
});
export type PushResponse = z.infer<typeof PushResponse>;

/** POST /api/canary/webhook/:id answer. */
export const WebhookResponse = z.object({
  id: z.string(),
  status: CheckStatus,
  pass: z.boolean(),
  message: z.string().optional(),
  error: z.string().optional(),
});
export type WebhookResponse = z.infer<typeof WebhookResponse>;
