import { celToText, CelExprError, compileCel, evalCel, parseLongDuration } from '../../lib/cel.js';
import { GoTemplateError, TEMPLATE_FUNCS } from '../../lib/go-template.js';
import { execTemplate, type TemplateFunc } from '../../lib/go-template/exec.js';
import { formatValue } from '../../lib/go-template/format.js';
import { parseTemplate, type Node } from '../../lib/go-template/parser.js';
import { parseSchedule } from '../health/schedule.js';

/**
 * The playbook's template and CEL surface (issue 14), used by the engine at run time and by the spec's checks at
 * save time.
 *
 * Templates are Go text/template (server/lib/go-template) with gomplate's functions plus `getAction "name"` (an
 * earlier action of the run: `{{ (getAction "fetch").result.stdout }}`) and `getLastAction` (the one that ran last).
 * Two delimiters, as the reference: `{{ }}`, and `$( )` when what follows `$(` is a field (`$(.params.x)`), a variable
 * (`$($x)`) or getAction / getLastAction (also in parentheses: `$((getAction "a").result)`), so that a shell's own
 * `$(date)` and `$((1+2))` in an exec script stay shell. A leading comment line `# gotemplate: left-delim=$[[
 * right-delim=]]` (among the text's first comment lines, as gomplate reads it) sets other delimiters for that text
 * alone and is removed from it; `{{` and `$(` are then plain text.
 *
 * CEL (`if`, `delay`, `filters`, `on.*.filter`) sees the env's names as variables, the run's state through
 * `success()`, `failure()`, `always()`, `skip()`, `timeout()`, and its actions through `getAction("name")` and
 * `getLastAction()`.
 */

/** What templates (`{{ }}` and `$( )`) and CEL expressions see. */
export interface TemplateEnv {
  params: Record<string, unknown>;
  /** The run's resource, under the reference's names: one of check, config, component (with canary for a check). */
  check?: Record<string, unknown>;
  canary?: Record<string, unknown>;
  config?: Record<string, unknown>;
  component?: Record<string, unknown>;
  run: Record<string, unknown>;
  playbook: Record<string, unknown>;
  /** A webhook run's request: {url, method, headers, params, content, json}. */
  request?: Record<string, unknown>;
  user?: Record<string, unknown>;
  env: Record<string, string>;
  agent?: Record<string, unknown>;
}

/** What `if` sees of the run so far: success() is "nothing failed yet", failure() "something did". */
export interface RunState {
  failed: boolean;
  /** The run's deadline passed (timeout()). */
  timedOut?: boolean;
  /** The previous action's result, for the reference's `last_result()` (CEL) and `last_result` (templates). */
  lastResult?: Record<string, unknown>;
  /** The run's actions so far, for getAction / getLastAction. */
  actions?: RunActions;
}

/** A run's actions as templates and CEL see them ({name, status, result, error, …}; see actionView in executor-run). */
export interface RunActions {
  byName(name: string): Record<string, unknown> | undefined;
  last?: Record<string, unknown>;
}

/** A problem with its path as segments (`['actions', 0, 'exec', 'script']`). */
export interface TemplateIssue { path: (string | number)[]; message: string }

const MAX_DEPTH = 64;

