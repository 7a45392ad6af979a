import { describe, expect, it } from 'vitest';
import {
  dependenciesOf, dependsOnOf, dependsOnProblems, fillOutputs, inDependencyOrder, OutputRefError, outputOf,
  transitiveDependencies, type DependsOnEntry,
} from './depends-on.js';

const entry = (name: string, dependsOn: string[] = [], type = 'http', i = 0): DependsOnEntry =>
  ({ type, name, where: `spec.${type}.${i}`, dependsOn });
const check = (name: string, dependsOn?: string[]) => ({ id: `id-${name}`, name, spec: dependsOn ? { dependsOn } : {} });
const names = (list: Array<{ name: string }>) => list.map((c) => c.name);

describe('dependsOnProblems', () => {
  it('accepts a chain and a diamond', () => {
    expect(dependsOnProblems([entry('c', ['b'], 'http', 0), entry('a', [], 'http', 1), entry('b', ['a'], 'http', 2)])).toEqual([]);
    expect(dependsOnProblems([entry('d', ['b', 'c']), entry('b', ['a']), entry('c', ['a']), entry('a')])).toEqual([]);
  });

  it('refuses an unknown name, by path', () => {
    expect(dependsOnProblems([entry('a', [], 'http', 0), entry('b', ['a', 'nope'], 'http', 1)])).toEqual([
      { path: 'spec.http.1.dependsOn.1', message: 'no check of this canary is named "nope"' },
    ]);
  });

  it('refuses itself, a name two checks share, and a cycle', () => {
    expect(dependsOnProblems([entry('a', ['a'])])).toEqual([{ path: 'spec.http.0.dependsOn.0', message: 'a check cannot depend on itself' }]);
    expect(dependsOnProblems([entry('a', [], 'http', 0), entry('a', [], 'tcp', 0), entry('b', ['a'], 'http', 1)])[0])
      .toEqual({ path: 'spec.http.1.dependsOn.0', message: '"a" names 2 checks (http, tcp): give them distinct names' });
    expect(dependsOnProblems([entry('a', ['c'], 'http', 0), entry('b', ['a'], 'http', 1), entry('c', ['b'], 'http', 2)])).toEqual([
      { path: 'spec.http.0.dependsOn', message: 'dependsOn makes a cycle: a → c → b → a' },
    ]);
  });

  it('says nothing when no check has dependsOn (two checks of different types may share a name)', () => {
    expect(dependsOnProblems([entry('a', [], 'http'), entry('a', [], 'tcp')])).toEqual([]);
  });
});

describe('run order', () => {
  const list = [check('d', ['b', 'c']), check('b', ['a']), check('x'), check('c', ['a']), check('a')];
  const deps = dependenciesOf(list);

  it('puts each check after its dependencies', () => {
    const order = names(inDependencyOrder(list, deps));
    expect(order.indexOf('a')).toBeLessThan(order.indexOf('b'));
    expect(order.indexOf('a')).toBeLessThan(order.indexOf('c'));
    expect(order.indexOf('b')).toBeLessThan(order.indexOf('d'));
    expect(order.indexOf('c')).toBeLessThan(order.indexOf('d'));
    expect(order).toHaveLength(5);
  });

  it('orders a subset by the dependencies it holds, and keeps a stored cycle', () => {
    expect(names(inDependencyOrder([list[0], list[1]], deps))).toEqual(['b', 'd']);
    const cyc = [check('p', ['q']), check('q', ['p'])];
    expect(names(inDependencyOrder(cyc))).toEqual(['p', 'q']);
  });

  it('finds transitive dependencies', () => {
    expect(names(transitiveDependencies('id-d', deps)).sort()).toEqual(['a', 'b', 'c']);
    expect(transitiveDependencies('id-x', deps)).toEqual([]);
  });
});

describe('outputs', () => {
  it('has pass, message and duration over the data, as the reference', () => {
    expect(outputOf({ pass: true, duration: 12, data: { code: 200, json: { uuid: 'u' }, pass: 'shadowed' } }))
      .toEqual({ code: 200, json: { uuid: 'u' }, pass: true, message: '', duration: 12 });
  });

  it('fills $(outputs...) and {{ .outputs... }} in templated fields only', () => {
    const outputs = { getUuid: { json: { uuid: 'abc', n: 3, o: { k: 1 } } } };
    const spec = {
      url: 'http://h/$(outputs.getUuid.json.uuid)?n=$(.outputs.getUuid.json.n)',
      body: '{"id": "{{ .outputs.getUuid.json.uuid }}", "o": {{outputs.getUuid.json.o}}}',
      description: '$(outputs.getUuid.json.uuid)',
    };
    expect(fillOutputs(spec, outputs)).toEqual({
      url: 'http://h/abc?n=3', body: '{"id": "abc", "o": {"k":1}}', description: '$(outputs.getUuid.json.uuid)',
    });
    const plain = { url: 'http://h/x' };
    expect(fillOutputs(plain, outputs)).toBe(plain);
  });

  it('refuses a reference to a dependency without output, or to a missing field', () => {
    expect(() => fillOutputs({ url: 'http://h/$(outputs.getUuid.json.uuid)' }, undefined))
      .toThrow(new OutputRefError('url: $(outputs.getUuid.json.uuid): check "getUuid" has no output in this run (it did not pass, or is not in dependsOn)'));
    expect(() => fillOutputs({ url: 'http://h/$(outputs.getUuid.json.nope)' }, { getUuid: { json: {} } }))
      .toThrow('outputs.getUuid.json.nope is not in the output of "getUuid"');
  });
});

describe('dependsOnOf on a check without a spec', () => {
  it('is empty, not a crash', () => {
    expect(dependsOnOf(null)).toEqual([]);
    expect(dependsOnOf(undefined)).toEqual([]);
  });
});
