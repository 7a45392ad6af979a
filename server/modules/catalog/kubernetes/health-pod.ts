import {
  type Judged, type Obj, ageOf, appendMessage, arr, atLeast, containersOf, findCondition, goDuration, HOUR, merge, MINUTE, num, rec,
  startDeadline, str, truncate, worst,
} from './health-status.js';

/** A pod's health as is-healthy judges it: phase, container waiting/terminated states, readiness, restarts, age. */

const isErrorReason = (s: string) => s.startsWith('Err') || s.endsWith('Error') || s.endsWith('BackOff');
const plural = (s: string, n: number) => (n === 1 ? s : `${s}s`);

function containerState(cs: Obj, now: number): { waiting: Judged | null; terminated: Judged | null } {
  let waiting: Judged | null = null;
  let terminated: Judged | null = null;
  const restarts = num(cs.restartCount);
  const w = rec(cs.state).waiting;
  if (w) {
    const reason = str(rec(w).reason);
    waiting = {
      status: reason, message: str(rec(w).message), ready: false,
      health: isErrorReason(reason) || restarts > 0 ? 'unhealthy' : 'unknown',
    };
  }
  const t = rec(cs.lastState).terminated;
  if (t) {
    const last = rec(t);
    const age = ageOf(last.finishedAt, now);
    const reason = str(last.reason);
    const exitCode = num(last.exitCode);
    if (restarts === 0 && exitCode === 0) {
      terminated = { status: 'Completed', health: 'healthy', message: '', ready: false };
    } else if (age < 24 * HOUR) {
      // an old crash says nothing about the pod now: only the last day counts, the last hour as unhealthy
      terminated = { status: '', health: age < HOUR ? 'unhealthy' : 'warning', message: str(last.message), ready: false };
      if (restarts > 0) appendMessage(terminated, `restarted ${restarts} ${plural('time', restarts)}`);
      if (reason === 'Error') {
        if (age < 15 * MINUTE) terminated.status = restarts === 1 ? 'CrashedOnce' : 'CrashLoopBackOff';
        else if (age < HOUR) terminated.status = 'Restarted';
      } else if (reason === 'Completed' && exitCode !== 0) {
        terminated.status = reason;
        appendMessage(terminated, `exit=${exitCode}`);
      } else if (reason === 'Completed') {
        terminated.status = waiting?.status === 'CrashLoopBackOff' ? 'RestartLoopBackOff' : 'RestartLoop';
      } else {
        terminated.status = reason;
      }
    }
  }
  return { waiting, terminated };
}

/** The worst waiting and the worst terminated state over all containers (init containers included). */
function podStates(statuses: Obj[], now: number) {
  let waiting: Judged | null = null;
  let terminated: Judged | null = null;
  for (const cs of statuses) {
    const s = containerState(cs, now);
    if (s.waiting && (!waiting || atLeast(s.waiting.health, waiting.health))) waiting = s.waiting;
    if (s.terminated && (!terminated || atLeast(s.terminated.health, terminated.health))) terminated = s.terminated;
  }
  return { waiting, terminated };
}

export function podHealth(pod: Obj, now: number): Judged {
  const meta = rec(pod.metadata);
  const spec = rec(pod.spec);
  const status = rec(pod.status);
  const readyCond = findCondition(pod, 'Ready');
  const isReady = readyCond?.status === 'True';
  let hr: Judged = {
    health: isReady ? 'healthy' : 'unhealthy', ready: isReady, status: '',
    message: readyCond ? `${readyCond.reason} ${readyCond.message}` : '',
  };

  if (meta.deletionTimestamp) {
    const terminatingFor = ageOf(meta.deletionTimestamp, now);
    const stuck = terminatingFor >= 15 * MINUTE;
    return {
      status: 'Terminating', ready: false, health: stuck ? 'warning' : 'unknown',
      message: stuck ? `stuck in 'Terminating' for ${goDuration(truncate(terminatingFor, MINUTE))}` : '',
    };
  }
  if (str(status.reason) === 'Evicted') return { health: 'warning', status: 'Evicted', ready: true, message: str(status.message) };
  for (const c of arr(status.conditions).map(rec)) {
    if (str(c.reason) === 'Unschedulable') return { health: 'unhealthy', status: 'Unschedulable', ready: false, message: str(c.message) };
  }

  const { waiting, terminated } = podStates([...arr(status.initContainerStatuses), ...arr(status.containerStatuses)].map(rec), now);
  const phase = str(status.phase);
  if (phase === 'Succeeded') return { health: 'healthy', status: 'Completed', ready: true, message: str(status.message) };
  if (phase === 'Failed') {
    hr = { ...hr, health: 'unhealthy', ready: true, status: hr.status || 'Failed', message: str(status.message) || hr.message };
  } else if (phase === 'Running' || phase === 'Pending') {
    hr = merge(hr, terminated, waiting);
    if (terminated && atLeast(terminated.health, 'warning') && ['CrashLoopBackOff', 'CrashedOnce'].includes(hr.status)) {
      hr.status = terminated.status;
      hr.health = worst(hr.health, terminated.health);
    }
    hr.status = hr.status || 'Running';
    hr.health = worst(hr.health, isReady ? 'healthy' : 'unhealthy');
  }

  // a pod younger than its start deadline is still starting: not unhealthy yet, unless it was OOMKilled on the way
  const age = Math.abs(truncate(ageOf(meta.creationTimestamp, now), MINUTE));
  if (age < startDeadline(containersOf(spec)) && atLeast(hr.health, 'warning')) {
    hr.health = 'unknown';
    hr.message = `${hr.status} ${hr.message}`.trim();
    hr.status = 'Starting';
    if (terminated?.status === 'OOMKilled') {
      hr.health = 'unhealthy';
      hr.status = 'Starting OOMKilled';
    }
  }
  return hr;
}
