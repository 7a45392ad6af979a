import type { KubeObject } from '../../kubernetes/objects.js';
import type { ScrapedAnalysis } from '../types.js';
import { type Obj, arr, num, present, rec, str } from './health-status.js';

/**
 * Insights about Kubernetes objects, one per item and analyzer (the engine upserts on (config_id, analyzer) and
 * resolves the open ones not reported again for the types the extractor analysed):
 * - failing pods: CrashLoopBackOff, ImagePullBackOff (or ErrImagePull), running but not ready;
 * - unavailable replicas of Deployments, StatefulSets and DaemonSets;
 * - Trivy's misconfiguration checks, with Trivy's titles and severities: KSV011 CPU not limited, KSV018 Memory not
 *   limited, KSV013 Image tag ":latest" used, KSV012 Runs as root user. These look at the object a user writes: a
 *   workload without owner (a Deployment, not its ReplicaSets and Pods), so one mistake is one insight, not three.
 */

export const ANALYZERS = {
  crashLoop: 'CrashLoopBackOff',
  imagePull: 'ImagePullBackOff',
  notReady: 'Pod not ready',
  unavailable: 'Unavailable replicas',
  cpu: 'CPU not limited',
  memory: 'Memory not limited',
  latest: 'Image tag ":latest" used',
  root: 'Runs as root user',
} as const;

const SOURCE = 'Kubernetes';

interface Check {
  analyzer: string;
  id: string;
  analysisType: string;
  severity: string;
  /** The container's failure message, as Trivy words it; undefined when the container passes. */
  fails(c: Obj, pod: Obj, kind: string, name: string): string | undefined;
  recommendation: string;
}

const containerOf = (c: Obj, kind: string, name: string) => `Container '${str(c.name)}' of ${kind} '${name}'`;

/** An image without a digest whose tag is absent or `latest` (Trivy KSV013). */
export function usesLatest(image: string): boolean {
  if (image.includes('@')) return false;
  const last = image.split('/').pop() ?? '';
  const tag = last.includes(':') ? last.slice(last.lastIndexOf(':') + 1) : '';
  return tag === '' || tag === 'latest';
}

const CHECKS: Check[] = [
  {
    analyzer: ANALYZERS.cpu, id: 'KSV011', analysisType: 'reliability', severity: 'low',
    recommendation: "Set a limit value under 'containers[].resources.limits.cpu'.",
    fails: (c, _p, kind, name) => (present(rec(rec(c.resources).limits).cpu) ? undefined : `${containerOf(c, kind, name)} should set 'resources.limits.cpu'`),
  },
  {
    analyzer: ANALYZERS.memory, id: 'KSV018', analysisType: 'reliability', severity: 'low',
    recommendation: "Set a limit value under 'containers[].resources.limits.memory'.",
    fails: (c, _p, kind, name) => (present(rec(rec(c.resources).limits).memory) ? undefined : `${containerOf(c, kind, name)} should set 'resources.limits.memory'`),
  },
  {
    analyzer: ANALYZERS.latest, id: 'KSV013', analysisType: 'reliability', severity: 'medium',
    recommendation: "Use a specific container image tag that is not 'latest'.",
    fails: (c, _p, kind, name) => (usesLatest(str(c.image)) ? `${containerOf(c, kind, name)} should specify an image tag` : undefined),
  },
  {
    analyzer: ANALYZERS.root, id: 'KSV012', analysisType: 'security', severity: 'medium',
    recommendation: "Set 'containers[].securityContext.runAsNonRoot' to true.",
    // Trivy passes a container whose own or whose pod's securityContext says runAsNonRoot: true
    fails: (c, pod, kind, name) => (rec(c.securityContext).runAsNonRoot === true || rec(pod.securityContext).runAsNonRoot === true
      ? undefined : `${containerOf(c, kind, name)} should set 'securityContext.runAsNonRoot' to true`),
  },
];

type Meta = { uid?: string; name?: string; namespace?: string; ownerReferences?: unknown[] };
const metaOf = (o: Obj): Meta => rec(o.metadata) as Meta;
const refOf = (o: Obj) => ({ type: `Kubernetes::${str(o.kind)}`, externalId: str(metaOf(o).uid) });

/** The pod spec a workload runs: a Pod's own, a template's, a CronJob's job template's. */
function podSpecOf(o: Obj): Obj | undefined {
  const spec = rec(o.spec);
  switch (str(o.kind)) {
    case 'Pod': return spec;
    case 'Deployment': case 'ReplicaSet': case 'StatefulSet': case 'DaemonSet': case 'Job': return rec(rec(spec.template).spec);
    case 'CronJob': return rec(rec(rec(rec(spec.jobTemplate).spec).template).spec);
    default: return undefined;
  }
}

