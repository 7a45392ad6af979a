/**
 * The lexer of Go's text/template, for the subset the console interprets: text, actions between `{{` and `}}`
 * (with the `{{- ` / ` -}}` trim markers and `/* *\/` comments), and inside an action the items Go's lexer emits
 * (fields, variables, identifiers, keywords, strings, raw strings, characters, numbers, `|`, `(`, `)`, `:=`, `=`, `,`).
 */

export class GoTemplateError extends Error {}

export type ItemKind =
  | 'text' | 'left' | 'right' | 'field' | 'variable' | 'identifier' | 'keyword' | 'dot'
  | 'string' | 'number' | 'bool' | 'nil' | 'char' | 'pipe' | 'lparen' | 'rparen' | 'declare' | 'assign' | 'comma' | 'space';

export interface Item {
  kind: ItemKind;
  /** The item's text; for string, raw string and char items, the decoded value. */
  value: string;
  /** Offset in the template, for error messages. */
  pos: number;
}

const KEYWORDS = new Set(['if', 'else', 'end', 'range', 'with', 'break', 'continue', 'define', 'template', 'block']);
const SPACE = /[ \t\r\n]/;
const TRIM_SPACE = /[ \t\r\n]+$/;

/** A position as line:column, as Go's errors show it. */
export function lineCol(src: string, pos: number): string {
  const before = src.slice(0, pos);
  const line = before.split('\n').length;
  return `${line}:${pos - before.lastIndexOf('\n')}`;
}

/** Splits a template into items; throws GoTemplateError on an unclosed action, comment, string or bad character. */
export function lex(src: string): Item[] {
  const items: Item[] = [];
  let i = 0;
  let trimNext = false;
  const fail = (pos: number, msg: string): never => {
    throw new GoTemplateError(`template: ${lineCol(src, pos)}: ${msg}`);
  };
  while (i < src.length) {
    const open = src.indexOf('{{', i);
    let text = src.slice(i, open < 0 ? src.length : open);
    if (trimNext) text = text.replace(/^[ \t\r\n]+/, '');
    trimNext = false;
    if (open < 0) {
      if (text) items.push({ kind: 'text', value: text, pos: i });
      break;
    }
    const trimLeft = src[open + 2] === '-' && SPACE.test(src[open + 3] ?? '');
    if (trimLeft) text = text.replace(TRIM_SPACE, '');
    if (text) items.push({ kind: 'text', value: text, pos: i });
    let p = open + 2 + (trimLeft ? 2 : 0);
    // a comment: `{{/*` ... `*/}}`, with optional trim markers and nothing else
    if (src.startsWith('/*', p)) {
      const start = p;
      const end = src.indexOf('*/', start + 2);
      if (end < 0) fail(open, 'unclosed comment');
      let q = end + 2;
      let trimRight = false;
      if (SPACE.test(src[q] ?? '') && src.startsWith('-}}', q + 1)) {
        trimRight = true;
        q += 4;
      } else if (src.startsWith('}}', q)) q += 2;
      else fail(open, 'comment ends before closing delimiter');
      trimNext = trimRight;
      i = q;
      continue;
    }
    items.push({ kind: 'left', value: '{{', pos: open });
    for (;;) {
      if (p >= src.length) fail(open, 'unclosed action');
      const c = src[p];
      if (SPACE.test(c)) {
        // ` -}}` closes with a trim; any other space separates items
        let q = p;
        while (q < src.length && SPACE.test(src[q])) q++;
        if (src.startsWith('-}}', q)) {
          items.push({ kind: 'right', value: '}}', pos: q });
          trimNext = true;
          i = q + 3;
          break;
        }
        items.push({ kind: 'space', value: ' ', pos: p });
        p = q;
        continue;
      }
      if (src.startsWith('}}', p)) {
        items.push({ kind: 'right', value: '}}', pos: p });
        i = p + 2;
        break;
      }
      p = lexInside(src, p, items, fail);
    }
  }
  return items;
}

