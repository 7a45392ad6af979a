import type pg from 'pg';
import { celDuration, celSyntaxError, evalCel } from '../../lib/cel.js';
import { celToNative } from '../../lib/cel-funcs.js';
import { publishChange } from '../../lib/events.js';
import { goTemplateError, renderGoTemplate } from '../../lib/go-template.js';
import { clip, errorText } from '../../lib/checks/util.js';
import { recordResult } from './queries.js';
import type { Outcome, RunnableCheck } from './runner.js';
import type { CommonCheck, TransformDeleteStrategy, TransformSpec } from './spec.js';
import { lastResultForCel, type LastResult } from './last-result.js';
import { runJavascript } from '../../lib/js-sandbox.js';
import { removeTransformedChecks, staleTransformedChecks, upsertTransformedChecks } from './transform-queries.js';

/**
 * A check's `transform`, as canary-checker runs it (checks/common.go transform(), checks/runchecks.go
 * TransformResults): after the check has run, `expr` (CEL), `template` (Go template) or `javascript` (QuickJS
 * sandbox, server/lib/js-sandbox.ts) turns its result into JSON that either
 * - is one object without a name: it changes the check's own result (pass, message, error, detail, data...), or
 * - is a list of named results: each becomes a "transformed" check of the canary (a `checks` row with
 *   `transformed = true`), created, updated, or removed (per `transformDeleteStrategy`) when a later run no longer
 *   returns it; the check's own result is kept without its detail.
 */

/** A result of the transform that is a check of its own (the reference's TransformedCheckResult). */
export interface TransformedCheck {
  name: string;
  type: string;
  namespace: string | null;
  description: string | null;
  icon: string | null;
  labels: Record<string, string> | null;
  transformDeleteStrategy: TransformDeleteStrategy | null;
  deletedAt: Date | null;
  start: Date | null;
  pass: boolean;
  invalid: boolean;
  duration: number;
  message: string | null;
  error: string | null;
  detail: unknown;
}

/** More results than this from one run is refused: each is a check row and a stored result. */
export const MAX_TRANSFORMED = 1_000;
const MAX_MESSAGE = 4_000;
const MAX_DETAIL_JSON = 16 * 1024;
const DELETE_STRATEGIES = new Set(['MarkHealthy', 'MarkUnhealthy', 'Ignore']);

class TransformError extends Error {}

/** Why a transform cannot run, by field (for save-time validation), or nothing. */
export function transformProblems(t: TransformSpec): Array<{ path: string[]; message: string }> {
  const given = (['expr', 'template', 'javascript'] as const).filter((k) => typeof t[k] === 'string' && t[k].trim() !== '');
  if (t.jsonPath !== undefined) return [{ path: ['jsonPath'], message: 'transform.jsonPath is not supported; use transform.expr (CEL)' }];
  if (given.length === 0) return [{ path: [], message: 'a transform needs one of expr (CEL), template or javascript' }];
  if (given.length > 1) return [{ path: [given[1]], message: `a transform takes one of expr, template or javascript, not ${given.join(' and ')}` }];
  if (t.expr !== undefined && given[0] === 'expr') {
    const err = celSyntaxError(t.expr);
    if (err) return [{ path: ['expr'], message: `invalid CEL: ${err}` }];
  }
  if (t.template !== undefined && given[0] === 'template') {
    const err = goTemplateError(t.template);
    if (err) return [{ path: ['template'], message: err }];
  }
  return [];
}

/**
 * What the transform sees, as the reference's WithCheckResult binds it: the check type's result fields (also as
 * `results`), `duration`, `pass`, `message`, `error`, and `check` and `canary`. For CEL, `elapsed` is a duration.
 */
function transformVars(check: RunnableCheck, out: Outcome, forCel: boolean): Record<string, unknown> {
  const vars: Record<string, unknown> = {
    results: out.data,
    ...out.data,
    duration: out.duration, pass: out.pass, message: out.message ?? '', error: out.error ?? '', errorType: '',
    check: {
      id: check.id, name: check.name, type: check.type, labels: check.labels ?? {},
      description: typeof check.spec.description === 'string' ? check.spec.description : '',
    },
    canary: { id: check.canaryId, namespace: check.namespace ?? 'default' },
    // what the checks it depends on returned (depends-on.ts), as the reference gives transforms too
    ...(check.outputs ? { outputs: check.outputs } : {}),
  };
  if (forCel && typeof out.data.elapsed === 'number') vars.elapsed = celDuration(out.data.elapsed);
  return vars;
}

/**
 * The transform's output: JSON text (what the reference reads; `{...}.toJSON()` in CEL) parsed, or a CEL map or list
 * used as it is.
 */
