import { z } from 'zod';

/**
 * The ScrapeConfig spec (configs.flanksource.com/v1, config-db's `api/v1`), as this console runs it: the top-level
 * fields, the block every scraper shares (BaseScraper: id/name/type/class/items, labels, tags, transform...) and the
 * blocks of the four scraper types it runs (kubernetes, file, http, sql). `custom` is kept raw.
 *
 * Shapes only (zod, no server imports): the web's form and Monaco schema read them as the server does. The semantic
 * checks (schedule, JSONPath, CEL, unsupported scraper types) are added by `server/modules/catalog/spec.ts`, which is
 * what the CRD, the settings writer and the JSON Schema endpoint use. Every object is loose: a manifest written for
 * the reference with fields this console does not read still applies.
 */

/** duty's EnvVar: a literal `value` or `valueFrom` a Secret or ConfigMap key. */
export const ScrapeEnvVar = z.object({
  name: z.string().optional(),
  value: z.string().optional(),
  valueFrom: z.object({
    secretKeyRef: z.object({ name: z.string().optional(), key: z.string() }).loose().optional(),
    configMapKeyRef: z.object({ name: z.string().optional(), key: z.string() }).loose().optional(),
    helmRef: z.object({}).loose().optional(),
    serviceAccount: z.string().optional(),
  }).loose().optional(),
}).loose();

const StringMap = z.record(z.string(), z.string());

/** duty's Lookup: a static value, a CEL expression, or a label of the item. */
export const ScrapeLookup = z.object({
  value: z.string().optional(),
  expr: z.string().optional(),
  label: z.string().optional(),
}).loose();

/** `transform.exclude[]`: a field (JSONPath) dropped from the item's config, for some config types only when `types`. */
export const FieldExclusion = z.object({
  jsonpath: z.string().min(1, 'a JSONPath is required'),
  types: z.array(z.string()).optional(),
}).loose();

/** `transform.mask[]`: where `selector` (CEL) holds, the values at `jsonpath` become `value` (`md5sum`: their hash). */
export const MaskSpec = z.object({
  selector: z.string().optional(),
  jsonpath: z.string().min(1, 'a JSONPath is required'),
  value: z.string().min(1, 'a value (or md5sum) is required'),
}).loose();

/** `transform.relationship[]`: links from each item to the items a selector names (`parent`: the other way round). */
export const RelationshipSpec = z.object({
  filter: z.string().optional(),
  expr: z.string().optional(),
  parent: z.boolean().optional(),
  id: ScrapeLookup.optional(),
  external_id: ScrapeLookup.optional(),
  name: ScrapeLookup.optional(),
  namespace: ScrapeLookup.optional(),
  type: ScrapeLookup.optional(),
  agent: ScrapeLookup.optional(),
  scope: ScrapeLookup.optional(),
  labels: z.record(z.string(), z.string()).optional(),
}).loose();

export const ChangeAction = z.enum(['delete', 'ignore']);

/** `transform.changes.mapping[]`: a change where `filter` (CEL) holds takes this type, severity, summary or action. */
export const ChangeMappingSpec = z.object({
  filter: z.string().optional(),
  type: z.string().optional(),
  action: ChangeAction.optional(),
  severity: z.string().optional(),
  summary: z.string().optional(),
  config_id: z.string().optional(),
  config_type: z.string().optional(),
}).loose();

/**
 * `transform.locations[]` / `transform.aliases[]`: for items whose type matches `type` (`AWS::*`, `!Kubernetes::Pod`,
 * comma-separated) and where `filter` (CEL over the item) holds, each of `values` (a Go template over the item) is a
 * location (a `config_locations` row) or an alias (one more external id). `withParent` names an ancestor type the
 * templates see as `parent`.
 */
export const LocationOrAliasSpec = z.object({
  type: z.string().optional(),
  filter: z.string().optional(),
  values: z.array(z.string()).optional(),
  withParent: z.string().optional(),
}).loose();

/** duty's Link on a property: each text a Go template over the item. */
export const PropertyLinkSpec = z.object({
  type: z.string().optional(),
  url: z.string().optional(),
  label: z.string().optional(),
  text: z.string().optional(),
  tooltip: z.string().optional(),
  icon: z.string().optional(),
}).loose();

