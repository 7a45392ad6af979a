import type pg from 'pg';
import { celDuration, CelExprError, celToText, evalCel } from '../../lib/cel.js';
import { renderGoTemplate } from '../../lib/go-template.js';
import { needsRunContext, renderTemplatedFields, TemplateFieldError, templateScope, type TemplatingCheckContext } from './check-templates.js';
import { checkTypeOf } from '../../lib/checks/index.js';
import type { CheckResult } from '../../lib/checks/types.js';
import { InvalidSpecError } from '../../lib/checks/lib/result.js';
import { redactor } from '../../lib/checks/lib/secrets.js';
import { clip, errorText } from '../../lib/checks/util.js';
import { ConnectionResolver } from './connections.js';
import { lastResultForCel, loadRunContext, type LastResult, type RunContext } from './last-result.js';
import { dependenciesOf, dependsOnOf, fillOutputs, inDependencyOrder, OutputRefError, outputOf, transitiveDependencies } from './depends-on.js';
import { liveCheckSpecs, liveChecksOf, recordResult } from './queries.js';
import { parseCheck } from './spec.js';
import { recordTransformed, transformOutcome, type TransformedCheck } from './transform.js';
import { runJavascript } from '../../lib/js-sandbox.js';
import { hasValueFrom, ValueFromResolver } from '../../lib/value-from.js';
import { formatDuration } from '../../contracts/duration.js';

type ParsedCommon = Extract<ReturnType<typeof parseCheck>, { ok: true }>['common'];

/** Default per-check timeout, also capped by the canary's interval. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** How long past its timeout a check that ignores its AbortSignal is waited for before it is abandoned. */
const ABANDON_GRACE_MS = 1_000;
const MAX_MESSAGE = 4_000;
const MAX_DETAIL_JSON = 16 * 1024;

/** A check as the runner needs it. */
export interface RunnableCheck {
  id: string;
  canaryId: string;
  type: string;
  name: string;
  /** The spec entry as stored in checks.spec. */
  spec: Record<string, unknown>;
  /** checks.severity comes from the spec; stored on each result too. */
  severity?: string | null;
  labels?: Record<string, string> | null;
  /** The canary's namespace: where `valueFrom` Secrets and ConfigMaps are read. */
  namespace?: string;
  /** What the checks it depends on returned in this run, by name (`outputs.<name>`: depends-on.ts); set by executeCheck. */
  outputs?: Record<string, unknown>;
}

export interface RunOptions {
  /** Aborts the run (shutdown). */
  signal?: AbortSignal;
  /** Upper bound for the timeout (the canary's interval), in ms. */
  maxTimeoutMs?: number;
  defaultTimeoutMs?: number;
  /** Resolves `valueFrom` in the spec (app.kube.valueFrom); without one, a spec that has any is invalid. */
  valueFrom?: ValueFromResolver;
  /** Merges `connection://` references into the spec; without one, a check that has any is invalid. */
  connections?: ConnectionResolver;
  /** The canary and the previous result, for templates and last_result (runAndRecord loads it when the spec needs it). */
  context?: RunContext;
  /**
   * The outputs of the checks this one depends on that passed in this occurrence (the scheduler's). Absent for a
   * check with `dependsOn` (Run Now): runAndRecord runs its dependencies first, without storing their results.
   */
  outputs?: Record<string, unknown>;
}

/** For runs given no resolver: no cluster to read from. */
const NO_CLUSTER = new ValueFromResolver({ reader: null });

export interface Outcome extends CheckResult {
  start: Date;
  invalid: boolean;
  /** This run's transformed checks, when the check has a transform that ran (transform.ts). */
  transformed?: TransformedCheck[];
}

const timer = (ms: number) => {
  let t: NodeJS.Timeout;
  const p = new Promise<'timeout'>((r) => {
    t = setTimeout(() => r('timeout'), ms);
    t.unref?.();
  });
  return { p, cancel: () => clearTimeout(t) };
};

