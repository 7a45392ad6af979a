import type { KubeObject } from '../../kubernetes/objects.js';
import type { Health } from '../types.js';
import {
  cronJobHealth, daemonSetHealth, deploymentHealth, ingressHealth, jobHealth, namespaceHealth, nodeHealth, pvcHealth,
  replicaSetHealth, serviceHealth, statefulSetHealth,
} from './health-kinds.js';
import { podHealth } from './health-pod.js';
import { type Judged, type Obj, ageOf, conditionsOf, HOUR, rec, shortHumanDuration, str, truncate } from './health-status.js';

export interface KubeHealth {
  health: Health;
  status: string;
  message?: string;
  ready: boolean;
}

type Judge = (obj: Obj, now: number) => Judged;

/**
 * The kinds with their own judgement, by `<group>/<kind>` (core group empty), as is-healthy's GetHealthCheckFunc:
 * one line per kind. Any other kind (ConfigMap, Secret, RoleBinding, custom resources) is judged by its conditions.
 */
const JUDGES: Record<string, Judge> = {
  '/Pod': podHealth,
  '/Service': serviceHealth,
  '/PersistentVolumeClaim': pvcHealth,
  '/Namespace': namespaceHealth,
  'apps/Deployment': deploymentHealth,
  'apps/ReplicaSet': replicaSetHealth,
  'apps/StatefulSet': statefulSetHealth,
  'apps/DaemonSet': daemonSetHealth,
  'batch/Job': jobHealth,
  'batch/CronJob': cronJobHealth,
  'networking.k8s.io/Ingress': ingressHealth,
  'extensions/Ingress': ingressHealth,
};

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.split('/')[0] : '');

function judgeOf(obj: Obj): Judge | undefined {
  const kind = str(obj.kind);
  if (kind === 'Node') return nodeHealth; // is-healthy judges any group's Node
  return JUDGES[`${groupOf(str(obj.apiVersion))}/${kind}`];
}

// Argo-style statuses that a condition's reason may name better (is-healthy's isArgoHealth)
const VAGUE = new Set(['Suspended', 'Degraded', 'Progressing']);

/**
 * The default judgement from status conditions (is-healthy's `default` status map): `Ready` True is healthy and
 * ready, `Ready` False is unhealthy with the condition's reason as status. We also read `Available` the same way when
 * there is no `Ready`, for kinds without a judgement of their own (is-healthy leaves them unknown): many custom
 * resources report only `Available`.
 */
function conditionHealth(obj: Obj, readAvailable: boolean): Judged {
  const hs: Judged = { health: 'unknown', status: '', message: '', ready: false };
  const conditions = conditionsOf(obj);
  const type = readAvailable && !conditions.some((c) => c.type === 'Ready') ? 'Available' : 'Ready';
  for (const c of conditions) {
    if (c.type !== type) continue;
    if (c.status === 'True') {
      hs.ready = true;
      hs.health = 'healthy';
      if (c.reason) hs.status = c.reason;
    } else if (c.status === 'False') {
      hs.health = 'unhealthy';
      if (!hs.status && c.reason) hs.status = c.reason;
    }
  }
  return hs;
}

/**
 * The health, status and message of a Kubernetes object, judged per kind as flanksource/is-healthy does (pods by
 * their containers, workloads by replicas and rollout, nodes by conditions and cordon, ...); `now` is for tests and
 * replays of recorded objects. An object being deleted is `Terminating` (and a warning after an hour).
 */
export function kubernetesHealth(obj: KubeObject, now: Date = new Date()): KubeHealth {
  const o = obj as unknown as Obj;
  const at = now.getTime();
  const deletion = rec(o.metadata).deletionTimestamp;
  const terminatingFor = deletion ? ageOf(deletion, at) : 0;
  if (deletion && terminatingFor > HOUR) {
    return { health: 'warning', status: 'TerminatingStalled', message: `terminating for ${shortHumanDuration(truncate(terminatingFor, HOUR))}`, ready: false };
  }

  const judge = judgeOf(o);
  let hs: Judged | undefined = judge?.(o, at);
  if (!hs || !hs.status || VAGUE.has(hs.status)) {
    const fallback = conditionHealth(o, !judge);
    if (!hs) hs = fallback;
    if (!hs.status) hs.status = fallback.status;
    if (fallback.status && VAGUE.has(hs.status) && !VAGUE.has(fallback.status)) hs.status = fallback.status;
    if (!hs.message) hs.message = fallback.message;
  }
  if (deletion) {
    hs.status = 'Terminating';
    hs.ready = false;
  }
  const message = hs.message.trim() ? hs.message : undefined;
  return { health: hs.health, status: hs.status, ready: hs.ready, ...(message !== undefined ? { message } : {}) };
}
