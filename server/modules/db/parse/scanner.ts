import { parseError } from '../errors.js';
import type { FieldRef, JsonStep } from './ast.js';

// Letters, digits, `_`, `$` and inner spaces (PostgREST's field-name alphabet, trimmed); anything else must be
// double-quoted.
const NAME_CHAR = /[\p{L}\p{N}_$ ]/u;
// A JSON key may hold anything but `.`, `,`, `:`, `>` and parentheses (and `->`), as in PostgREST; those need quotes.
const KEY_CHAR = /[^.,:>()]/u;

/** A cursor over one parameter value, with the small lexing helpers every grammar here needs. */
export class Scanner {
  pos = 0;
  constructor(readonly src: string, readonly what: string) {}

  get eof(): boolean {
    return this.pos >= this.src.length;
  }
  peek(offset = 0): string {
    return this.src[this.pos + offset] ?? '';
  }
  startsWith(s: string): boolean {
    return this.src.startsWith(s, this.pos);
  }
  eat(s: string): boolean {
    if (!this.startsWith(s)) return false;
    this.pos += s.length;
    return true;
  }
  expect(s: string): void {
    if (!this.eat(s)) this.fail(`"${s}"`);
  }
  skipWs(): void {
    while (this.peek() === ' ') this.pos++;
  }
  rest(): string {
    const r = this.src.slice(this.pos);
    this.pos = this.src.length;
    return r;
  }

  fail(expecting: string): never {
    const found = this.eof ? 'end of input' : `"${this.src.slice(this.pos, this.pos + 10)}"`;
    throw parseError(this.what, this.src, `unexpected ${found} at position ${this.pos + 1}, expecting ${expecting}`);
  }

  /**
   * A double-quoted string with backslash escapes, as PostgREST reads it. For identifiers (`doubled`), `""` inside
   * is one quote as well, as in SQL: PostgREST refuses that form, so accepting it changes no answer PostgREST gives.
   */
  quoted(doubled = false): string {
    this.expect('"');
    let out = '';
    for (;;) {
      const c = this.peek();
      if (c === '') this.fail('closing \'"\'');
      this.pos++;
      if (c === '"' && doubled && this.peek() === '"') {
        this.pos++;
        out += '"';
        continue;
      }
      if (c === '"') return out;
      if (c === '\\') {
        const n = this.peek();
        if (n === '') this.fail('escaped character');
        this.pos++;
        out += n;
      } else out += c;
    }
  }

  /**
   * An identifier: a run of name characters (a `-` counts unless it starts `->`), trimmed, or a quoted string taken
   * as is (spaces, dots, commas, colons and parentheses included): `"my col"`, `"a""b"`.
   */
  name(): string {
    this.skipWs();
    if (this.peek() === '"') {
      const q = this.quoted(true);
      if (!q) this.fail('a non-empty name');
      return q;
    }
    const start = this.pos;
    while (!this.eof) {
      const c = this.peek();
      if (NAME_CHAR.test(c) || (c === '-' && this.peek(1) !== '>' && this.pos > start)) this.pos++;
      else break;
    }
    const name = this.src.slice(start, this.pos).trim();
    if (!name) this.fail('a name');
    return name;
  }

  /** `a, "b c",d`: the names of a `columns` or `on_conflict` parameter. */
  names(max: number): string[] {
    const out: string[] = [];
    for (;;) {
      out.push(this.name());
      if (out.length > max) this.fail(`at most ${max} names`);
      this.skipWs();
      if (this.eof) return out;
      this.expect(',');
    }
  }

  /** A bare word of lowercase letters (operators, modifiers); '' if none. */
  word(): string {
    const m = /^[a-z]+/.exec(this.src.slice(this.pos, this.pos + 16));
    return m ? m[0] : '';
  }

  jsonKey(): string {
    if (this.peek() === '"') return this.quoted(true);
    const start = this.pos;
    while (!this.eof) {
      const c = this.peek();
      if (c === '-' && this.peek(1) === '>') break;
      if (KEY_CHAR.test(c)) this.pos++;
      else break;
    }
    const key = this.src.slice(start, this.pos).trim();
    if (!key) this.fail('a JSON key');
    return key;
  }

  /** `name` followed by any number of `->key` / `->>key` steps. */
  field(): FieldRef {
    const name = this.name();
    return { name, json: this.jsonSteps() };
  }

  /** Zero or more `->key` / `->>key` steps. */
  jsonSteps(): JsonStep[] {
    const json: JsonStep[] = [];
    while (this.startsWith('->')) {
      const arrow = this.eat('->>') ? '->>' : (this.eat('->'), '->');
      json.push({ arrow, key: this.jsonKey() });
      if (json.length > 16) this.fail('a shorter JSON path');
    }
    return json;
  }

  /** A cast target like `text`, `double precision` or `text[]`; checked against an allowlist later. */
  castType(): string {
    const m = /^[a-z][a-z0-9_ ]*(\[\])?/i.exec(this.src.slice(this.pos, this.pos + 40));
    if (!m) this.fail('a type name');
    this.pos += m[0].length;
    return m[0].trim().toLowerCase().replace(/\s+/g, ' ');
  }
}
