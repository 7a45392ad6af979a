import { describe, expect, it } from 'vitest';
import { celSyntaxError, celToText, evalCel } from './cel.js';
import { markOptionalSelects } from './cel-optional.js';

describe('optional field selection', () => {
  it('marks .?name outside string literals only', () => {
    expect(markOptionalSelects("a.?b.c + '.?d' + \"x.?y\" + r'.?z' + '''.?w''' + e.?f")).toBe("a.__opt__b.c + '.?d' + \"x.?y\" + r'.?z' + '''.?w''' + e.__opt__f");
    expect(markOptionalSelects("'it\\'s.?x' + a.?b")).toBe("'it\\'s.?x' + a.__opt__b");
  });

  it('walks chains as cel-go does: none ends the chain, plain steps after it must exist', () => {
    const vars = { m: { a: { b: 1 }, n: null } };
    const cel = (e: string) => celToText(evalCel(e, vars));
    expect(cel('m.?a.b.orValue(0)')).toBe('1');
    expect(cel('m.?x.b.orValue(0)')).toBe('0');
    expect(cel('m.?a.?x.orValue(0)')).toBe('0');
    expect(cel('m.?n.orValue(2)')).toBe('');
    expect(cel('m.?a.hasValue() && !m.?z.hasValue()')).toBe('true');
    expect(cel('[m.?a.b.orValue(0), m.?q.orValue(5)].map(x, string(x))')).toBe('[1 5]');
    expect(() => cel('m.?a.x.orValue(0)')).toThrow(/no such key: x/);
  });

  it('reports syntax errors with the optional selection as written', () => {
    expect(celSyntaxError('a.?b +')).not.toContain('__opt__');
  });
});
