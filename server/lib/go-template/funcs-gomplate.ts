import { isMap, isTrue, Namespace, type RenderContext, type TemplateFunc } from './exec.js';
import { goTypeName } from './format.js';
import { GoDuration, TIME } from './funcs-time.js';
import {
  humanBytes, humanDuration, semverCompare, toBool, toFloat64, toGoString, toInt64, toJSON, toJSONPretty, toNanos,
} from './gomplate-values.js';

/**
 * The gomplate functions (flanksource/gomplate funcs/*.go) that reference manifests and docs use in templates, with
 * the reference's argument order (pipelinable: the piped value comes last) and conversions. Namespaced ones are
 * reached as `strings.ToLower`, top-level aliases as `toLower`; `time` is in funcs-time.ts. Functions not here
 * (crypto, k8s health, jq, yaml, file, net...) are refused by name when the template is saved.
 */

/** The longest string a function may build (the template's whole output is capped at 1,000,000 characters too). */
const MAX_STRING = 1_000_000;

const f = (min: number, max: number, call: (args: unknown[], ctx: RenderContext) => unknown): TemplateFunc => ({ arity: [min, max], call });
const str = (v: unknown): string => (typeof v === 'string' ? v : toGoString(v));

function list(v: unknown, fn: string): unknown[] {
  if (Array.isArray(v)) return v;
  throw new Error(`${fn}: expected a list, got ${goTypeName(v)}`);
}

function map(v: unknown, fn: string): Record<string, unknown> {
  if (isMap(v)) return v;
  throw new Error(`${fn}: expected a map, got ${goTypeName(v)}`);
}

