import { parseError, tooLarge } from '../errors.js';
import { FTS_OPERATORS, OPERATORS, QUANT_OPERATORS, type Condition, type FieldRef, type Filter, type Logic, type Operator } from './ast.js';
import { Scanner } from './scanner.js';

/** Most values in one `in.(…)` list. */
export const MAX_IN_LIST = 1000;
/** Deepest nesting of `or(and(or(…)))`. */
export const MAX_LOGIC_DEPTH = 8;
/** Most conditions in one logic tree. */
export const MAX_LOGIC_CONDITIONS = 200;

const OPS: ReadonlySet<string> = new Set(OPERATORS);
const IS_VALUES: ReadonlySet<string> = new Set(['null', 'true', 'false', 'unknown']);

type Op = Pick<Condition, 'negate' | 'op' | 'value' | 'list' | 'config' | 'quant'>;

/** `not.` prefix, operator and optional `(config)` or `(any|all)` up to and including the dot before the value. */
function operator(s: Scanner): Pick<Condition, 'negate' | 'op' | 'config' | 'quant'> {
  const negate = s.eat('not.');
  const word = s.word();
  if (!OPS.has(word)) s.fail(`an operator (${OPERATORS.join(', ')})`);
  s.pos += word.length;
  let config: string | undefined;
  if (FTS_OPERATORS.has(word) && s.eat('(')) {
    const m = /^[a-z_][a-z0-9_]{0,62}/i.exec(s.src.slice(s.pos, s.pos + 64));
    if (!m) s.fail('a text search configuration name');
    config = m[0];
    s.pos += m[0].length;
    s.expect(')');
  }
  let quant: Condition['quant'];
  if (QUANT_OPERATORS.has(word) && s.eat('(')) {
    quant = s.eat('any') ? 'any' : s.eat('all') ? 'all' : s.fail('any or all');
    s.expect(')');
  }
  s.expect('.');
  return { negate, op: word as Operator, config, ...(quant && { quant }) };
}

/** `(a,"b,c",d)`: the list of an `in` operator. */
function inList(s: Scanner): string[] {
  s.expect('(');
  const out: string[] = [];
  if (s.eat(')')) return out;
  for (;;) {
    if (s.peek() === '"') out.push(s.quoted());
    else {
      const start = s.pos;
      while (!s.eof && s.peek() !== ',' && s.peek() !== ')') s.pos++;
      out.push(s.src.slice(start, s.pos));
    }
    if (out.length > MAX_IN_LIST) throw tooLarge(`an "in" list may hold at most ${MAX_IN_LIST} values`);
    if (s.eat(')')) return out;
    s.expect(',');
  }
}

function checkValue(s: Scanner, op: Operator, value: string): void {
  if (op === 'is' && !IS_VALUES.has(value.toLowerCase())) s.fail('null, true, false or unknown after "is."');
}

/** Parses the value of a filter parameter: `eq.5`, `not.in.(a,b)`, `fts(english).cat`. */
export function parseOperation(src: string, what: string): Op {
  const s = new Scanner(src, what);
  const head = operator(s);
  if (head.op === 'in') {
    const list = inList(s);
    if (!s.eof) s.fail('end of input after the "in" list');
    return { ...head, value: '', list };
  }
  const value = s.rest();
  checkValue(s, head.op, value);
  return { ...head, value: head.op === 'is' ? value.toLowerCase() : value };
}

/** A value inside a logic tree: quoted, or a run up to the next `,`/`)` outside brackets. */
function treeValue(s: Scanner): string {
  if (s.peek() === '"') return s.quoted();
  const start = s.pos;
  let depth = 0;
  while (!s.eof) {
    const c = s.peek();
    if (c === '{' || c === '[' || c === '(') depth++;
    else if (c === '}' || c === ']' || (c === ')' && depth > 0)) depth--;
    else if ((c === ',' || c === ')') && depth === 0) break;
    s.pos++;
  }
  return s.src.slice(start, s.pos);
}

