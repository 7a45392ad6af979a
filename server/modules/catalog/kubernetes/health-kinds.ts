import type { Health } from '../types.js';
import {
  type Judged, type Obj, ageOf, arr, findCondition, HOUR, humanCase, MINUTE, num, rec, startDeadline, str,
  timeOf, truncate, worst, atLeast, containersOf, goDuration,
} from './health-status.js';

/** Health per built-in kind other than Pod, as flanksource/is-healthy judges them. */

interface Replicas { obj: Obj; containers: Obj[]; desired: number; replicas: number; ready: number; updated: number }

function replicaMessage(s: Replicas): string {
  let m = `${s.ready}/${s.desired} ready`;
  if (s.replicas !== s.updated) m += `, ${s.replicas - s.updated} updating`;
  if (s.replicas > s.desired) m += `, ${s.replicas - s.desired} terminating`;
  return m;
}

/** Deployments, ReplicaSets and StatefulSets: replicas against desired, rollout progress and its deadline. */
function replicaHealth(s: Replicas, now: number): Judged {
  const hs: Judged = { health: 'unknown', status: '', message: replicaMessage(s), ready: false };
  const age = Math.abs(truncate(ageOf(rec(s.obj.metadata).creationTimestamp, now), MINUTE));
  const available = findCondition(s.obj, 'Available');
  const isAvailable = available?.status ? available.status === 'True' : s.ready > 0;
  const progressing = findCondition(s.obj, 'Progressing');
  const failure = findCondition(s.obj, 'ReplicaFailure');
  if (failure?.status === 'True') return { status: 'Failed Create', health: 'unhealthy', message: failure.message, ready: true };

  const isStarting = age < startDeadline(s.containers);
  const deadlineExceeded = !isStarting && progressing?.reason === 'ProgressDeadlineExceeded';
  hs.ready = progressing?.status === 'True' && progressing.reason !== 'ReplicaSetUpdated';
  hs.health = isAvailable ? 'healthy' : s.ready > 0 ? 'warning' : 'unhealthy';

  if (s.desired === 0 && s.replicas === 0) return { ...hs, ready: true, status: 'Scaled to Zero', health: 'unknown' };
  if (s.replicas === 0) {
    hs.status = deadlineExceeded ? 'Failed Create' : 'Pending';
    hs.health = deadlineExceeded ? 'unhealthy' : 'unknown';
  } else if (s.ready === 0 && isStarting) {
    hs.status = 'Starting';
    if (deadlineExceeded) hs.health = 'unhealthy';
  } else if (s.ready === 0) {
    hs.status = isAvailable ? 'Updating' : 'CrashLoopBackOff';
  }

  if (deadlineExceeded) {
    hs.status = 'Rollout Failed';
    hs.health = worst(hs.health, 'warning');
  } else if (s.desired === 0 && s.replicas > 0) hs.status = 'Scaling Down';
  else if (s.ready === s.desired && s.desired === s.updated && s.replicas === s.desired) hs.status = 'Running';
  else if (!isStarting && s.desired !== s.updated) hs.status = 'Rolling Out';
  else if (s.replicas > s.desired) hs.status = 'Scaling Down';
  else if (s.replicas < s.desired) hs.status = 'Scaling Up';

  if (s.replicas !== s.desired || s.replicas !== s.updated) hs.ready = false;
  if (isStarting && (hs.health === 'unhealthy' || hs.health === 'warning')) hs.health = 'unknown';
  return hs;
}

const templateContainers = (obj: Obj) => arr(rec(rec(rec(obj.spec).template).spec).containers).map(rec);
// an absent spec.replicas counts as 0, as in is-healthy (the API server always fills it in)
const desiredOf = (obj: Obj) => num(rec(obj.spec).replicas);

export function deploymentHealth(obj: Obj, now: number): Judged {
  const st = rec(obj.status);
  const hs = replicaHealth({
    obj, containers: templateContainers(obj), desired: desiredOf(obj), replicas: num(st.replicas), ready: num(st.readyReplicas),
    updated: num(st.updatedReplicas),
  }, now);
  if (rec(obj.spec).paused === true) return { ...hs, status: 'Suspended', ready: false };
  return hs;
}