/** duty's Property (types.Property): a named value shown on a config item or a component. */
export const DutyProperty = z.object({
  name: z.string().optional(),
  label: z.string().optional(),
  text: z.string().optional(),
  tooltip: z.string().optional(),
  icon: z.string().optional(),
  type: z.string().optional(),
  color: z.string().optional(),
  unit: z.string().optional(),
  status: z.string().optional(),
  lastTransition: z.string().optional(),
  order: z.number().int().optional(),
  headline: z.boolean().optional(),
  hidden: z.boolean().optional(),
  value: z.number().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  links: z.array(PropertyLinkSpec).optional(),
}).loose();

/** `properties[]` (duty's Property + `filter`): shown on the item; every text is a Go template over the item. */
export const ConfigPropertySpec = DutyProperty.extend({
  /** CEL over the item: the property is added only where it holds. */
  filter: z.string().optional(),
}).loose();

export const TransformSpec = z.object({
  /** CEL over `config` (the document) returning the list of items (or their JSON). */
  expr: z.string().optional(),
  /** JSONPath over the document: each value it selects is one item. */
  jsonpath: z.string().optional(),
  /** JavaScript over `config` (and `result`) whose last value is the list of items (or their JSON). */
  javascript: z.string().optional(),
  /** A Go template over `.config` (and `.result`) whose output is the JSON list of items. */
  gotemplate: z.string().optional(),
  locations: z.array(LocationOrAliasSpec).optional(),
  aliases: z.array(LocationOrAliasSpec).optional(),
  exclude: z.array(FieldExclusion).optional(),
  mask: z.array(MaskSpec).optional(),
  relationship: z.array(RelationshipSpec).optional(),
  changes: z.object({
    mapping: z.array(ChangeMappingSpec).optional(),
    /** CEL over a change: true drops it. */
    exclude: z.array(z.string()).optional(),
  }).loose().optional(),
}).loose();

/** A tag: a static `value`, a `jsonpath` into the item, or one of its labels. */
export const TagSpec = z.object({
  name: z.string().min(1, 'a tag needs a name'),
  value: z.string().optional(),
  jsonpath: z.string().optional(),
  label: z.string().optional(),
}).loose();

/** The fields every scraper block shares (config-db's BaseScraper); `id`, `name`, `type`, `class` may be JSONPath (`$...`). */
export const CommonScraper = z.object({
  id: z.string().optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  items: z.string().optional(),
  type: z.string().optional(),
  class: z.string().optional(),
  format: z.string().optional(),
  status: z.string().optional(),
  health: z.string().optional(),
  timestampFormat: z.string().optional(),
  createFields: z.array(z.string()).optional(),
  deleteFields: z.array(z.string()).optional(),
  labels: StringMap.optional(),
  // a list of tags as config-db writes them today, or the older map of name → value
  tags: z.union([z.array(TagSpec), StringMap]).optional(),
  properties: z.array(ConfigPropertySpec).optional(),
  transform: TransformSpec.optional(),
}).loose();

const Patterns = z.array(z.string());

export const KubernetesScraper = CommonScraper.extend({
  clusterName: z.string().optional(),
  namespace: z.string().optional(),
  kubeconfig: ScrapeEnvVar.optional(),
  connection: z.string().optional(),
  scope: z.string().optional(),
  since: z.string().optional(),
  selector: z.string().optional(),
  fieldSelector: z.string().optional(),
  useCache: z.boolean().optional(),
  allowIncomplete: z.boolean().optional(),
  maxInflight: z.number().int().optional(),
  watch: z.array(z.object({ apiVersion: z.string(), kind: z.string() }).loose()).optional(),
  exclusions: z.object({
    name: Patterns.optional(),
    kind: Patterns.optional(),
    namespace: Patterns.optional(),
    labels: StringMap.optional(),
  }).loose().optional(),
  event: z.object({
    exclusions: z.object({ name: Patterns.optional(), namespace: Patterns.optional(), reason: Patterns.optional() }).loose().optional(),
    severityKeywords: z.object({ warn: Patterns.optional(), error: Patterns.optional() }).loose().optional(),
  }).loose().optional(),
  relationships: z.array(z.object({ kind: ScrapeLookup.optional(), name: ScrapeLookup.optional(), namespace: ScrapeLookup.optional() }).loose()).optional(),
}).loose();

export const FileScraper = CommonScraper.extend({
  /** Globs (fast-glob) relative to the console's working directory. */
  paths: z.array(z.string().min(1)).optional(),
  ignore: z.array(z.string()).optional(),
  url: z.string().optional(),
  icon: z.string().optional(),
  connection: z.string().optional(),
}).loose();

