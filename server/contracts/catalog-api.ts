import { z } from 'zod';

/**
 * The catalog's own read API (`/api/catalog/*`, issue 12): request and response shapes of
 * `POST /api/catalog/summary`, `POST|GET /api/catalog/changes` and `GET /api/catalog/:id/relationships`. Names follow
 * the reference (reference/api.md "Catalog"; duty's ConfigSummaryRequest and CatalogChangesSearchRequest) so its
 * clients keep working. Everything else the catalog screens read (lists, item detail, insights, filter options,
 * related configs) comes from /api/db views and RPCs (0051_catalog_views.sql). Every route needs `database:read`;
 * feature `config` disabled closes them all (403 "config is disabled").
 */

/** Most rows one page of `/api/catalog/changes` returns; a larger `page_size` is refused (400 naming it). */
export const CATALOG_PAGE_SIZE_MAX = 1000;
/** Deepest relationship walk (`depth` of changes, `depth` of relationships). */
export const CATALOG_DEPTH_MAX = 10;

/** Change severities from most to least severe: `>=high` means critical or high. */
export const CHANGE_SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export const ChangeSeverity = z.enum(CHANGE_SEVERITIES);
export type ChangeSeverity = z.infer<typeof ChangeSeverity>;

/**
 * A group key of the summary: `type`, `config_class`, or a tag key (`namespace`, `cluster`, `account`...). Tag keys
 * read `tags->>key`; they are values in SQL, never identifiers.
 */
export const SummaryGroupKey = z.string().regex(/^[A-Za-z0-9_.\-/:]{1,100}$/, 'expected type, config_class or a tag key');

/** `POST /api/catalog/summary` body (reference ConfigSummaryRequest plus `search` and `type`). */
export const ConfigSummaryRequest = z.object({
  /** Default `['type']`; at most 4 keys. */
  groupBy: z.array(SummaryGroupKey).max(4).optional(),
  /** Changes counted over this window (`3d`, `7d`, `30d`, or a duration such as `12h`); default 30d. */
  changes: z.object({ since: z.string().optional() }).partial().optional(),
  /** Accepted for the reference's clients; insights are the open ones whatever their age. */
  analysis: z.object({ since: z.string().optional() }).partial().optional(),
  /** Which cost total to add as `cost_<range>`: 1h, 1d, 30d (cost_per_minute, cost_total_1d/30d are always there). */
  cost: z.enum(['1h', '1d', '7d', '30d', '']).optional(),
  /** Include deleted items (default false). */
  deleted: z.boolean().optional(),
  /** Labels: key → `v1,v2,!v3` (values ORed, `!` excludes). */
  filter: z.record(z.string(), z.string()).optional(),
  /** Extra tag keys added to every row (and to the grouping), as the reference does. */
  tags: z.array(SummaryGroupKey).max(4).optional(),
  /** `a,b,!c` lists over status and health. */
  status: z.string().max(1000).optional(),
  health: z.string().max(1000).optional(),
  /** `a,b,!c` list (globs with `*`) over type. */
  type: z.string().max(1000).optional(),
  /** Case-insensitive substring of name, type, description or namespace. */
  search: z.string().max(200).optional(),
});
export type ConfigSummaryRequest = z.infer<typeof ConfigSummaryRequest>;

/**
 * One group. The group's values are both flattened (`type`, `namespace`..., as the reference answers) and in
 * `group` (typed, for the console). Counts are numbers.
 */
export const ConfigSummaryRow = z.object({
  group: z.record(z.string(), z.string().nullable()),
  type: z.string().nullable().optional(),
  config_class: z.string().nullable().optional(),
  /** Items in the group. */
  count: z.number().int(),
  /** Items per health (`healthy`, `unhealthy`, `warning`, `unknown`...); items without health are not counted. */
  health: z.record(z.string(), z.number().int()),
  /** Changes in the `changes.since` window. */
  changes: z.number().int(),
  /** Open insights per analysis type. */
  analysis: z.record(z.string(), z.number().int()),
  /** Open insights per severity. */
  severity: z.record(z.string(), z.number().int()),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
  cost_per_minute: z.number().nullable(),
  cost_total_1d: z.number().nullable(),
  cost_total_7d: z.number().nullable(),
  cost_total_30d: z.number().nullable(),
}).catchall(z.unknown());
export type ConfigSummaryRow = z.infer<typeof ConfigSummaryRow>;

/** `POST /api/catalog/summary` answers an array of groups ordered by the group keys. */
export const ConfigSummaryResponse = z.array(ConfigSummaryRow);
export type ConfigSummaryResponse = z.infer<typeof ConfigSummaryResponse>;

export const ChangeRecursive = z.enum(['downstream', 'upstream', 'none', 'all']);
export type ChangeRecursive = z.infer<typeof ChangeRecursive>;

const flag = z.union([z.boolean(), z.enum(['true', 'false'])]).transform((v) => v === true || v === 'true');
const int = z.union([z.number(), z.string().regex(/^\d+$/, 'expected a whole number')]).transform(Number).pipe(z.number().int());

/** Columns `sort_by` may name (`-` prefix: descending). */
export const CHANGE_SORT_FIELDS = ['name', 'change_type', 'summary', 'source', 'created_at', 'count', 'severity', 'type', 'first_observed'] as const;

