import type { Problem, Q } from '../types.js';
import { notificationRowOf, silenceRowOf } from './row.js';

/**
 * The database-backed checks of a Notification / NotificationSilence CR, run by the kubernetes reconciler after the
 * kind's zod schema (kinds.ts `check`): the row mapping's own problems (unknown person, team, playbook or event, bad
 * durations) plus the console's rule / silence validation (validate.ts `validateRule` / `validateSilence`, the same
 * checks as an /api/db write), with their paths rewritten to the CR's (`custom_services[0].url` → `spec.to.url`).
 * Answers the problems as one line, or null when the CR is valid.
 */

type Spec = Record<string, unknown>;
type Validator = (db: Q, body: Record<string, unknown>) => Promise<Problem[]>;

// validate.ts is another part's file (issue 15): loaded when present, so a checkout without it still reconciles
const VALIDATE_MODULE = '../validate.js';
async function validator(name: 'validateRule' | 'validateSilence'): Promise<Validator | null> {
  try {
    const mod = (await import(VALIDATE_MODULE)) as Record<string, unknown>;
    return typeof mod[name] === 'function' ? (mod[name] as Validator) : null;
  } catch {
    return null;
  }
}

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
  const validate = await validator('validateRule');
  if (validate) {
    const body = { ...row, name: meta.name, namespace: meta.namespace };
    // the validator takes the stored jsonb columns as values
    for (const k of ['custom_services', 'fallback_custom_services', 'inhibitions']) {
      if (typeof body[k as keyof typeof body] === 'string') (body as Record<string, unknown>)[k] = JSON.parse(String(body[k as keyof typeof body]));
    }
    for (const k of ['wait_for', 'wait_for_eval_period', 'group_by_interval', 'fallback_delay']) {
      const v = (body as Record<string, unknown>)[k];
      if (typeof v === 'string') (body as Record<string, unknown>)[k] = Number(v);
    }
    for (const p of await validate(db, body)) problems.push({ path: specPathOf(p.path), message: p.message });
  }
  return problemsText(problems);
}

/** The problems of a NotificationSilence CR's spec (null: valid). */
export async function silenceCrProblems(db: Q, spec: Spec, meta: { namespace: string; name: string }): Promise<string | null> {
  const { row, problems } = silenceRowOf(spec);
  const validate = await validator('validateSilence');
  if (validate) {
    const body: Record<string, unknown> = { ...row, name: meta.name, namespace: meta.namespace };
    if (typeof body.selectors === 'string') body.selectors = JSON.parse(body.selectors);
    for (const p of await validate(db, body)) problems.push({ path: p.path.startsWith('spec') ? p.path : `spec.${p.path}`, message: p.message });
  }
  return problemsText(problems);
}
