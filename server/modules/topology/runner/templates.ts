/**
 * Field-reference templates, as the reference's forEach and names use them: `{{.name}}`, `{{ .properties.x }}`
 * (Go template syntax) and `$(.name)` (the reference's forEach delimiter). Only a dotted reference to a field of the
 * component is allowed: no functions, pipes or control flow, so a spec can never run code through a template and a
 * render cannot fail. Anything else is refused when the spec is saved.
 */

const REF = String.raw`\s*(\.|(?:\.[A-Za-z_][\w-]*)+)\s*`;
const TOKEN = /\{\{(.*?)\}\}|\$\((.*?)\)/gs;
const FIELD = new RegExp(`^${REF}$`);

/** Null when every template in the text is a field reference, else what is wrong (for a 400 naming the path). */
export function templateProblem(text: string): string | null {
  for (const m of text.matchAll(TOKEN)) {
    const inner = m[1] ?? m[2] ?? '';
    if (!FIELD.test(inner)) {
      return `only field references are allowed in templates ({{.name}}, {{.properties.x}}, $(.name)); got "${m[0].slice(0, 80)}"`;
    }
  }
  const rest = text.replace(TOKEN, '');
  if (rest.includes('{{') || rest.includes('}}')) return `unclosed template in "${text.slice(0, 80)}"`;
  return null;
}

/** Whether the text has a template at all (cheap test before rendering). */
export const hasTemplate = (text: string): boolean => text.includes('{{') || text.includes('$(');

function lookupPath(env: Record<string, unknown>, path: string): unknown {
  if (path === '.') return env;
  let cur: unknown = env;
  for (const key of path.slice(1).split('.')) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

const asText = (v: unknown): string =>
  v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);

/** Renders the field references of one string; an unknown field renders as '' (Go's missingkey=zero for maps). */
export function renderText(text: string, env: Record<string, unknown>): string {
  if (!hasTemplate(text)) return text;
  return text.replace(TOKEN, (whole, a?: string, b?: string) => {
    const m = FIELD.exec(a ?? b ?? '');
    return m ? asText(lookupPath(env, m[1])) : whole;
  });
}

/** Renders every string inside a value (a forEach block), keys left as they are. */
export function renderDeep<T>(value: T, env: Record<string, unknown>): T {
  if (typeof value === 'string') return renderText(value, env) as T;
  if (Array.isArray(value)) return value.map((v) => renderDeep(v, env)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderDeep(v, env)])) as T;
  }
  return value;
}