/**
 * `POST /api/catalog/changes` body, or `GET /api/catalog/changes` query (strings coerced). Lists are comma
 * separated with `!` negation and `*` globs (type, config_type, summary, source, created_by).
 */
export const CatalogChangesSearchRequest = z.object({
  /** Config id(s), comma separated; one id walks related configs per `recursive`/`depth`. */
  id: z.string().max(20000).optional(),
  config_type: z.string().max(2000).optional(),
  /** Change types: `diff,CREATE,!Pulled`. */
  type: z.string().max(2000).optional(),
  /** `>=high`, `high` (the same: high and above), `<medium`, `!info`, or a list `critical,low`. */
  severity: z.string().max(200).optional(),
  /** A person id (created_by) or external creator names (external_created_by). */
  created_by: z.string().max(1000).optional(),
  summary: z.string().max(1000).optional(),
  source: z.string().max(1000).optional(),
  /** Label selector over the item's tags: `cluster=prod,namespace!=kube-system,env in (a,b)`. */
  tags: z.string().max(2000).optional(),
  /** An agent id or `local`. */
  agent_id: z.string().max(100).optional(),
  include_deleted_configs: flag.optional(),
  /** RFC3339 or date math (`now-2d`); default now-2d when neither from nor to is given. */
  from: z.string().max(100).optional(),
  to: z.string().max(100).optional(),
  from_inserted_at: z.string().max(100).optional(),
  to_inserted_at: z.string().max(100).optional(),
  /** Default 50, at most CATALOG_PAGE_SIZE_MAX. */
  page_size: int.optional(),
  /** 1-based, default 1. */
  page: int.optional(),
  /** A CHANGE_SORT_FIELDS name, `-` prefix for descending; default `-created_at`. */
  sort_by: z.string().max(100).optional(),
  /** Default downstream (only used with a single `id`). */
  recursive: z.string().max(20).optional(),
  /** Default 5, at most CATALOG_DEPTH_MAX. */
  depth: int.optional(),
  /** Also follow soft relationships. */
  soft: flag.optional(),
  /** Ignore invalid filters instead of answering 400. */
  lenient: flag.optional(),
});
export type CatalogChangesSearchRequest = z.input<typeof CatalogChangesSearchRequest>;

/** One change with its item's name, type and tags (reference ConfigChangeRow). */
export const ConfigChangeRow = z.object({
  id: z.string(),
  config_id: z.string(),
  external_change_id: z.string().nullable().optional(),
  agent_id: z.string().nullable(),
  change_type: z.string().nullable(),
  severity: z.string().nullable(),
  source: z.string().nullable(),
  summary: z.string().nullable().optional(),
  created_at: z.string(),
  count: z.number().int(),
  first_observed: z.string().nullable().optional(),
  name: z.string().nullable().optional(),
  type: z.string().nullable().optional(),
  config_class: z.string().nullable().optional(),
  tags: z.record(z.string(), z.unknown()).nullable().optional(),
  created_by: z.string().nullable().optional(),
  external_created_by: z.string().nullable().optional(),
  path: z.string().nullable().optional(),
  deleted_at: z.string().nullable().optional(),
  inserted_at: z.string().nullable().optional(),
});
export type ConfigChangeRow = z.infer<typeof ConfigChangeRow>;

/** `summary`: change type → count over every matching change (not just the page); `total`: matching changes. */
export const CatalogChangesSearchResponse = z.object({
  summary: z.record(z.string(), z.number().int()),
  total: z.number().int(),
  changes: z.array(ConfigChangeRow),
});
export type CatalogChangesSearchResponse = z.infer<typeof CatalogChangesSearchResponse>;

/** `GET /api/catalog/:id/relationships` query. */
export const RelationshipsQuery = z.object({
  /** outgoing (default: what this item points at), incoming, or all. */
  direction: z.enum(['outgoing', 'incoming', 'all']).optional(),
  /** both (default: hard and soft links) or hard only. */
  relation: z.enum(['both', 'hard']).optional(),
  /** Default 5, at most CATALOG_DEPTH_MAX. */
  depth: int.optional(),
  include_deleted_configs: flag.optional(),
});
export type RelationshipsQuery = z.input<typeof RelationshipsQuery>;

/** A related item (a node of the graph). */
export const RelatedConfig = z.object({
  id: z.string(),
  name: z.string().nullable(),
  type: z.string(),
  config_class: z.string().nullable(),
  status: z.string().nullable(),
  health: z.string().nullable(),
  ready: z.boolean().nullable(),
  tags: z.record(z.string(), z.unknown()).nullable(),
  deleted_at: z.string().nullable(),
  /** Hops from the item (0 = the item itself). */
  depth: z.number().int(),
});
export type RelatedConfig = z.infer<typeof RelatedConfig>;

/**
 * A link `config_id` → `related_id` (`relation` hard, soft or a named relation). `manual`: made by hand
 * (`selector_id` 'manual', as the reference marks them): these may be unlinked through /api/db by admins and editors.
 */
export const ConfigEdge = z.object({
  config_id: z.string(),
  related_id: z.string(),
  relation: z.string(),
  manual: z.boolean(),
});
export type ConfigEdge = z.infer<typeof ConfigEdge>;

export const RelationshipsResponse = z.object({
  id: z.string(),
  nodes: z.array(RelatedConfig),
  edges: z.array(ConfigEdge),
});
export type RelationshipsResponse = z.infer<typeof RelationshipsResponse>;
