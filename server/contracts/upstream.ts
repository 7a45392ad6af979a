import { z } from 'zod';

/**
 * /api/upstream/* (the reference's `/upstream` group, api.md "Agent push/upstream"): what an agent pushes, deletes and
 * pulls. Rows are the reference's model JSON (its table columns); keys a row table does not list are ignored, so a
 * newer agent can push to an older console. The server forces `agent_id` on every row: an agent's own value is never
 * read.
 */

const Uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'expected a uuid');
/** RFC 3339 with an offset or Z, any fraction (Go sends nanoseconds). */
const Time = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/i, 'expected an RFC 3339 time');
const Labels = z.record(z.string(), z.string()).nullish();
const Json = z.unknown().optional();
const Text = z.string().nullish();
const Int = z.number().int().nullish();

/** A canary as the reference's `canaries` row. */
export const PushCanary = z.object({
  id: Uuid, name: z.string().min(1), namespace: Text, labels: Labels, annotations: z.record(z.string(), z.string()).nullish(),
  spec: z.record(z.string(), Json), source: Text, created_at: Time.nullish(), updated_at: Time.nullish(), deleted_at: Time.nullish(),
});

/** A check as the reference's `checks` row. */
export const PushCheck = z.object({
  id: Uuid, canary_id: Uuid, type: z.string().min(1), name: z.string().min(1), namespace: Text, description: Text, icon: Text,
  spec: z.record(z.string(), Json).nullish(), labels: Labels, owner: Text, severity: Text, category: Text,
  transformed: z.boolean().nullish(), last_runtime: Time.nullish(), last_transition_time: Time.nullish(),
  next_runtime: Time.nullish(), silenced_at: Time.nullish(), status: Text, created_at: Time.nullish(),
  updated_at: Time.nullish(), deleted_at: Time.nullish(),
});

/** One result (`check_statuses`), keyed by (check_id, time). */
export const PushCheckStatus = z.object({
  check_id: Uuid, time: Time, duration: Int, status: z.boolean().nullish(), invalid: z.boolean().nullish(), message: Text,
  error: Text, details: Json, severity: Text, created_at: Time.nullish(),
});

/** A check's latest state (`checks_unlogged`). */
export const PushCheckUnlogged = z.object({
  check_id: Uuid, canary_id: Uuid, status: Text, last_runtime: Time.nullish(), next_runtime: Time.nullish(),
  last_duration: Int, last_message: Text, last_error: Text, created_at: Time.nullish(), updated_at: Time.nullish(),
});

/** A run of a job (`job_history`). */
export const PushJobHistory = z.object({
  id: Uuid, name: Text, success_count: Int, error_count: Int, details: Json, hostname: Text, duration_millis: Int,
  resource_type: Text, resource_id: Text, status: Text, time_start: Time.nullish(), time_end: Time.nullish(),
  created_at: Time.nullish(),
});

const Jsonb = z.unknown().nullish();
const Num = z.number().nullish();
const Bool = z.boolean().nullish();

/** A topology (`topologies`). */
export const PushTopology = z.object({
  id: Uuid, name: z.string().min(1), namespace: Text, labels: Labels, source: Text, spec: Jsonb, schedule: Text,
  created_at: Time.nullish(), updated_at: Time.nullish(), deleted_at: Time.nullish(),
});

/** A catalog scraper (`config_scrapers`). */
export const PushConfigScraper = z.object({
  id: Uuid, name: Text, namespace: Text, description: Text, labels: Labels, spec: z.record(z.string(), Json), source: Text,
  created_at: Time.nullish(), updated_at: Time.nullish(), deleted_at: Time.nullish(),
});

/** A catalog item (`config_items`). */
export const PushConfigItem = z.object({
  id: Uuid, scraper_id: Uuid.nullish(), config_class: z.string().min(1), status: Text, health: Text, ready: Bool,
  external_id: z.array(z.string()).nullish(), type: z.string().min(1), name: Text, description: Text, config: Jsonb,
  source: Text, labels: Labels, tags: Jsonb, properties: Jsonb, parent_id: Uuid.nullish(), path: Text, icon: Text,
  cost_per_minute: Num, cost_total_1d: Num, cost_total_7d: Num, cost_total_30d: Num,
  created_at: Time.nullish(), updated_at: Time.nullish(), deleted_at: Time.nullish(), delete_reason: Text,
});