// ---- templates ----

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** gomplate's `shellQuote`: each value (a list's elements) as a POSIX shell single-quoted word, joined by spaces. */
function shellQuote(args: unknown[]): string {
  const words = args.flatMap((a) => (Array.isArray(a) ? a : [a]));
  return words.map((w) => `'${(typeof w === 'string' ? w : formatValue(w)).replaceAll("'", `'"'"'`)}'`).join(' ');
}

/** Functions playbook templates have besides the library's (getAction is bound per run). */
const PLAYBOOK_FUNCS: ReadonlyMap<string, TemplateFunc> = new Map([
  ['shellQuote', { arity: [1, Infinity], call: (args) => shellQuote(args) }],
]);
const known = (name: string) => name === 'and' || name === 'or' || name === 'getAction' || name === 'getLastAction'
  || PLAYBOOK_FUNCS.has(name) || TEMPLATE_FUNCS.has(name);

/** Whether a string holds a template in either delimiter (or sets its own with a gotemplate header). */
export function hasTemplate(s: string): boolean {
  return s.includes('{{') || DOLLAR_OPEN.test(s) || (s.includes(HEADER_PREFIX) && delimHeader(s) !== null);
}
const DOLLAR_OPEN = /\$\(\s*(\.|\$|\(*\s*getAction\b|\(*\s*getLastAction\b)/;

// ---- the gotemplate header (flanksource/gomplate's parseAndStripTemplateHeader) ----

const HEADER_PREFIX = '# gotemplate: ';

/**
 * The delimiters a `# gotemplate: left-delim=… right-delim=…` line sets, and the text without that line; null when
 * the text's leading comment lines (`#…`, a `---` skipped) have none. Throws on a field without `=`.
 */
function delimHeader(s: string): { left: string; right: string; body: string } | null {
  let at = 0;
  while (at <= s.length) {
    const nl = s.indexOf('\n', at);
    const line = s.slice(at, nl < 0 ? s.length : nl).replace(/\r$/, '');
    if (line !== '---') {
      if (!line.startsWith('#')) return null;
      if (line.startsWith(HEADER_PREFIX)) {
        let left = '{{';
        let right = '}}';
        for (const field of line.slice(HEADER_PREFIX.length).split(/\s+/).filter(Boolean)) {
          const eq = field.indexOf('=');
          if (eq < 0) throw new GoTemplateError(`template: invalid gotemplate header field ${field}`);
          const [k, v] = [field.slice(0, eq), field.slice(eq + 1)];
          if (k === 'left-delim' && v) left = v;
          else if (k === 'right-delim' && v) right = v;
        }
        return { left, right, body: s.slice(0, at) + (nl < 0 ? '' : s.slice(nl + 1)) };
      }
    }
    if (nl < 0) return null;
    at = nl + 1;
  }
  return null;
}

/** Text with `left … right` actions rewritten as `{{ … }}`, its own `{{` kept as text. */
function fromDelims(body: string, left: string, right: string): string {
  if (left === '{{' && right === '}}') return body;
  const text = (t: string) => t.replaceAll('{{', '{{"{{"}}');
  let out = '';
  let i = 0;
  for (;;) {
    const at = body.indexOf(left, i);
    if (at < 0) return out + text(body.slice(i));
    out += text(body.slice(i, at));
    const end = closingDelim(body, at + left.length, right);
    if (end < 0) throw new GoTemplateError(`template: unclosed action ${left} at offset ${at}`);
    out += `{{${body.slice(at + left.length, end)}}}`;
    i = end + right.length;
  }
}

/** Where `right` closes an action that starts at `from`, outside quoted strings; -1 when it does not. */
function closingDelim(s: string, from: number, right: string): number {
  for (let p = from; p < s.length; p++) {
    const c = s[p];
    if (c === '"' || c === '`' || c === "'") {
      const q = c;
      for (p++; p < s.length && s[p] !== q; p++) if (q !== '`' && s[p] === '\\') p++;
    } else if (s.startsWith(right, p)) return p;
  }
  return -1;
}

/** A template's source in `{{ }}` form: its header's delimiters, else `$( )` and `{{ }}`. */
function templateSource(s: string): string {
  const header = s.includes(HEADER_PREFIX) ? delimHeader(s) : null;
  return header ? fromDelims(header.body, header.left, header.right) : normaliseDelims(s);
}
const DOLLAR_OPEN_HERE = new RegExp(`^${DOLLAR_OPEN.source}`);

/**
 * `$( … )` actions rewritten as `{{ … }}` (the closing parenthesis is the one that balances the opening, outside
 * quoted strings); text that is not such an action is left as it is.
 */
export function normaliseDelims(s: string): string {
  if (!s.includes('$(')) return s;
  let out = '';
  let i = 0;
  while (i < s.length) {
    const at = s.indexOf('$(', i);
    if (at < 0 || !DOLLAR_OPEN_HERE.test(s.slice(at, at + 64))) {
      if (at < 0) return out + s.slice(i);
      out += s.slice(i, at + 2);
      i = at + 2;
      continue;
    }
    const end = closingParen(s, at + 2);
    if (end < 0) throw new GoTemplateError(`template: unclosed action $( at offset ${at}`);
    out += `${s.slice(i, at)}{{${s.slice(at + 2, end)}}}`;
    i = end + 1;
  }
  return out;
}

function closingParen(s: string, from: number): number {
  let depth = 1;
  for (let p = from; p < s.length; p++) {
    const c = s[p];
    if (c === '"' || c === '`' || c === "'") {
      const q = c;
      for (p++; p < s.length && s[p] !== q; p++) if (q !== '`' && s[p] === '\\') p++;
    } else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return p;
  }
  return -1;
}

const parsed = new Map<string, Node[]>();
function compile(template: string): Node[] {
  const hit = parsed.get(template);
  if (hit) return hit;
  const nodes = parseTemplate(template, known);
  if (parsed.size >= 1_000) parsed.delete(parsed.keys().next().value!);
  parsed.set(template, nodes);
  return nodes;
}

/** Null when the string's templates parse and call only known functions, else why not. */
export function templateError(s: string): string | null {
  if (!hasTemplate(s)) return null;
  try {
    compile(templateSource(s));
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

function funcsWith(getAction: (name: string) => unknown, lastAction?: Record<string, unknown>): Map<string, TemplateFunc> {
  const funcs = new Map([...(TEMPLATE_FUNCS as Map<string, TemplateFunc>), ...PLAYBOOK_FUNCS]);
  funcs.set('getAction', {
    arity: [1, 1],
    call: ([name]) => {
      const found = getAction(String(name));
      if (found === undefined) throw new GoTemplateError(`getAction: no earlier action is named ${String(name)}`);
      return found;
    },
  });
  // the reference answers an empty map when no action ran before (playbook/runner/template.go)
  funcs.set('getLastAction', { arity: [0, 0], call: () => lastAction ?? {} });
  return funcs;
}

/** One string rendered; trimmed of surrounding space when it held a template, as the reference's templater. */
function renderString(s: string, data: TemplateEnv, funcs: Map<string, TemplateFunc>, lastResult?: Record<string, unknown>): string {
  if (!hasTemplate(s)) return s;
  const src = templateSource(s);
  return execTemplate(src, compile(src), data, funcs, { lastResult }).trim();
}

/**
 * Renders every string inside an action's block, depth first; getAction(name) is an earlier action's result and
 * `last_result` the previous action's (when given). Keys are not rendered. Throws with the path of the string that
 * failed (`exec.script: template: …`).
 */
export function renderTemplates(
  value: unknown, env: TemplateEnv, getAction: (name: string) => unknown, lastResult?: Record<string, unknown>,
  lastAction?: Record<string, unknown>,
): unknown {
  const funcs = funcsWith(getAction, lastAction);
  const walk = (v: unknown, at: string, depth: number): unknown => {
    if (depth > MAX_DEPTH) throw new Error(`${at || 'value'}: nested deeper than ${MAX_DEPTH} levels`);
    if (typeof v === 'string') {
      try {
        return renderString(v, env, funcs, lastResult);
      } catch (err) {
        throw new Error(`${at ? `${at}: ` : ''}${(err as Error).message}`);
      }
    }
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${at}[${i}]`, depth + 1));
    if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, at ? `${at}.${k}` : k, depth + 1)]));
    return v;
  };
  return walk(value, '', 0);
}

// ---- CEL ----

const STATE_FUNCS = ['success', 'failure', 'always', 'skip', 'timeout'] as const;
const STATE_CALL = new RegExp(`\\b(${STATE_FUNCS.join('|')})\\(\\s*\\)`, 'g');

/** `success()` and friends as variables (`__run_success`), outside string literals, so any CEL environment takes them. */
export function rewriteStateFuncs(expr: string): string {
  let out = '';
  let i = 0;
  while (i < expr.length) {
    const c = expr[i];
    if (c === '"' || c === "'") {
      const triple = expr.startsWith(c.repeat(3), i);
      const q = triple ? c.repeat(3) : c;
      let p = i + q.length;
      while (p < expr.length && !expr.startsWith(q, p)) p += expr[p] === '\\' ? 2 : 1;
      out += expr.slice(i, p + q.length);
      i = p + q.length;
      continue;
    }
    let p = i;
    while (p < expr.length && expr[p] !== '"' && expr[p] !== "'") p++;
    out += expr.slice(i, p).replace(STATE_CALL, (_m, f: string) => `__run_${f}`);
    i = p;
  }
  return out;
}

function stateVars(state: RunState): Record<string, boolean> {
  return {
    __run_success: !state.failed,
    __run_failure: state.failed,
    __run_always: true,
    __run_skip: false,
    __run_timeout: !!state.timedOut,
  };
}

/** Null when the CEL compiles (with the run-state functions), else why not. */
export function celProblem(expr: string): string | null {
  try {
    compileCel(rewriteStateFuncs(expr));
    return null;
  } catch (err) {
    return (err as Error).message.replaceAll('__run_', '').replace(/\b(success|failure|always|skip|timeout)\b(?!\()/g, '$1()');
  }
}

function celVars(env: TemplateEnv, state?: RunState): Record<string, unknown> {
  return { ...env, ...(state ? stateVars(state) : stateVars({ failed: false })) };
}

function truthy(v: unknown, what: string): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && (v.trim() === 'true' || v.trim() === 'false')) return v.trim() === 'true';
  throw new Error(`${what}: expected true or false, got ${JSON.stringify(typeof v === 'bigint' ? String(v) : v)?.slice(0, 80)}`);
}

/**
 * Whether an action runs: no `if` runs only while nothing failed; `always()`, `failure()`, `success()`, `skip()`,
 * `timeout()` and any CEL over the env otherwise; an `if` holding a template runs when it renders "true". Throws
 * (with the message) on an expression that cannot be evaluated.
 */
export function evalActionIf(expr: string | undefined, env: TemplateEnv, state: RunState): boolean {
  if (!expr || !expr.trim()) return !state.failed;
  const byName = (name: string) => state.actions?.byName(name);
  if (hasTemplate(expr)) return renderString(expr, env, funcsWith(byName, state.actions?.last), state.lastResult).trim() === 'true';
  const out = evalCel(rewriteStateFuncs(expr), celVars(env, state), {
    lastResult: state.lastResult, getAction: byName, lastAction: state.actions?.last,
  });
  return truthy(out, `if ${expr.slice(0, 80)}`);
}

/**
 * An action's `delay` in milliseconds: a duration ("5m", "1h30m"), a template rendering one, or CEL giving a duration,
 * a number of seconds or a duration's text; 0 without one. Throws on anything else.
 */
export function evalDelay(expr: string | undefined, env: TemplateEnv): number {
  if (!expr || !expr.trim()) return 0;
  const literal = parseLongDuration(expr);
  if (literal !== null) return Math.max(0, literal);
  if (hasTemplate(expr)) {
    const text = renderString(expr, env, funcsWith(() => undefined));
    const ms = parseLongDuration(text);
    if (ms === null) throw new Error(`delay: "${text.slice(0, 60)}" is not a duration`);
    return Math.max(0, ms);
  }
  const out = evalCel(rewriteStateFuncs(expr), celVars(env));
  if (typeof out === 'number' || typeof out === 'bigint') return Math.max(0, Number(out) * 1000);
  const ms = parseLongDuration(celToText(out).replace(/^(\d+)h0m0s$/, '$1h').replace(/(\d)m0s$/, '$1m'));
  if (ms === null) throw new Error(`delay: ${expr.slice(0, 60)} gave ${celToText(out).slice(0, 60)}, not a duration`);
  return Math.max(0, ms);
}

/** The playbook's `filters` (CEL or a template rendering "true"; all must hold) against a resource; true without filters. */
export function evalFilters(filters: readonly string[] | undefined, env: TemplateEnv): boolean {
  for (const f of filters ?? []) {
    if (!f.trim()) continue;
    const ok = hasTemplate(f)
      ? renderString(f, env, funcsWith(() => undefined)).trim() === 'true'
      : truthy(evalCel(rewriteStateFuncs(f), celVars(env)), `filter ${f.slice(0, 80)}`);
    if (!ok) return false;
  }
  return true;
}

// ---- save-time checks ----

/** `spec.actions[0].exec.script` from segments. */
export function pathText(path: readonly PropertyKey[]): string {
  return path.reduce<string>((s, p) => (typeof p === 'number' || /^\d+$/.test(String(p)) ? `${s}[${String(p)}]` : `${s}.${String(p)}`), 'spec');
}

/** A CEL field that may also be a template (if, filters): a template parses, else the CEL compiles. */
function celOrTemplate(v: unknown, path: (string | number)[], out: TemplateIssue[]): void {
  if (typeof v !== 'string' || !v.trim()) return;
  const message = hasTemplate(v) ? templateError(v) : celProblem(v);
  if (message) out.push({ path, message });
}

function everyString(v: unknown, path: (string | number)[], out: TemplateIssue[], depth = 0): void {
  if (depth > MAX_DEPTH) return;
  if (typeof v === 'string') {
    const message = templateError(v);
    if (message) out.push({ path, message });
  } else if (Array.isArray(v)) v.forEach((x, i) => everyString(x, [...path, i], out, depth + 1));
  else if (isObj(v)) for (const [k, x] of Object.entries(v)) everyString(x, [...path, k], out, depth + 1);
}

/** Every template, CEL and schedule problem in a spec, with its path as segments (under `spec`). */
export function templateIssues(spec: unknown): TemplateIssue[] {
  const out: TemplateIssue[] = [];
  if (!isObj(spec)) return out;
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  list(spec.actions).forEach((a, i) => {
    if (!isObj(a)) return;
    for (const [k, v] of Object.entries(a)) {
      if (k === 'if') celOrTemplate(v, ['actions', i, 'if'], out);
      else if (k === 'delay') {
        if (typeof v === 'string' && v.trim() && parseLongDuration(v) === null) celOrTemplate(v, ['actions', i, 'delay'], out);
      } else if (k !== 'name') everyString(v, ['actions', i, k], out);
    }
  });
  list(spec.parameters).forEach((p, i) => {
    if (isObj(p)) everyString(p.default, ['parameters', i, 'default'], out);
  });
  list(spec.filters).forEach((f, i) => celOrTemplate(f, ['filters', i], out));
  list(spec.env).forEach((e, i) => {
    if (isObj(e)) everyString(e.value, ['env', i, 'value'], out);
  });
  const on = isObj(spec.on) ? spec.on : {};
  for (const kind of ['canary', 'component', 'config'] as const) {
    list(on[kind]).forEach((t, i) => {
      if (isObj(t)) celOrTemplate(t.filter, ['on', kind, i, 'filter'], out);
    });
  }
  list(on.schedule).forEach((t, i) => {
    if (!isObj(t) || typeof t.schedule !== 'string' || !t.schedule.trim()) return;
    try {
      parseSchedule(t.schedule);
    } catch (err) {
      out.push({ path: ['on', 'schedule', i, 'schedule'], message: (err as Error).message });
    }
  });
  return out;
}

/** Every template and CEL problem in a spec, with its dotted path (`spec.actions[0].exec.script`); empty when fine. */
export function templateProblems(spec: unknown): { path: string; message: string }[] {
  return templateIssues(spec).map((p) => ({ path: pathText(p.path), message: p.message }));
}

export { CelExprError };
