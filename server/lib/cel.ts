import { celEnv, celFunc, celMethod, CelScalar, isCelError, isCelList, isCelMap, isCelUint, listType, mapType, objectType, parse, plan, type CelEnv, type CelValue } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { create, isMessage } from '@bufbuild/protobuf';
import { isReflectMessage } from '@bufbuild/protobuf/reflect';
import { DurationSchema, type Duration } from '@bufbuild/protobuf/wkt';

/**
 * CEL for `test.expr` and `display.expr`, on @bufbuild/cel with the strings extension and the few helper functions
 * of the reference that its manifests use most (see REFERENCE_FUNCS).
 */

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
    env ??= celEnv({ funcs: [...strings, ...REFERENCE_FUNCS] });
    const parsed = parse(expr);
    unknown = unknownFunctions(env, parsed.expr);
    program = plan(env, parsed);
  } catch (err) {
    throw new CelExprError(err instanceof Error ? err.message : String(err));
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
    const kind = (node as { exprKind?: { case?: string; value?: { function?: string } } }).exprKind;
    const name = kind?.case === 'callExpr' ? kind.value?.function : undefined;
    if (name && !/^[_@]/.test(name) && !e.funcs.find(name)) found.add(name);
    for (const [k, v] of Object.entries(node)) if (k !== '$typeName') walk(v);
  };
  walk(root);
  return [...found];
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

/** Evaluates an expression against variables; throws CelExprError on parse or evaluation errors. */
export function evalCel(expr: string, vars: Record<string, unknown>): CelValue {
  const program = compileCel(expr);
  let out;
  try {
    out = program(bindable(vars) as Record<string, never>);
  } catch (err) {
    throw new CelExprError(err instanceof Error ? err.message : String(err));
  }
  if (isCelError(out)) throw new CelExprError(out.message);
  return out;
}

/** A CEL value as display text. */
export function celToText(v: CelValue): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === null) return '';
  if (isCelList(v) || isCelMap(v)) return JSON.stringify(toJson(v));
  // a duration comes back as a reflected message (`elapsed` on its own): shown as CEL's string() shows it
  if (isReflectMessage(v, DurationSchema)) {
    const d = v.message as Duration;
    return `${Number(d.seconds) + d.nanos / 1e9}s`;
  }
  return String(v);
}

function toJson(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (isCelList(v)) return [...v].map(toJson);
  if (isCelMap(v)) return Object.fromEntries([...v.entries()].map(([k, x]) => [String(k), toJson(x)]));
  return v;
}
