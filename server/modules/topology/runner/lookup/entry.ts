import { CelExprError, evalCel } from '../../../../lib/cel.js';
import { celToNative } from '../../../../lib/cel-funcs.js';
import { errorText } from '../../../../lib/checks/util.js';
import type { ConnectionResolver } from '../../../health/connections.js';
import { applyCommon, celVars, executeCheck, type Outcome, type RunnableCheck } from '../../../health/runner.js';
import { CommonCheck } from '../../../health/spec.js';
import type { ValueFromResolver } from '../../../../lib/value-from.js';
import { LookupError, type LookupContext } from '../types.js';
import { isObj, lookupErrorText } from './results.js';

/**
 * One entry of a lookup block run as a canary check: the health runner's own path (connection:// and valueFrom
 * resolved in the topology's namespace, templated fields, the type with its timeout, test and display, credentials
 * masked in what it reports), then what the entry yields. The runner is imported, not promoted to server/lib: it
 * brings the check's spec parser, connections, templates and transforms with it, all health's (as the catalog's
 * scrapers import health's connections and valueFrom).
 */

type Obj = Record<string, unknown>;

export interface EntryDeps {
  connections: ConnectionResolver;
  valueFrom?: ValueFromResolver;
}

/** The field of a check's data a lookup yields when it has no `display`: what the reference's checks put in Detail. */
const DEFAULT_YIELD: Record<string, (data: Obj) => unknown> = {
  exec: (d) => d.stdout,
  http: (d) => d.content,
  postgres: (d) => d.rows,
  mysql: (d) => d.rows,
  prometheus: (d) => d.results,
};

/** The entry as the check runner takes it: named (the reference's lookups seldom are), display.expr kept for later. */
export function lookupCheck(type: string, path: string, entry: Obj, ctx: LookupContext): { check: RunnableCheck; expr?: string } {
  const display = isObj(entry.display) ? entry.display : undefined;
  const expr = typeof display?.expr === 'string' ? display.expr : undefined;
  const spec: Obj = { ...entry, name: typeof entry.name === 'string' && entry.name.trim() ? entry.name : path };
  // display.expr is evaluated here, not by the runner: the runner turns a list or map into Go's text of it, a lookup
  // wants the value itself (the reference's lookups end in .toJSON(), which still works: a string is parsed as JSON)
  if (expr !== undefined) spec.display = { ...display, expr: undefined };
  return {
    check: { id: `lookup:${ctx.topologyId}:${path}`, canaryId: ctx.topologyId, type, name: String(spec.name), spec, namespace: ctx.namespace },
    expr,
  };
}

/** Runs a check type's entry; a failed run is a LookupError naming the entry. */
export async function runCheckEntry(type: string, path: string, entry: Obj, ctx: LookupContext, deps: EntryDeps): Promise<unknown> {
  const { check, expr } = lookupCheck(type, path, entry, ctx);
  const out = await executeCheck(check, {
    signal: ctx.signal, maxTimeoutMs: ctx.timeoutMs, defaultTimeoutMs: ctx.timeoutMs,
    connections: deps.connections, valueFrom: deps.valueFrom,
  });
  if (!out.pass) throw new LookupError(`${path}: ${lookupErrorText(out.error ?? 'failed')}`);
  if (type === 'postgres' || type === 'mysql') {
    // the SQL checks keep their first 1,000 rows; a lookup that silently lost the rest would delete components
    if (out.data.truncated) throw new LookupError(`${path}: the query returned ${Number(out.data.count).toLocaleString('en')} rows, more than the 1,000 a SQL lookup reads`);
  }
  return yielded(path, check, out, expr, DEFAULT_YIELD[type]);
}

/**
 * Lookups that are not check types (kubernetes, configDB): their data goes through the same test and display steps
 * as a check's result (health's applyCommon), then yields as a check's does.
 */
export async function finishEntry(
  type: string, path: string, entry: Obj, ctx: LookupContext, data: Obj, duration: number, fallback: (d: Obj) => unknown,
): Promise<unknown> {
  const { check, expr } = lookupCheck(type, path, entry, ctx);
  const common = CommonCheck.safeParse(check.spec);
  if (!common.success) throw new LookupError(`${path}: ${common.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const out = await applyCommon(check, { ...common.data, name: check.name }, { pass: true, invalid: false, duration, data, start: new Date() });
  if (!out.pass) throw new LookupError(`${path}: ${out.error ?? 'failed'}`);
  return yielded(path, check, out, expr, fallback);
}

/** What a run yields: display.expr's value, else the text display.javascript/template made, else the type's data. */
function yielded(path: string, check: RunnableCheck, out: Outcome, expr: string | undefined, fallback?: (d: Obj) => unknown): unknown {
  const display = isObj(check.spec.display) ? check.spec.display : undefined;
  if (expr !== undefined) {
    try {
      return celToNative(evalCel(expr, celVars(check, out)));
    } catch (err) {
      throw new LookupError(`${path}: display expression: ${err instanceof CelExprError ? err.message : errorText(err)}`);
    }
  }
  if (display && (display.javascript !== undefined || display.template !== undefined)) return out.message ?? '';
  if (!fallback) throw new LookupError(`${path}: a ${check.type} lookup needs display.expr (or javascript, template) to say what it yields`);
  return fallback(out.data);
}