/** cases.Title: the first letter of each word upper case, the rest lower. */
export function title(s: string): string {
  return s.toLowerCase().replace(/(^|[^\p{L}\p{N}'])(\p{L})/gu, (_m, sep: string, ch: string) => sep + ch.toUpperCase());
}

/** Go's strings.Trim: drops the cutset's characters from both ends. */
function trimCutset(s: string, cutset: string, ends: 'both' | 'left' | 'right' = 'both'): string {
  const chars = new Set([...cutset]);
  const arr = [...s];
  let a = 0;
  let b = arr.length;
  if (ends !== 'right') while (a < b && chars.has(arr[a])) a++;
  if (ends !== 'left') while (b > a && chars.has(arr[b - 1])) b--;
  return arr.slice(a, b).join('');
}

/** coll.Merge: deep merge where the first map wins, later maps only fill what it lacks. */
function mergeInto(dst: Record<string, unknown>, src: Record<string, unknown>): Record<string, unknown> {
  const out = { ...dst };
  for (const [k, v] of Object.entries(src)) {
    if (!Object.hasOwn(out, k)) out[k] = v;
    else if (isMap(out[k]) && isMap(v)) out[k] = mergeInto(out[k] as Record<string, unknown>, v);
  }
  return out;
}

function parseJSON(v: unknown, want: 'map' | 'list'): unknown {
  let out: unknown;
  try {
    out = JSON.parse(str(v));
  } catch (err) {
    throw new Error(`unable to unmarshal ${want === 'map' ? 'object' : 'array'}: ${(err as Error).message}`);
  }
  if (want === 'map' ? !isMap(out) : !Array.isArray(out)) throw new Error(`unable to unmarshal ${want === 'map' ? 'object' : 'array'} ${str(v)}`);
  return out;
}

/** math: integers stay integers unless an argument is a float (math.containsFloat). */
const hasFloat = (args: unknown[]) => args.some((a) => (typeof a === 'number' && !Number.isInteger(a)) || (typeof a === 'string' && /^[+-]?(\d+\.\d*|\.\d+|\d+(\.\d*)?[eE][+-]?\d+)$/.test(a.trim())));
const sum = (args: unknown[]) => (hasFloat(args) ? args.reduce<number>((t, a) => t + toFloat64(a), 0) : args.reduce<number>((t, a) => t + toInt64(a), 0));
const product = (args: unknown[]) => (hasFloat(args) ? args.reduce<number>((t, a) => t * toFloat64(a), 1) : args.reduce<number>((t, a) => t * toInt64(a), 1));

function seq(args: unknown[]): number[] {
  const n = args.map(toInt64);
  const [start, end, step] = n.length === 1 ? [1, n[0], 1] : n.length === 2 ? [n[0], n[1], 1] : [n[0], n[1], n[2]];
  if (step === 0 || Math.abs(end - start) / Math.abs(step) > 100_000) throw new Error('seq: bad step or too many items');
  const out: number[] = [];
  const s = end >= start ? Math.abs(step) : -Math.abs(step);
  for (let i = start; s > 0 ? i <= end : i >= end; i += s) out.push(i);
  return out;
}

const STRINGS: Record<string, TemplateFunc> = {
  ToLower: f(1, 1, ([s]) => str(s).toLowerCase()),
  ToUpper: f(1, 1, ([s]) => str(s).toUpperCase()),
  Title: f(1, 1, ([s]) => title(str(s))),
  TrimSpace: f(1, 1, ([s]) => str(s).trim()),
  Trim: f(2, 2, ([cutset, s]) => trimCutset(str(s), str(cutset))),
  TrimPrefix: f(2, 2, ([prefix, s]) => (str(s).startsWith(str(prefix)) ? str(s).slice(str(prefix).length) : str(s))),
  TrimSuffix: f(2, 2, ([suffix, s]) => (str(s).endsWith(str(suffix)) && str(suffix) ? str(s).slice(0, -str(suffix).length) : str(s))),
  Contains: f(2, 2, ([sub, s]) => str(s).includes(str(sub))),
  HasPrefix: f(2, 2, ([p, s]) => str(s).startsWith(str(p))),
  HasSuffix: f(2, 2, ([p, s]) => str(s).endsWith(str(p))),
  Split: f(2, 2, ([sep, s]) => (str(sep) === '' ? [...str(s)] : str(s).split(str(sep)))),
  ReplaceAll: f(3, 3, ([from, to, s]) => str(s).replaceAll(str(from), str(to))),
  Repeat: f(2, 2, ([n, s]) => {
    if (toInt64(n) < 0) throw new Error('negative count');
    if (toInt64(n) * str(s).length > MAX_STRING) throw new Error(`result longer than ${MAX_STRING} characters`);
    return str(s).repeat(toInt64(n));
  }),
  Trunc: f(2, 2, ([n, s]) => [...str(s)].slice(0, Math.max(0, toInt64(n))).join('')),
  Quote: f(1, 1, ([s]) => JSON.stringify(str(s))),
  Squote: f(1, 1, ([s]) => `'${str(s).replaceAll("'", "''")}'`),
  HumanDuration: f(1, 1, ([d]) => {
    const n = d instanceof GoDuration ? d.ns : toNanos(d);
    return n === null ? '' : humanDuration(n);
  }),
  HumanSize: f(1, 1, ([b]) => humanBytes(b)),
  SemverCompare: f(2, 2, ([c, v]) => semverCompare(str(c), str(v))),
};

const CONV: Record<string, TemplateFunc> = {
  ToInt: f(1, 1, ([v]) => toInt64(v)),
  ToInt64: f(1, 1, ([v]) => toInt64(v)),
  ToFloat64: f(1, 1, ([v]) => toFloat64(v)),
  ToString: f(1, 1, ([v]) => toGoString(v)),
  ToBool: f(1, 1, ([v]) => toBool(v)),
  Bool: f(1, 1, ([v]) => toBool(v)),
  Default: f(2, 2, ([def, v]) => (isTrue(v) ? v : def)),
  Join: f(2, 2, ([l, sep]) => list(l, 'conv.Join').map(toGoString).join(str(sep))),
  Has: f(2, 2, ([m, key]) => (isMap(m) ? Object.hasOwn(m, str(key)) : Array.isArray(m) ? m.includes(key) : false)),
};

const MATH: Record<string, TemplateFunc> = {
  Add: f(0, Infinity, sum),
  Mul: f(0, Infinity, product),
  Sub: f(2, 2, ([a, b]) => (hasFloat([a, b]) ? toFloat64(a) - toFloat64(b) : toInt64(a) - toInt64(b))),
  Div: f(2, 2, ([a, b]) => {
    if (toFloat64(b) === 0) throw new Error('error: division by 0');
    return toFloat64(a) / toFloat64(b);
  }),
  Rem: f(2, 2, ([a, b]) => {
    if (toInt64(b) === 0) throw new Error('integer divide by zero');
    return toInt64(a) % toInt64(b);
  }),
  Pow: f(2, 2, ([a, b]) => (hasFloat([a]) ? toFloat64(a) ** toFloat64(b) : Math.trunc(toFloat64(a) ** toFloat64(b)))),
  Seq: f(1, 3, seq),
  Abs: f(1, 1, ([a]) => Math.abs(hasFloat([a]) ? toFloat64(a) : toInt64(a))),
  Ceil: f(1, 1, ([a]) => Math.ceil(toFloat64(a))),
  Floor: f(1, 1, ([a]) => Math.floor(toFloat64(a))),
  Round: f(1, 1, ([a]) => Math.sign(toFloat64(a)) * Math.round(Math.abs(toFloat64(a)))),
  Max: f(1, Infinity, (args) => (hasFloat(args) ? Math.max(...args.map(toFloat64)) : Math.max(...args.map(toInt64)))),
  Min: f(1, Infinity, (args) => (hasFloat(args) ? Math.min(...args.map(toFloat64)) : Math.min(...args.map(toInt64)))),
};

const DATA: Record<string, TemplateFunc> = {
  JSON: f(1, 1, ([v]) => parseJSON(v, 'map')),
  JSONArray: f(1, 1, ([v]) => parseJSON(v, 'list')),
  ToJSON: f(1, 1, ([v]) => toJSON(v)),
  ToJSONPretty: f(2, 2, ([indent, v]) => toJSONPretty(str(indent), v)),
};

const COLL: Record<string, TemplateFunc> = {
  Slice: f(0, Infinity, (args) => args),
  Has: CONV.Has,
  Dict: f(0, Infinity, (args) => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < args.length; i += 2) out[toGoString(args[i])] = i + 1 < args.length ? args[i + 1] : '';
    return out;
  }),
  // Go's map order is random; sorted here so a template prints the same text every run
  Keys: f(1, 1, ([m]) => Object.keys(map(m, 'keys')).sort()),
  Values: f(1, 1, ([m]) => Object.keys(map(m, 'values')).sort().map((k) => (m as Record<string, unknown>)[k])),
  Append: f(2, 2, ([v, l]) => [...list(l, 'append'), v]),
  Prepend: f(2, 2, ([v, l]) => [v, ...list(l, 'prepend')]),
  Reverse: f(1, 1, ([l]) => [...list(l, 'reverse')].reverse()),
  Merge: f(1, Infinity, ([dst, ...srcs]) => srcs.reduce<Record<string, unknown>>((d, s) => mergeInto(d, map(s, 'merge')), map(dst, 'merge'))),
  First: f(1, 1, ([l]) => list(l, 'first')[0] ?? null),
  Last: f(1, 1, ([l]) => list(l, 'last').at(-1) ?? null),
  Coalesce: f(0, Infinity, (args) => args.find((a) => isTrue(a)) ?? null),
};

const TEST: Record<string, TemplateFunc> = {
  Ternary: f(3, 3, ([t, fv, b]) => (toBool(b) ? t : fv)),
  Kind: f(1, 1, ([v]) => goKind(v)),
};

function goKind(v: unknown): string {
  if (v === null || v === undefined) return 'invalid';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float64';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? 'slice' : 'map';
}

/** The reference's status of a check with no previous result (canary-checker api/context/functions.go). */
const EMPTY_LAST_RESULT = { status: '', invalid: false, createdAt: null, duration: 0, message: '', error: '', results: {} };

const ns = (name: string, methods: Record<string, TemplateFunc>): TemplateFunc => {
  const value = new Namespace(name, methods);
  return f(0, 0, () => value);
};

export const GOMPLATE_FUNCS: Record<string, TemplateFunc> = {
  strings: ns('strings', STRINGS),
  conv: ns('conv', CONV),
  math: ns('math', MATH),
  data: ns('data', DATA),
  coll: ns('coll', COLL),
  test: ns('test', TEST),
  time: ns('time', TIME),
  // funcs/strings.go aliases (legacy ones take the string first, as Go's strings package does)
  toLower: STRINGS.ToLower, toUpper: STRINGS.ToUpper, title: STRINGS.Title, replaceAll: STRINGS.ReplaceAll,
  quote: STRINGS.Quote, squote: STRINGS.Squote,
  // one argument (`x | trim`, as Sprig's trim and playbooks use it) trims white space; two trim the cutset
  trim: f(1, 2, (args) => (args.length === 1 ? str(args[0]).trim() : trimCutset(str(args[0]), str(args[1])))),
  contains: f(2, 2, ([s, sub]) => str(s).includes(str(sub))),
  hasPrefix: f(2, 2, ([s, p]) => str(s).startsWith(str(p))),
  hasSuffix: f(2, 2, ([s, p]) => str(s).endsWith(str(p))),
  startsWith: f(2, 2, ([s, p]) => str(s).startsWith(str(p))),
  endsWith: f(2, 2, ([s, p]) => str(s).endsWith(str(p))),
  split: f(2, 2, ([s, sep]) => str(s).split(str(sep))),
  humanDuration: STRINGS.HumanDuration, humanSize: STRINGS.HumanSize, semverCompare: STRINGS.SemverCompare,
  // funcs/conv.go, funcs/data.go, funcs/math.go, funcs/coll.go, funcs/test.go aliases
  bool: CONV.Bool, join: CONV.Join, default: CONV.Default,
  json: DATA.JSON, jsonArray: DATA.JSONArray, toJSON: DATA.ToJSON, toJSONPretty: DATA.ToJSONPretty,
  add: MATH.Add, sub: MATH.Sub, mul: MATH.Mul, div: MATH.Div, rem: MATH.Rem, pow: MATH.Pow, seq: MATH.Seq,
  has: COLL.Has, slice: COLL.Slice, dict: COLL.Dict, keys: COLL.Keys, values: COLL.Values, append: COLL.Append,
  prepend: COLL.Prepend, reverse: COLL.Reverse, merge: COLL.Merge, first: COLL.First, last: COLL.Last,
  coalesce: COLL.Coalesce, ternary: TEST.Ternary, kind: TEST.Kind,
  // canary-checker's contextual function: the check's previous result
  last_result: f(0, 0, (_args, ctx) => ctx.lastResult ?? EMPTY_LAST_RESULT),
};