/** Lexes one item inside an action at `p`; returns the offset after it. */
function lexInside(src: string, p: number, items: Item[], fail: (pos: number, msg: string) => never): number {
  const c = src[p];
  const push = (kind: ItemKind, value: string, end: number) => {
    items.push({ kind, value, pos: p });
    return end;
  };
  if (c === '|') return push('pipe', '|', p + 1);
  if (c === '(') return push('lparen', '(', p + 1);
  if (c === ')') return push('rparen', ')', p + 1);
  if (c === ',') return push('comma', ',', p + 1);
  if (c === '=') return push('assign', '=', p + 1);
  if (c === ':') {
    if (src[p + 1] !== '=') fail(p, 'expected :=');
    return push('declare', ':=', p + 2);
  }
  if (c === '"') {
    let q = p + 1;
    while (q < src.length && src[q] !== '"') {
      if (src[q] === '\\') q++;
      if (src[q] === '\n') fail(p, 'unterminated quoted string');
      q++;
    }
    if (q >= src.length) fail(p, 'unterminated quoted string');
    return push('string', unquote(src.slice(p, q + 1), p, fail), q + 1);
  }
  if (c === '`') {
    const q = src.indexOf('`', p + 1);
    if (q < 0) fail(p, 'unterminated raw quoted string');
    return push('string', src.slice(p + 1, q).replace(/\r/g, ''), q + 1);
  }
  if (c === "'") {
    const m = /^'(\\.|\\[0-7]{3}|\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|[^'\\])'/u.exec(src.slice(p));
    if (!m) fail(p, 'unterminated character constant');
    const ch = m![1].startsWith('\\') ? unquote(`"${m![1]}"`, p, fail) : m![1];
    return push('char', String(ch.codePointAt(0)), p + m![0].length);
  }
  if (c === '$') {
    const m = /^\$[\p{L}_0-9]*/u.exec(src.slice(p))!;
    return push('variable', m[0], p + m[0].length);
  }
  if (c === '.') {
    if (/[0-9]/.test(src[p + 1] ?? '')) return lexNumber(src, p, push, fail);
    const m = /^\.[\p{L}_][\p{L}_0-9]*/u.exec(src.slice(p));
    if (!m) return push('dot', '.', p + 1);
    return push('field', m[0], p + m[0].length);
  }
  if (/[0-9+-]/.test(c)) return lexNumber(src, p, push, fail);
  const m = /^[\p{L}_][\p{L}_0-9]*/u.exec(src.slice(p));
  if (m) {
    const word = m[0];
    const kind: ItemKind = KEYWORDS.has(word) ? 'keyword' : word === 'true' || word === 'false' ? 'bool' : word === 'nil' ? 'nil' : 'identifier';
    return push(kind, word, p + word.length);
  }
  return fail(p, `unexpected ${JSON.stringify(c)} in command`);
}

function lexNumber(
  src: string, p: number, push: (kind: ItemKind, value: string, end: number) => number, fail: (pos: number, msg: string) => never,
): number {
  const m = /^[+-]?(0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|(\d[\d_]*)?\.?\d*([eE][+-]?\d+)?)/.exec(src.slice(p));
  const text = m?.[0] ?? '';
  if (!text || /^[+-]?\.?$/.test(text) || /[\p{L}_0-9]/u.test(src[p + text.length] ?? '')) {
    fail(p, `bad number syntax: ${JSON.stringify(src.slice(p, p + text.length + 1))}`);
  }
  return push('number', text, p + text.length);
}

/** Decodes a Go interpreted string literal (with its quotes). */
function unquote(lit: string, pos: number, fail: (pos: number, msg: string) => never): string {
  const body = lit.slice(1, -1);
  const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", a: '\x07', b: '\b', f: '\f', v: '\v' };
  return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{3}|.)/g, (_all, e: string) => {
    if (e[0] === 'x' || e[0] === 'u' || e[0] === 'U') return String.fromCodePoint(parseInt(e.slice(1), 16));
    if (/^[0-7]{3}$/.test(e)) return String.fromCharCode(parseInt(e, 8));
    if (simple[e] !== undefined) return simple[e];
    return fail(pos, `invalid syntax: unknown escape sequence \\${e}`);
  });
}