export function replicaSetHealth(obj: Obj, now: number): Judged {
  const st = rec(obj.status);
  const hs = replicaHealth({
    obj, containers: templateContainers(obj), desired: desiredOf(obj), replicas: num(st.replicas), ready: num(st.readyReplicas),
    updated: num(st.fullyLabeledReplicas),
  }, now);
  if (num(rec(obj.metadata).generation) !== num(st.observedGeneration)) {
    hs.status = 'Updating';
    hs.ready = false;
  }
  const failure = findCondition(obj, 'ReplicaFailure');
  if (hs.health !== 'unhealthy' && failure?.status === 'True') {
    return { ready: true, health: 'unhealthy', status: humanCase(failure.reason), message: failure.message };
  }
  return hs;
}

export function statefulSetHealth(obj: Obj, now: number): Judged {
  const st = rec(obj.status);
  const hs = replicaHealth({
    obj, containers: templateContainers(obj), desired: desiredOf(obj), replicas: num(st.replicas), ready: num(st.readyReplicas),
    updated: num(st.updatedReplicas),
  }, now);
  return { ...hs, ready: num(st.replicas) === num(st.updatedReplicas) };
}

export function daemonSetHealth(obj: Obj): Judged {
  const st = rec(obj.status);
  const desired = num(st.desiredNumberScheduled);
  const updated = num(st.updatedNumberScheduled);
  const available = num(st.numberAvailable);
  const ready = num(st.numberReady);
  const unavailable = num(st.numberUnavailable);
  const fullyAvailable = desired === 0 || (available === desired && ready === desired);
  const health: Health = desired === 0 ? 'unknown' : fullyAvailable ? 'healthy' : available > 0 || ready > 0 ? 'warning' : 'unhealthy';
  if (str(rec(rec(obj.spec).updateStrategy).type) === 'OnDelete') {
    return { health, ready: fullyAvailable, status: 'Running', message: `${updated} of ${desired} pods updated` };
  }
  if (updated !== desired) return { health, ready: false, status: 'Rolling Out', message: `${updated} of ${desired} pods updated` };
  if (!fullyAvailable) {
    return {
      health, ready: false, status: 'PartiallyAvailable',
      message: `DaemonSet not fully available: ${unavailable} unavailable ${unavailable === 1 ? 'replica' : 'replicas'} `
        + `(${available}/${desired} available, ${ready}/${desired} ready)\n`,
    };
  }
  return { health, ready: true, status: 'Running', message: '' };
}

export function jobHealth(obj: Obj): Judged {
  for (const c of arr(rec(obj.status).conditions).map(rec)) {
    const type = str(c.type);
    // as is-healthy: a Failed or Complete condition decides whatever its status
    if (type === 'Failed') return { ready: true, health: 'unhealthy', status: str(c.reason), message: str(c.message) };
    if (type === 'Complete') return { ready: true, health: 'healthy', status: 'Completed', message: str(c.message) };
    if (type === 'Suspended' && str(c.status) === 'True') return { ready: false, health: 'unknown', status: 'Suspended', message: str(c.message) };
  }
  return { health: 'healthy', status: 'Running', ready: false, message: '' };
}