function misconfigurations(o: Obj): ScrapedAnalysis[] {
  if (arr(metaOf(o).ownerReferences).length > 0) return [];
  const pod = podSpecOf(o);
  if (!pod) return [];
  const containers = [...arr(pod.initContainers), ...arr(pod.containers)].map(rec);
  const kind = str(o.kind);
  const name = str(metaOf(o).name);
  const out: ScrapedAnalysis[] = [];
  for (const check of CHECKS) {
    const messages = containers.map((c) => check.fails(c, pod, kind, name)).filter((m): m is string => !!m);
    if (!messages.length) continue;
    out.push({
      item: refOf(o), analyzer: check.analyzer, analysisType: check.analysisType, severity: check.severity, source: SOURCE,
      summary: check.analyzer, message: messages.join('\n'),
      analysis: { id: check.id, title: check.analyzer, recommendation: check.recommendation, messages },
    });
  }
  return out;
}

function failingPod(o: Obj): ScrapedAnalysis[] {
  if (str(o.kind) !== 'Pod' || rec(o.metadata).deletionTimestamp) return [];
  const status = rec(o.status);
  const statuses = [...arr(status.initContainerStatuses), ...arr(status.containerStatuses)].map(rec);
  const waiting = statuses.map((cs) => {
    const w = rec(rec(cs.state).waiting);
    return { name: str(cs.name), reason: str(w.reason), message: str(w.message), restarts: num(cs.restartCount) };
  }).filter((w) => w.reason);
  const name = str(metaOf(o).name);
  const out: ScrapedAnalysis[] = [];
  const report = (analyzer: string, severity: string, analysisType: string, found: typeof waiting, fallback: string) => {
    out.push({
      item: refOf(o), analyzer, analysisType, severity, source: SOURCE,
      summary: `${analyzer}: ${name}`,
      message: found.map((w) => `${w.name}: ${w.message || w.reason}`).join('\n') || fallback,
      analysis: { containers: found },
    });
  };
  const crash = waiting.filter((w) => w.reason === 'CrashLoopBackOff');
  if (crash.length) report(ANALYZERS.crashLoop, 'high', 'availability', crash, '');
  const pull = waiting.filter((w) => w.reason === 'ImagePullBackOff' || w.reason === 'ErrImagePull');
  if (pull.length) report(ANALYZERS.imagePull, 'high', 'availability', pull, '');
  // a running pod that is not ready, for a reason other than the two above (a failing readiness probe)
  const ready = arr(status.conditions).map(rec).find((c) => str(c.type) === 'Ready');
  if (!crash.length && !pull.length && str(status.phase) === 'Running' && ready && str(ready.status) !== 'True') {
    report(ANALYZERS.notReady, 'medium', 'availability', [], `${str(ready.reason)} ${str(ready.message)}`.trim() || 'the pod is not ready');
  }
  return out;
}

function unavailableReplicas(o: Obj): ScrapedAnalysis[] {
  const st = rec(o.status);
  let desired: number;
  let available: number;
  switch (str(o.kind)) {
    case 'Deployment': case 'StatefulSet':
      desired = present(rec(o.spec).replicas) ? num(rec(o.spec).replicas) : 1;
      available = str(o.kind) === 'Deployment' ? num(st.availableReplicas) : num(st.availableReplicas ?? st.readyReplicas);
      break;
    case 'DaemonSet':
      desired = num(st.desiredNumberScheduled);
      available = num(st.numberAvailable);
      break;
    default: return [];
  }
  if (desired <= 0 || available >= desired) return [];
  const kind = str(o.kind);
  const name = str(metaOf(o).name);
  return [{
    item: refOf(o), analyzer: ANALYZERS.unavailable, analysisType: 'availability', severity: available === 0 ? 'high' : 'medium',
    source: SOURCE, summary: `${kind} '${name}' has ${desired - available} unavailable ${desired - available === 1 ? 'replica' : 'replicas'}`,
    message: `${available} of ${desired} replicas available`, analysis: { desired, available },
  }];
}

/** Insights about Kubernetes objects (failing pods, unavailable replicas, missing limits, :latest, root). */
export function analyzeKubernetes(objs: KubeObject[]): ScrapedAnalysis[] {
  const out: ScrapedAnalysis[] = [];
  for (const obj of objs) {
    const o = obj as unknown as Obj;
    if (!str(metaOf(o).uid)) continue; // an item is found by its uid; an object without one is no item
    out.push(...failingPod(o), ...unavailableReplicas(o), ...misconfigurations(o));
  }
  return out;
}
