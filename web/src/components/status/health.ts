/** The four colours a health value can show (spec 000 §4 "Health indicator colour"). */
export type HealthColor = 'red' | 'gray' | 'orange' | 'green';

const RED = new Set(['degraded', 'missing', 'unhealthy', 'false']);
const GRAY = new Set(['unknown', 'suspended']);
const ORANGE = new Set(['warning', 'mixed']);

/**
 * Red for degraded, missing, unhealthy or false; gray for unknown or suspended; orange for warning or mixed;
 * otherwise green. A missing value (null, undefined, empty) reads as unknown rather than healthy.
 */
export function healthColor(health: string | boolean | null | undefined): HealthColor {
  if (health === null || health === undefined || health === '') return 'gray';
  const key = String(health).trim().toLowerCase();
  if (RED.has(key)) return 'red';
  if (GRAY.has(key)) return 'gray';
  if (ORANGE.has(key)) return 'orange';
  return 'green';
}

/** Spec 000 §9: the uptime bar is green, orange above 75 and red above 90 (of the value it is given). */
export function uptimeBarColor(percent: number): Exclude<HealthColor, 'gray'> {
  if (percent > 90) return 'red';
  if (percent > 75) return 'orange';
  return 'green';
}

/** Spec 000 §4 "Incident badge": open light green, closed gray, others blue. */
export function incidentStatusColor(status: string): 'lightgreen' | 'gray' | 'blue' {
  if (status === 'open') return 'lightgreen';
  if (status === 'closed') return 'gray';
  return 'blue';
}
