import type { Problem, Q } from '../types.js';
import { validateRule, validateSilence } from '../validate.js';
import { notificationRowOf, silenceRowOf } from './row.js';

/**
 * The database-backed checks of a Notification / NotificationSilence CR, run by the kubernetes reconciler after the
 * kind's zod schema (kinds.ts `check`): the row mapping's own problems (unknown person, team, playbook or event, bad
 * durations) plus the console's rule / silence validation (validate.ts `validateRule` / `validateSilence`, the same
 * checks as an /api/db write), with their paths rewritten to the CR's (`custom_services[0].url` → `spec.to.url`).
 * Answers the problems as one line, or null when the CR is valid.
 */

type Spec = Record<string, unknown>;

const RULE_PATHS: Array<[RegExp, string]> = [
  [/^events/, 'spec.events'],
  [/^person_id/, 'spec.to.person'],
  [/^team_id/, 'spec.to.team'],
  [/^playbook_id/, 'spec.to.playbook'],
  [/^custom_services\[\d+\]\.?/, 'spec.to.'],
  [/^custom_services/, 'spec.to'],
  [/^fallback_person_id/, 'spec.fallback.person'],
  [/^fallback_team_id/, 'spec.fallback.team'],
  [/^fallback_custom_services\[\d+\]\.?/, 'spec.fallback.'],
  [/^repeat_interval/, 'spec.repeatInterval'],
  [/^wait_for_eval_period/, 'spec.waitForEvalPeriod'],
  [/^wait_for/, 'spec.waitFor'],
  [/^group_by_interval/, 'spec.groupByInterval'],
  [/^group_by/, 'spec.groupBy'],
  [/^fallback_delay/, 'spec.fallback.delay'],
  [/^properties/, 'spec.to.properties'],
];

/** A row path of validate.ts as the CR's spec path. */
export function specPathOf(path: string): string {
  for (const [re, to] of RULE_PATHS) {
    if (re.test(path)) return path.replace(re, to).replace(/\.$/, '');
  }
  return path.startsWith('spec') ? path : `spec.${path}`;
}

/** `path: message; path: message`, each path once (the mapping's problem first). */
export function problemsText(problems: Problem[]): string | null {
  const seen = new Map<string, string>();
  for (const p of problems) if (!seen.has(p.path)) seen.set(p.path, p.message);
  if (!seen.size) return null;
  return [...seen].slice(0, 20).map(([path, message]) => `${path}: ${message}`).join('; ');
}

/** The problems of a Notification CR's spec (null: valid). */
export async function notificationCrProblems(db: Q, spec: Spec, meta: { namespace: string; name: string }): Promise<string | null> {
  const { row, problems } = await notificationRowOf(db, spec, meta.namespace);
  const body: Record<string, unknown> = { ...row, name: meta.name, namespace: meta.namespace };
  // the validator takes the jsonb columns as values and durations as nanoseconds
  for (const k of ['custom_services', 'fallback_custom_services', 'inhibitions']) {
    if (typeof body[k] === 'string') body[k] = JSON.parse(String(body[k]));
  }
  for (const k of ['wait_for', 'wait_for_eval_period', 'group_by_interval', 'fallback_delay']) {
    if (typeof body[k] === 'string') body[k] = Number(body[k]);
  }
  for (const p of await validateRule(db, body)) {
    // a playbook is a recipient too (the reference's `to.playbook`); the console's form has no such tab
    const named = row.playbook_id || problems.some((q) => q.path.startsWith('spec.to'));
    if (named && p.path === 'person_id' && p.message.startsWith('a recipient is required')) continue;
    problems.push({ path: specPathOf(p.path), message: p.message });
  }
  return problemsText(problems);
}

/** The problems of a NotificationSilence CR's spec (null: valid). */
export async function silenceCrProblems(db: Q, spec: Spec, meta: { namespace: string; name: string }): Promise<string | null> {
  const { row, problems } = silenceRowOf(spec);
  const body: Record<string, unknown> = { ...row, name: meta.name, namespace: meta.namespace };
  if (typeof body.selectors === 'string') body.selectors = JSON.parse(body.selectors);
  for (const p of await validateSilence(db, body)) {
    problems.push({ path: p.path === 'resource' ? 'spec' : p.path.startsWith('spec') ? p.path : `spec.${p.path}`, message: p.message });
  }
  return problemsText(problems);
}
