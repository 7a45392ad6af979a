import { describe, expect, it } from 'vitest';
import { lex } from './lexer.js';

const kinds = (src: string) => lex(src).filter((i) => i.kind !== 'space').map((i) => `${i.kind}:${i.value}`);

describe('Go template lexer', () => {
  it('splits text and actions into Go\'s items', () => {
    expect(kinds('a {{ $x := .b.c | printf "%d\\n" 1.5 -2 \'x\' `raw\\n` true nil (f) }} z')).toEqual([
      'text:a ', 'left:{{', 'variable:$x', 'declare::=', 'field:.b', 'field:.c', 'pipe:|', 'identifier:printf', 'string:%d\n',
      'number:1.5', 'number:-2', 'char:120', 'string:raw\\n', 'bool:true', 'nil:nil', 'lparen:(', 'identifier:f', 'rparen:)',
      'right:}}', 'text: z',
    ]);
    expect(kinds('{{range $i, $v = .}}{{end}}')).toEqual([
      'left:{{', 'keyword:range', 'variable:$i', 'comma:,', 'variable:$v', 'assign:=', 'dot:.', 'right:}}', 'left:{{', 'keyword:end', 'right:}}',
    ]);
  });

  it('trims beside {{- and -}} only with a space after/before the minus, and drops comments', () => {
    expect(kinds('a \n{{- 1 -}}\n b')).toEqual(['text:a', 'left:{{', 'number:1', 'right:}}', 'text:b']);
    expect(kinds('a {{-1}} b')).toEqual(['text:a ', 'left:{{', 'number:-1', 'right:}}', 'text: b']);
    expect(kinds('a {{/* x */}} b {{- /* y */ -}} c')).toEqual(['text:a ', 'text: b', 'text:c']);
  });

  it('fails on unclosed actions, comments and strings, with the position', () => {
    expect(() => lex('ab\n{{ .x')).toThrow('template: 2:1: unclosed action');
    expect(() => lex('{{/* x }}')).toThrow(/unclosed comment/);
    expect(() => lex('{{ "x }}')).toThrow(/unterminated quoted string/);
    expect(() => lex('{{ 1x }}')).toThrow(/bad number syntax/);
    expect(() => lex('{{ # }}')).toThrow(/unexpected "#" in command/);
  });
});
