import { GoTemplateError, lex, lineCol, type Item } from './lexer.js';

/**
 * The parser of Go's text/template: the tree of text, actions, if / else if / else, range (with its declarations,
 * else, break and continue), with / else with, over pipelines of commands. As Go's parser does, it refuses a call of a
 * function it does not know (so an unknown function fails when the manifest is saved, not when it runs), a variable
 * used before it is declared, and define / template / block (named templates, which manifests do not use).
 */

export type Operand =
  | { kind: 'field'; path: string[]; pos: number }
  | { kind: 'variable'; name: string; path: string[]; pos: number }
  | { kind: 'dot'; pos: number }
  | { kind: 'function'; name: string; pos: number }
  | { kind: 'chain'; base: Operand; path: string[]; pos: number }
  | { kind: 'pipe'; pipe: Pipe; pos: number }
  | { kind: 'const'; value: unknown; pos: number };

export interface Command { args: Operand[]; pos: number }
export interface Pipe { decl: string[]; assign: boolean; cmds: Command[]; pos: number; source: string }

export type Node =
  | { kind: 'text'; text: string }
  | { kind: 'action'; pipe: Pipe }
  | { kind: 'if' | 'with'; pipe: Pipe; list: Node[]; elseList?: Node[] }
  | { kind: 'range'; pipe: Pipe; list: Node[]; elseList?: Node[] }
  | { kind: 'break' | 'continue'; pos: number };

/** Parses a template into its node list; `known(name)` says whether a function exists. */
export function parseTemplate(src: string, known: (name: string) => boolean): Node[] {
  return new Parser(src, lex(src), known).parseRoot();
}

type End = 'end' | 'else';

class Parser {
  private i = 0;
  private vars: string[][] = [['$']];
  private rangeDepth = 0;

  constructor(private src: string, private items: Item[], private known: (name: string) => boolean) {}

  parseRoot(): Node[] {
    const { list, end } = this.parseList();
    if (end) this.fail(end.pos, `unexpected {{${end.word}}}`);
    return list;
  }

  private fail(pos: number, msg: string): never {
    throw new GoTemplateError(`template: ${lineCol(this.src, pos)}: ${msg}`);
  }

  private peek(): Item | undefined {
    return this.items[this.i];
  }

  /** The next item inside an action, skipping spaces. */
  private next(): Item {
    while (this.items[this.i]?.kind === 'space') this.i++;
    const it = this.items[this.i++];
    if (!it) this.fail(this.src.length, 'unexpected end of template');
    return it;
  }

  private peekNonSpace(): Item {
    let j = this.i;
    while (this.items[j]?.kind === 'space') j++;
    return this.items[j] ?? { kind: 'right', value: '', pos: this.src.length };
  }

  private expectRight(context: string): void {
    const it = this.next();
    if (it.kind !== 'right') this.fail(it.pos, `unexpected ${describe(it)} in ${context}`);
  }

  /** Parses nodes up to an {{end}} or {{else ...}} (returned, its keyword consumed) or the end of the template. */
  private parseList(): { list: Node[]; end?: { word: End; pos: number } } {
    const list: Node[] = [];
    while (this.i < this.items.length) {
      const it = this.items[this.i++];
      if (it.kind === 'text') {
        list.push({ kind: 'text', text: it.value });
        continue;
      }
      const word = this.peekNonSpace();
      if (word.kind === 'keyword') {
        this.next();
        switch (word.value) {
          case 'end':
            this.expectRight('end');
            return { list, end: { word: 'end', pos: word.pos } };
          case 'else':
            return { list, end: { word: 'else', pos: word.pos } };
          case 'if':
          case 'with':
            list.push(this.parseControl(word.value));
            continue;
          case 'range':
            list.push(this.parseRange());
            continue;
          case 'break':
          case 'continue':
            if (!this.rangeDepth) this.fail(word.pos, `{{${word.value}}} outside {{range}}`);
            this.expectRight(word.value);
            list.push({ kind: word.value, pos: word.pos });
            continue;
          default:
            this.fail(word.pos, `{{${word.value}}} (named templates) is not supported`);
        }
      }
      const pipe = this.parsePipe('command');
      list.push({ kind: 'action', pipe });
    }
    return { list };
  }

