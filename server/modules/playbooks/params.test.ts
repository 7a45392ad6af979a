import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BadRequestError } from '../../lib/errors.js';
import { paramDefs, resolveParams } from './params.js';
import { playbookSpecProblems } from './spec.js';

/** Reference parameters (flanksource/mission-control fixtures): duration bounds and options, free-form code languages. */

const FIXTURE = parse(`
actions:
  - name: say
    exec:
      script: echo {{ .params.retention }}
parameters:
  - name: retention
    label: Retention window
    type: duration
    default: 15m
    properties:
      min: 5m
      options: [5m, 15m, 30m, 1h, 2h, 4h, 8h, 1d, 2d, 3d, 7d, 30d]
  - name: script
    type: code
    properties:
      language: shell
  - name: size
    type: list
    properties:
      options: [small, { label: Large, value: large }]
`) as Record<string, unknown>;

// Only id parameters (people, config…) reach the database; these never do.
const db = null as unknown as pg.Pool;
const run = (given: Record<string, unknown>, spec: Record<string, unknown> = FIXTURE) =>
  resolveParams(db, { defs: paramDefs(spec), given });
async function refusal(given: Record<string, unknown>, spec?: Record<string, unknown>) {
  const err = await run(given, spec).then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(BadRequestError);
  return err as BadRequestError;
}
const spec = (param: Record<string, unknown>) => ({ actions: [{ name: 'a', exec: { script: 'true' } }], parameters: [param] });

describe('reference playbook parameters', () => {
  it('the fixture is a valid spec', () => {
    expect(playbookSpecProblems(FIXTURE)).toEqual([]);
  });

  it('duration bounds: a number or a duration string; anything else refused by path', () => {
    expect(playbookSpecProblems(spec({ name: 'r', type: 'duration', properties: { min: '5m', max: '2w' } }))).toEqual([]);
    expect(playbookSpecProblems(spec({ name: 't', type: 'text', properties: { min: 1, max: '10' } }))).toEqual([]);
    expect(playbookSpecProblems(spec({ name: 'r', type: 'duration', properties: { min: 'banana' } }))).toEqual([
      { path: 'spec.parameters[0].properties.min', message: 'min: a number or a duration such as 30s, 5m or 1h30m' },
    ]);
    expect(playbookSpecProblems(spec({ name: 'r', type: 'duration', properties: { min: '1d', max: '1h' } }))).toEqual([
      { path: 'spec.parameters[0].properties.max', message: 'max is below min' },
    ]);
  });

  it('a code language is free-form but not blank', () => {
    expect(playbookSpecProblems(spec({ name: 'c', type: 'code', properties: { language: 'python' } }))).toEqual([]);
    expect(playbookSpecProblems(spec({ name: 'c', type: 'code', properties: { language: '' } })).map((p) => p.path))
      .toEqual(['spec.parameters[0].properties.language']);
  });

  it('a duration below min is refused with a clear message; one within it, or any non-option, is taken', async () => {
    const err = await refusal({ retention: '1m' });
    expect(err.message).toBe('parameter retention: must be at least 5m');
    expect(await run({ retention: '15m' })).toMatchObject({ retention: '15m' });
    expect(await run({ retention: '45m' })).toMatchObject({ retention: '45m' }); // options are suggestions
    expect(await run({})).toMatchObject({ retention: '15m' }); // the default
    expect((await refusal({ retention: 'soon' })).message).toMatch(/retention: must be a duration/);
  });

  it('a duration above max is refused', async () => {
    const bounded = spec({ name: 'r', type: 'duration', properties: { min: '5m', max: '1d' } });
    expect((await refusal({ r: '2d' }, bounded)).message).toBe('parameter r: must be at most 1d');
    expect(await run({ r: '24h' }, bounded)).toEqual({ r: '24h' });
  });

  it('a list takes string options and still restricts to them', async () => {
    expect(await run({ size: 'small' })).toMatchObject({ size: 'small' });
    expect(await run({ size: 'large' })).toMatchObject({ size: 'large' });
    expect((await refusal({ size: 'huge' })).message).toBe('parameter size: must be one of small, large');
  });

  it('code in another language is not parsed; json and yaml still are', async () => {
    expect(await run({ script: 'echo "{{ unbalanced: [' })).toMatchObject({ script: 'echo "{{ unbalanced: [' });
    const json = spec({ name: 'c', type: 'code', properties: { language: 'json' } });
    expect((await refusal({ c: '{nope' }, json)).message).toMatch(/c: is not valid JSON/);
    const yml = spec({ name: 'c', type: 'code', properties: { language: 'yml' } });
    expect((await refusal({ c: 'a: [' }, yml)).message).toMatch(/c: is not valid YAML/);
  });
});
