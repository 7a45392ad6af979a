import { LookupError } from '../types.js';

/** More than this many results from one lookup block fails it: a runaway query must not become 100,000 components. */
export const MAX_LOOKUP_RESULTS = 10_000;

type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * What one lookup entry yielded, as values: text is parsed as JSON (the reference unmarshals a lookup's message),
 * a list is spread, null is nothing. Text that is not JSON is an error for a component lookup; for a property lookup,
 * text that is not a JSON list or object is one bare value, as written (`display.expr: '"value"'`, `'16.10'`). The parse error's own text is left out: V8 quotes the input in it.
 */
export function resultValues(path: string, value: unknown, purpose: 'components' | 'property'): unknown[] {
  if (value === null || value === undefined) return [];
  if (typeof value === 'string') {
    const text = value.trim();
    if (!text) return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      if (purpose === 'property') return [value];
      throw new LookupError(`${path}: the result is not JSON (${text.length} characters starting ${JSON.stringify(text.slice(0, 1))})`);
    }
    if (parsed === null) return [];
    if (Array.isArray(parsed)) return parsed;
    // a property's text stays text unless it is a property (list): "16.10" is a version, not the number 16.1
    return purpose === 'property' && !isObj(parsed) ? [value] : [parsed];
  }
  return Array.isArray(value) ? value : [value];
}

/**
 * The checks a component lookup's results must pass before the builder sees them: at most MAX_LOOKUP_RESULTS, and
 * each an object with a non-empty string name (the reference would save a nameless component that then never
 * matches its own upsert key).
 */
export function checkComponents(path: string, results: unknown[]): Obj[] {
  results.forEach((r, i) => {
    if (!isObj(r)) throw new LookupError(`${path}: lookup result ${i} is not an object (a ${Array.isArray(r) ? 'list' : typeof r})`);
    if (typeof r.name !== 'string' || !r.name.trim()) throw new LookupError(`${path}: lookup result ${i} has no name`);
  });
  return results as Obj[];
}

export function checkCount(path: string, n: number): void {
  if (n > MAX_LOOKUP_RESULTS) {
    throw new LookupError(`${path}: ${n.toLocaleString('en')} results, more than the ${MAX_LOOKUP_RESULTS.toLocaleString('en')} a lookup may yield`);
  }
}

/** "timed out after 30000 ms" (health's wording) as the status reason says it: "timed out after 30 s". */
export function lookupErrorText(error: string): string {
  return error.replace(/timed out after (\d+) ms/g, (_, ms: string) => `timed out after ${+(Number(ms) / 1000).toFixed(2)} s`);
}