  /** if / with, with their else if / else with / else branches (each nested as Go's parser nests them). */
  private parseControl(kind: 'if' | 'with'): Node {
    this.vars.push([]);
    const pipe = this.parsePipe(kind);
    const { list, end } = this.parseList();
    if (!end) this.fail(pipe.pos, `unexpected EOF: {{${kind}}} without {{end}}`);
    let elseList: Node[] | undefined;
    if (end.word === 'else') {
      const after = this.peekNonSpace();
      if (after.kind === 'keyword' && (after.value === 'if' || after.value === 'with')) {
        // `{{else if x}}` is `{{else}}{{if x}}...{{end}}{{end}}` sharing one {{end}}
        // variables declared in this pipeline stay visible in the else-if branch, as in Go
        this.next();
        elseList = [this.parseControl(after.value)];
        this.vars.pop();
        return { kind, pipe, list, elseList };
      }
      this.expectRight('else');
      const rest = this.parseList();
      if (rest.end?.word !== 'end') this.fail(pipe.pos, `expected {{end}} after {{else}} of {{${kind}}}`);
      elseList = rest.list;
    }
    this.vars.pop();
    return { kind, pipe, list, elseList };
  }

  private parseRange(): Node {
    this.vars.push([]);
    const pipe = this.parsePipe('range');
    this.rangeDepth++;
    const { list, end } = this.parseList();
    this.rangeDepth--;
    if (!end) this.fail(pipe.pos, 'unexpected EOF: {{range}} without {{end}}');
    let elseList: Node[] | undefined;
    if (end.word === 'else') {
      this.expectRight('else');
      const rest = this.parseList();
      if (rest.end?.word !== 'end') this.fail(pipe.pos, 'expected {{end}} after {{else}} of {{range}}');
      elseList = rest.list;
    }
    this.vars.pop();
    return { kind: 'range', pipe, list, elseList };
  }

  private declared(name: string): boolean {
    return this.vars.some((scope) => scope.includes(name));
  }

  /** A pipeline up to `}}` (or `)` when `inParens`): optional declarations, then commands joined by `|`. */
  private parsePipe(context: string, inParens = false): Pipe {
    const start = this.peekNonSpace().pos;
    const pipe: Pipe = { decl: [], assign: false, cmds: [], pos: start, source: '' };
    // declarations: `$x :=`, `$x =`, and in range `$i, $v :=`
    const save = this.i;
    const first = this.next();
    if (first.kind === 'variable') {
      const after = this.next();
      if (after.kind === 'declare' || after.kind === 'assign') {
        pipe.decl.push(first.value);
        pipe.assign = after.kind === 'assign';
      } else if (after.kind === 'comma' && context === 'range') {
        const second = this.next();
        const op = this.next();
        if (second.kind !== 'variable' || (op.kind !== 'declare' && op.kind !== 'assign')) this.fail(after.pos, 'range can only initialize variables');
        pipe.decl.push(first.value, second.value);
        pipe.assign = op.kind === 'assign';
      } else this.i = save;
    } else this.i = save;
    if (pipe.assign) for (const v of pipe.decl) if (!this.declared(v)) this.fail(start, `undefined variable "${v}"`);
    for (;;) {
      const it = this.peekNonSpace();
      if (it.kind === 'right' || (inParens && it.kind === 'rparen')) {
        if (inParens && it.kind === 'right') this.fail(it.pos, 'unclosed left paren');
        if (!pipe.cmds.length) this.fail(it.pos, `missing value for ${context}`);
        if (inParens) this.next();
        else this.expectRight(context);
        break;
      }
      if (pipe.cmds.length) {
        const bar = this.next();
        if (bar.kind !== 'pipe') this.fail(bar.pos, `unexpected ${describe(bar)} in ${context}`);
      }
      pipe.cmds.push(this.parseCommand(context, inParens));
    }
    // `A | "x"`: a constant after the first stage cannot take the piped value
    pipe.cmds.slice(1).forEach((c, i) => {
      if (c.args[0].kind === 'const' || c.args[0].kind === 'dot') this.fail(c.pos, `non executable command in pipeline stage ${i + 2}`);
    });
    // declared after the pipeline runs: `{{$x := $x}}` reads the outer $x
    if (!pipe.assign && pipe.decl.length) this.vars[this.vars.length - 1].push(...pipe.decl);
    pipe.source = this.src.slice(start, this.items[this.i - 1]?.pos ?? start).trim();
    return pipe;
  }

