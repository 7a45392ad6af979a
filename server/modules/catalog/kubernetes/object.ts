import type { KubeObject } from '../../kubernetes/objects.js';

/**
 * A Kubernetes object as the API server sends it (plain JSON, any kind): what the catalog's extractor reads. It is a
 * KubeObject (what the health judge and the analyzers take) with the metadata a scrape needs besides.
 */
export interface KubeItem extends KubeObject {
  metadata: KubeObject['metadata'] & {
    creationTimestamp?: string;
    ownerReferences?: Array<{ apiVersion?: string; kind: string; name: string; uid: string; controller?: boolean }>;
    managedFields?: unknown[];
  };
  [key: string]: unknown;
}

export const TYPE_PREFIX = 'Kubernetes::';

/** The reference's alias of an object: `Kubernetes/<Kind>/<namespace>/<name>` (namespace empty when cluster-scoped). */
export function aliasOf(kind: string, namespace: string | undefined, name: string): string {
  return `Kubernetes/${kind}/${namespace ?? ''}/${name}`;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Annotations and labels the API server or controllers rewrite without the user changing anything (reference list). */
const VOLATILE_ANNOTATIONS = ['control-plane.alpha.kubernetes.io/leader', 'kubectl.kubernetes.io/last-applied-configuration'];
const VOLATILE_LABELS = [
  'controller-uid', 'batch.kubernetes.io/job-name', 'job-name', 'batch.kubernetes.io/controller-uid',
  'kubernetes.io/metadata.name', 'pod-template-generation',
];
/** Fields of each `status.conditions[]` entry that move on every heartbeat. */
const VOLATILE_CONDITION_FIELDS = ['lastTransitionTime', 'lastHeartbeatTime', 'lastUpdateTime', 'lastProbeTime', 'observedGeneration'];
/** Top-level status fields that move on their own (the reference's list, including the Canary CRD's). */
const VOLATILE_STATUS_FIELDS = ['observedGeneration', 'lastTransitionTime', 'lastCheck', 'lastTransitionedTime', 'latency1h', 'uptime1h'];

function without(rec: unknown, keys: readonly string[]): unknown {
  if (!isRecord(rec)) return rec;
  const out = { ...rec };
  for (const k of keys) delete out[k];
  return Object.keys(out).length ? out : undefined;
}

/**
 * The object as the catalog stores and diffs it: the reference's volatile fields dropped (resourceVersion, generation,
 * managedFields, last-applied-configuration, condition heartbeat and transition times, observedGeneration...), so an
 * unchanged object compares equal however often the API server touches it. Returns a copy; `obj` is not changed.
 */
export function cleanObject(obj: KubeItem): Record<string, unknown> {
  const out: Record<string, unknown> = { ...obj };
  const meta: Record<string, unknown> = { ...obj.metadata };
  delete meta.resourceVersion;
  delete meta.generation;
  delete meta.managedFields;
  const annotations = without(meta.annotations, VOLATILE_ANNOTATIONS);
  const labels = without(meta.labels, VOLATILE_LABELS);
  if (annotations === undefined) delete meta.annotations; else meta.annotations = annotations;
  if (labels === undefined) delete meta.labels; else meta.labels = labels;
  out.metadata = meta;
  if (isRecord(obj.status)) {
    const status: Record<string, unknown> = { ...obj.status };
    for (const k of VOLATILE_STATUS_FIELDS) delete status[k];
    if (isRecord(status.artifact)) status.artifact = without(status.artifact, ['lastUpdateTime']) ?? {};
    if (Array.isArray(status.conditions)) {
      status.conditions = status.conditions.map((c) => (isRecord(c) ? without(c, VOLATILE_CONDITION_FIELDS) ?? {} : c));
    }
    if (isRecord(status.checkStatus)) {
      status.checkStatus = Object.fromEntries(Object.entries(status.checkStatus)
        .map(([k, v]) => [k, without(v, ['lastTransitionedTime', 'latency1h', 'uptime1h']) ?? {}]));
    }
    out.status = status;
  }
  return out;
}

export const MASK = '***';

/** A Secret's values replaced by `***` (keys kept, so a key added or removed is still a change). */
export function maskSecret(obj: Record<string, unknown>): Record<string, unknown> {
  const out = { ...obj };
  for (const field of ['data', 'stringData']) {
    if (isRecord(out[field])) out[field] = Object.fromEntries(Object.keys(out[field] as object).map((k) => [k, MASK]));
  }
  return out;
}

/** The Deployment a ReplicaSet belongs to, by the controller's naming (`<deployment>-<pod-template-hash>`). */
export function deploymentOfReplicaSet(name: string): string {
  const i = name.lastIndexOf('-');
  return i > 0 ? name.slice(0, i) : name;
}

export function parseTime(v: unknown): Date | undefined {
  if (v instanceof Date) return v;
  if (typeof v !== 'string' || !v) return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? undefined : d;
}
