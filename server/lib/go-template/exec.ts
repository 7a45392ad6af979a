import { formatValue, goTypeName, NO_VALUE } from './format.js';
import { GoTemplateError, lineCol } from './lexer.js';
import type { Command, Node, Operand, Pipe } from './parser.js';

/**
 * Executes a parsed template with Go's text/template semantics over JSON-like data: truthiness (false, 0, nil, empty
 * string, list and map are false), range over lists, maps (in key order) and integers, variables scoped to their
 * control structure, pipelines passing the previous value as the last argument, lazy `and`/`or`, and a missing map key
 * as <no value>.
 */

/** What a function may read besides its arguments: the reference's contextual functions (last_result). */
export interface RenderContext {
  /** The check's previous result, for `last_result`; the reference's empty status when absent. */
  lastResult?: Record<string, unknown>;
}

/** A template function: its arity (min, max; max Infinity for variadic) and its body. */
export interface TemplateFunc {
  arity: [number, number];
  call: (args: unknown[], ctx: RenderContext) => unknown;
}

/** gomplate's namespaces (`strings`, `conv`...): a function returning an object whose methods take the arguments. */
export class Namespace {
  constructor(readonly name: string, readonly methods: Record<string, TemplateFunc>) {}
  goString(): string {
    return `&{${this.name}}`;
  }
}

export class GoTemplateExecError extends GoTemplateError {}

const NONE: unique symbol = Symbol('no final value');
type Final = unknown;
const MAX_OUTPUT = 1_000_000;
const MAX_STEPS = 1_000_000;

const REFLECT_ARGS = new Set(['and', 'or', 'not', 'len', 'index', 'eq', 'ne', 'lt', 'le', 'gt', 'ge']);

class BreakSignal {}
class ContinueSignal {}

/** Runs a template tree over `data`, returning the text. */
export function execTemplate(
  src: string, nodes: Node[], data: unknown, funcs: Map<string, TemplateFunc>, ctx: RenderContext,
): string {
  return new Exec(src, funcs, ctx, data).run(nodes, data);
}

class Exec {
  private out: string[] = [];
  private size = 0;
  private steps = 0;
  private vars: Array<{ name: string; value: unknown }>;

  constructor(private src: string, private funcs: Map<string, TemplateFunc>, private ctx: RenderContext, root: unknown) {
    this.vars = [{ name: '$', value: root }];
  }

  run(nodes: Node[], dot: unknown): string {
    this.walkList(nodes, dot);
    return this.out.join('');
  }

  private fail(pos: number, source: string, msg: string): never {
    throw new GoTemplateExecError(`template: ${lineCol(this.src, pos)}: executing "${source}": ${msg}`);
  }

  private write(s: string): void {
    this.size += s.length;
    if (this.size > MAX_OUTPUT) throw new GoTemplateExecError(`template output longer than ${MAX_OUTPUT} characters`);
    this.out.push(s);
  }

  private walkList(nodes: Node[], dot: unknown): void {
    for (const n of nodes) this.walk(n, dot);
  }

  private walk(node: Node, dot: unknown): void {
    if (++this.steps > MAX_STEPS) throw new GoTemplateExecError(`template ran more than ${MAX_STEPS} steps`);
    switch (node.kind) {
      case 'text': return this.write(node.text);
      case 'action': {
        const v = this.evalPipe(dot, node.pipe);
        if (!node.pipe.decl.length) this.write(formatValue(v));
        return;
      }
      case 'if':
      case 'with': {
        const mark = this.vars.length;
        const v = this.evalPipe(dot, node.pipe);
        if (isTrue(v)) this.walkList(node.list, node.kind === 'with' ? v : dot);
        else if (node.elseList) this.walkList(node.elseList, dot);
        this.vars.length = mark;
        return;
      }
      case 'range': return this.walkRange(node, dot);
      case 'break': throw new BreakSignal();
      case 'continue': throw new ContinueSignal();
    }
  }

