import { celEnv, celFunc, celMethod, CelScalar, isCelError, isCelUint, listType, mapType, objectType, parse, plan, type CelEnv, type CelValue } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { create, isMessage } from '@bufbuild/protobuf';
import { DurationSchema, TimestampSchema, timestampDate, type Duration, type Timestamp } from '@bufbuild/protobuf/wkt';
import { asMessage, celToNative, REFERENCE_EXTRA_FUNCS, withCelContext, type CelContext } from './cel-funcs.js';
import { CONFIG_DB_FUNCS } from './cel-funcs-config.js';
import { markOptionalSelects, OPTIONAL_FUNCS, rewriteOptionals } from './cel-optional.js';
import { formatValue } from './go-template/format.js';
import { goDurationString } from './go-template/gomplate-values.js';

/**
 * CEL for `test.expr`, `display.expr`, metrics and transforms, on @bufbuild/cel with the strings extension, the
 * reference's optional field selection (cel-optional.ts) and the helper functions of the reference that its manifests
 * use (REFERENCE_FUNCS here, REFERENCE_EXTRA_FUNCS in cel-funcs.ts).
 */

export type { CelContext } from './cel-funcs.js';

type Program = ReturnType<typeof plan>;

const MAX_EXPR_LENGTH = 4_096;
const CACHE_MAX = 2_000;
let env: CelEnv | undefined;
const programs = new Map<string, Program>();

export class CelExprError extends Error {}

/** Parses and plans an expression (cached); throws CelExprError with the parser's message when malformed. */
export function compileCel(expr: string): Program {
  const hit = programs.get(expr);
  if (hit) return hit;
  if (expr.length > MAX_EXPR_LENGTH) throw new CelExprError(`expression longer than ${MAX_EXPR_LENGTH} characters`);
  let program: Program;
  let unknown: string[];
  try {
    env ??= celEnv({ funcs: [...strings, ...REFERENCE_FUNCS, ...REFERENCE_EXTRA_FUNCS, ...CONFIG_DB_FUNCS, ...OPTIONAL_FUNCS] });
    const parsed = parse(markOptionalSelects(expr));
    if (parsed.expr) rewriteOptionals(parsed.expr as never);
    unknown = unknownFunctions(env, parsed.expr);
    program = plan(env, parsed);
  } catch (err) {
    // the parser reports an optional selection as the name it was rewritten to (cel-optional.ts)
    throw new CelExprError((err instanceof Error ? err.message : String(err)).replaceAll('.__opt__', '.?'));
  }
  // refused when the expression is compiled (at save), not when it first runs: the reference registers many helper
  // functions (HumanSize, HumanDuration, SemverCompare...) that this console does not have
  if (unknown.length) throw new CelExprError(`unknown function${unknown.length > 1 ? 's' : ''} ${unknown.map((f) => `${f}()`).join(', ')}`);
  if (programs.size >= CACHE_MAX) programs.delete(programs.keys().next().value!);
  programs.set(expr, program);
  return program;
}

/**
 * Names of the functions an expression calls that the environment does not have. Operators (`_+_`, `_&&_`, `_[_]`,
 * `@in`...) are the planner's own and skipped; macros (has, all, exists, map, filter) are expanded by the parser.
 */
function unknownFunctions(e: CelEnv, root: unknown): string[] {
  const found = new Set<string>();
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(walk);
    const kind = (node as { exprKind?: { case?: string; value?: { function?: string; target?: unknown } } }).exprKind;
    const name = kind?.case === 'callExpr' ? kind.value?.function : undefined;
    // `time.Now()` parses as a call of Now on `time`: the planner looks up the qualified name first, and so do we
    const qualified = name && kind?.value?.target ? qualifiedName(kind.value.target) : undefined;
    if (name && !/^[_@]/.test(name) && !e.funcs.find(name) && !(qualified && e.funcs.find(`${qualified}.${name}`))) {
      found.add(qualified && /^(time|uuid|crypto|base64|k8s|math|strings|conv|regexp|random|filepath|path|net|gcp|aws|test|data|coll)\b/.test(qualified) ? `${qualified}.${name}` : name);
    }
    for (const [k, v] of Object.entries(node)) if (k !== '$typeName') walk(v);
  };
  walk(root);
  return [...found];
}

/** `a.b.c` for an expression made of an identifier and field selections, else undefined. */
function qualifiedName(node: unknown): string | undefined {
  const kind = (node as { exprKind?: { case?: string; value?: { name?: string; operand?: unknown; field?: string } } }).exprKind;
  if (kind?.case === 'identExpr') return kind.value?.name;
  if (kind?.case === 'selectExpr') {
    const parent = qualifiedName(kind.value?.operand);
    return parent === undefined ? undefined : `${parent}.${kind.value?.field}`;
  }
  return undefined;
}

