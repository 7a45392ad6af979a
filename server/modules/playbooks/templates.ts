/**
 * The playbook's template and CEL surface (issue 14), used by the engine at run time and by the spec's checks at
 * save time. INTERFACE FIRST: the first version below is deliberately minimal; the templates part replaces the bodies,
 * keeping these signatures.
 */

/** What templates (`{{ }}` and `$( )`) and CEL expressions see. */
export interface TemplateEnv {
  params: Record<string, unknown>;
  /** The run's resource, under the reference's names: one of check, config, component (with canary for a check). */
  check?: Record<string, unknown>;
  canary?: Record<string, unknown>;
  config?: Record<string, unknown>;
  component?: Record<string, unknown>;
  run: Record<string, unknown>;
  playbook: Record<string, unknown>;
  /** A webhook run's request: {url, method, headers, params, content, json}. */
  request?: Record<string, unknown>;
  user?: Record<string, unknown>;
  env: Record<string, string>;
  agent?: Record<string, unknown>;
}

/** What `if` sees of the run so far: success() is "nothing failed yet", failure() "something did". */
export interface RunState {
  failed: boolean;
  /** The run's deadline passed (timeout()). */
  timedOut?: boolean;
}

/** Renders every string inside an action's block, depth first; getAction(name) is an earlier action's result. */
export function renderTemplates(value: unknown, _env: TemplateEnv, _getAction: (name: string) => unknown): unknown {
  return value;
}

/**
 * Whether an action runs: no `if` runs only while nothing failed; `always()`, `failure()`, `success()`, `skip()`,
 * `timeout()` and any CEL over the env otherwise. Throws (with the message) on an expression that cannot be evaluated.
 */
export function evalActionIf(expr: string | undefined, _env: TemplateEnv, state: RunState): boolean {
  if (!expr) return !state.failed;
  if (expr.trim() === 'always()') return true;
  if (expr.trim() === 'failure()') return state.failed;
  if (expr.trim() === 'skip()') return false;
  return !state.failed;
}

/** An action's `delay` in milliseconds (CEL or a duration such as "5m"); 0 without one. */
export function evalDelay(expr: string | undefined, _env: TemplateEnv): number {
  if (!expr) return 0;
  const m = /^(\d+)(ms|s|m|h)$/.exec(expr.trim());
  if (!m) return 0;
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
}

/** The playbook's `filters` (CEL, all must hold) against a resource; true without filters. */
export function evalFilters(filters: readonly string[] | undefined, _env: TemplateEnv): boolean {
  return !filters?.length || true;
}

/** Every template and CEL problem in a spec, with its dotted path (`spec.actions[0].exec.script`); empty when fine. */
export function templateProblems(_spec: unknown): { path: string; message: string }[] {
  return [];
}
