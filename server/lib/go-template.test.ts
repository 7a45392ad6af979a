import { describe, expect, it } from 'vitest';
import { goTemplateError, renderGoTemplate } from './go-template.js';

describe('Go template field references', () => {
  const data = { code: 200, json: { rates: { EUR: 0.92, GBP: 0.79 }, tags: ['a', 'b'], on: true, none: null }, check: { name: 'api' } };

  it('prints fields as Go does, nested maps, lists, bools, nil and missing keys', () => {
    expect(renderGoTemplate('$1 = €{{.json.rates.EUR}}, £{{ .json.rates.GBP }}', data)).toBe('$1 = €0.92, £0.79');
    expect(renderGoTemplate('code={{.code}} {{.check.name}}', data)).toBe('code=200 api');
    expect(renderGoTemplate('{{.json.tags}} {{.json.on}} {{.json.none}} {{.json.nope}} {{.code.deeper}}', data)).toBe('[a b] true <nil> <no value> <no value>');
    expect(renderGoTemplate('{{.json.rates}}', data)).toBe('map[EUR:0.92 GBP:0.79]');
    expect(renderGoTemplate('no actions', data)).toBe('no actions');
  });

  it('trims whitespace beside {{- and -}}, and prints nothing for a comment', () => {
    expect(renderGoTemplate('a  \n {{- .code -}}  \n b{{/* note */}}', data)).toBe('a200b');
  });

  it('refuses what it does not implement, naming the action', () => {
    expect(goTemplateError('{{.code}}')).toBeNull();
    expect(goTemplateError('{{if .code}}up{{end}}')).toMatch(/unsupported template action \{\{if \.code\}\}/);
    expect(goTemplateError('{{ .json.tags | len }}')).toMatch(/unsupported template action/);
    expect(goTemplateError('{{ $x := 1 }}')).toMatch(/unsupported/);
    expect(goTemplateError('open {{ .code')).toMatch(/unclosed/);
    expect(() => renderGoTemplate('{{ index .json "x" }}', data)).toThrow(/unsupported/);
  });
});
