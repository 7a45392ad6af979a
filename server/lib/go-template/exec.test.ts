import { describe, expect, it } from 'vitest';
import { renderGoTemplate } from '../go-template.js';

// Go's text/template semantics, as the Go documentation and implementation define them.
const render = (t: string, data: Record<string, unknown> = {}) => renderGoTemplate(t, data);

describe('text/template execution', () => {
  const data = { code: 200, name: 'api', zero: 0, empty: '', list: ['a', 'b'], none: null, m: { b: 2, a: 1, c: 3 }, nested: { x: { y: 'deep' } } };

  it('truthiness: false, 0, nil, empty string, list and map are false; a missing key too', () => {
    const t = '{{if .v}}T{{else}}F{{end}}';
    for (const v of [false, 0, null, '', [], {}]) expect(render(t, { v }), JSON.stringify(v)).toBe('F');
    for (const v of [true, 1, -1, 0.5, 'x', [0], { a: 0 }]) expect(render(t, { v }), JSON.stringify(v)).toBe('T');
    expect(render(t, {})).toBe('F');
  });

  it('else if, with and else with, variables scoped to their block, assignment with =', () => {
    expect(render('{{if .zero}}a{{else if .code}}b{{else}}c{{end}}', data)).toBe('b');
    expect(render('{{with .nested.x}}{{.y}}{{end}}|{{with .none}}x{{else}}none{{end}}', data)).toBe('deep|none');
    expect(render('{{with .zero}}x{{else with .name}}{{.}}{{end}}', data)).toBe('api');
    expect(render('{{$x := 1}}{{if true}}{{$x = 2}}{{$y := 3}}{{end}}{{$x}}', data)).toBe('2');
    expect(() => render('{{if true}}{{$y := 3}}{{end}}{{$y}}')).toThrow(/undefined variable "\$y"/);
    expect(render('{{range .list}}{{$.name}}:{{.}} {{end}}', data)).toBe('api:a api:b');
    expect(render('{{if $v := .zero}}a{{else if $w := .name}}{{$v}}-{{$w}}{{end}}', data)).toBe('0-api');
  });

  it('range over lists, maps in key order, integers; else when empty; break and continue', () => {
    expect(render('{{range $i, $v := .list}}{{$i}}={{$v}};{{end}}', data)).toBe('0=a;1=b;');
    expect(render('{{range $v := .list}}{{$v}}{{end}}', data)).toBe('ab');
    expect(render('{{range $k, $v := .m}}{{$k}}{{$v}}{{end}}', data)).toBe('a1b2c3');
    expect(render('{{range .m}}{{.}}{{end}}', data)).toBe('123');
    expect(render('{{range 3}}{{.}}{{end}}')).toBe('012');
    expect(render('{{range .none}}x{{else}}empty{{end}}|{{range .missing}}x{{else}}empty{{end}}', data)).toBe('empty|empty');
    expect(render('{{range $i, $v := .list}}{{if eq $i 1}}{{break}}{{end}}{{$v}}{{end}}', data)).toBe('a');
    expect(render('{{range .list}}{{if eq . "a"}}{{continue}}{{end}}{{.}}{{end}}', data)).toBe('b');
    expect(() => render('{{range .name}}{{end}}', data)).toThrow(/range can't iterate over api/);
  });

  it('trims whitespace beside {{- and -}}, comments print nothing, and the output is trimmed as the reference trims it', () => {
    expect(render('a  \n {{- .code -}}  \n b{{/* note */}}', data)).toBe('a200b');
    expect(render('x {{- /* c */ -}} y')).toBe('xy');
    expect(render('{{- range .list }}\n  - {{ . }}\n{{- end }}', data)).toBe('- a\n  - b');
    expect(render('  {{.name}}  \n', data)).toBe('api');
    // a minus sign without a space is a number, not a trim marker
    expect(render('{{-3}}')).toBe('-3');
  });

  it('prints values as fmt %v: maps sorted, lists spaced, nil, missing keys, floats', () => {
    expect(render('{{.m}} {{.list}} {{.none}} {{.nope}} {{.nope.deeper}}', data)).toBe('map[a:1 b:2 c:3] [a b] <nil> <no value> <no value>');
    expect(render('{{.f}} {{.g}} {{.h}}', { f: 0.92, g: 1e21, h: 0.00001 })).toBe('0.92 1e+21 1e-05');
  });

  it('pipelines pass the value as the last argument; parentheses, chains and lazy and/or', () => {
    expect(render('{{.list | len}} {{"%s-%d" | printf "%s" }} {{ printf "%s-%d" .name .code }}', data)).toBe('2 %s-%d api-200');
    expect(render('{{(index .nested "x").y}}', data)).toBe('deep');
    expect(render('{{ index .m "zz" }}', data)).toBe('<nil>');
    expect(render('{{ and .code .name }} {{ or .zero .empty }} {{ or .zero "d" }}', data)).toBe('api  d');
    // `and` stops at the first false value, so the failing call after it never runs
    expect(render('{{ and false (index .list 9) }}', data)).toBe('false');
  });

  it('comparisons of basic values, with eq taking several candidates', () => {
    expect(render('{{eq .code 200}} {{eq .name "x" "api"}} {{ne 1 2}} {{lt 1 2}} {{le 2 2}} {{gt "b" "a"}} {{ge 1 2}}', data)).toBe('true true true true true true false');
    expect(render('{{eq .none .none}} {{eq .none "x"}}', data)).toBe('true false');
    expect(() => render('{{eq .none nil}}', data)).toThrow(/cannot assign nil to reflect.Value/);
    expect(() => render('{{eq .list .list}}', data)).toThrow(/non-comparable/);
    expect(() => render('{{lt 1 "a"}}')).toThrow(/incompatible types for comparison/);
  });

  it('fails with Go\'s messages: fields of non-maps, arguments to non-functions, wrong argument counts', () => {
    expect(() => render('{{.code.deeper}}', data)).toThrow(/can't evaluate field deeper in type int/);
    expect(() => render('{{.none.x}}', data)).toThrow(/nil pointer evaluating interface \{\}\.x/);
    expect(() => render('{{.name 1}}', data)).toThrow(/name is not a method but has arguments/);
    expect(() => render('{{ 1 2 }}')).toThrow(/can't give argument to non-function 1/);
    expect(() => render('{{ 1 | 2 }}')).toThrow(/non executable command in pipeline stage 2/);
    expect(() => render('{{ len }}')).toThrow(/wrong number of args for len: want 1 got 0/);
    expect(() => render('{{ index .list 5 }}', data)).toThrow(/error calling index: index out of range: 5/);
  });
});

describe('limits', () => {
  it('refuses runaway output, iteration and string building instead of exhausting memory', () => {
    expect(() => render('{{ range 2000000000 }}{{ end }}')).toThrow(/more than 1000000 iterations/);
    expect(() => render('{{ range seq 100000 }}{{ range seq 100000 }}x{{ end }}{{ end }}')).toThrow(/more than 1000000|longer than 1000000/);
    expect(() => render('{{ "ab" | strings.Repeat 1000000000 }}')).toThrow(/result longer than 1000000 characters/);
    expect(render(`{{ printf "%0999999999d" 1 }}`).length).toBe(10_000);
  });
});
