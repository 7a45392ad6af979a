import { z } from 'zod';

// The topology's extra reads beside GET /api/topology: the snapshot zip, a component's health history and its impact.

/** A time: a duration back from now (`15m`, `1h`, `7d`, `2w`, `1mo` = 30d, `5y` = 365d each) or an RFC 3339 timestamp. */
export const TimeParam = z.string().max(64);

/** GET /api/snapshot/topology/{id}: the window of check results, incidents and config changes, and related components. */
export const SnapshotQuery = z.object({
  /** Start of the window, default `15m` (15 minutes ago). */
  start: TimeParam.optional(),
  /** End of the window, default now. */
  end: TimeParam.optional(),
  /** true adds the components linked to the subtree by component_relationships either way (and what hangs off them). */
  related: z.enum(['true', 'false'], { message: 'related: true or false' }).transform((s) => s === 'true').optional(),
  /** The logs' files (the reference's): `log` (default), one `[time] message {labels}` line each, or `json`. */
  logFormat: z.enum(['log', 'json'], { message: 'logFormat: log or json' }).optional(),
});
export type SnapshotQuery = z.infer<typeof SnapshotQuery>;

/** `manifest.json` in the zip: what was asked, and what each file holds. */
export const SnapshotManifest = z.object({
  component: z.object({ id: z.string(), name: z.string() }),
  start: z.string(),
  end: z.string(),
  related: z.boolean(),
  /** file name → rows written */
  files: z.record(z.string(), z.number()),
  /** files cut at their row bound (the newest rows are kept) */
  truncated: z.array(z.string()),
  /** files left out: the caller may not read them, or their feature is off */
  omitted: z.array(z.string()),
  /** components whose logs could not be read (a backend failed or was slow), one line each */
  logErrors: z.array(z.string()).optional(),
});
export type SnapshotManifest = z.infer<typeof SnapshotManifest>;

/** GET /api/topology/{id}/history?since=7d (at most 30d, the retention). */
export const HistoryQuery = z.object({ since: TimeParam.optional() });

export const ComponentHealth = z.enum(['healthy', 'unhealthy', 'warning', 'info', 'unknown']);

export const StatusTransition = z.object({
  status: z.string(),
  /** the status before (null when not known) */
  previous: z.string().nullable(),
  at: z.string(),
});
export type StatusTransition = z.infer<typeof StatusTransition>;

/**
 * One segment of the 7-day strip: 6 hours aligned to 00, 06, 12 and 18 UTC, the last one holding now (28 in all).
 * `status` is the worst the component held in it (unhealthy, warning, unknown, healthy, info, in that order; unknown
 * outranks healthy: a component that was not known for part of the segment is not shown as fine); null before the
 * component existed.
 */
export const HistoryBucket = z.object({ start: z.string(), status: z.string().nullable() });

export const HistoryResponse = z.object({
  status: z.string(),
  /** transitions since `since`, newest first */
  transitions: z.array(StatusTransition),
  buckets: z.array(HistoryBucket),
});
export type HistoryResponse = z.infer<typeof HistoryResponse>;

/**
 * GET /api/topology/{id}/impact: what would suffer if this component failed. Neither canary-checker nor
 * mission-control has an impact notion; ours, walked breadth first from the component X:
 * - `parent`: the parent of anything impacted is impacted (its health rolls up from its children), up to the root;
 * - `selector`: a component whose selectors picked anything impacted (a component_relationships row with it as
 *   `component_id` and the selector as `relationship_id`) depends on it, so it is impacted, and so on transitively.
 * X itself is not listed. Each component once (at its shortest distance: `depth` hops; `via` the component it was
 * reached from and how); cycles stop where they would repeat. At most 1,000 components: `truncated` says the walk was
 * cut. `checks` and `configs` are those linked to the impacted components; `teams` own X or an impacted component.
 */
export const ImpactComponent = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string().nullable(),
  icon: z.string().nullable(),
  status: z.string(),
  path: z.string().nullable(),
  depth: z.number(),
  via: z.object({ relation: z.enum(['parent', 'selector']), id: z.string() }),
});
export type ImpactComponent = z.infer<typeof ImpactComponent>;

export const ImpactResponse = z.object({
  components: z.array(ImpactComponent),
  checks: z.array(z.object({ id: z.string(), name: z.string(), type: z.string(), status: z.string().nullable(), component_id: z.string() })),
  configs: z.array(z.object({ id: z.string(), name: z.string().nullable(), type: z.string(), component_id: z.string() })),
  teams: z.array(z.object({ id: z.string(), name: z.string() })),
  /** the largest number of hops walked */
  depth: z.number(),
  truncated: z.boolean(),
});
export type ImpactResponse = z.infer<typeof ImpactResponse>;
