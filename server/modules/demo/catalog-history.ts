/**
 * The demo catalog's week: the recorded cluster and the repo's config files are their state now; each episode says
 * what one thing was before it changed, and when. Replaying the states oldest first through the real extractors and
 * the engine's save gives the diffs, insights (opened and resolved) and deletions a week of work would have.
 */

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** One change of the week: at `ago` before now, the object (or config) named took its current values at `paths`. */
export interface Episode {
  ago: number;
  /** Kubernetes objects: `Kind/namespace/name` (namespace empty when cluster-scoped); config files: the item's id. */
  target: string;
  /** The values before the change, by dotted path (`spec.replicas`, `status.containerStatuses.0.ready`). */
  before?: Record<string, unknown>;
  /** The object did not exist before the change. */
  created?: boolean;
  /** The object existed until the change (it is one of the recording's `earlier` objects). */
  removed?: boolean;
}

const CATALOG_POD = 'Pod/shop/catalog-api-';
const crashing = {
  'status.phase': 'Running',
  'status.conditions.1.status': 'False',
  'status.conditions.1.reason': 'ContainersNotReady',
  'status.conditions.1.message': 'containers with unready status: [catalog-api]',
  'status.containerStatuses.0.ready': false,
  'status.containerStatuses.0.started': false,
  'status.containerStatuses.0.restartCount': 17,
  'status.containerStatuses.0.state': { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container=catalog-api' } },
};

/** What happened in the demo cluster this week (the recording is the state after the last of them). */
export const CLUSTER_EPISODES: Episode[] = [
  // a catalog-api pod crash-looped on a bad database migration until it was fixed four days ago
  { ago: 4 * DAY, target: CATALOG_POD, before: crashing },
  { ago: 4 * DAY, target: 'Deployment/shop/catalog-api', before: { 'status.readyReplicas': 1, 'status.availableReplicas': 1, 'status.unavailableReplicas': 1 } },
  { ago: 5 * DAY, target: 'ConfigMap/shop/checkout-config', before: { 'data.MAX_CART_ITEMS': '30' } },
  { ago: 3 * DAY, target: 'Deployment/payments/payments-api', before: { 'spec.replicas': 1 } },
  // the checkout 1.9.0 rollout: a new ReplicaSet and pods, the old ones gone
  { ago: 2 * DAY, target: 'Deployment/shop/checkout', before: { 'spec.template.spec.containers.0.image': 'ghcr.io/acme/checkout:1.8.4' } },
  { ago: 2 * DAY, target: 'ReplicaSet/shop/checkout-309d1923c9', created: true },
  { ago: 2 * DAY, target: 'Pod/shop/checkout-309d1923c9-', created: true },
  { ago: 2 * DAY, target: 'ReplicaSet/shop/checkout-7c9f8b6d4e', removed: true },
  { ago: 2 * DAY, target: 'Pod/shop/checkout-7c9f8b6d4e-', removed: true },
  { ago: 2 * DAY, target: 'ConfigMap/shop/checkout-config', before: { 'data.LOG_LEVEL': 'debug' } },
  { ago: 6 * DAY, target: 'Node//node-a', before: { 'spec.unschedulable': true } },
  { ago: 1 * DAY, target: 'ConfigMap/shop/frontend-config', before: { 'data.FEATURE_RECOMMENDATIONS': 'false' } },
  { ago: 1 * DAY, target: 'Deployment/shop/recommendations', created: true },
  { ago: 1 * DAY, target: 'ReplicaSet/shop/recommendations-', created: true },
  { ago: 1 * DAY, target: 'Pod/shop/recommendations-', created: true },
  { ago: 1 * DAY, target: 'Service/shop/recommendations', created: true },
  { ago: 26 * HOUR, target: 'Job/platform/db-migrate-20260114', created: true },
  { ago: 26 * HOUR, target: 'Pod/platform/db-migrate-20260114-', created: true },
];

/** What changed in the repo's config files this week: items by id as the file scraper names them, paths in `config`. */
export const FILE_EPISODES: Episode[] = [
  { ago: 6 * DAY, target: 'svc-checkout', before: { 'config.env.LOG_LEVEL': 'debug', 'config.replicas': 1 } },
  { ago: 5 * DAY, target: 'db-ledger', before: { 'config.version': '16.4' } },
  { ago: 3 * DAY, target: 'feature-flags/production', before: { 'config.flags.new-checkout-flow.rollout': 10 } },
  { ago: 2 * DAY, target: 'svc-payments-api', before: { 'config.resources.memory': '128Mi' } },
  { ago: 1 * DAY, target: 'svc-recommendations-worker', created: true },
  { ago: 1 * DAY, target: 'feature-flags/production', before: { 'config.flags.recommendations-carousel.rollout': 25 } },
];

/** When the first state of the week was seen. */
export const WEEK_AGO = 7 * DAY;

function setPath(obj: unknown, path: string, value: unknown): void {
  const keys = path.split('.');
  let cur = obj as Record<string, unknown>;
  for (const k of keys.slice(0, -1)) {
    if (cur[k] === null || typeof cur[k] !== 'object') cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  const last = keys[keys.length - 1];
  if (value === undefined) delete cur[last];
  else cur[last] = structuredClone(value);
}

/**
 * The states of the week, oldest first (a week ago, after each episode, and now): at each time, `current` (with the
 * objects removed during the week) with every later episode undone (latest undone first). `keyOf` names an entry as episodes target it; a target ending in `-` matches by prefix (a generated name).
 */
export function statesOfWeek<T>(current: T[], episodes: Episode[], keyOf: (t: T) => string, now: number): Array<{ at: Date; items: T[] }> {
  const times = [...new Set([WEEK_AGO, ...episodes.map((e) => e.ago), 0])].sort((a, b) => b - a);
  const matches = (e: Episode, key: string) => (e.target.endsWith('-') ? key.startsWith(e.target) : key === e.target);
  return times.map((ago) => {
    const later = episodes.filter((e) => e.ago < ago).sort((a, b) => a.ago - b.ago);
    const items: T[] = [];
    for (const item of current) {
      const key = keyOf(item);
      const undo = later.filter((e) => matches(e, key));
      if (undo.some((e) => e.created)) continue;
      // gone before this time: removed by an episode that is not later
      if (episodes.some((e) => e.removed && matches(e, key)) && !undo.some((e) => e.removed)) continue;
      const copy = structuredClone(item);
      for (const e of undo) for (const [path, value] of Object.entries(e.before ?? {})) setPath(copy, path, value);
      items.push(copy);
    }
    return { at: new Date(now - ago), items };
  });
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** A copy with every RFC 3339 timestamp moved by `deltaMs`: the recording replayed as if it were made just now. */
export function shiftTimes<T>(value: T, deltaMs: number): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return TIMESTAMP.test(v) ? new Date(Date.parse(v) + deltaMs).toISOString().replace(/\.000Z$/, 'Z') : v;
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}
