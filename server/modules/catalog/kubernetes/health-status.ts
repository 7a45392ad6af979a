import type { Health } from '../types.js';

/**
 * The building blocks of the Kubernetes health judgement (health.ts): a working status with is-healthy's merge rules,
 * and loose readers for unstructured objects (a scraped object is JSON; nothing in it can be trusted to have a shape).
 */

export interface Judged {
  health: Health;
  status: string;
  message: string;
  ready: boolean;
  /** is-healthy's condition order: a later condition of a higher order wins the status and message. */
  order?: number;
}

// is-healthy's healthOrder: unknown < healthy < warning < unhealthy
const RANK: Record<Health, number> = { unknown: 0, healthy: 1, warning: 2, unhealthy: 3 };

export const worst = (...hs: Health[]): Health => hs.reduce((a, b) => (RANK[b] >= RANK[a] ? b : a));
/** is-healthy's IsWorseThan: worse or as bad. */
export const atLeast = (h: Health, than: Health): boolean => RANK[h] >= RANK[than];

/** is-healthy's HealthStatus.Merge: the worst health wins (with its status), ready only if both are, messages joined. */
export function merge(base: Judged, ...others: Array<Judged | null>): Judged {
  const hs = { ...base };
  for (const other of others) {
    if (!other) continue;
    hs.status = hs.status || other.status;
    hs.health = worst(hs.health, other.health);
    if (atLeast(other.health, hs.health)) {
      hs.health = other.health;
      hs.status = other.status;
    }
    hs.ready = hs.ready && other.ready;
    hs.message = hs.message.trim();
    hs.message = hs.message ? [hs.message, other.message].filter(Boolean).join(', ') : other.message;
  }
  return hs;
}

export function appendMessage(hs: Judged, msg: string): void {
  if (!msg) return;
  if (hs.message.trim()) hs.message += ', ';
  hs.message += msg;
}

export type Obj = Record<string, unknown>;
export const rec = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');
export const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
export const present = (v: unknown): boolean => v !== undefined && v !== null;

/** Milliseconds since the epoch of a Kubernetes timestamp (RFC 3339 string or Date); NaN when absent. */
export function timeOf(v: unknown): number {
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'string' && v) return Date.parse(v);
  return NaN;
}

/** How long ago a timestamp was; an absent one is Go's zero time, i.e. very long ago. */
export function ageOf(v: unknown, now: number): number {
  const t = timeOf(v);
  return Number.isNaN(t) ? Number.POSITIVE_INFINITY : now - t;
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const truncate = (ms: number, unit: number): number => Math.floor(ms / unit) * unit;

/** Go's time.Duration String(), e.g. `1h5m0s`, `20m0s` (is-healthy prints durations this way). */
export function goDuration(ms: number): string {
  const total = Math.floor(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

/** Kubernetes' ShortHumanDuration (`5h`, `3d`, `2y`), which is-healthy uses for "terminating for …". */
export function shortHumanDuration(ms: number): string {
  const sec = Math.floor(ms / 1000);
  if (sec < 60) return `${Math.max(sec, 0)}s`;
  const min = Math.floor(sec / 60);
  if (min < 60) return `${min}m`;
  const h = Math.floor(min / 60);
  if (h < 24) return `${h}h`;
  if (h < 24 * 365) return `${Math.floor(h / 24)}d`;
  return `${Math.floor(h / 24 / 365)}y`;
}

/** is-healthy's HumanCase: `MemoryPressure` → `Memory Pressure`, `FailedCreate` → `Failed Create`. */
export function humanCase(s: string): string {
  const spaced = s.replace(/([a-z])(?=[A-Z])/g, '$1 ').replace(/[_-]/g, ' ');
  return spaced.trim().split(' ').map((w) => (w ? w[0].toUpperCase() + w.slice(1).toLowerCase() : w)).join(' ');
}

export interface Condition { type: string; status: string; reason: string; message: string }

export function conditionsOf(obj: Obj): Condition[] {
  return arr(rec(obj.status).conditions).map((c) => {
    const r = rec(c);
    return { type: str(r.type), status: str(r.status), reason: str(r.reason), message: str(r.message) };
  });
}

export const findCondition = (obj: Obj, type: string): Condition | undefined => conditionsOf(obj).find((c) => c.type === type);

/** A pod template's (or pod's) containers, init containers first as is-healthy lists them for the start deadline. */
export function containersOf(podSpec: Obj): Obj[] {
  return [...arr(podSpec.initContainers), ...arr(podSpec.containers)].map(rec);
}

// is-healthy's PodStartingBufferPeriod: within this of creation a workload is "Starting", never unhealthy
const STARTING_BUFFER = 10 * MINUTE;

/** How long a workload may take to start: 10 minutes, or longer if a readiness probe allows more (is-healthy). */
export function startDeadline(containers: Obj[]): number {
  let max = STARTING_BUFFER;
  for (const c of containers) {
    const p = rec(c.readinessProbe);
    if (!present(c.readinessProbe)) continue;
    const ms = 1000 * (num(p.initialDelaySeconds) + num(p.failureThreshold) * (num(p.periodSeconds) + num(p.timeoutSeconds)));
    if (ms > max) max = ms;
  }
  return truncate(max, MINUTE);
}
