import { describe, expect, it } from 'vitest';
import { parseFilterKey, parseLogicTree, parseOperation } from './filter.js';

const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as { code: string }).code;
  }
  return 'ok';
};

describe('parseOperation', () => {
  it('parses operators, negation and values (which may contain dots)', () => {
    expect(parseOperation('eq.a.b.c', 'f')).toEqual({ negate: false, op: 'eq', value: 'a.b.c', config: undefined });
    expect(parseOperation('not.like.*x*', 'f')).toMatchObject({ negate: true, op: 'like', value: '*x*' });
    expect(parseOperation('is.NULL', 'f')).toMatchObject({ op: 'is', value: 'null' });
    expect(parseOperation('fts(english).cat', 'f')).toMatchObject({ op: 'fts', config: 'english', value: 'cat' });
    expect(parseOperation('cs.{a,b}', 'f')).toMatchObject({ op: 'cs', value: '{a,b}' });
  });

  it('parses (any) and (all) quantifiers on comparison and pattern operators', () => {
    expect(parseOperation('like(any).{*a*,*b*}', 'f')).toMatchObject({ op: 'like', quant: 'any', value: '{*a*,*b*}' });
    expect(parseOperation('not.eq(all).{1,2}', 'f')).toMatchObject({ negate: true, op: 'eq', quant: 'all', value: '{1,2}' });
    expect(parseOperation('eq.x', 'f')).not.toHaveProperty('quant');
    expect(parseLogicTree('or', false, '(a.ilike(all).{*x*,*y*},b.gt(any).{1,2})', 'or').children).toMatchObject([
      { op: 'ilike', quant: 'all', value: '{*x*,*y*}' }, { op: 'gt', quant: 'any', value: '{1,2}' },
    ]);
    for (const bad of ['like(some).{a}', 'neq(any).{a}', 'is(any).null', 'eq(any.{a}']) expect(code(() => parseOperation(bad, 'f'))).toBe('PGRST100');
  });

  it('parses in lists with quoted values', () => {
    expect(parseOperation('in.(a,"b,c","d\\"e",)', 'f').list).toEqual(['a', 'b,c', 'd"e', '']);
    expect(parseOperation('not.in.()', 'f')).toMatchObject({ negate: true, list: [] });
  });

  it.each(['', 'eq', 'bogus.1', 'is.maybe', 'in.a,b', 'in.(a', 'in.(a)x', 'fts(bad cfg).x', 'not.'])('rejects %j', (v) => {
    expect(code(() => parseOperation(v, 'f'))).toBe('PGRST100');
  });

  it('caps in lists', () => {
    expect(code(() => parseOperation(`in.(${Array(1001).fill('1').join(',')})`, 'f'))).toBe('PGRST100');
  });
});

describe('parseLogicTree', () => {
  it('parses nested trees with negation, JSON paths, embeds and quoted values', () => {
    const tree = parseLogicTree('or', false, '(a.eq.1, not.and(b.gte.0,labels->>env.eq."x,y"),rel.not.is.null,rel.col.in.(1,2),tags.cs.{a,b})', 'or');
    expect(tree).toMatchObject({
      type: 'logic', op: 'or', negate: false,
      children: [
        { type: 'cond', field: { name: 'a' }, op: 'eq', value: '1' },
        { type: 'logic', op: 'and', negate: true, children: [
          { op: 'gte', value: '0' },
          { field: { name: 'labels', json: [{ arrow: '->>', key: 'env' }] }, op: 'eq', value: 'x,y' },
        ] },
        { field: { name: 'rel' }, embed: [], negate: true, op: 'is', value: 'null' },
        { field: { name: 'col' }, embed: ['rel'], op: 'in', list: ['1', '2'] },
        { field: { name: 'tags' }, op: 'cs', value: '{a,b}' },
      ],
    });
  });

  it.each(['', '()', '(a.eq.1', '(a.eq.1))', '(a.zz.1)', '(and(a.eq.1)', '(a)'])('rejects %j', (v) => {
    expect(code(() => parseLogicTree('or', false, v, 'or'))).toBe('PGRST100');
  });

  it('caps nesting depth', () => {
    const deep = (n: number) => '(' + 'or('.repeat(n) + 'a.eq.1' + ')'.repeat(n) + ')';
    expect(code(() => parseLogicTree('or', false, deep(6), 'or'))).toBe('ok');
    expect(code(() => parseLogicTree('or', false, deep(60), 'or'))).toBe('PGRST100');
  });
});

describe('parseFilterKey', () => {
  it('recognises columns, JSON paths, embed paths and embed modifiers', () => {
    expect(parseFilterKey('name')).toEqual({ kind: 'field', embed: [], field: { name: 'name', json: [] } });
    expect(parseFilterKey('labels->>env')).toMatchObject({ kind: 'field', field: { json: [{ key: 'env' }] } });
    expect(parseFilterKey('team.created_by.name')).toMatchObject({ kind: 'field', embed: ['team', 'created_by'], field: { name: 'name' } });
    expect(parseFilterKey('team.order')).toEqual({ kind: 'order', embed: ['team'] });
    expect(parseFilterKey('team.limit')).toEqual({ kind: 'limit', embed: ['team'] });
    expect(parseFilterKey('not.or')).toEqual({ kind: 'logic', embed: [], op: 'or', negate: true });
    expect(parseFilterKey('team.and')).toEqual({ kind: 'logic', embed: ['team'], op: 'and', negate: false });
  });

  it.each(['.', 'a.', 'a..b', 'a->', 'a->>b.c'])('rejects %j', (k) => {
    expect(code(() => parseFilterKey(k))).toBe('PGRST100');
  });
});