async function evaluate(t: TransformSpec, check: RunnableCheck, out: Outcome, lastResult?: LastResult): Promise<unknown> {
  let text: string;
  if (t.javascript?.trim()) text = await runJavascript(t.javascript, transformVars(check, out, false));
  else if (t.template?.trim()) text = renderGoTemplate(t.template, transformVars(check, out, false), { lastResult });
  else {
    const v = evalCel(t.expr ?? '', transformVars(check, out, true), { lastResult: lastResultForCel(lastResult) });
    if (typeof v !== 'string') return celToNative(v);
    text = v;
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new TransformError(`the transform returned ${text.trim() ? 'text that is not JSON' : 'nothing'}: ${clip(text, 200)}`);
  }
}

/** Go's encoding/json matches field names without case; so do we. */
function lowerKeys(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k.toLowerCase(), v]));
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function str(o: Record<string, unknown>, key: string): string | null {
  const v = o[key.toLowerCase()];
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string') throw new TransformError(`${key} must be a string`);
  return v;
}
function bool(o: Record<string, unknown>, key: string): boolean | null {
  const v = o[key.toLowerCase()];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'boolean') throw new TransformError(`${key} must be true or false`);
  return v;
}
function time(o: Record<string, unknown>, key: string): Date | null {
  const v = o[key.toLowerCase()];
  if (v === undefined || v === null || v === '') return null;
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  if (Number.isNaN(t)) throw new TransformError(`${key} must be an RFC 3339 time`);
  return new Date(t);
}
function labels(o: Record<string, unknown>): Record<string, string> | null {
  const v = o.labels;
  if (v === undefined || v === null) return null;
  if (!isObject(v)) throw new TransformError('labels must be an object of strings');
  // numbers and booleans become text (Go would refuse them; prometheus label values arrive as text anyway)
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null && x !== undefined).map(([k, x]) => {
    if (typeof x === 'object') throw new TransformError(`labels.${k} must be a string`);
    return [k, String(x)];
  }));
}

function named(o: Record<string, unknown>, check: RunnableCheck, strategy: TransformDeleteStrategy | null): TransformedCheck {
  const name = str(o, 'name');
  if (!name) throw new TransformError('a result in a list needs a name');
  const deleteStrategy = str(o, 'transformDeleteStrategy');
  if (deleteStrategy && !DELETE_STRATEGIES.has(deleteStrategy)) throw new TransformError(`transformDeleteStrategy must be MarkHealthy, MarkUnhealthy or Ignore`);
  const duration = o.duration;
  if (duration !== undefined && duration !== null && (typeof duration !== 'number' || !Number.isFinite(duration))) throw new TransformError('duration must be a number (ms)');
  return {
    name: name.slice(0, 255), type: str(o, 'type') ?? check.type, namespace: str(o, 'namespace'),
    description: str(o, 'description'), icon: str(o, 'icon'), labels: labels(o),
    transformDeleteStrategy: (deleteStrategy as TransformDeleteStrategy | null) ?? strategy,
    deletedAt: time(o, 'deletedAt'), start: time(o, 'start'),
    // a result that does not say it passed has failed, as the reference's ToCheckResult reads it
    pass: bool(o, 'pass') ?? false, invalid: bool(o, 'invalid') ?? false,
    duration: typeof duration === 'number' ? Math.max(0, Math.round(duration)) : 0,
    message: str(o, 'message'), error: str(o, 'error'), detail: o.detail ?? null,
  };
}

/** One unnamed result changes the check's own: only the fields it sets. */
function applyInline(o: Record<string, unknown>, out: Outcome): void {
  const start = time(o, 'start');
  if (start) out.start = start;
  const pass = bool(o, 'pass');
  if (pass !== null) out.pass = pass;
  const invalid = bool(o, 'invalid');
  if (invalid !== null) out.invalid = invalid;
  if (typeof o.duration === 'number' && Number.isFinite(o.duration)) out.duration = Math.max(0, Math.round(o.duration));
  const message = str(o, 'message');
  if (message) out.message = message;
  const error = str(o, 'error');
  if (error) out.error = error;
  if (o.detail !== undefined && o.detail !== null) {
    if (o.detail === '$delete') {
      out.detail = undefined;
      delete out.data.results;
    } else out.detail = o.detail;
  }
  if (isObject(o.data)) Object.assign(out.data, o.data);
}

/**
 * Runs the check's transform over its result (before threshold, test and display, as the reference does). Returns
 * the outcome, changed in place, with `transformed` set to this run's named results when the transform ran (an empty
 * list when it returned none or changed the check's own result: earlier transformed checks then go). Never throws:
 * a transform that fails makes the result invalid with the reason, and earlier transformed checks stay as they are.
 */