/** Go's reference layout "2006-01-02 15:04:05 -0700", in UTC. */
const goTime = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} +0000`;

export function cronJobHealth(obj: Obj): Judged {
  const st = rec(obj.status);
  const scheduled = timeOf(st.lastScheduleTime);
  const succeeded = timeOf(st.lastSuccessfulTime);
  if (Number.isNaN(scheduled)) return { health: 'unknown', status: '', ready: false, message: 'Not scheduled yet' };
  if (Number.isNaN(succeeded)) return { health: 'unhealthy', status: 'Error', ready: false, message: 'No successful run yet' };
  if (arr(st.active).length > 0) return { health: 'healthy', status: 'Running', ready: false, message: `Running since ${goTime(scheduled)}` };
  if (succeeded < scheduled) {
    return { ready: true, health: 'unhealthy', status: 'Error', message: `Last run failed, last successful run was ${goTime(succeeded)}` };
  }
  return { ready: true, health: 'healthy', status: 'Completed', message: `Last run at ${goTime(scheduled)} for ${goDuration(succeeded - scheduled)}` };
}

// Node conditions that should be False (or True for EtcdIsVoter), and how bad it is when they are not (is-healthy)
const NODE_CONDITIONS: Record<string, { expected: string; severity: Health }> = {
  NetworkUnavailable: { expected: 'False', severity: 'unhealthy' },
  DiskPressure: { expected: 'False', severity: 'warning' },
  MemoryPressure: { expected: 'False', severity: 'warning' },
  PIDPressure: { expected: 'False', severity: 'warning' },
  EtcdIsVoter: { expected: 'True', severity: 'warning' },
  ...Object.fromEntries([
    'CorruptDockerOverlay2', 'KernelDeadlock', 'ReadonlyFilesystem', 'FrequentContainerdRestart', 'FrequentDockerRestart',
    'FrequentKubeletRestart', 'FrequentGcfsSnapshotterRestart', 'FrequentGcfsdRestart', 'FrequentUnregisterNetDevice',
    'GcfsSnapshotterUnhealthy', 'GcfsdUnhealthy', 'GcfsSnapshotterMissingLayer', 'SecondaryBootDiskMissingLayer',
  ].map((t) => [t, { expected: 'False', severity: 'warning' as Health }])),
  ...Object.fromEntries([
    'DeprecatedAuthsFieldInContainerdConfiguration', 'DeprecatedConfigsFieldInContainerdConfiguration',
    'DeprecatedMirrorsFieldInContainerdConfiguration', 'DeprecatedOtherContainerdFeatures', 'DeprecatedPullingSchemaV1Image',
    'DeprecatedUsingV1Alpha2Cri',
  ].map((t) => [t, { expected: 'False', severity: 'healthy' as Health }])),
};

export function nodeHealth(obj: Obj): Judged {
  const phase = str(rec(obj.status).phase);
  const hs: Judged = { status: phase, health: 'unknown', ready: false, message: '' };
  if (phase !== 'Running' && phase !== '') return hs;
  for (const c of arr(rec(obj.status).conditions).map(rec)) {
    const type = str(c.type);
    if (type === 'Ready') {
      if (str(c.status) !== 'True') return { ...hs, health: 'unhealthy', status: humanCase(type), message: str(c.message) };
      hs.ready = true;
      hs.health = worst(hs.health, 'healthy');
      if (hs.health === 'healthy') hs.status = 'Running';
      continue;
    }
    const expectation = NODE_CONDITIONS[type];
    if (expectation && str(c.status) !== expectation.expected) {
      const next = worst(hs.health, expectation.severity);
      if (atLeast(next, hs.health)) {
        hs.status = humanCase(type);
        hs.message = str(c.message);
      }
      hs.health = next;
    }
  }
  // cordoned: is-healthy reads the taint the node lifecycle controller adds; spec.unschedulable is the same fact, earlier
  const taints = arr(rec(obj.spec).taints).map(rec);
  const cordoned = rec(obj.spec).unschedulable === true
    || taints.some((t) => str(t.key) === 'node.kubernetes.io/unschedulable' && str(t.effect) === 'NoSchedule');
  if (cordoned) {
    const next = worst(hs.health, 'warning');
    if (atLeast(next, hs.health)) hs.status = 'Unschedulable';
    hs.health = next;
  }
  return hs;
}

export function namespaceHealth(obj: Obj): Judged {
  if (str(rec(obj.status).phase) === 'Active') return { ready: true, health: 'unknown', status: 'Healthy', message: '' };
  return { ready: false, health: 'unknown', status: 'Terminating', message: '' };
}

export function serviceHealth(obj: Obj, now: number): Judged {
  if (str(rec(obj.spec).type) !== 'LoadBalancer') return { ready: true, status: 'Unknown', health: 'unknown', message: '' };
  if (arr(rec(rec(obj.status).loadBalancer).ingress).length > 0) return { ready: true, status: 'Running', health: 'healthy', message: '' };
  // a cloud load balancer takes minutes to provision: only an hour without one is a problem
  const age = ageOf(rec(obj.metadata).creationTimestamp, now);
  return { ready: false, status: 'Creating', health: age < HOUR ? 'unknown' : 'unhealthy', message: '' };
}

export function ingressHealth(obj: Obj): Judged {
  const ingress = rec(rec(obj.status).loadBalancer).ingress;
  if (!Array.isArray(ingress)) return { health: 'healthy', status: 'Pending', ready: false, message: 'ingress loadbalancer status not found' };
  if (ingress.length > 0) return { health: 'healthy', status: 'Healthy', ready: true, message: '' };
  return { health: 'unknown', status: 'Pending', ready: false, message: '' };
}

export function pvcHealth(obj: Obj): Judged {
  switch (str(rec(obj.status).phase)) {
    case 'Lost': return { health: 'unhealthy', status: 'Degraded', ready: false, message: '' };
    case 'Pending': return { health: 'healthy', status: 'Progressing', ready: false, message: '' };
    case 'Bound': return { health: 'healthy', status: 'Healthy', ready: true, message: '' };
    default: return { health: 'unknown', status: 'Unknown', ready: false, message: '' };
  }
}
