import { renderGoTemplate } from '../../lib/go-template.js';
import type { CheckContext } from '../../lib/checks/types.js';
import { errorText } from '../../lib/checks/util.js';
import type { CanaryRef, LastResult } from './last-result.js';

/**
 * Fields of a check spec that are Go templates rendered before the check runs, by check type: what the reference
 * renders with the check's context (sql.go templates `query`; folder.go templates the folder check, whose manifests
 * template `filter.since` over last_result). A dotted name is a path into nested objects. http's `body` is rendered
 * by http.ts itself (`templateBody: true`), over its env entries too.
 */
export const TEMPLATED_FIELDS: Readonly<Record<string, readonly string[]>> = {
  postgres: ['query'],
  mysql: ['query'],
  folder: ['filter.since'],
};

/** What a check type's `run` may be given besides CheckContext, for templates it renders itself (http's body). */
export interface TemplateRun {
  template?: { scope: Record<string, unknown>; lastResult?: LastResult };
}
export type TemplatingCheckContext = CheckContext & TemplateRun;

const isTemplate = (v: unknown): v is string => typeof v === 'string' && v.includes('{{');

function at(spec: Record<string, unknown>, path: string[]): unknown {
  return path.reduce<unknown>((o, k) => (o !== null && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>)[k] : undefined), spec);
}

/**
 * Whether a run needs its canary and previous result from the database: a templated field, an http body template,
 * or any mention of last_result (test, display, transform). Everything else runs without the query.
 */
export function needsRunContext(type: string, spec: Record<string, unknown>): boolean {
  let needs = NEEDS.get(spec);
  if (needs === undefined) {
    needs = (TEMPLATED_FIELDS[type] ?? []).some((f) => isTemplate(at(spec, f.split('.'))))
      || (type === 'http' && spec.templateBody === true && typeof spec.body === 'string')
      || JSON.stringify(spec).includes('last_result');
    NEEDS.set(spec, needs);
  }
  return needs;
}

/** The answer per spec object: the scheduler keeps a check's spec between runs, so it is worked out once, not per run. */
const NEEDS = new WeakMap<Record<string, unknown>, boolean>();

interface ScopeCheck {
  id: string;
  canaryId: string;
  name: string;
  namespace?: string;
  labels?: Record<string, string> | null;
  spec: Record<string, unknown>;
  /** What the checks it depends on returned in this run (depends-on.ts). */
  outputs?: Record<string, unknown>;
}

/** A URL's password is never given to a template: a rendered body or query may be echoed back into a result. */
function withoutPassword(endpoint: string): string {
  return endpoint.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*):[^/@]*@/i, '$1@');
}

/**
 * The data a check's templates render over, as the reference's WithCheck binds it: `canary` (name, namespace,
 * labels, id) and `check` (name, id, description, labels, endpoint as written in the spec), and `outputs` once a
 * check it depends on passed (the reference's http body template sees them).
 */
export function templateScope(check: ScopeCheck, canary?: CanaryRef): Record<string, unknown> {
  const endpoint = ['url', 'endpoint', 'connection', 'path', 'host', 'addr', 'server']
    .map((k) => check.spec[k]).find((v): v is string => typeof v === 'string' && v !== '') ?? '';
  return {
    canary: {
      name: canary?.name ?? '', namespace: canary?.namespace ?? check.namespace ?? 'default',
      labels: canary?.labels ?? {}, id: check.canaryId,
    },
    check: {
      name: check.name, id: check.id,
      description: typeof check.spec.description === 'string' ? check.spec.description : '',
      labels: check.labels ?? (check.spec.labels as Record<string, string> | undefined) ?? {},
      endpoint: withoutPassword(endpoint),
    },
    ...(check.outputs ? { outputs: check.outputs } : {}),
  };
}

/** A templated field that did not render: the result is invalid, with this reason. */
export class TemplateFieldError extends Error {}

/**
 * The spec with its templated fields rendered (a copy; the spec itself is left alone). Only a value with `{{` is
 * rendered: any other is what it renders to. Throws TemplateFieldError naming the field.
 */
export function renderTemplatedFields(
  type: string, spec: Record<string, unknown>, scope: Record<string, unknown>, lastResult?: LastResult,
): Record<string, unknown> {
  let out = spec;
  for (const field of TEMPLATED_FIELDS[type] ?? []) {
    const path = field.split('.');
    const value = at(out, path);
    if (!isTemplate(value)) continue;
    let rendered: string;
    try {
      rendered = renderGoTemplate(value, scope, { lastResult });
    } catch (err) {
      throw new TemplateFieldError(`${field}: ${errorText(err)}`);
    }
    out = setAt(out, path, rendered);
  }
  return out;
}

function setAt(o: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const [head, ...rest] = path;
  const inner = o[head];
  return {
    ...o,
    [head]: rest.length ? setAt(inner !== null && typeof inner === 'object' ? inner as Record<string, unknown> : {}, rest, value) : value,
  };
}
