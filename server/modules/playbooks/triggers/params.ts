import type pg from 'pg';
import { paramDefs, renderDefaults, resolveParams } from '../params.js';
import type { TemplateEnv } from '../templates.js';
import type { TriggerPlaybook } from './queries.js';

/** What a triggered run's templates see before it exists: the resource or request, no person, no run yet. */
export function triggerEnv(playbook: TriggerPlaybook, extra: Partial<TemplateEnv>): TemplateEnv {
  return {
    params: {},
    run: {},
    playbook: { id: playbook.id, name: playbook.name, namespace: playbook.namespace, title: playbook.title },
    env: {},
    ...extra,
  };
}

/**
 * A triggered run's parameters, as a person's run gets them (../params.ts): each parameter's `default` rendered
 * against the event's resource or the webhook's request, `given` (a schedule's `parameters`) over them, every value
 * checked by its type. Throws BadRequestError naming the parameter (a required one without a default, a bad value).
 */
export function triggerParams(db: pg.Pool, playbook: TriggerPlaybook, env: TemplateEnv, given: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  return resolveParams(db, { defs: renderDefaults(paramDefs(playbook.spec), env), given });
}