export async function transformOutcome(
  check: RunnableCheck, common: CommonCheck, out: Outcome, ctx: { lastResult?: LastResult } = {},
): Promise<Outcome> {
  const t = common.transform;
  // the reference does not transform an invalid result (a spec error): there is nothing to transform
  if (!t || out.invalid) return out;
  let value: unknown;
  try {
    value = await evaluate(t, check, out, ctx.lastResult);
    const list = Array.isArray(value) ? value : [value];
    // a canary spec in the output creates canaries in the reference (transformCanary); not here
    if (list.some((v) => isObject(v) && v.spec !== undefined && isObject(v.spec))) {
      throw new TransformError('the transform returned a canary (an object with a spec): creating canaries from a transform is not supported');
    }
    if (list.length > MAX_TRANSFORMED) throw new TransformError(`the transform returned ${list.length} results, more than ${MAX_TRANSFORMED}`);
    const items = list.map((v, i) => {
      if (!isObject(v)) throw new TransformError(`result ${i} is not an object`);
      return lowerKeys(v);
    });
    if (items.length === 0) {
      if ((common as Record<string, unknown>).markFailOnEmpty === true) {
        out.pass = false;
        out.error = 'empty result returned from transformation';
      } else out.detail = undefined;
      out.transformed = [];
      return out;
    }
    const firstName = str(items[0], 'name');
    if (firstName && firstName !== check.name) {
      const strategy = common.transformDeleteStrategy ?? null;
      // one row per type and name: a name returned twice keeps its last result
      const results = [...new Map(items.map((o) => named(o, check, strategy)).map((r) => [`${r.type}\0${r.name}`, r])).values()];
      const own = results.find((r) => r.name === check.name && r.type === check.type);
      if (own) throw new TransformError(`result "${own.name}" has the name and type of the check itself`);
      // the detail can be a large blob the results were made from: the check's own result keeps none
      out.detail = undefined;
      out.transformed = results;
      return out;
    }
    if (items.length === 1 && !firstName) {
      applyInline(items[0], out);
      out.transformed = [];
      return out;
    }
    throw new TransformError(firstName
      ? `a result is named "${firstName}", as the check itself: leave the name out to change the check's own result`
      : 'transformation returned more than 1 entry without a name');
  } catch (err) {
    out.pass = false;
    out.invalid = true;
    out.detail = undefined;
    out.error = `error transforming result: ${errorText(err)}`;
    out.transformed = undefined;
    return out;
  }
}

function boundedDetail(detail: unknown): unknown {
  if (detail === undefined || detail === null) return null;
  const json = JSON.stringify(detail);
  return json.length > MAX_DETAIL_JSON ? { truncated: true, bytes: json.length } : detail;
}

/**
 * Stores a run's transformed checks: upserts one row per named result under the check's canary and stores its
 * result; then the check's earlier transformed checks that this run did not return are removed (not a webhook's),
 * first marked healthy or unhealthy when their transformDeleteStrategy says so. Publishes the change for live views.
 */
export async function recordTransformed(
  db: pg.Pool, check: RunnableCheck, outcome: Outcome, nextRuntime: Date | null,
): Promise<{ kept: string[]; removed: string[] }> {
  const results = outcome.transformed ?? [];
  const rows = results.length
    ? await upsertTransformedChecks(db, { canaryId: check.canaryId, parentId: check.id, checks: results })
    : [];
  const byKey = new Map(results.map((r) => [`${r.type}\0${r.name}`, r]));
  for (const row of rows) {
    const r = byKey.get(`${row.type}\0${row.name}`)!;
    await recordResult(db, {
      checkId: row.id, canaryId: check.canaryId, time: r.start ?? outcome.start, duration: r.duration, pass: r.pass,
      invalid: r.invalid, message: r.message ? clip(r.message, MAX_MESSAGE) : null, error: r.error ? clip(r.error, MAX_MESSAGE) : null,
      details: boundedDetail(r.detail), severity: row.severity, nextRuntime,
    });
  }
  const kept = rows.map((r) => r.id);
  // a push carries what changed, not everything (an alert firing, or resolved through deletedAt): the reference leaves
  // a webhook's transformed checks to its caller (GetTransformedCheckIDs excludes them)
  const stale = check.type === 'webhook' ? [] : await staleTransformedChecks(db, check.id, kept);
  const now = new Date();
  for (const s of stale) {
    if (s.transform_delete_strategy !== 'MarkHealthy' && s.transform_delete_strategy !== 'MarkUnhealthy') continue;
    const pass = s.transform_delete_strategy === 'MarkHealthy';
    await recordResult(db, {
      checkId: s.id, canaryId: check.canaryId, time: now, duration: 0, pass, invalid: false,
      message: `no longer returned by the transform of ${check.name}: marked ${pass ? 'healthy' : 'unhealthy'}`,
      error: null, details: null, severity: s.severity, nextRuntime: null,
    });
  }
  const removed = await removeTransformedChecks(db, stale.map((s) => s.id));
  if (kept.length || removed.length) await publishChange(db, { relation: 'checks', ids: [...kept, ...removed] });
  return { kept, removed };
}
