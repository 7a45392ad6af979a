import { describe, expect, it } from 'vitest';
import { goTemplateError, parseGoTemplate, renderGoTemplate } from './go-template.js';

describe('Go template field references', () => {
  const data = { code: 200, json: { rates: { EUR: 0.92, GBP: 0.79 }, tags: ['a', 'b'], on: true, none: null }, check: { name: 'api' } };

  it('prints fields as Go does, nested maps, lists, bools, nil and missing keys', () => {
    expect(renderGoTemplate('$1 = €{{.json.rates.EUR}}, £{{ .json.rates.GBP }}', data)).toBe('$1 = €0.92, £0.79');
    expect(renderGoTemplate('code={{.code}} {{.check.name}}', data)).toBe('code=200 api');
    expect(renderGoTemplate('{{.json.tags}} {{.json.on}} {{.json.none}} {{.json.nope}}', data)).toBe('[a b] true <nil> <no value>');
    expect(renderGoTemplate('{{.json.rates}}', data)).toBe('map[EUR:0.92 GBP:0.79]');
    expect(renderGoTemplate('no actions', data)).toBe('no actions');
  });

  it('runs the control structures and functions it used to refuse', () => {
    expect(renderGoTemplate('{{if .code}}up{{end}}', data)).toBe('up');
    expect(renderGoTemplate('{{ .json.tags | len }}', data)).toBe('2');
    expect(renderGoTemplate('{{ $x := 1 }}{{ $x }}', data)).toBe('1');
    expect(renderGoTemplate('{{ index .json.rates "EUR" }}', data)).toBe('0.92');
  });

  it('refuses at parse what it cannot run, naming it: unknown functions, named templates, syntax errors', () => {
    expect(goTemplateError('{{.code}}')).toBeNull();
    expect(goTemplateError('{{ .Size | humanizeBytes }}')).toBe('template: 1:12: function "humanizeBytes" not defined');
    expect(goTemplateError('{{ .x | html }}')).toMatch(/function "html" not defined/);
    expect(goTemplateError('{{ define "x" }}{{ end }}')).toMatch(/\{\{define\}\} \(named templates\) is not supported/);
    expect(goTemplateError('open {{ .code')).toMatch(/unclosed action/);
    expect(goTemplateError('{{ if .code }}x')).toMatch(/\{\{if\}\} without \{\{end\}\}/);
    expect(goTemplateError('{{ end }}')).toMatch(/unexpected \{\{end\}\}/);
    expect(goTemplateError('{{ $nope }}')).toMatch(/undefined variable "\$nope"/);
  });
});

describe('parseGoTemplate: the fields a template reads from its data', () => {
  it('lists top-level text and root fields, $-fields anywhere, not fields read inside range / with', () => {
    expect(parseGoTemplate('Hi {{.a.b}} {{ range .list }}{{.x}}{{$.y}}{{end}} {{ printf "%s" .z }}{{ with .w }}{{ .v }}{{ end }}')).toEqual([
      'Hi ', { path: ['a', 'b'] }, ' ', { path: ['list'] }, { path: ['y'] }, ' ', { path: ['z'] }, { path: ['w'] },
    ]);
    expect(parseGoTemplate('{{.}}')).toEqual([{ path: [] }]);
  });
});
