import type pg from 'pg';
import { CONFIG_EVENTS } from '../../events/sources/config.js';
import { COMPONENT_HEALTHS } from '../../events/sources/component.js';
import type { EventHandler, QueuedEvent } from '../../events/types.js';
import { selectorsAllow } from '../resource-match.js';
import { evalFilters } from '../templates.js';
import { alreadyStarted, createTriggeredRun, filterMatches, labelsMatch, SYSTEM_PERSON_ID } from './canary-trigger.js';
import { triggerEnv, triggerParams } from './params.js';
import { playbooksWithTrigger, type TriggerPlaybook } from './queries.js';

/**
 * `on.config` and `on.component` (issue 14 "Triggers"): the config.* and component.* rows 0081 writes into event_queue
 * (the event source registry's names, server/modules/events/sources) start runs as `on.canary` does for checks. A
 * playbook answers when one of its `on.config`/`on.component` entries has the event (the name after the dot:
 * created, updated, deleted, healthy, unhealthy, warning, unknown), all its `labels` (`*` = any value) are on the
 * resource (a config item's labels, then its tags over them), its CEL `filter` over `{config}` / `{component}` is
 * true, the playbook's `configs` / `components` selectors (when it has any) select the resource, and its `filters`
 * hold. One run per playbook and event, created by the System person, with config_id / component_id set and the
 * parameter defaults rendered against the resource.
 */

export type TriggerKind = 'config' | 'component';

const KINDS: Record<TriggerKind, { events: readonly string[]; column: 'config_id' | 'component_id' }> = {
  config: { events: CONFIG_EVENTS, column: 'config_id' },
  component: { events: COMPONENT_HEALTHS.map((h) => `component.${h}`), column: 'component_id' },
};

/** The event_queue names each kind's trigger consumes (the registry's, server/modules/events/sources). */
export const RESOURCE_EVENTS: Readonly<Record<TriggerKind, readonly string[]>> = {
  config: KINDS.config.events, component: KINDS.component.events,
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The resource row as templates and filters see it (`.config` / `.component`); a deleted config item only for config.deleted. */
export async function loadTriggerResource(db: pg.Pool, kind: TriggerKind, id: string, eventName: string): Promise<Record<string, unknown> | null> {
  const sql = kind === 'config'
    ? `SELECT to_jsonb(c) - 'tags_values' AS row FROM config_items c WHERE c.id = $1`
    : `SELECT to_jsonb(c) - 'properties_values' AS row FROM components c WHERE c.id = $1`;
  const { rows } = await db.query<{ row: Record<string, unknown> }>(sql, [id]);
  const row = rows[0]?.row;
  if (!row) return null;
  if (row.deleted_at && eventName !== 'config.deleted') return null;
  return row;
}

/** Labels a trigger's `labels` are matched against: a config item's labels with its tags over them; a component's labels. */
export function resourceLabels(kind: TriggerKind, row: Record<string, unknown>): Record<string, unknown> {
  return kind === 'config' ? { ...(isObject(row.labels) ? row.labels : {}), ...(isObject(row.tags) ? row.tags : {}) } : (isObject(row.labels) ? row.labels : {});
}

/** Whether one of the playbook's `on.<kind>` entries answers this event (created, unhealthy…) on this resource. */
export function resourceTriggerMatches(playbook: TriggerPlaybook, kind: TriggerKind, event: string, row: Record<string, unknown>): boolean {
  const on = isObject(playbook.spec.on) ? playbook.spec.on : {};
  const triggers = Array.isArray(on[kind]) ? (on[kind] as unknown[]).filter(isObject) : [];
  const labels = resourceLabels(kind, row);
  return triggers.some((t) => t.event === event && labelsMatch(t.labels, labels) && filterMatches(t.filter, { [kind]: row }));
}

/** The handler of one kind's events (register it for each of RESOURCE_EVENTS[kind]). */
export function resourceEventHandler(db: pg.Pool, kind: TriggerKind, log: { info(obj: object, msg: string): void }): EventHandler {
  const { column } = KINDS[kind];
  return async (e: QueuedEvent) => {
    if (!e.event_id || !e.name.startsWith(`${kind}.`)) return;
    const event = e.name.slice(kind.length + 1);
    const row = await loadTriggerResource(db, kind, e.event_id, e.name);
    if (!row) return; // gone: nothing to run against
    const errors: string[] = [];
    for (const playbook of await playbooksWithTrigger(db, kind)) {
      try {
        if (!resourceTriggerMatches(playbook, kind, event, row)) continue;
        if (!(await selectorsAllow(db, playbook.spec, kind, e.event_id, e.name === 'config.deleted'))) continue;
        const env = triggerEnv(playbook, { [kind]: row });
        const filters = Array.isArray(playbook.spec.filters) ? playbook.spec.filters.filter((f): f is string => typeof f === 'string') : [];
        if (!evalFilters(filters, env)) continue;
        if (await alreadyStarted(db, playbook.id, e)) continue;
        const run = await createTriggeredRun(db, {
          playbook, params: await triggerParams(db, playbook, env),
          ...(kind === 'config' ? { configId: e.event_id } : { componentId: e.event_id }),
          createdBy: SYSTEM_PERSON_ID,
        }, e);
        if (!run) continue;
        log.info({ playbook: playbook.id, [column]: e.event_id, run: run.run_id, event: e.name }, `playbook run started by a ${kind} event`);
      } catch (err) {
        errors.push(`playbook ${playbook.namespace}/${playbook.name}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (errors.length) throw new Error(errors.join('; '));
  };
}