/** Null when the expression parses, else the reason. */
export function celSyntaxError(expr: string): string | null {
  try {
    compileCel(expr);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * Milliseconds as a CEL `google.protobuf.Duration`, as the reference binds a result's `elapsed` (a Go time.Duration):
 * so `elapsed > duration("1s")` and `elapsed.getMilliseconds()` work. Note that CEL's getMilliseconds() here is the
 * milliseconds part of the duration (0-999), as the CEL spec defines it; cel-go returns the whole duration in ms.
 */
export function celDuration(ms: number): Duration {
  return durationOf(ms);
}

const DURATION_UNIT_MS: Record<string, number> = {
  ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000,
};

/**
 * A duration as the reference's `Duration('7d')` reads it: Go's units plus `d` (24h) and `w` (7d), combinable
 * (`1d12h`), with an optional sign. Null when the text is not one.
 */
export function parseLongDuration(text: string): number | null {
  const t = text.trim();
  const m = /^([+-]?)((?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h|d|w))+)$/.exec(t);
  if (!m) return t === '0' ? 0 : null;
  let ms = 0;
  for (const part of m[2].matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d|w)/g)) ms += Number(part[1]) * DURATION_UNIT_MS[part[2]];
  return m[1] === '-' ? -ms : ms;
}

/** `google.protobuf.Duration` from signed milliseconds (seconds and nanos share the sign, as the type requires). */
function durationOf(ms: number): Duration {
  const whole = Math.trunc(ms / 1000);
  return create(DurationSchema, { seconds: BigInt(whole), nanos: Math.round((ms - whole * 1000) * 1e6) });
}

const DURATION_TYPE = objectType(DurationSchema);

/**
 * Helper functions the reference registers for CEL (from its gomplate library) that reference manifests use:
 * - `Duration(string)`: a duration that also takes days and weeks (`sslAge > Duration('7d')`); CEL's own
 *   `duration()` takes Go units only.
 * - `Age(string)`: the time since an RFC 3339 timestamp, as a duration (`Age(t) > Duration('3d')`).
 * - `map.keys()`: the keys of a map as a list (`'Authorization' in json.headers.keys()`).
 * - `sprint(value)`: a scalar as text, as Go's fmt.Sprint prints it (`sprint(code) + " should be 500"`).
 * Anything else the reference registers is not here, and an expression calling it is refused when compiled.
 */
const REFERENCE_FUNCS = [
  celFunc('Duration', [CelScalar.STRING], DURATION_TYPE, (text) => {
    const ms = parseLongDuration(text);
    if (ms === null) throw new Error(`Duration: invalid duration "${text}" (expected e.g. 30s, 1h30m, 7d, 2w)`);
    return durationOf(ms);
  }),
  celMethod('keys', mapType(CelScalar.DYN, CelScalar.DYN), [], listType(CelScalar.DYN), function () {
    return [...this.keys()];
  }),
  celFunc('sprint', [CelScalar.DYN], CelScalar.STRING, (v) => {
    if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
    if (typeof v === 'number') return String(v); // as Go's %v: 2 for 2.0, 1.5 for 1.5
    if (isCelUint(v)) return String(v.value);
    throw new Error('sprint: only strings, numbers and booleans are supported');
  }),
  celFunc('Age', [CelScalar.STRING], DURATION_TYPE, (text) => {
    const t = Date.parse(text);
    if (Number.isNaN(t)) throw new Error(`Age: invalid timestamp "${text}"`);
    return durationOf(Date.now() - t);
  }),
];

/** Makes check data CEL-safe: drops undefined and functions, keeps JSON-like values and protobuf messages (durations). */
function bindable(v: unknown): unknown {
  if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return null;
  if (v === null || typeof v !== 'object') return v;
  if (isMessage(v)) return v;
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(bindable);
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined).map(([k, x]) => [k, bindable(x)]));
}

/**
 * Evaluates an expression against variables; throws CelExprError on parse or evaluation errors. `ctx` is what the
 * reference's contextual functions read (`last_result()`).
 */
export function evalCel(expr: string, vars: Record<string, unknown>, ctx: CelContext = {}): CelValue {
  const program = compileCel(expr);
  let out;
  try {
    out = withCelContext(ctx, () => program(bindable(vars) as Record<string, never>));
  } catch (err) {
    throw new CelExprError(err instanceof Error ? err.message : String(err));
  }
  if (isCelError(out)) throw new CelExprError(out.message);
  return out;
}

/**
 * A CEL value as display text, as the reference prints a result with Go's %v: lists as [a b], maps as map[k:v],
 * durations as Go's time.Duration (1h0m0s), timestamps as Go's time.Time, null as "".
 */
export function celToText(v: CelValue): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  if (v === null) return '';
  const d = asMessage<Duration>(v, DurationSchema);
  if (d) return goDurationString(d.seconds * 1_000_000_000n + BigInt(d.nanos));
  const ts = asMessage<Timestamp>(v, TimestampSchema);
  if (ts) return formatValue(timestampDate(ts));
  return formatValue(celToNative(v));
}
