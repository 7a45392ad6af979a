import { isMap, isTrue, type TemplateFunc } from './exec.js';
import { formatValue, goTypeName, sprint, sprintf } from './format.js';

/**
 * The functions Go's text/template predefines, over JSON-like values: not, len, index, print, printf, println, eq,
 * ne, lt, le, gt, ge, urlquery (and / or are evaluated lazily by the executor). html, js and call are not here, so a
 * template using them is refused when parsed. `slice` is gomplate's (it replaces Go's), see funcs-gomplate.ts.
 */

const f = (min: number, max: number, call: (args: unknown[]) => unknown): TemplateFunc => ({ arity: [min, max], call });

type Basic = 'bool' | 'number' | 'string' | 'nil';

function basicKind(v: unknown): Basic | null {
  if (v === null || v === undefined) return 'nil';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'string') return 'string';
  return null;
}

/** Go's eq for two values: basic values of one kind compare by value; lists and maps are not comparable. */
function equal(a: unknown, b: unknown): boolean {
  const ka = basicKind(a);
  const kb = basicKind(b);
  if (ka === 'nil' || kb === 'nil') {
    if (ka === null || kb === null) {
      // Go compares nil with a list or map by its nil-ness; decoded data is never a nil list or map
      return false;
    }
    return ka === kb;
  }
  if (!ka || !kb) throw new Error(`non-comparable type ${formatValue(ka ? b : a)}: ${goTypeName(ka ? b : a)}`);
  if (ka !== kb) throw new Error('incompatible types for comparison');
  return a === b;
}

function less(a: unknown, b: unknown): boolean {
  const ka = basicKind(a);
  const kb = basicKind(b);
  if (!ka || ka === 'bool' || ka === 'nil' || !kb || kb === 'bool' || kb === 'nil') throw new Error('invalid type for comparison');
  if (ka !== kb) throw new Error('incompatible types for comparison');
  return (a as number | string) < (b as number | string);
}

/** len: bytes of a string (as Go counts them), items of a list, keys of a map. */
function length(v: unknown): number {
  if (typeof v === 'string') return Buffer.byteLength(v);
  if (Array.isArray(v)) return v.length;
  if (isMap(v)) return Object.keys(v).length;
  throw new Error(`len of type ${goTypeName(v)}`);
}

/** index x 1 2: list positions and map keys, one level per argument; a missing map key is nil. */
function index(args: unknown[]): unknown {
  let v = args[0];
  for (const key of args.slice(1)) {
    if (v === null || v === undefined) throw new Error('index of untyped nil');
    if (Array.isArray(v)) {
      if (typeof key !== 'number' || !Number.isInteger(key)) throw new Error(`cannot index slice/array with type ${goTypeName(key)}`);
      if (key < 0 || key >= v.length) throw new Error(`index out of range: ${key}`);
      v = v[key];
    } else if (isMap(v)) {
      if (typeof key !== 'string') throw new Error(`value has type ${goTypeName(key)}; should be string`);
      v = Object.hasOwn(v, key) ? v[key] : null;
    } else if (typeof v === 'string') {
      if (typeof key !== 'number' || key < 0 || key >= Buffer.byteLength(v)) throw new Error(`index out of range: ${formatValue(key)}`);
      v = Buffer.from(v)[key];
    } else throw new Error(`can't index item of type ${goTypeName(v)}`);
  }
  return v;
}

export const BUILTIN_FUNCS: Record<string, TemplateFunc> = {
  not: f(1, 1, ([v]) => !isTrue(v)),
  len: f(1, 1, ([v]) => length(v)),
  index: f(1, Infinity, index),
  print: f(0, Infinity, (args) => sprint(args)),
  println: f(0, Infinity, (args) => `${args.map(formatValue).join(' ')}\n`),
  printf: f(1, Infinity, ([format, ...rest]) => sprintf(String(format), rest)),
  // url.QueryEscape: only letters, digits and -_.~ stay as they are
  urlquery: f(0, Infinity, (args) => encodeURIComponent(sprint(args)).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, '+')),
  eq: f(2, Infinity, ([a, ...rest]) => rest.some((b) => equal(a, b))),
  ne: f(2, 2, ([a, b]) => !equal(a, b)),
  lt: f(2, 2, ([a, b]) => less(a, b)),
  le: f(2, 2, ([a, b]) => less(a, b) || equal(a, b)),
  gt: f(2, 2, ([a, b]) => !less(a, b) && !equal(a, b)),
  ge: f(2, 2, ([a, b]) => !less(a, b)),
};
