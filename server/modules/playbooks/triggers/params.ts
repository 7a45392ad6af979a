import { renderTemplates, type TemplateEnv } from '../templates.js';
import type { TriggerPlaybook } from './queries.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

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
 * A triggered run's parameters: each parameter's `default` (a template, rendered against the event's resource or
 * the webhook's request), with `given` (a schedule's `parameters`) taking precedence. Parameters without either are
 * left out, as a person leaving a field empty would. Throws what the template throws.
 */
export function triggerParams(playbook: TriggerPlaybook, env: TemplateEnv, given: Record<string, unknown> = {}): Record<string, unknown> {
  const defs = Array.isArray(playbook.spec.parameters) ? playbook.spec.parameters.filter(isObject) : [];
  const out: Record<string, unknown> = {};
  for (const d of defs) {
    if (typeof d.name !== 'string' || !d.name) continue;
    const raw = Object.hasOwn(given, d.name) ? given[d.name] : d.default;
    if (raw === undefined || raw === null) continue;
    out[d.name] = typeof raw === 'string' ? renderTemplates(raw, { ...env, params: out }, () => undefined) : raw;
  }
  for (const [k, v] of Object.entries(given)) if (!Object.hasOwn(out, k)) out[k] = v;
  return out;
}
