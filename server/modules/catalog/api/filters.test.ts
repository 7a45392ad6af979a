import { describe, expect, it } from 'vitest';
import { likePattern, listCondition, Params, selectorCondition, severityCondition, windowSeconds } from './filters.js';

describe('catalog filter grammar', () => {
  it('lists: values, globs and ! exclusions become parameters, never SQL', () => {
    const p = new Params();
    expect(listCondition(p, 'c.type', "a,web*,!b,!x'y*", 'type')).toBe(
      '(c.type = ANY($1::text[]) OR c.type LIKE $2) AND (c.type IS NULL OR NOT (c.type = ANY($3::text[]) OR c.type LIKE $4))');
    expect(p.values).toEqual([['a'], 'web%', ['b'], "x'y%"]);
    expect(listCondition(new Params(), 'c.type', ' , ,!', 'type')).toBeNull();
    expect(likePattern('50%_off*')).toBe('50\\%\\_off%');
  });

  it('severity: >=, bare level (and above), <, =, lists; unknown levels are refused', () => {
    const at = (expr: string) => {
      const p = new Params();
      severityCondition(p, 's', expr);
      return p.values[0];
    };
    expect(at('>=high')).toEqual(['critical', 'high']);
    expect(at('HIGH')).toEqual(['critical', 'high']);
    expect(at('>high')).toEqual(['critical']);
    expect(at('<=medium')).toEqual(['medium', 'low', 'info']);
    expect(at('<low')).toEqual(['info']);
    expect(at('=low')).toEqual(['low']);
    expect(at('critical,info')).toEqual(['critical', 'info']);
    expect(() => at('>=urgent')).toThrow(/severity/);
    expect(() => at('high,urgent')).toThrow(/urgent/);
  });

  it('tag selectors', () => {
    const p = new Params();
    expect(selectorCondition(p, 't', 'a=1, b != 2,c in (x, y),d notin (z),e,!f', 'tags')).toBe([
      't ->> $1 = $2', 'NOT coalesce(t ->> $3 = $4, false)', 't ->> $5 = ANY($6::text[])',
      'NOT coalesce(t ->> $7 = ANY($8::text[]), false)', 'coalesce(t ? $9, false)', 'NOT coalesce(t ? $10, false)',
    ].join(' AND '));
    expect(p.values).toEqual(['a', '1', 'b', '2', 'c', ['x', 'y'], 'd', ['z'], 'e', 'f']);
    expect(() => selectorCondition(new Params(), 't', 'a=(', 'tags')).toThrow(/tags/);
    expect(() => selectorCondition(new Params(), 't', "a'; drop", 'tags')).toThrow(/tags/);
  });

  it('windows', () => {
    expect(windowSeconds('30d')).toBe(30 * 86400);
    expect(windowSeconds('12h')).toBe(43200);
    expect(windowSeconds('2w')).toBe(14 * 86400);
    expect(windowSeconds('forever')).toBeNull();
  });
});