/**
 * Runs one check without storing anything: validates its spec, runs its type with a timeout, applies
 * thresholdMillis, then `test.expr` (must be true) and `display.expr` (sets the message). Never throws.
 */
export async function executeCheck(check: RunnableCheck, opts: RunOptions = {}): Promise<Outcome> {
  const start = new Date();
  const t0 = performance.now();
  const took = () => Math.round(performance.now() - t0);
  const invalid = (error: string): Outcome => ({ pass: false, invalid: true, duration: took(), error, data: {}, start });
  const failed = (err: unknown): Outcome => err instanceof InvalidSpecError
    ? invalid(err.message)
    : { pass: false, invalid: false, duration: took(), error: errorText(err), data: {}, start };
  // connection:// and valueFrom are read now, not when the canary was loaded, so a changed connection or a rotated
  // Secret reaches the next run
  let spec = check.spec;
  let secrets: string[] = [];
  // as the reference, `outputs` is there only once some dependency passed
  if (opts.outputs && Object.keys(opts.outputs).length) check = { ...check, outputs: opts.outputs };
  if (ConnectionResolver.applies(check.type, spec)) {
    if (!opts.connections) return invalid(`connection ${String(spec.connection).trim()}: no database to read connections from`);
    try {
      ({ spec, secrets } = await opts.connections.resolve(check.type, spec, check.namespace ?? 'default'));
    } catch (err) {
      return failed(err);
    }
  }
  try {
    spec = fillOutputs(spec, check.outputs);
  } catch (err) {
    if (err instanceof OutputRefError) return invalid(err.message);
    throw err;
  }
  let parsed = parseCheck(check.type, spec);
  if (!parsed.ok) return invalid(parsed.problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; '));
  if (hasValueFrom(spec)) {
    try {
      const resolved = await (opts.valueFrom ?? NO_CLUSTER).resolve(spec, check.namespace ?? 'default');
      secrets = [...secrets, ...resolved.secrets];
      spec = resolved.spec;
      parsed = parseCheck(check.type, spec);
      if (!parsed.ok) return invalid(parsed.problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; '));
    } catch (err) {
      return failed(err);
    }
  }
  // templated fields (a query, a folder's since) are rendered now, over this run's canary, check and last_result
  const scope = templateScope(check, opts.context?.canary);
  const lastResult = opts.context?.lastResult;
  try {
    const rendered = renderTemplatedFields(check.type, spec, scope, lastResult);
    if (rendered !== spec) {
      parsed = parseCheck(check.type, rendered);
      if (!parsed.ok) return invalid(parsed.problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; '));
    }
  } catch (err) {
    if (err instanceof TemplateFieldError) return invalid(err.message);
    throw err;
  }
  const type = checkTypeOf(check.type)!;
  const timeoutMs = Math.max(1, Math.min(parsed.timeoutMs ?? opts.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS, opts.maxTimeoutMs ?? Infinity));

  const ac = new AbortController();
  const onParentAbort = () => ac.abort(new Error('runner stopped'));
  opts.signal?.addEventListener('abort', onParentAbort, { once: true });
  const deadline = timer(timeoutMs);
  void deadline.p.then(() => ac.abort(new Error(`timed out after ${timeoutMs} ms`)));
  // A type that ignores its signal is abandoned shortly after the timeout: it may not hold the runner.
  const abandon = timer(timeoutMs + ABANDON_GRACE_MS);
  let result: CheckResult;
  // what a type that renders its own templates (http's templateBody) sees besides its spec
  const runCtx: TemplatingCheckContext = { signal: ac.signal, timeoutMs, template: { scope, lastResult } };
  try {
    const raced = await Promise.race([type.run(parsed.typed, runCtx), abandon.p]);
    result = raced === 'timeout'
      ? { pass: false, duration: took(), error: `timed out after ${timeoutMs} ms`, data: {} }
      : raced;
  } catch (err) {
    result = {
      pass: false, duration: took(), data: {},
      error: ac.signal.aborted && !opts.signal?.aborted ? `timed out after ${timeoutMs} ms` : errorText(err),
    };
  } finally {
    deadline.cancel();
    abandon.cancel();
    opts.signal?.removeEventListener('abort', onParentAbort);
  }
  const transformed = await transformOutcome(check, parsed.common, { ...result, invalid: result.invalid ?? false, start }, { lastResult });
  const out = await applyCommon(check, parsed.common, transformed, took, lastResult);
  return secrets.length ? redactOutcome(out, secrets) : out;
}

/**
 * Masks Secret values a check was given through valueFrom or a connection wherever its outcome could carry them (a
 * script that echoes its env, a server that repeats a header): message, error and detail are stored and shown.
 */
function redactOutcome(out: Outcome, secrets: string[]): Outcome {
  const redact = redactor(...secrets, ...secrets.map((s) => encodeURIComponent(s)));
  const deep = (v: unknown): unknown => {
    if (typeof v === 'string') return redact(v);
    if (Array.isArray(v)) return v.map(deep);
    if (v && typeof v === 'object' && !(v instanceof Date)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [redact(k), deep(x)]));
    return v;
  };
  if (out.message) out.message = redact(out.message);
  if (out.error) out.error = redact(out.error);
  if (out.detail !== undefined) out.detail = deep(out.detail);
  // transformed checks are stored results too (transform.ts)
  out.transformed = out.transformed?.map((t) => deep(t) as typeof t);
  return out;
}

/**
 * The variables a check's CEL sees for a result (test.expr, display.expr, metrics[]): the check type's data fields,
 * `duration` (ms), `elapsed` (a duration, where the type reports one) and `check`.
 */
type CelCheck = { name: string; type: string; labels?: Record<string, string> | null; outputs?: Record<string, unknown> };
type CelResult = { data: Record<string, unknown>; duration: number };

/** Result data fields in milliseconds that CEL sees as durations and templates print as Go prints one. */
const DURATION_FIELDS = ['elapsed', 'sslAge'] as const;

export function celVars(check: CelCheck, out: CelResult): Record<string, unknown> {
  const vars = resultVars(check, out);
  // the reference's `elapsed` and http `sslAge` are durations (elapsed.getMilliseconds(), sslAge > Duration('7d'));
  // stored as ms
  for (const k of DURATION_FIELDS) if (typeof out.data[k] === 'number') vars[k] = celDuration(out.data[k] as number);
  return vars;
}

function resultVars(check: CelCheck, out: CelResult): Record<string, unknown> {
  return {
    // the reference also binds a result's details as `results` (results.stdout, results.rows, results.files); here
    // the type's data is those details, unless the type has a `results` of its own (prometheus)
    results: out.data,
    ...out.data, duration: out.duration, check: { name: check.name, type: check.type, labels: check.labels ?? {} },
    ...(check.outputs ? { outputs: check.outputs } : {}),
  };
}

/** What `{{.field}}` in a display/test template sees: as celVars, with `elapsed` printed as Go prints a duration. */
function templateVars(check: CelCheck, out: CelResult): Record<string, unknown> {
  const vars = resultVars(check, out);
  for (const k of DURATION_FIELDS) if (typeof out.data[k] === 'number') vars[k] = goDuration(out.data[k] as number);
  return vars;
}

/** Milliseconds as Go's time.Duration String(): 120ms, 1.5s, 2m3.5s, 2160h0m0s, -1h0m0s. */
export function goDuration(ms: number): string {
  if (ms < 0) return `-${goDuration(-ms)}`;
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms - hours * 3_600_000) / 60_000);
  const seconds = `${+((ms - hours * 3_600_000 - minutes * 60_000) / 1000).toFixed(3)}s`;
  return hours ? `${hours}h${minutes}m${seconds}` : minutes ? `${minutes}m${seconds}` : seconds;
}

