/**
 * The part of jq that the reference's `jq(expr, value)` CEL function (flanksource/gomplate coll/json.go, on gojq) is
 * used with in config-db's fixtures: paths (`.a.b`, `.["a b"]`, `.[0]`), iteration (`.[]`, `.[]?`), pipes, and
 * `select(<path> == <literal>)` / `!=`. npm has no maintained pure-JS jq that runs synchronously (jq-wasm loads
 * asynchronously, jqjs is an unmaintained 0.0.1), and CEL evaluation here is synchronous, so anything else is refused
 * with a message naming what is supported.
 */

type Stage = (v: unknown) => unknown[];

const SUPPORTED = 'supported: paths (.a.b, .["k"], .[0]), .[] and .[]?, |, select(<path> == or != <string, number, true, false, null>)';

export class JqError extends Error {}

/** Runs a jq program over a JSON value; every output, in order (jq's stream). */
export function runJq(program: string, input: unknown): unknown[] {
  return compileJq(program).reduce<unknown[]>((values, stage) => values.flatMap(stage), [input]);
}

const compiled = new Map<string, Stage[]>();

function compileJq(program: string): Stage[] {
  const hit = compiled.get(program);
  if (hit) return hit;
  const stages = splitTop(program, '|').map(parseStage);
  if (compiled.size > 500) compiled.clear();
  compiled.set(program, stages);
  return stages;
}

/** Splits on `sep` outside brackets, parentheses and strings. */
function splitTop(text: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === '"') quote = false;
    } else if (depth === 0 && text.startsWith(sep, i)) {
      parts.push(text.slice(start, i));
      start = i + sep.length;
    } else if (c === '"') quote = true;
    else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim());
}

/** A path, or `select(...)` optionally followed by a path (`select(.type == "x").message`). */
function parseStage(text: string): Stage {
  if (!text.startsWith('select(')) return parsePath(text);
  const close = splitTop(text.slice('select('.length), ')')[0].length + 'select('.length;
  if (text[close] !== ')') throw new JqError(`jq: unbalanced select(; ${SUPPORTED}`);
  const filter = parseSelect(text.slice('select('.length, close));
  const suffix = text.slice(close + 1).trim();
  if (!suffix) return filter;
  const then = parsePath(suffix.startsWith('[') ? `.${suffix}` : suffix);
  return (v) => filter(v).flatMap(then);
}

function parseSelect(cond: string): Stage {
  const m = /^(.*?)\s*(==|!=)\s*(.*)$/s.exec(cond);
  if (!m) throw new JqError(`jq: unsupported select(${cond}); ${SUPPORTED}`);
  const left = parsePath(m[1].trim());
  let literal: unknown;
  try {
    literal = JSON.parse(m[3].trim());
  } catch {
    throw new JqError(`jq: unsupported value ${m[3].trim()} in select(); ${SUPPORTED}`);
  }
  if (literal !== null && typeof literal === 'object') throw new JqError(`jq: unsupported value ${m[3].trim()} in select(); ${SUPPORTED}`);
  const want = m[2] === '==';
  return (v) => left(v).filter((x) => (x === literal) === want).map(() => v);
}

const STEP = /^(?:\.([A-Za-z_][A-Za-z0-9_]*)|\.?\[\s*("(?:[^"\\]|\\.)*"|-?\d+)?\s*\](\?)?|\.)/;

/** A path: `.`, `.a`, `.a.b[]?`, `.["k"][0]`; a missing key or an index of null gives null, as in jq. */
function parsePath(text: string): Stage {
  if (!text.startsWith('.')) throw new JqError(`jq: unsupported expression "${text}"; ${SUPPORTED}`);
  const steps: Stage[] = [];
  let rest = text;
  while (rest) {
    const m = STEP.exec(rest);
    if (!m || m[0] === '') throw new JqError(`jq: unsupported expression "${text}"; ${SUPPORTED}`);
    rest = rest.slice(m[0].length);
    if (m[1] !== undefined) steps.push(index(m[1], false));
    else if (m[0] === '.') continue;
    else if (m[2] === undefined) steps.push(iterate(m[3] === '?'));
    else steps.push(index(m[2].startsWith('"') ? (JSON.parse(m[2]) as string) : Number(m[2]), m[3] === '?'));
  }
  return (v) => steps.reduce<unknown[]>((values, step) => values.flatMap(step), [v]);
}

function index(key: string | number, optional: boolean): Stage {
  return (v) => {
    if (v === null || v === undefined) return [null];
    if (typeof key === 'number' && Array.isArray(v)) return [v.at(key) ?? null];
    if (typeof key === 'string' && typeof v === 'object' && !Array.isArray(v)) return [(v as Record<string, unknown>)[key] ?? null];
    if (optional) return [];
    throw new JqError(`jq: cannot index ${kind(v)} with ${JSON.stringify(key)}`);
  };
}

function iterate(optional: boolean): Stage {
  return (v) => {
    if (Array.isArray(v)) return v;
    if (v !== null && typeof v === 'object') return Object.values(v);
    if (optional) return [];
    throw new JqError(`jq: cannot iterate over ${kind(v)}`);
  };
}

function kind(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}