/**
 * `pagination` (config-db's): after each page, `nextPageExpr` (CEL over `response` {body, headers, status, url}) gives
 * the next page's URL, or a request {url, method, body, headers}, or null/"" to stop. Pages are merged into one list
 * (`reduceExpr`, CEL over `acc` and `page`, returning the new list; by default a page's list, or its `value`/`items`
 * list, is appended) or, with `perPage`, each page is a document of its own. At most `maxPages` pages (100 when 0 or
 * unset), `delay` (a Go duration) apart.
 */
export const HttpPagination = z.object({
  nextPageExpr: z.string().min(1, 'nextPageExpr is required'),
  reduceExpr: z.string().optional(),
  perPage: z.boolean().optional(),
  maxPages: z.number().int().min(0).max(1000, 'at most 1000 pages').optional(),
  delay: z.string().optional(),
}).loose();

export const HttpScraper = CommonScraper.extend({
  url: z.string().optional(),
  pagination: HttpPagination.optional(),
  connection: z.string().optional(),
  method: z.string().optional(),
  headers: z.array(ScrapeEnvVar).optional(),
  body: z.string().optional(),
  env: z.array(ScrapeEnvVar).optional(),
  username: ScrapeEnvVar.optional(),
  password: ScrapeEnvVar.optional(),
}).loose();

export const SqlDriver = z.enum(['postgres', 'mysql']);

export const SqlScraper = CommonScraper.extend({
  /** A URL (`postgres://…`, `mysql://…`) or `connection://<namespace>/<name>`. */
  connection: z.string().min(1, 'a connection is required'),
  driver: SqlDriver.optional(),
  query: z.string().min(1, 'a query is required'),
  auth: z.object({ username: ScrapeEnvVar.optional(), password: ScrapeEnvVar.optional() }).loose().optional(),
}).loose();

const Age = z.string();

export const RetentionSpec = z.object({
  changes: z.array(z.object({ name: z.string().min(1), age: Age.optional(), count: z.number().int().nonnegative().optional() }).loose()).optional(),
  types: z.array(z.object({
    name: z.string().min(1),
    createdAge: Age.optional(),
    updatedAge: Age.optional(),
    deletedAge: Age.optional(),
  }).loose()).optional(),
  staleItemAge: Age.optional(),
}).loose();

/** The scraper keys this console runs, with their block's schema. */
export const SCRAPER_BLOCKS = {
  kubernetes: KubernetesScraper,
  file: FileScraper,
  http: HttpScraper,
  sql: SqlScraper,
} as const;

/** Every scraper key of the reference's ScrapeConfig (crds.md); those not in SCRAPER_BLOCKS are refused at save. */
export const REFERENCE_SCRAPER_KEYS = ['aws', 'azure', 'azureDevops', 'gcp', 'file', 'kubernetes', 'kubernetesFile', 'github',
  'githubActions', 'postgres', 'sql', 'clickhouse', 'slack', 'trivy', 'terraform', 'http', 'logs', 'pubsub', 'exec',
  'playwright', 'system', 'crdSync'] as const;

export const ScrapeConfigFields = z.object({
  schedule: z.string().optional(),
  retention: RetentionSpec.optional(),
  full: z.boolean().optional(),
  logLevel: z.string().optional(),
  /** A Go duration (`5m`), the longest one run may take. */
  timeout: z.string().optional(),
  kubernetes: z.array(KubernetesScraper).optional(),
  file: z.array(FileScraper).optional(),
  http: z.array(HttpScraper).optional(),
  sql: z.array(SqlScraper).optional(),
  /** Kept as written (the Code tab's raw spec). */
  custom: z.unknown().optional(),
});

/** The ScrapeConfig spec's shape: typed fields, other keys kept (and judged by the server's refinement). */
export const ScrapeConfigShape = ScrapeConfigFields.loose();
export type ScrapeConfigSpec = z.infer<typeof ScrapeConfigShape>;
export type CommonScraper = z.infer<typeof CommonScraper>;
export type TransformSpec = z.infer<typeof TransformSpec>;
export type LocationOrAliasSpec = z.infer<typeof LocationOrAliasSpec>;
export type ConfigPropertySpec = z.infer<typeof ConfigPropertySpec>;
export type FileScraper = z.infer<typeof FileScraper>;
export type HttpScraper = z.infer<typeof HttpScraper>;
export type HttpPagination = z.infer<typeof HttpPagination>;
export type SqlScraper = z.infer<typeof SqlScraper>;
export type KubernetesScraper = z.infer<typeof KubernetesScraper>;