/** Go's strconv.ParseBool, which the reference applies to a test template's or script's output. */
function goBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

/**
 * The steps shared by every result, run or pushed: thresholdMillis, then the test (`test.expr` must be true;
 * `test.javascript` or `test.template` must give "true") and the display (`display.expr`, `display.javascript` or
 * `display.template` sets the message). Scripts run in the QuickJS sandbox (server/lib/js-sandbox.ts) over the same variables
 * as CEL. `lastResult` is what last_result reads. Mutates and returns `out`.
 */
export async function applyCommon(
  check: RunnableCheck, common: ParsedCommon, out: Outcome, took: () => number = () => out.duration, lastResult?: LastResult,
): Promise<Outcome> {
  if (!Number.isFinite(out.duration) || out.duration < 0) out.duration = took();

  if (out.pass && common.thresholdMillis !== undefined && out.duration > common.thresholdMillis) {
    out.pass = false;
    out.error = `took ${formatDuration(out.duration)}, more than thresholdMillis ${common.thresholdMillis}`;
  }
  const vars = celVars(check, out);
  const celCtx = { lastResult: lastResultForCel(lastResult) };
  const test = common.test;
  const testScript = test?.javascript !== undefined
    ? { what: 'javascript', source: test.javascript, run: () => runJavascript(test.javascript!, resultVars(check, out)) }
    : test?.template !== undefined
      ? { what: 'template', source: test.template, run: async () => renderGoTemplate(test.template!, templateVars(check, out), { lastResult }) }
      : undefined;
  if (out.pass && !test?.expr && testScript) {
    try {
      const v = goBool((await testScript.run()).trim());
      if (v === undefined) {
        out.pass = false;
        out.error = 'test expression did not return a boolean value';
      } else if (!v) {
        out.pass = false;
        out.error = `test failed: ${clip(testScript.source, 200)}`;
      }
    } catch (err) {
      out.pass = false;
      out.invalid = true;
      out.error = `test ${testScript.what}: ${errorText(err)}`;
    }
  }
  if (out.pass && test?.expr) {
    try {
      const v = evalCel(test.expr, vars, celCtx);
      if (typeof v !== 'boolean') {
        out.pass = false;
        out.error = 'test expression did not return a boolean value';
      } else if (!v) {
        out.pass = false;
        out.error = `test failed: ${test.expr}`;
      }
    } catch (err) {
      out.pass = false;
      out.invalid = true;
      out.error = `test expression: ${err instanceof CelExprError ? err.message : errorText(err)}`;
    }
  }
  const display = common.display;
  const displayScript = display?.javascript !== undefined
    ? { what: 'javascript', run: () => runJavascript(display.javascript!, resultVars(check, out)) }
    : display?.template !== undefined
      ? { what: 'template', run: async () => renderGoTemplate(display.template!, templateVars(check, out), { lastResult }) }
      : undefined;
  if (!display?.expr && displayScript && !out.invalid) {
    try {
      out.message = await displayScript.run();
    } catch (err) {
      out.pass = false;
      out.invalid = true;
      out.error = `display ${displayScript.what}: ${errorText(err)}`;
    }
  }
  if (display?.expr && !out.invalid) {
    try {
      out.message = celToText(evalCel(display.expr, vars, celCtx));
    } catch (err) {
      out.pass = false;
      out.invalid = true;
      out.error = `display expression: ${err instanceof CelExprError ? err.message : errorText(err)}`;
    }
  }
  return out;
}

