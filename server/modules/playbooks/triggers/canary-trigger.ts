import type pg from 'pg';
import { celToText, evalCel } from '../../../lib/cel.js';
import { selectorsAllow } from '../resource-match.js';
import { createRun, EventAlreadyStartedError, type CreatedRun, type CreateRunInput } from '../runs.js';
import { evalFilters } from '../templates.js';
import type { EventHandler, QueuedEvent } from '../../events/types.js';
import { checkWithCanary } from '../../events/sources/check.js';
import { triggerEnv, triggerParams } from './params.js';
import { playbooksWithTrigger, type TriggerPlaybook } from './queries.js';

/** The System person: triggered runs are created by it, as in the reference. */
export const SYSTEM_PERSON_ID = '00000000-0000-0000-0000-000000000000';

/** The event_queue names a check's status flip writes, and the `on.canary[].event` each answers to. */
export const CHECK_EVENTS: Readonly<Record<string, string>> = { 'check.failed': 'failed', 'check.passed': 'passed' };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Labels match when every label the trigger names is on the resource with that value (`*`: any value). */
export function labelsMatch(want: unknown, have: unknown): boolean {
  if (!isObject(want)) return true;
  const labels = isObject(have) ? have : {};
  return Object.entries(want).every(([k, v]) => Object.hasOwn(labels, k) && (v === '*' || String(labels[k]) === String(v)));
}

/** A trigger's CEL `filter` over the resource's variables; true without one. Throws on an expression that fails. */
export function filterMatches(filter: unknown, vars: Record<string, unknown>): boolean {
  if (typeof filter !== 'string' || !filter.trim()) return true;
  return celToText(evalCel(filter, vars)) === 'true';
}

/** Whether one of the playbook's `on.canary` entries answers this event on this check. */
export function canaryTriggerMatches(playbook: TriggerPlaybook, event: string, vars: { check: Record<string, unknown>; canary: Record<string, unknown> }): boolean {
  const on = isObject(playbook.spec.on) ? playbook.spec.on : {};
  const triggers = Array.isArray(on.canary) ? on.canary.filter(isObject) : [];
  return triggers.some((t) => t.event === event && labelsMatch(t.labels, vars.check.labels) && filterMatches(t.filter, vars));
}

/**
 * The identity of one queued event: its event_queue row and when it was written. A retry of the row keeps both; a
 * new event on the same resource is another row (another name) or rewrites created_at (the upsert of the same name).
 */
export function eventKey(e: Pick<QueuedEvent, 'id' | 'created_at'>): string {
  return `${e.id}@${new Date(e.created_at).toISOString()}`;
}

/** This event started a run of this playbook already (an earlier attempt of the same queue row). */
export async function alreadyStarted(db: pg.Pool, playbookId: string, e: Pick<QueuedEvent, 'id' | 'created_at'>): Promise<boolean> {
  const { rowCount } = await db.query(
    'SELECT 1 FROM playbook_trigger_events WHERE playbook_id = $1 AND event_key = $2', [playbookId, eventKey(e)]);
  return Boolean(rowCount);
}

/** createRun for a trigger: null when the event already started a run of the playbook (a concurrent attempt). */
export async function createTriggeredRun(db: pg.Pool, input: CreateRunInput, e: Pick<QueuedEvent, 'id' | 'created_at'>): Promise<CreatedRun | null> {
  try {
    return await createRun(db, { ...input, triggerEvent: eventKey(e) });
  } catch (err) {
    if (err instanceof EventAlreadyStartedError) return null;
    throw err;
  }
}

/**
 * check.failed / check.passed: one run per live playbook whose `on.canary` matches (event, labels over the check's
 * and its canary's, CEL filter over {check, canary}), whose `checks` selectors (when it has any) select the check,
 * and whose `filters` hold, with the check as the run's resource, the parameters' defaults rendered against it,
 * created by the System person.
 */
export function canaryEventHandler(db: pg.Pool, log: { info(obj: object, msg: string): void }): EventHandler {
  return async (e: QueuedEvent) => {
    const event = CHECK_EVENTS[e.name];
    if (!event || !e.event_id) return;
    const resource = await checkWithCanary(db, e.event_id);
    if (!resource) return; // the check is gone: nothing to run against
    const errors: string[] = [];
    for (const playbook of await playbooksWithTrigger(db, 'canary')) {
      try {
        if (!canaryTriggerMatches(playbook, event, resource)) continue;
        if (!(await selectorsAllow(db, playbook.spec, 'check', e.event_id))) continue;
        const env = triggerEnv(playbook, { check: resource.check, canary: resource.canary });
        const filters = Array.isArray(playbook.spec.filters) ? playbook.spec.filters.filter((f): f is string => typeof f === 'string') : [];
        if (!evalFilters(filters, env)) continue;
        if (await alreadyStarted(db, playbook.id, e)) continue;
        const run = await createTriggeredRun(db, {
          playbook, params: await triggerParams(db, playbook, env), checkId: e.event_id, createdBy: SYSTEM_PERSON_ID,
        }, e);
        if (!run) continue;
        log.info({ playbook: playbook.id, check: e.event_id, run: run.run_id, event: e.name }, 'playbook run started by a check event');
      } catch (err) {
        // one playbook's bad filter or template does not keep the others from running; the row keeps the error
        errors.push(`playbook ${playbook.namespace}/${playbook.name}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (errors.length) throw new Error(errors.join('; '));
  };
}
