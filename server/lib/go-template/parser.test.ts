import { describe, expect, it } from 'vitest';
import { parseTemplate } from './parser.js';

const known = (name: string) => ['printf', 'len', 'strings'].includes(name);
const parse = (src: string) => parseTemplate(src, known);

describe('Go template parser', () => {
  it('builds if / else if / else as nested nodes sharing one {{end}}', () => {
    const [node] = parse('{{if .a}}A{{else if .b}}B{{else}}C{{end}}');
    expect(node).toMatchObject({
      kind: 'if', list: [{ kind: 'text', text: 'A' }],
      elseList: [{ kind: 'if', list: [{ kind: 'text', text: 'B' }], elseList: [{ kind: 'text', text: 'C' }] }],
    });
  });

  it('reads declarations, pipelines, parentheses and chains', () => {
    const [node] = parse('{{ $x := (len .items) | printf "%d" }}');
    expect(node).toMatchObject({ kind: 'action', pipe: { decl: ['$x'], assign: false, cmds: [
      { args: [{ kind: 'pipe', pipe: { cmds: [{ args: [{ kind: 'function', name: 'len' }, { kind: 'field', path: ['items'] }] }] } }] },
      { args: [{ kind: 'function', name: 'printf' }, { kind: 'const', value: '%d' }] },
    ] } });
    expect(parse('{{ strings.ToLower .a }}')[0]).toMatchObject({ pipe: { cmds: [{ args: [{ kind: 'chain', base: { kind: 'function', name: 'strings' }, path: ['ToLower'] }, { kind: 'field' }] }] } });
  });

  it('refuses what Go\'s parser refuses, saying what and where', () => {
    expect(() => parse('{{ nope 1 }}')).toThrow('template: 1:4: function "nope" not defined');
    expect(() => parse('{{ $y }}')).toThrow(/undefined variable "\$y"/);
    expect(() => parse('{{ $y = 1 }}')).toThrow(/undefined variable "\$y"/);
    expect(() => parse('{{ range .a }}{{ else if .b }}{{ end }}')).toThrow(/unexpected "if" in else/);
    expect(() => parse('{{ break }}')).toThrow(/\{\{break\}\} outside \{\{range\}\}/);
    expect(() => parse('{{ template "x" }}')).toThrow(/named templates/);
    expect(() => parse('{{ .a | "x" }}')).toThrow(/non executable command in pipeline stage 2/);
    expect(() => parse('{{ }}')).toThrow(/missing value for command/);
    expect(() => parse('{{ .a ) }}')).toThrow(/unexpected "\)"/);
    expect(() => parse('{{ (.a }}')).toThrow(/unclosed left paren/);
  });
});