function boundedDetail(detail: unknown): unknown {
  if (detail === undefined || detail === null) return null;
  try {
    const json = JSON.stringify(detail);
    return json.length > MAX_DETAIL_JSON ? { truncated: true, bytes: json.length } : detail;
  } catch {
    return null;
  }
}

export interface Recorded {
  outcome: Outcome;
  status: 'healthy' | 'unhealthy';
  transitioned: boolean;
}

/** Runs a check and stores its result (raw row, latest state, rollups, status transition). */
export async function runAndRecord(
  db: pg.Pool, check: RunnableCheck, opts: RunOptions & { nextRuntime?: Date | null } = {},
): Promise<Recorded> {
  const outputs = opts.outputs ?? (dependsOnOf(check.spec).length ? await runDependencies(db, check, opts) : undefined);
  // the canary and previous result cost one query, made only for a spec that reads them (check-templates.ts)
  const context = opts.context ?? (needsRunContext(check.type, check.spec) ? await loadRunContext(db, check.id, check.canaryId) : undefined);
  return recordOutcome(db, check, await executeCheck(check, { ...opts, outputs, context }), opts.nextRuntime ?? null);
}

/**
 * Run Now of a check with `dependsOn`: its dependencies (and theirs) run first, in order, so that it sees fresh
 * `outputs`, as in a scheduled occurrence. Their results are not stored: only the check asked for is reported.
 */
