import { describe, expect, it } from 'vitest';
import type { PlaybookParameter } from './api';
import { codeLanguage, durationOptions, initialValues, paramsSchema, toRunParams } from './params';

const P = (p: Partial<PlaybookParameter> & { name: string }): PlaybookParameter => p as PlaybookParameter;

const errorsOf = (params: PlaybookParameter[], values: Record<string, unknown>) => {
  const r = paramsSchema(params).safeParse(values);
  return r.success ? {} : Object.fromEntries(r.error.issues.map((i) => [String(i.path[0]), i.message]));
};

describe('the run dialog parameters', () => {
  it('checks text bounds, regex and dns1123, and required fields', () => {
    const params = [
      P({ name: 'a', type: 'text', required: true }),
      P({ name: 'b', type: 'text', properties: { minLength: 3, maxLength: 5 } }),
      P({ name: 'c', type: 'text', properties: { min: 1, max: 10 } }),
      P({ name: 'd', type: 'text', properties: { regex: '^v\\d+$' } }),
      P({ name: 'e', type: 'text', properties: { format: 'dns1123' } }),
    ];
    expect(errorsOf(params, { p0: '', p1: 'ab', p2: '11', p3: 'x1', p4: 'Bad_Name' })).toEqual({
      p0: 'This field is required',
      p1: 'Must be at least 3 characters',
      p2: 'Must be at most 10',
      p3: 'Must match ^v\\d+$',
      p4: expect.stringContaining('lowercase'),
    });
    expect(errorsOf(params, { p0: 'x', p1: 'abc', p2: 'x', p3: 'v2', p4: 'my-app.v1' })).toEqual({ p2: 'This field must be a number' });
    expect(errorsOf(params, { p0: 'x', p1: '', p2: '', p3: '', p4: '' })).toEqual({});
  });

  it('checks code as YAML or JSON, durations, millicores, bytes and list options', () => {
    const params = [
      P({ name: 'y', type: 'code' }),
      P({ name: 'j', type: 'code', properties: { language: 'json' } }),
      P({ name: 'd', type: 'duration' }),
      P({ name: 'm', type: 'millicores' }),
      P({ name: 'b', type: 'bytes' }),
      P({ name: 'l', type: 'list', properties: { options: [{ label: 'One', value: '1' }] } }),
    ];
    const bad = errorsOf(params, { p0: 'a: [', p1: '{x', p2: 'soon', p3: '1.5', p4: '-1', p4_unit: 'Gi', p5: '2' });
    expect(Object.keys(bad).sort()).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
    expect(bad.p0).toMatch(/^Not valid YAML/);
    expect(bad.p1).toMatch(/^Not valid JSON/);
    expect(errorsOf(params, { p0: 'a: 1', p1: '{"x":1}', p2: '1h30m', p3: '500', p4: '512', p4_unit: 'Mi', p5: '1' })).toEqual({});
  });

  it('bounds a duration by min/max durations; its options are suggestions only', () => {
    const retention = P({
      name: 'retention', type: 'duration', default: '15m',
      properties: { min: '5m', max: '30d', options: ['5m', '15m', '30m', '1h', '2h', '4h', '8h', '1d', '2d', '3d', '7d', '30d'] },
    });
    expect(durationOptions(retention)).toEqual(['5m', '15m', '30m', '1h', '2h', '4h', '8h', '1d', '2d', '3d', '7d', '30d']);
    expect(errorsOf([retention], { p0: '1m' })).toEqual({ p0: 'Must be at least 5m' });
    expect(errorsOf([retention], { p0: '31d' })).toEqual({ p0: 'Must be at most 30d' });
    expect(errorsOf([retention], { p0: '15m' })).toEqual({});
    expect(errorsOf([retention], { p0: '45m' })).toEqual({}); // not an option, still taken
    expect(errorsOf([retention], { p0: 'soon' })).toEqual({ p0: expect.stringContaining('duration') });
  });

  it('takes string list options, and code in other languages unparsed', () => {
    const params = [
      P({ name: 'l', type: 'list', properties: { options: ['small', { label: 'Large', value: 'large' }] } }),
      P({ name: 'sh', type: 'code', properties: { language: 'shell' } }),
      P({ name: 'y', type: 'code', properties: { language: 'yml' } }),
    ];
    expect(codeLanguage(params[1])).toBe('shell');
    expect(codeLanguage(params[2])).toBe('yaml');
    expect(errorsOf(params, { p0: 'small', p1: 'echo "{{ [', p2: 'a: 1' })).toEqual({});
    expect(errorsOf(params, { p0: 'large', p1: 'ls', p2: 'a: [' })).toEqual({ p2: expect.stringMatching(/^Not valid YAML/) });
    expect(errorsOf(params, { p0: 'huge', p1: '', p2: '' })).toEqual({ p0: 'Choose one of the options' });
  });

  it('starts from defaults (or a re-run’s values) and sends strings by name', () => {
    const params = [
      P({ name: 'flag', type: 'checkbox', default: 'true' }),
      P({ name: 'mem', type: 'bytes', default: '2Gi' }),
      P({ name: 'cpu', type: 'millicores', default: '250m' }),
      P({ name: 'note', type: 'text', default: ' hi ' }),
      P({ name: 'cfg', type: 'code', default: { a: 1 } as unknown as string }),
      P({ name: 'empty', type: 'text' }),
    ];
    const v = initialValues(params, { note: 'again' });
    expect(v).toEqual({ p0: true, p1: '2', p1_unit: 'Gi', p2: '250', p3: 'again', p4: '{\n  "a": 1\n}', p5: '' });
    expect(toRunParams(params, { ...v, p1_unit: 'Mi', p0: false })).toEqual({
      flag: 'false', mem: '2Mi', cpu: '250m', note: 'again', cfg: '{\n  "a": 1\n}',
    });
  });
});