  private walkRange(node: Extract<Node, { kind: 'range' }>, dot: unknown): void {
    const mark = this.vars.length;
    const decl = node.pipe.decl;
    const v = this.evalPipe(dot, { ...node.pipe, decl: [] });
    let entries: Array<[unknown, unknown]>;
    if (Array.isArray(v)) entries = v.map((x, i) => [i, x]);
    else if (typeof v === 'number' && Number.isInteger(v)) {
      if (v > MAX_STEPS) return this.fail(node.pipe.pos, node.pipe.source, `range over ${v}: more than ${MAX_STEPS} iterations`);
      entries = Array.from({ length: Math.max(0, v) }, (_x, i) => [i, i]);
    }
    else if (v === null || v === NO_VALUE) entries = [];
    else if (isMap(v)) entries = Object.keys(v).sort().map((k) => [k, v[k]]);
    else return this.fail(node.pipe.pos, node.pipe.source, `range can't iterate over ${formatValue(v)}`);
    const inner = this.vars.length;
    for (const [key, value] of entries) {
      this.vars.length = inner;
      if (decl.length === 1) this.setOrPush(decl[0], value, node.pipe.assign);
      if (decl.length === 2) {
        this.setOrPush(decl[0], key, node.pipe.assign);
        this.setOrPush(decl[1], value, node.pipe.assign);
      }
      try {
        this.walkList(node.list, value);
      } catch (err) {
        if (err instanceof BreakSignal) break;
        if (!(err instanceof ContinueSignal)) throw err;
      }
    }
    this.vars.length = mark;
    if (!entries.length && node.elseList) this.walkList(node.elseList, dot);
  }

  private setOrPush(name: string, value: unknown, assign: boolean): void {
    if (assign) this.setVar(name, value);
    else this.vars.push({ name, value });
  }