/** A change of a catalog item (`config_changes`). */
export const PushConfigChange = z.object({
  id: Uuid, config_id: Uuid, external_change_id: Text, external_created_by: Text, change_type: Text, severity: Text,
  source: Text, summary: Text, patches: Jsonb, diff: Text, details: Jsonb, created_at: Time.nullish(), count: Int,
  fingerprint: Text, first_observed: Time.nullish(),
});

/** An insight on a catalog item (`config_analysis`). */
export const PushConfigAnalysis = z.object({
  id: Uuid, config_id: Uuid, scraper_id: Uuid.nullish(), source: Text, analyzer: z.string().min(1), analysis_type: Text,
  severity: Text, summary: Text, status: Text, message: Text, analysis: Jsonb, properties: Jsonb,
  first_observed: Time.nullish(), last_observed: Time.nullish(),
});

/** A topology component (`components`). */
export const PushComponent = z.object({
  id: Uuid, topology_id: Uuid.nullish(), external_id: Text, parent_id: Uuid.nullish(), config_id: Uuid.nullish(),
  name: z.string().min(1), text: Text, topology_type: Text, namespace: Text, labels: Labels, hidden: Bool, silenced: Bool,
  status: Text, status_expr: Text, health_expr: Text, health: Text, description: Text, lifecycle: Text, tooltip: Text,
  status_reason: Text, schedule: Text, icon: Text, type: Text, owner: Text, selectors: Jsonb, log_selectors: Jsonb,
  component_checks: Jsonb, configs: Jsonb, properties: Jsonb, path: Text, summary: Jsonb, is_leaf: Bool,
  cost_per_minute: Num, cost_total_1d: Num, cost_total_7d: Num, cost_total_30d: Num,
  created_at: Time.nullish(), updated_at: Time.nullish(), deleted_at: Time.nullish(),
});

/**
 * Relationship rows and the items' last scrape time (duty's ConfigRelationship, ComponentRelationship,
 * ConfigComponentRelationship, CheckConfigRelationship, ConfigItemLastScrapedTime). They carry no agent_id: a row is
 * the agent's when every row it points at is (both ends, the scraper, the check and canary).
 */
export const PushConfigRelationship = z.object({
  config_id: Uuid, related_id: Uuid, relation: z.string().nullish().transform((v) => v ?? ''), scraper_id: Uuid.nullish(), selector_id: Text,
  created_at: Time.nullish(), updated_at: Time.nullish(), deleted_at: Time.nullish(),
});

export const PushComponentRelationship = z.object({
  component_id: Uuid, relationship_id: Uuid, selector_id: Text, relationship_path: Text,
  created_at: Time.nullish(), updated_at: Time.nullish(), deleted_at: Time.nullish(),
});

export const PushConfigComponentRelationship = z.object({
  component_id: Uuid, config_id: Uuid, selector_id: Text,
  created_at: Time.nullish(), updated_at: Time.nullish(), deleted_at: Time.nullish(),
});

export const PushCheckConfigRelationship = z.object({
  config_id: Uuid, check_id: Uuid, canary_id: Uuid, selector_id: Text,
  created_at: Time.nullish(), updated_at: Time.nullish(), deleted_at: Time.nullish(),
});

/** Not in the reference's PushData (its reconciler has the table): this console's agents push it too. */
export const PushCheckComponentRelationship = z.object({
  component_id: Uuid, check_id: Uuid, canary_id: Uuid, selector_id: Text,
  created_at: Time.nullish(), updated_at: Time.nullish(), deleted_at: Time.nullish(),
});