  private parseCommand(context: string, inParens: boolean): Command {
    const cmd: Command = { args: [], pos: this.peekNonSpace().pos };
    for (;;) {
      const it = this.peekNonSpace();
      if (it.kind === 'right' || it.kind === 'pipe' || (inParens && it.kind === 'rparen')) break;
      if (cmd.args.length && this.peek()?.kind !== 'space') this.fail(it.pos, `missing space before ${describe(it)}`);
      cmd.args.push(this.parseOperand(context));
    }
    if (!cmd.args.length) this.fail(cmd.pos, `empty command in ${context}`);
    return cmd;
  }

  private parseOperand(context: string): Operand {
    const it = this.next();
    let op: Operand;
    switch (it.kind) {
      case 'field': {
        op = { kind: 'field', path: [it.value.slice(1)], pos: it.pos };
        while (this.peek()?.kind === 'field') op.path.push(this.items[this.i++].value.slice(1));
        return op;
      }
      case 'variable': {
        if (!this.declared(it.value)) this.fail(it.pos, `undefined variable "${it.value}"`);
        op = { kind: 'variable', name: it.value, path: [], pos: it.pos };
        while (this.peek()?.kind === 'field') op.path.push(this.items[this.i++].value.slice(1));
        return op;
      }
      case 'dot': op = { kind: 'dot', pos: it.pos }; break;
      case 'identifier':
        if (!this.known(it.value)) this.fail(it.pos, `function "${it.value}" not defined`);
        op = { kind: 'function', name: it.value, pos: it.pos };
        break;
      case 'lparen': op = { kind: 'pipe', pipe: this.parsePipe('parenthesized pipeline', true), pos: it.pos }; break;
      case 'string': op = { kind: 'const', value: it.value, pos: it.pos }; break;
      case 'char': op = { kind: 'const', value: Number(it.value), pos: it.pos }; break;
      case 'bool': op = { kind: 'const', value: it.value === 'true', pos: it.pos }; break;
      case 'nil': op = { kind: 'const', value: null, pos: it.pos }; break;
      case 'number': op = { kind: 'const', value: parseNumber(it.value, () => this.fail(it.pos, `bad number syntax: ${it.value}`)), pos: it.pos }; break;
      default: return this.fail(it.pos, `unexpected ${describe(it)} in ${context}`);
    }
    // `(pipeline).Field`, `fn.Field` (gomplate's namespaces: strings.ToLower) are chains
    if (this.peek()?.kind === 'field') {
      const path: string[] = [];
      while (this.peek()?.kind === 'field') path.push(this.items[this.i++].value.slice(1));
      if (op.kind === 'const') this.fail(it.pos, `unexpected . after term ${JSON.stringify(it.value)}`);
      op = { kind: 'chain', base: op, path, pos: it.pos };
    }
    return op;
  }
}

function parseNumber(text: string, fail: () => never): number {
  const t = text.replace(/_/g, '');
  const sign = t.startsWith('-') ? -1 : 1;
  const body = t.replace(/^[+-]/, '');
  const n = /^0[xX]/.test(body) ? parseInt(body.slice(2), 16) : /^0[bB]/.test(body) ? parseInt(body.slice(2), 2)
    : /^0[oO]/.test(body) ? parseInt(body.slice(2), 8) : Number(body);
  if (!Number.isFinite(n)) fail();
  return sign * n;
}

function describe(it: Item): string {
  if (it.kind === 'right') return '"}}"';
  return `${JSON.stringify(it.value)}`;
}