async function runDependencies(db: pg.Pool, check: RunnableCheck, opts: RunOptions): Promise<Record<string, unknown>> {
  const live = await liveChecksOf(db, check.canaryId);
  const specs = await liveCheckSpecs(db, live.map((c) => c.id));
  const siblings: RunnableCheck[] = live.map((c) => ({
    id: c.id, canaryId: check.canaryId, type: c.type, name: c.name, spec: specs.get(c.id) ?? {}, namespace: check.namespace,
  }));
  if (!siblings.some((c) => c.id === check.id)) siblings.push(check);
  const deps = dependenciesOf(siblings);
  const outputs = new Map<string, Record<string, unknown>>();
  const upstream = (id: string) => Object.fromEntries(transitiveDependencies(id, deps)
    .flatMap((d) => (outputs.has(d.id) ? [[d.name, outputs.get(d.id)]] : [])));
  for (const dep of inDependencyOrder(transitiveDependencies(check.id, deps), deps)) {
    // each dependency reads its own last_result, never the one asked for
    const context = needsRunContext(dep.type, dep.spec) ? await loadRunContext(db, dep.id, dep.canaryId) : undefined;
    const r = await executeCheck(dep, { ...opts, outputs: upstream(dep.id), context });
    if (r.pass) outputs.set(dep.id, outputOf(r));
  }
  return upstream(check.id);
}

/**
 * A result the check did not run itself (a webhook push): the check's spec must be valid, then the shared steps
 * (threshold, test, display) apply and the result is stored like a scheduled run's.
 */
export async function recordPushed(db: pg.Pool, check: RunnableCheck, result: CheckResult, start = new Date()): Promise<Recorded> {
  const parsed = parseCheck(check.type, check.spec);
  const lastResult = needsRunContext(check.type, check.spec) ? (await loadRunContext(db, check.id, check.canaryId)).lastResult : undefined;
  const outcome: Outcome = parsed.ok
    ? await applyCommon(check, parsed.common,
      await transformOutcome(check, parsed.common, { ...result, invalid: result.invalid ?? false, start }, { lastResult }), undefined, lastResult)
    : { pass: false, invalid: true, duration: 0, data: {}, start, error: parsed.problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; ') };
  return recordOutcome(db, check, outcome, null);
}

/** Stores an outcome: raw row, latest state, rollups, status transition. */
export async function recordOutcome(db: pg.Pool, check: RunnableCheck, outcome: Outcome, nextRuntime: Date | null): Promise<Recorded> {
  const status = outcome.pass ? 'healthy' : 'unhealthy';
  const { previous } = await recordResult(db, {
    checkId: check.id, canaryId: check.canaryId, time: outcome.start, duration: outcome.duration, pass: outcome.pass,
    invalid: outcome.invalid, message: outcome.message ? clip(outcome.message, MAX_MESSAGE) : null,
    error: outcome.error ? clip(outcome.error, MAX_MESSAGE) : null, details: boundedDetail(outcome.detail),
    severity: check.severity ?? null, nextRuntime,
  });
  if (outcome.transformed) await recordTransformed(db, check, outcome, nextRuntime);
  return { outcome, status, transitioned: previous !== status };
}
