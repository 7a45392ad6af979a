/**
 * The field-reference subset of Go's text/template that canary manifests use most in `display.template` and
 * `test.template`: `{{.code}}`, `{{ .json.rates.EUR }}`, `{{.}}`, with `{{-`/`-}}` trimming the whitespace beside them.
 * Values print as Go's fmt %v does (maps as map[k:v], lists as [a b], a missing key as <no value>).
 *
 * Anything else (pipelines, functions, if/range/with, variables) is refused when the template is parsed, with the
 * action named: a full Go template engine (plus the reference's gomplate functions) is not something to hand-write,
 * and no maintained npm package implements it; CEL (`expr`) covers the rest.
 */

export class GoTemplateError extends Error {}

type Part = string | { path: string[] };

const ACTION = /\{\{(-\s)?([\s\S]*?)(\s-)?\}\}/g;
const FIELD = /^\.(?:[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)?$/;
const MAX_TEMPLATE = 4_096;
const cache = new Map<string, Part[]>();

/** Splits a template into text and field references; throws GoTemplateError naming the first unsupported action. */
export function parseGoTemplate(template: string): Part[] {
  const hit = cache.get(template);
  if (hit) return hit;
  if (template.length > MAX_TEMPLATE) throw new GoTemplateError(`template longer than ${MAX_TEMPLATE} characters`);
  const parts: Part[] = [];
  let last = 0;
  let trimNext = false;
  for (const m of template.matchAll(ACTION)) {
    let text = template.slice(last, m.index);
    if (trimNext) text = text.trimStart();
    if (m[1]) text = text.trimEnd();
    if (text) parts.push(text);
    const action = m[2].trim();
    if (action.startsWith('/*')) {
      // a comment: prints nothing
    } else if (FIELD.test(action)) {
      parts.push({ path: action === '.' ? [] : action.slice(1).split('.') });
    } else {
      throw new GoTemplateError(`unsupported template action {{${m[2]}}}: only field references such as {{.code}} are supported; use expr (CEL) for more`);
    }
    trimNext = !!m[3];
    last = m.index + m[0].length;
  }
  let rest = template.slice(last);
  if (trimNext) rest = rest.trimStart();
  if (rest.includes('{{')) throw new GoTemplateError('unclosed template action: "{{" without "}}"');
  if (rest) parts.push(rest);
  if (cache.size >= 1_000) cache.delete(cache.keys().next().value!);
  cache.set(template, parts);
  return parts;
}

/** Null when the template is in the supported subset, else why not. */
export function goTemplateError(template: string): string | null {
  try {
    parseGoTemplate(template);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Renders a template over `data` (the check's result fields). */
export function renderGoTemplate(template: string, data: Record<string, unknown>): string {
  return parseGoTemplate(template)
    .map((p) => {
      if (typeof p === 'string') return p;
      let v: unknown = data;
      for (const key of p.path) {
        if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, key)) return '<no value>';
        v = (v as Record<string, unknown>)[key];
      }
      return formatValue(v);
    })
    .join('');
}

/** A value as Go's fmt %v prints the JSON-decoded equivalent. */
function formatValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(formatValue).join(' ')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `map[${Object.keys(o).sort().map((k) => `${k}:${formatValue(o[k])}`).join(' ')}]`;
  }
  return String(v);
}