/**
 * Parses `(a.eq.1,or(b.gt.2,not.and(c.is.null,d.in.(x,y))))`: the value of an `or=`/`and=` parameter.
 * Fields may carry JSON paths (`labels->>env.eq.prod`) and embed prefixes (`rel.not.is.null`, `rel.col.eq.x`).
 */
export function parseLogicTree(op: 'and' | 'or', negate: boolean, src: string, what: string): Logic {
  const s = new Scanner(src, what);
  let conditions = 0;

  const group = (lop: 'and' | 'or', neg: boolean, depth: number): Logic => {
    if (depth > MAX_LOGIC_DEPTH) throw tooLarge(`logic trees may nest at most ${MAX_LOGIC_DEPTH} levels`);
    s.expect('(');
    const children: Filter[] = [];
    for (;;) {
      s.skipWs();
      children.push(item(depth));
      s.skipWs();
      if (s.eat(')')) return { type: 'logic', op: lop, negate: neg, children };
      s.expect(',');
    }
  };

  const item = (depth: number): Filter => {
    for (const [prefix, lop, neg] of [['and(', 'and', false], ['or(', 'or', false], ['not.and(', 'and', true], ['not.or(', 'or', true]] as const) {
      if (s.startsWith(prefix)) {
        s.pos += prefix.length - 1;
        return group(lop, neg, depth + 1);
      }
    }
    if (++conditions > MAX_LOGIC_CONDITIONS) throw tooLarge(`logic trees may hold at most ${MAX_LOGIC_CONDITIONS} conditions`);
    const embed: string[] = [];
    let field: FieldRef = s.field();
    s.expect('.');
    // A segment followed by something that is not an operator was an embed name: `rel.col.eq.x`.
    for (;;) {
      const w = s.word();
      const after = s.peek(w.length);
      if ((w === 'not' && after === '.') || (OPS.has(w) && (after === '.' || after === '('))) break;
      if (field.json.length) s.fail('an operator');
      embed.push(field.name);
      if (embed.length > 8) s.fail('an operator');
      field = s.field();
      s.expect('.');
    }
    const head = operator(s);
    if (head.op === 'in') return { type: 'cond', embed, field, ...head, value: '', list: inList(s) };
    const value = treeValue(s);
    checkValue(s, head.op, value);
    return { type: 'cond', embed, field, ...head, value: head.op === 'is' ? value.toLowerCase() : value };
  };

  const tree = group(op, negate, 1);
  if (!s.eof) s.fail('end of input after the logic tree');
  return tree;
}

/** What a query parameter key addresses. */
export type FilterKey =
  | { kind: 'field'; embed: string[]; field: FieldRef }
  | { kind: 'logic'; embed: string[]; op: 'and' | 'or'; negate: boolean }
  | { kind: 'order' | 'limit' | 'offset'; embed: string[] };

/** Parses a parameter key: `col`, `labels->>env`, `rel.sub.col`, `rel.order`, `rel.limit`, `not.or`, `rel.or`. */
export function parseFilterKey(key: string): FilterKey {
  const s = new Scanner(key, 'filter');
  const embed: string[] = [];
  for (;;) {
    for (const [word, op, negate] of [['or', 'or', false], ['and', 'and', false], ['not.or', 'or', true], ['not.and', 'and', true]] as const) {
      if (s.src.slice(s.pos) === word) return { kind: 'logic', embed, op, negate };
    }
    if (embed.length) {
      const tail = s.src.slice(s.pos);
      if (tail === 'order' || tail === 'limit' || tail === 'offset') return { kind: tail, embed };
    }
    const field = s.field();
    if (s.eof) return { kind: 'field', embed, field };
    if (field.json.length) s.fail('end of the filter name');
    s.expect('.');
    embed.push(field.name);
    if (embed.length > 8) throw parseError('filter', key, 'embed path too deep');
  }
}
