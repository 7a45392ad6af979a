import { describe, expect, it } from 'vitest';
import { evalCel } from '../../server/lib/cel.js';
import { equalityFilter, RuleIndex, stringAt } from '../../server/modules/notifications/pipeline/match.js';
import type { RuleRow } from '../../server/modules/notifications/pipeline/queries.js';

/**
 * The rule index of the match handler (issue 15 "Performance": 1,000 rules per event): filters of the form
 * `path == "text"` are looked up instead of evaluated, and agree with CEL; anything else, or a path that is not a
 * string in the event's variables, is left to CEL.
 */
const rule = (id: string, filter: string | null) => ({ id, filter }) as RuleRow;
const env = { check: { name: 'api', labels: { group: 'g5', n: 3 }, created: new Date() }, canary: { name: 'c' } };

describe('equality filters', () => {
  it('recognises path == text either way round, single or double quotes', () => {
    expect(equalityFilter('check.labels.group == "g5"')).toEqual({ path: ['check', 'labels', 'group'], value: 'g5' });
    expect(equalityFilter(" 'api' == check.name ")).toEqual({ path: ['check', 'name'], value: 'api' });
  });

  it('leaves everything else to CEL', () => {
    for (const f of ['check.name != "api"', 'check.name == "a" && canary.name == "c"', 'check.name == "a\\"b"',
      'check.labels.n == 3', 'name == "api"', 'check.name.startsWith("a")', 'check.name == "a" || true', '', null]) {
      expect(equalityFilter(f), String(f)).toBeNull();
    }
  });

  it('reads only plain strings from the variables', () => {
    expect(stringAt(env, ['check', 'labels', 'group'])).toBe('g5');
    expect(stringAt(env, ['check', 'labels', 'n'])).toBeUndefined();
    expect(stringAt(env, ['check', 'labels', 'missing'])).toBeUndefined();
    expect(stringAt(env, ['check', 'created', 'x'])).toBeUndefined();
    expect(stringAt(env, ['check', 'name', 'length'])).toBeUndefined();
  });

  it('the index picks what CEL would, and hands unresolved paths to CEL', () => {
    const rules = [
      rule('a', 'check.labels.group == "g5"'), rule('b', 'check.labels.group == "g6"'), rule('c', '"api" == check.name'),
      rule('d', 'check.labels.missing == "x"'), rule('e', 'check.name.startsWith("a")'), rule('f', null),
    ];
    const { pass, check } = new RuleIndex(rules).candidates(env);
    expect(pass.map((r) => r.id).sort()).toEqual(['a', 'c']);
    expect(check.map((r) => r.id).sort()).toEqual(['d', 'e', 'f']);
    for (const r of rules.filter((x) => equalityFilter(x.filter) && !check.includes(x))) {
      expect(evalCel(r.filter!, env) === true, r.filter!).toBe(pass.includes(r));
    }
  });
});