export const PushConfigItemLastScrapedTime = z.object({
  config_id: Uuid, last_scraped_time: Time.nullish(), created_at: Time.nullish(), updated_at: Time.nullish(),
});

/** The keys of the reference's PushData this console stores (push order: parents first). */
export const PUSH_KEYS = [
  'canaries', 'checks', 'check_statuses', 'checks_unlogged', 'job_history',
  'topologies', 'config_scrapers', 'config_items', 'config_changes', 'config_analysis', 'components',
  'config_relationships', 'component_relationships', 'config_component_relationships', 'check_config_relationships',
  'check_component_relationships', 'config_items_last_scraped_time',
] as const;
export type PushKey = (typeof PUSH_KEYS)[number];

/**
 * Reference PushData keys owned by modules that do not take pushed rows yet: a non-empty array under one of them is
 * refused with 400 naming the key (nothing of the batch is stored); an empty one is accepted.
 */
export const REFUSED_PUSH_KEYS = ['playbook_actions', 'artifacts', 'view_panels', 'generated_views'] as const;

/** The body of POST and DELETE /api/upstream/push: arrays of rows by table (rows are checked per table, server side). */
export const PushData = z.object({
  canaries: z.array(z.unknown()).nullish(),
  checks: z.array(z.unknown()).nullish(),
  check_statuses: z.array(z.unknown()).nullish(),
  checks_unlogged: z.array(z.unknown()).nullish(),
  job_history: z.array(z.unknown()).nullish(),
  topologies: z.array(z.unknown()).nullish(),
  config_scrapers: z.array(z.unknown()).nullish(),
  config_items: z.array(z.unknown()).nullish(),
  config_changes: z.array(z.unknown()).nullish(),
  config_analysis: z.array(z.unknown()).nullish(),
  components: z.array(z.unknown()).nullish(),
  config_relationships: z.array(z.unknown()).nullish(),
  component_relationships: z.array(z.unknown()).nullish(),
  config_component_relationships: z.array(z.unknown()).nullish(),
  check_config_relationships: z.array(z.unknown()).nullish(),
  check_component_relationships: z.array(z.unknown()).nullish(),
  config_items_last_scraped_time: z.array(z.unknown()).nullish(),
}).catchall(z.unknown());
export type PushData = z.infer<typeof PushData>;

export type PushCanary = z.infer<typeof PushCanary>;
export type PushCheck = z.infer<typeof PushCheck>;
export type PushCheckStatus = z.infer<typeof PushCheckStatus>;

/** What POST/DELETE /api/upstream/push answer: rows taken per table (a replayed row counts, it is a no-op). */
export const PushResult = z.object({ message: z.string(), counts: z.record(z.string(), z.number()) });
export type PushResult = z.infer<typeof PushResult>;

/** GET /api/upstream/ping telemetry (query parameters; all optional). */
export const PingQuery = z.object({
  agent_name: z.string().optional(),
  lag_ms: z.coerce.number().int().min(0).optional(),
  buffer_rows: z.coerce.number().int().min(0).optional(),
  dropped_rows: z.coerce.number().int().min(0).optional(),
  version: z.string().max(200).optional(),
  topology: z.string().max(255).optional(),
});

/** GET /api/upstream/canary/pull?since=<RFC 3339>: the agent's canaries updated in (since, before]. */
export const CanaryPullQuery = z.object({ agent_name: z.string().optional(), since: Time.optional() });

/** A pulled canary: the row as the agent stores it (deleted ones carry deleted_at). */
export const PulledCanary = z.object({
  id: z.string(), name: z.string(), namespace: z.string(), labels: z.record(z.string(), z.string()).nullable(),
  annotations: z.record(z.string(), z.string()).nullable(), spec: z.record(z.string(), z.unknown()), source: z.string().nullable(),
  created_at: z.string().nullable(), updated_at: z.string().nullable(), deleted_at: z.string().nullable(),
});
export const CanaryPullResponse = z.object({ before: z.string(), canaries: z.array(PulledCanary) });
export type CanaryPullResponse = z.infer<typeof CanaryPullResponse>;
