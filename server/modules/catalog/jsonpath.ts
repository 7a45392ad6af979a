import { JSONPath } from 'jsonpath-plus';

/**
 * JSONPath as the scraper spec uses it (jsonpath-plus 10.3.0). config-db treats a value starting with `$` or `@` as
 * JSONPath (`id: $.metadata.uid`) and anything else as a literal; `items` and `transform.exclude[].jsonpath` are
 * always JSONPath and may start with `.` (`.password`, `.database`), read as `$.password`.
 *
 * jsonpath-plus is lenient (an unclosed bracket matches something), so `jsonPathError` checks the text itself first,
 * then compiles every filter script, so a bad path is refused at save rather than matching the wrong thing at run.
 */

/** Whether a field value is JSONPath (config-db's IsJSONPath), not a literal. */
export const isJsonPath = (v: unknown): v is string => typeof v === 'string' && /^[$@]/.test(v);

/** `$`-rooted form of a path: `.a` and `[0]` gain the `$`, `@.a` (config-db's relative form) becomes `$.a`. */
export function normalizePath(path: string): string {
  const p = path.trim();
  if (p.startsWith('@')) return `$${p.slice(1)}`;
  if (p.startsWith('.') || p.startsWith('[')) return `$${p}`;
  return p;
}

/** Null when `path` is a well-formed JSONPath, else why not. */
export function jsonPathError(path: string): string | null {
  const p = normalizePath(path);
  if (!p) return 'an empty JSONPath';
  if (!p.startsWith('$')) return `"${clip(p)}" is not a JSONPath (it must start with $)`;
  const stack: string[] = [];
  let quote: string | null = null;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === '[' || c === '(') stack.push(c);
    else if (c === ']' || c === ')') {
      const open = stack.pop();
      if ((c === ']' && open !== '[') || (c === ')' && open !== '(')) return `unbalanced "${c}" at character ${i + 1} in ${clip(p)}`;
    }
  }
  if (quote) return `unclosed quote in ${clip(p)}`;
  if (stack.length) return `unclosed "${stack[stack.length - 1]}" in ${clip(p)}`;
  // `$.[`, `$...a`, `$.a.`, `[]`: jsonpath-plus reads these as something else rather than refusing them
  const bare = p.replace(/'[^']*'|"[^"]*"/g, "''").replace(/\.\.\[/g, '[');
  if (/\.\.\.|\.\[|\[\]|\.$/.test(bare)) return `malformed JSONPath ${clip(p)}`;
  let parts: string[];
  try {
    parts = JSONPath.toPathArray(p) as string[];
  } catch (err) {
    return `${clip(p)}: ${(err as Error).message}`;
  }
  for (const part of parts) {
    // a filter or script segment: compiled by running it once over an empty object
    if (!/^\??\(/.test(part)) continue;
    try {
      JSONPath({ path: `$[${part}]`, json: [{}], wrap: true });
    } catch (err) {
      return `${clip(p)}: ${(err as Error).message}`;
    }
  }
  return null;
}

const SIMPLE = /^\$(\.[A-Za-z_][A-Za-z0-9_-]*)+$/;
const clip = (s: string) => (s.length > 120 ? `${s.slice(0, 117)}...` : s);

/** Every value `path` selects in `doc` (none when it selects nothing). Throws on a filter that fails at run. */
export function jsonPathValues(path: string, doc: unknown): unknown[] {
  if (doc === null || typeof doc !== 'object') return [];
  // `$.a.b` (the usual id/name/type path) read directly, without jsonpath-plus's evaluation per item
  const p = normalizePath(path);
  if (SIMPLE.test(p)) {
    let v: unknown = doc;
    for (const key of p.slice(2).split('.')) {
      if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, key)) return [];
      v = (v as Record<string, unknown>)[key];
    }
    return v === undefined ? [] : [v];
  }
  const out = JSONPath({ path: normalizePath(path), json: doc as object, wrap: true, resultType: 'value' }) as unknown[] | undefined;
  return out ?? [];
}

/** The first value `path` selects, as text (objects as JSON); `undefined` when it selects nothing or null. */
export function jsonPathString(path: string, doc: unknown): string | undefined {
  const [v] = jsonPathValues(path, doc);
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

interface Match {
  parent: Record<string, unknown> | unknown[] | null;
  parentProperty: string | number | null;
  value: unknown;
}

function matches(path: string, doc: object): Match[] {
  return (JSONPath({ path: normalizePath(path), json: doc, wrap: true, resultType: 'all' }) as Match[] | undefined) ?? [];
}

/** Removes what `path` selects from `doc` in place (array elements last to first, so indices stay right). */
export function deleteAtPath(path: string, doc: unknown): void {
  if (doc === null || typeof doc !== 'object') return;
  const found = matches(path, doc).filter((m) => m.parent && m.parentProperty !== null);
  const fromArrays = found.filter((m) => Array.isArray(m.parent)).sort((a, b) => Number(b.parentProperty) - Number(a.parentProperty));
  for (const m of found) if (!Array.isArray(m.parent)) delete (m.parent as Record<string, unknown>)[String(m.parentProperty)];
  for (const m of fromArrays) (m.parent as unknown[]).splice(Number(m.parentProperty), 1);
}

/** Replaces each value `path` selects in `doc` (in place) with `replace(value)`. The root itself is never replaced. */
export function replaceAtPath(path: string, doc: unknown, replace: (v: unknown) => unknown): void {
  if (doc === null || typeof doc !== 'object') return;
  for (const m of matches(path, doc)) {
    if (!m.parent || m.parentProperty === null) continue;
    (m.parent as Record<string | number, unknown>)[m.parentProperty] = replace(m.value);
  }
}
