import { z } from 'zod';

/**
 * Log search (issue 16 "Logs"): `POST /api/logs` over the `logging_backends` rows, and the LoggingBackend spec.
 *
 * Answer shapes:
 * - JSON (default): `LogsResponse` `{total, results, nextPage?}`.
 * - NDJSON (`Accept: application/x-ndjson`): one JSON object per line, streamed as the backend yields: every line a
 *   `LogLine`, then the LAST line `{"done":true,"total":n,"nextPage"?:…}` (`LogsDone`). An error after streaming began
 *   is a line `{"error":"…"}` (`LogsErrorLine`) and the stream ends. Errors before the first line are plain HTTP
 *   errors `{error, code, message}` (400 bad input, 403 gate, 404 component/selector, 502 backend failed, 504 backend
 *   timed out after 10 s; the message names the backend).
 * - Live tail: `follow: true` (NDJSON only; JSON answers 400). The history comes first as above (newest first), then
 *   one line `{"live":true}` (`LogsLiveMarker`) instead of `done`, then new lines as they arrive, OLDEST FIRST (each
 *   newer than the last), until the client closes the request (Kubernetes `follow`; Loki and OpenSearch are polled
 *   every 2 s; console: the ring buffer's new lines). Abort the fetch to stop. The /logs page tails over /api/ws
 *   instead (`logs_subscribe`, contracts/events.ts).
 *
 * Order: `results` (and the NDJSON history) are newest first; `nextPage` fetches the lines before the oldest one
 * given. Closing the request (or sending a new search and aborting the old fetch) cancels the backend request.
 */

export const LOGS_MAX_LIMIT = 5000;
export const LOGS_DEFAULT_LIMIT = 1000;

/** Normalised severity: a mapped field's value or guessed from the line. */
export const LogSeverity = z.enum(['error', 'warn', 'info', 'debug']);
export type LogSeverity = z.infer<typeof LogSeverity>;

export const LogsRequest = z.object({
  /** The component's id (components.id). Missing → 400 "component ID is required". */
  id: z.string().optional(),
  /** The component's `log_selectors[].name`; empty or missing → the first selector. */
  name: z.string().optional(),
  /** Text to find; `/…/` is a regular expression (RE2-ish; a bad one is 400 naming `query`). */
  query: z.string().max(1000).optional(),
  /** A duration back from now (`15m`, `1h`, `7d`) or an RFC 3339 time; default `1h`. */
  start: z.string().max(64).optional(),
  /** As start; default now. */
  end: z.string().max(64).optional(),
  /** 1..5000, default 1000. */
  limit: z.number().int().min(1).max(LOGS_MAX_LIMIT).optional(),
  /** The `nextPage` of a previous answer (opaque). */
  page: z.string().max(4096).optional(),
  /** Extra labels, merged over the selector's labels. */
  labels: z.record(z.string(), z.string()).optional(),
  /** Live tail (NDJSON only). */
  follow: z.boolean().optional(),
});
export type LogsRequest = z.infer<typeof LogsRequest>;

export const LogLine = z.object({
  /** RFC 3339 with milliseconds (nanoseconds are cut). */
  timestamp: z.string(),
  message: z.string(),
  labels: z.record(z.string(), z.string()),
  severity: LogSeverity.optional(),
});
export type LogLine = z.infer<typeof LogLine>;

export const LogsResponse = z.object({
  /** Lines matched when the backend counts them (OpenSearch/Elasticsearch), else the lines in this answer. */
  total: z.number(),
  results: z.array(LogLine),
  nextPage: z.string().optional(),
});
export type LogsResponse = z.infer<typeof LogsResponse>;

export const LogsDone = z.object({ done: z.literal(true), total: z.number(), nextPage: z.string().optional() });
export type LogsDone = z.infer<typeof LogsDone>;
export const LogsLiveMarker = z.object({ live: z.literal(true) });
export const LogsErrorLine = z.object({ error: z.string() });
/** One NDJSON line of the stream. */
export type LogsStreamLine = LogLine | LogsDone | z.infer<typeof LogsLiveMarker> | z.infer<typeof LogsErrorLine>;

// ---- LoggingBackend spec (apm-hub.flanksource.com/v1, apm-hub's LoggingBackendSpec, plus loki) ----

const KeyRef = z.object({ name: z.string().optional(), key: z.string(), optional: z.boolean().optional() }).loose();
/** A secret value: `value` (may be `connection://…`), or `valueFrom` a secret / config map key. */
export const EnvVar = z.object({
  name: z.string().optional(),
  value: z.string().optional(),
  valueFrom: z.object({ secretKeyRef: KeyRef.optional(), configMapKeyRef: KeyRef.optional() }).loose().optional(),
}).loose();
const StringMap = z.record(z.string(), z.string());

/** A route: a backend serves a selector whose type, component external_id prefix and labels all match. */
export const LogRoute = z.object({
  type: z.string().optional(),
  idPrefix: z.string().optional(),
  /** older spelling kept */
  id_prefix: z.string().optional(),
  /** value `a,b` = any of; `prefix-*` = glob; `!x` = not x */
  labels: StringMap.optional(),
  additive: z.boolean().optional(),
  is_additive: z.boolean().optional(),
}).loose();

const common = { labels: StringMap.optional(), routes: z.array(LogRoute).optional() };

/** Field mapping of a search backend: document field names. */
export const SearchFields = z.object({
  timestamp: z.string().optional(),
  message: z.string().optional(),
  severity: z.string().optional(),
  /** a field holding an object of labels, or several fields `a,b` */
  labels: z.string().optional(),
  exclusions: z.array(z.string()).optional(),
}).loose();

const urlish = z.string().refine((s) => /^https?:\/\/\S+$/.test(s) || s.startsWith('connection://'), 'an http(s) URL or connection://…');

const search = {
  ...common,
  url: urlish.optional(),
  address: urlish.optional(),
  index: z.string().optional(),
  query: z.string().optional(),
  namespace: z.string().optional(),
  username: EnvVar.optional(),
  password: EnvVar.optional(),
  fields: SearchFields.optional(),
};

export const LokiBackend = z.object({
  ...common,
  url: urlish.optional(),
  address: urlish.optional(),
  username: EnvVar.optional(),
  password: EnvVar.optional(),
  /** X-Scope-OrgID */
  tenant: z.string().optional(),
}).loose();

export const LoggingBackendSpec = z.object({
  backends: z.array(z.object({
    kubernetes: z.object({ ...common, kubeconfig: EnvVar.optional(), namespace: z.string().optional() }).loose().optional(),
    file: z.object({ ...common, path: z.array(z.string()).optional() }).loose().optional(),
    elasticsearch: z.object({ ...search, cloud_id: EnvVar.optional(), api_key: EnvVar.optional() }).loose().optional(),
    opensearch: z.object(search).loose().optional(),
    loki: LokiBackend.optional(),
    /** this console's own last 10,000 log lines */
    console: z.object({ ...common }).loose().optional(),
    cloudwatch: z.object({
      ...common,
      auth: z.object({ access_key: EnvVar.optional(), secret_key: EnvVar.optional(), region: z.string().optional() }).loose().optional(),
      log_group: z.string().optional(),
      query: z.string().optional(),
      namespace: z.string().optional(),
    }).loose().optional(),
  }).loose()).optional(),
}).loose();
export type LoggingBackendSpec = z.infer<typeof LoggingBackendSpec>;