  private setVar(name: string, value: unknown): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      if (this.vars[i].name === name) {
        this.vars[i].value = value;
        return;
      }
    }
  }

  private varValue(name: string): unknown {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i].name === name) return this.vars[i].value;
    return NO_VALUE;
  }

  private evalPipe(dot: unknown, pipe: Pipe): unknown {
    let v: Final = NONE;
    for (const cmd of pipe.cmds) v = this.evalCommand(dot, cmd, v, pipe);
    for (const name of pipe.decl) this.setOrPush(name, v, pipe.assign);
    return v;
  }

  private evalCommand(dot: unknown, cmd: Command, final: Final, pipe: Pipe): unknown {
    const [first, ...rest] = cmd.args;
    const fail = (msg: string): never => this.fail(first.pos, pipe.source, msg);
    const args = () => rest.map((a) => this.evalArg(dot, a, pipe));
    switch (first.kind) {
      case 'field': return this.evalFields(dot, first.path, args(), final, fail);
      case 'variable': {
        const v = this.varValue(first.name);
        if (first.path.length) return this.evalFields(v, first.path, args(), final, fail);
        break;
      }
      case 'chain': return this.evalFields(this.evalArg(dot, first.base, pipe), first.path, args(), final, fail);
      case 'function': return this.callFunction(first.name, dot, rest, final, pipe, fail);
      case 'const':
        if (first.value === null) fail('nil is not a command');
        break;
      default: break;
    }
    if (rest.length || final !== NONE) fail(`can't give argument to non-function ${operandText(first)}`);
    return this.evalArg(dot, first, pipe);
  }

  private evalArg(dot: unknown, a: Operand, pipe: Pipe): unknown {
    const fail = (msg: string): never => this.fail(a.pos, pipe.source, msg);
    switch (a.kind) {
      case 'dot': return dot;
      case 'const': return a.value;
      case 'field': return this.evalFields(dot, a.path, [], NONE, fail);
      case 'variable': return a.path.length ? this.evalFields(this.varValue(a.name), a.path, [], NONE, fail) : this.varValue(a.name);
      case 'chain': return this.evalFields(this.evalArg(dot, a.base, pipe), a.path, [], NONE, fail);
      case 'function': return this.callFunction(a.name, dot, [], NONE, pipe, fail);
      case 'pipe': {
        const mark = this.vars.length;
        const v = this.evalPipe(dot, a.pipe);
        this.vars.length = mark;
        return v;
      }
    }
  }

  private evalFields(receiver: unknown, path: string[], args: unknown[], final: Final, fail: (msg: string) => never): unknown {
    let v = receiver;
    path.forEach((name, i) => {
      const last = i === path.length - 1;
      v = this.evalField(v, name, last ? args : [], last ? final : NONE, fail);
    });
    return v;
  }

  private evalField(receiver: unknown, name: string, args: unknown[], final: Final, fail: (msg: string) => never): unknown {
    if (receiver === NO_VALUE) return NO_VALUE;
    if (receiver instanceof Namespace) {
      const method = receiver.methods[name];
      if (!method) fail(`can't evaluate field ${name} in type *${receiver.name}`);
      return this.invoke(`${receiver.name}.${name}`, method, final === NONE ? args : [...args, final], fail);
    }
    if (receiver === null || receiver === undefined) fail(`nil pointer evaluating interface {}.${name}`);
    if (isMap(receiver)) {
      if (args.length || final !== NONE) fail(`${name} is not a method but has arguments`);
      // an undefined field is one JSON would not have carried: missing, as in the reference's serialized data
      return Object.hasOwn(receiver, name) && receiver[name] !== undefined ? receiver[name] : NO_VALUE;
    }
    return fail(`can't evaluate field ${name} in type ${goTypeName(receiver)}`);
  }

  private callFunction(name: string, dot: unknown, rest: Operand[], final: Final, pipe: Pipe, fail: (msg: string) => never): unknown {
    // Go's comparison and collection builtins take reflect.Value arguments, which a literal nil cannot be
    if (REFLECT_ARGS.has(name) && rest.some((a) => a.kind === 'const' && a.value === null)) fail('cannot assign nil to reflect.Value');
    // Go evaluates the arguments of and / or only until the result is known
    if (name === 'and' || name === 'or') {
      const operands: Array<() => unknown> = rest.map((a) => () => this.evalArg(dot, a, pipe));
      if (final !== NONE) operands.push(() => final);
      if (!operands.length) fail(`wrong number of args for ${name}: want at least 1 got 0`);
      let v: unknown;
      for (const next of operands) {
        v = next();
        if (isTrue(v) === (name === 'or')) return v;
      }
      return v;
    }
    const f = this.funcs.get(name);
    if (!f) return fail(`function "${name}" not defined`);
    const args = rest.map((a) => this.evalArg(dot, a, pipe));
    if (final !== NONE) args.push(final);
    return this.invoke(name, f, args, fail);
  }

  private invoke(name: string, f: TemplateFunc, args: unknown[], fail: (msg: string) => never): unknown {
    const [min, max] = f.arity;
    if (args.length < min || args.length > max) {
      const want = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
      fail(`wrong number of args for ${name}: want ${want} got ${args.length}`);
    }
    try {
      return f.call(args.map((a) => (a === NO_VALUE ? null : a)), this.ctx);
    } catch (err) {
      if (err instanceof GoTemplateError) throw err;
      return fail(`error calling ${name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

/** Go's template truth: false, 0, nil, and empty strings, lists and maps are false. */
export function isTrue(v: unknown): boolean {
  if (v === NO_VALUE || v === null || v === undefined) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') return v.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (isMap(v)) return Object.keys(v).length > 0;
  return true;
}

export function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date) && !(v instanceof Namespace);
}

function operandText(a: Operand): string {
  switch (a.kind) {
    case 'const': return formatValue(a.value);
    case 'dot': return '.';
    case 'field': return `.${a.path.join('.')}`;
    default: return a.kind;
  }
}
