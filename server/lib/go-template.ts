import { execTemplate, type RenderContext, type TemplateFunc } from './go-template/exec.js';
import { BUILTIN_FUNCS } from './go-template/funcs-builtin.js';
import { GOMPLATE_FUNCS } from './go-template/funcs-gomplate.js';
import { GoTemplateError } from './go-template/lexer.js';
import { parseTemplate, type Node, type Operand, type Pipe } from './go-template/parser.js';

/**
 * Go text/template for `display.template`, `test.template`, http `templateBody` and `transform.template`, with the
 * gomplate functions reference manifests use. Hand-written (lexer, parser, exec, funcs under go-template/), because of
 * the npm packages checked (2026): @ctrl/golang-template parses only basic field templates; @mdfriday/text-template
 * ports text/template but ships as a minified, obfuscated bundle, which we could neither audit nor patch for an
 * evaluator of user-written templates, and it would still need the gomplate functions, their namespaces and the
 * reference's JSON-value printing, which are most of the work here.
 *
 * A template is parsed when the manifest is saved: a syntax error, an unknown function or variable, and named
 * templates (define/template/block) are refused there, naming what is wrong.
 */

export { GoTemplateError } from './go-template/lexer.js';
export type { RenderContext, TemplateFunc } from './go-template/exec.js';

/**
 * Functions one caller adds for its own templates (notifications' `channel`, `labelsFormat`): known when parsing and
 * callable when rendering only where that caller passes them, so other templates still refuse them.
 */
export type ExtraFuncs = ReadonlyMap<string, TemplateFunc>;

/** Every function a template may call: Go's predefined ones, then gomplate's (gomplate's `slice` replaces Go's). */
export const TEMPLATE_FUNCS: ReadonlyMap<string, TemplateFunc> = new Map([
  ...Object.entries(BUILTIN_FUNCS),
  ...Object.entries(GOMPLATE_FUNCS),
]);
const KNOWN = (name: string) => name === 'and' || name === 'or' || TEMPLATE_FUNCS.has(name);

const MAX_TEMPLATE = 16_384;
const CACHE_MAX = 1_000;
const cache = new Map<string, Node[]>();

/** Parses a template (cached); throws GoTemplateError with Go's message (position, what is wrong). */
export function compileGoTemplate(template: string, extra?: ExtraFuncs): Node[] {
  const key = extra?.size ? `${[...extra.keys()].join(',')}\u0000${template}` : template;
  const hit = cache.get(key);
  if (hit) return hit;
  if (template.length > MAX_TEMPLATE) throw new GoTemplateError(`template longer than ${MAX_TEMPLATE} characters`);
  const nodes = parseTemplate(template, extra?.size ? (name) => KNOWN(name) || extra.has(name) : KNOWN);
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(key, nodes);
  return nodes;
}

type Part = string | { path: string[] };

/**
 * The template's top-level text and the fields it reads from the data it is given (`.a.b` where dot is the data, and
 * `$.a.b` anywhere), in order: what a caller checks when only some fields exist (http's templateBody sees its env
 * entries only). Fields read inside range / with bodies, where dot is something else, are not listed.
 */
export function parseGoTemplate(template: string): Part[] {
  const parts: Part[] = [];
  const fromPipe = (pipe: Pipe, rootDot: boolean) => {
    const visit = (op: Operand): void => {
      if (op.kind === 'field' && rootDot) parts.push({ path: op.path });
      else if (op.kind === 'dot' && rootDot) parts.push({ path: [] });
      else if (op.kind === 'variable' && op.name === '$') parts.push({ path: op.path });
      else if (op.kind === 'chain') visit(op.base);
      else if (op.kind === 'pipe') op.pipe.cmds.forEach((c) => c.args.forEach(visit));
    };
    pipe.cmds.forEach((c) => c.args.forEach(visit));
  };
  const walk = (nodes: Node[], rootDot: boolean, top: boolean): void => {
    for (const n of nodes) {
      if (n.kind === 'text') {
        if (top) parts.push(n.text);
      } else if (n.kind === 'action') fromPipe(n.pipe, rootDot);
      else if (n.kind === 'if' || n.kind === 'with' || n.kind === 'range') {
        fromPipe(n.pipe, rootDot);
        walk(n.list, rootDot && n.kind === 'if', false);
        if (n.elseList) walk(n.elseList, rootDot, false);
      }
    }
  };
  walk(compileGoTemplate(template), true, true);
  return parts;
}

/** Null when the template parses and calls only known functions, else why not. */
export function goTemplateError(template: string, extra?: ExtraFuncs): string | null {
  try {
    compileGoTemplate(template, extra);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * Renders a template over `data` (the check's result fields), trimmed of surrounding whitespace as the reference's
 * gomplate.RunTemplate trims it; throws GoTemplateError on parse or execution errors.
 */
export function renderGoTemplate(
  template: string, data: Record<string, unknown>, ctx: RenderContext = {}, extra?: ExtraFuncs,
): string {
  const funcs = extra?.size ? new Map([...TEMPLATE_FUNCS, ...extra]) : (TEMPLATE_FUNCS as Map<string, TemplateFunc>);
  return execTemplate(template, compileGoTemplate(template, extra), data, funcs, ctx).trim();
}
