import { describe, expect, it } from 'vitest';
import { celSyntaxError, celToText, evalCel } from './cel.js';

const cel = (expr: string, vars: Record<string, unknown> = {}, traverse?: (id: string, type: string, dir: string) => Record<string, unknown>[]) =>
  celToText(evalCel(expr, vars, { traverse }));

const patch = { status: { conditions: [{ type: 'Ready', message: 'ok' }, { type: 'Healthy', message: 'Health check passed' }] } };

describe('jq (gomplate coll.JQ)', () => {
  it('runs the expression of config-db fixtures/kubernetes.yaml', () => {
    const expr = `jq('.status.conditions[]? | select(.type == "Healthy").message', patch).contains('Health check passed')`;
    expect(cel(expr, { patch })).toBe('true');
    expect(cel(expr, { patch: { status: { conditions: [{ type: 'Healthy', message: 'Health check failed' }] } } })).toBe('false');
  });
  it('gives one output as itself and none or several as a list (gojq stream)', () => {
    expect(cel(`jq('.a', {'a': 'x'})`)).toBe('x');
    expect(cel(`jq('.a[]', {'a': [1, 2]})`)).toBe('[1 2]');
    expect(cel(`jq('.a[]?', {'a': null})`)).toBe('[]');
    expect(cel(`jq('.a.b', {})`)).toBe('');
    expect(cel(`jq('.["a b"][1]', {'a b': ['x', 'y']})`)).toBe('y');
    expect(cel(`jq('.[] | select(.n != 1) | .n', [{'n': 1}, {'n': 2}])`)).toBe('2');
  });
  it('parses a string holding a JSON object first', () => {
    expect(cel(`jq('.a', '{"a": "b"}')`)).toBe('b');
  });
  it('refuses what it does not implement, and iteration of a scalar, with a message', () => {
    expect(() => cel(`jq('.a | length', {'a': [1]})`)).toThrow(/jq: unsupported expression "length"; supported: paths/);
    expect(() => cel(`jq('.a[]', {'a': 1})`)).toThrow(/jq: cannot iterate over number/);
  });
});

describe('uniq (gomplate coll.Uniq)', () => {
  it('keeps the first of equal values, in order, telling types apart', () => {
    expect(cel(`['b', 'a', 'b', '', 'a'].uniq()`)).toBe('[b a ]');
    expect(cel(`[1, 1.0, 1, [1, 2], [1, 2], {'a': 1}, {'a': 1}].uniq().size()`)).toBe('4');
  });
});

describe('len', () => {
  it('is the size of a list, map or string', () => {
    expect(cel(`len([1, 2, 3])`)).toBe('3');
    expect(cel(`len({'a': 1})`)).toBe('1');
    expect(cel(`len('héllo')`)).toBe('5');
    expect(() => cel('len(1)')).toThrow(/len: expects a list, map or string/);
  });
});

describe('catalog.traverse (duty query/config_traversal.go)', () => {
  it('reads related items from the context, direction incoming unless given', () => {
    const calls: string[] = [];
    const traverse = (id: string, type: string, dir: string) => {
      calls.push(`${id} ${type} ${dir}`);
      return id === 'app-1' ? [{ id: 'mc-1', type }] : [];
    };
    const expr = `dyn(config).filter(item, len(catalog.traverse(item.app_id, "MissionControl::Application")) > 0).map(i, i.user_id)`;
    expect(cel(expr, { config: [{ app_id: 'app-1', user_id: 'u1' }, { app_id: 'app-2', user_id: 'u2' }] }, traverse)).toBe('[u1]');
    expect(cel(`catalog.traverse('app-1', 'T', 'outgoing')[0].type`, {}, traverse)).toBe('T');
    expect(calls).toEqual(['app-1 MissionControl::Application incoming', 'app-2 MissionControl::Application incoming', 'app-1 T outgoing']);
  });
  it('is an error where no catalog is at hand, and compiles', () => {
    expect(celSyntaxError(`catalog.traverse('a', 'b')`)).toBeNull();
    expect(() => cel(`catalog.traverse('a', 'b')`)).toThrow(/catalog.traverse: the catalog is not available/);
  });
});
