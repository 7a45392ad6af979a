import { describe, expect, it } from 'vitest';
import { checkMaxAffected, checkProfile, negotiate, parsePrefer, parseRange } from './headers.js';
import { parseCount, parseOrder } from './order.js';
import { parseQuery } from './query.js';
import { dateMath, searchFilter } from './search-filter.js';

const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as { code: string }).code;
  }
  return 'ok';
};

describe('parseQuery', () => {
  it('splits reserved keys, filters (duplicates ANDed) and embed modifiers', () => {
    const q = parseQuery('select=id,team:teams(name)&id=gt.1&id=lt.5&team.name=eq.a&team.order=name.desc&team.limit=2&limit=10&offset=20&or=(a.eq.1,b.eq.2)');
    expect(q.select).toHaveLength(2);
    const top = q.nodes.get('')!;
    expect(top.filters).toHaveLength(3);
    expect(top).toMatchObject({ limit: 10, offset: 20 });
    expect(q.nodes.get('team')).toMatchObject({ limit: 2, order: [{ field: { name: 'name' }, dir: 'desc' }], filters: [{ op: 'eq', value: 'a' }] });
  });

  it('decodes + as a space and percent escapes', () => {
    expect(parseQuery('name=eq.a+b%2Cc').nodes.get('')!.filters[0]).toMatchObject({ value: 'a b,c' });
  });

  it('diverts RPC argument names', () => {
    const q = parseQuery('query=bob&name=eq.x', new Set(['query']));
    expect(q.args.get('query')).toBe('bob');
    expect(q.nodes.get('')!.filters).toHaveLength(1);
  });

  it.each(['select=id&select=(', 'limit=1&limit=2', '=x', 'id=eq.%00', 'a%00=eq.1', 'limit=-1', 'limit=1e999', 'offset=abc', 'on_conflict=a;b'])(
    'rejects %j with 400 PGRST100', (qs) => {
      expect(code(() => parseQuery(qs))).toBe('PGRST100');
    });

  it('reads columns and on_conflict as PostgREST does: quoted (postgrest-js sends "a","b"), spaced or bare', () => {
    expect(parseQuery('columns=%22name%22,%22spec%22,%22created_by%22').columns).toEqual(['name', 'spec', 'created_by']);
    expect(parseQuery('columns=name, spec ,"my col","a,b","x\\"y","q""r"').columns).toEqual(['name', 'spec', 'my col', 'a,b', 'x"y', 'q"r']);
    expect(parseQuery('on_conflict="team_id", person_id').onConflict).toEqual(['team_id', 'person_id']);
  });

  it.each(['columns=', 'columns=a,', 'columns=a;b', 'columns="a', 'columns=a,,b', 'on_conflict=""', 'columns=a"b"'])(
    'rejects the name list %j with 400 PGRST100', (qs) => {
      expect(code(() => parseQuery(qs))).toBe('PGRST100');
    });

  it('reads quoted filter keys, orders and logic trees', () => {
    const q = parseQuery('"my col"=eq.1&"rel"."x"=eq.2&order="my col".desc,"a b"&or=("c,d".eq.3,and("e".is.null))&select=*,rel(*)');
    const top = q.nodes.get('')!;
    expect(top.filters[0]).toMatchObject({ field: { name: 'my col' }, op: 'eq', value: '1' });
    expect(q.nodes.get('rel')!.filters[0]).toMatchObject({ field: { name: 'x' }, value: '2' });
    expect(top.order).toMatchObject([{ field: { name: 'my col' }, dir: 'desc' }, { field: { name: 'a b' }, dir: null }]);
    expect(top.filters[1]).toMatchObject({ type: 'logic', children: [{ field: { name: 'c,d' } }, { type: 'logic', children: [{ field: { name: 'e' }, op: 'is' }] }] });
  });

  it('turns <col>.filter into filters', () => {
    expect(parseQuery('name.filter=a,b').nodes.get('')!.filters).toMatchObject([{ op: 'in', list: ['a', 'b'] }]);
  });
});

describe('parseOrder', () => {
  it('parses directions, nulls, JSON paths and embedded columns', () => {
    expect(parseOrder('created_at.desc,name,labels->>team.asc.nullslast,team(name).desc.nullsfirst')).toEqual([
      { field: { name: 'created_at', json: [] }, embed: undefined, dir: 'desc', nulls: null },
      { field: { name: 'name', json: [] }, embed: undefined, dir: null, nulls: null },
      { field: { name: 'labels', json: [{ arrow: '->>', key: 'team' }] }, embed: undefined, dir: 'asc', nulls: 'last' },
      { field: { name: 'name', json: [] }, embed: 'team', dir: 'desc', nulls: 'first' },
    ]);
  });
  it.each(['', 'a.up', 'a.desc.desc', 'a,', 'a(b', '(a)'])('rejects %j', (v) => expect(code(() => parseOrder(v))).toBe('PGRST100'));
  it('parses counts strictly', () => {
    expect(parseCount('25', 'limit')).toBe(25);
    expect(code(() => parseCount('2.5', 'limit'))).toBe('PGRST100');
  });
});

describe('headers', () => {
  it('parses Prefer tokens and echoes the applied ones', () => {
    const p = parsePrefer('return=representation, count=exact,resolution=merge-duplicates, bogus');
    expect(p).toMatchObject({ return: 'representation', count: true, resolution: 'merge-duplicates' });
    expect(p.applied).toEqual(['return=representation', 'count=exact', 'resolution=merge-duplicates']);
    expect(code(() => parsePrefer('handling=strict, count=bogus'))).toBe('PGRST122');
    expect(parsePrefer('missing=default')).toMatchObject({ missingDefault: true, applied: ['missing=default'] });
    expect(parsePrefer('missing=null').missingDefault).toBe(false);
  });
  it('honours max-affected only with handling=strict, and bounds it with PGRST124', () => {
    expect(parsePrefer('max-affected=5').maxAffected).toBeNull();
    const p = parsePrefer('handling=strict, max-affected=5');
    expect(p.maxAffected).toBe(5);
    expect(p.applied).toEqual(['handling=strict', 'max-affected=5']);
    expect(code(() => checkMaxAffected(p, 5))).toBe('ok');
    expect(code(() => checkMaxAffected(p, 6))).toBe('PGRST124');
    expect(code(() => parsePrefer('handling=strict, max-affected=many'))).toBe('PGRST122');
  });
  it('parses Range and refuses inverted or malformed ones with 416', () => {
    expect(parseRange('0-24')).toEqual({ offset: 0, limit: 25 });
    expect(parseRange('10-')).toEqual({ offset: 10, limit: null });
    expect(code(() => parseRange('5-1'))).toBe('PGRST103');
    expect(code(() => parseRange('abc'))).toBe('PGRST103');
  });
});

describe('media types and schema profiles', () => {
  it('picks the first producible type of Accept, JSON otherwise', () => {
    expect(negotiate('text/csv')).toEqual({ format: 'csv', singular: false, stripNulls: false });
    expect(negotiate('application/vnd.pgrst.object+json;nulls=stripped')).toEqual({ format: 'json', singular: true, stripNulls: true });
    expect(negotiate('application/vnd.pgrst.array+json; nulls=stripped')).toEqual({ format: 'json', singular: false, stripNulls: true });
    expect(negotiate('text/html, application/json, text/csv')).toMatchObject({ format: 'json', singular: false });
    expect(negotiate('application/json, text/plain, */*')).toMatchObject({ format: 'json' });
    expect(negotiate(undefined)).toMatchObject({ format: 'json' });
  });
  it('accepts the public profile (or none) and refuses any other with 406 PGRST106', () => {
    expect(code(() => checkProfile(undefined))).toBe('ok');
    expect(code(() => checkProfile('public'))).toBe('ok');
    expect(code(() => checkProfile('auth'))).toBe('PGRST106');
  });
});

describe('<col>.filter convenience', () => {
  const now = new Date('2026-03-10T12:34:56Z');
  it('evaluates date math', () => {
    expect(dateMath('now-24h', now)).toBe('2026-03-09T12:34:56.000Z');
    expect(dateMath('now-1d/d', now)).toBe('2026-03-09T00:00:00.000Z');
    expect(dateMath('now+1M', now)).toBe('2026-04-10T12:34:56.000Z');
    expect(dateMath('2026-01-02', now)).toBe('2026-01-02T00:00:00.000Z');
    expect(dateMath('yesterday', now)).toBeNull();
  });
  it('maps date columns to gt/eq/lt (default lt)', () => {
    expect(searchFilter('created_at', '>now-1h')[0]).toMatchObject({ op: 'gt' });
    expect(searchFilter('created_at', '=2026-01-01')[0]).toMatchObject({ op: 'eq', value: '2026-01-01T00:00:00.000Z' });
    expect(searchFilter('created_at', 'now')[0]).toMatchObject({ op: 'lt' });
    expect(code(() => searchFilter('created_at', '>soon'))).toBe('PGRST100');
  });
  it('maps lists with negation and globs', () => {
    expect(searchFilter('name', 'a,b,!c,*x*,!y*')).toEqual([
      { type: 'cond', embed: [], field: { name: 'name', json: [] }, op: 'like', value: 'y*', negate: true, list: undefined },
      { type: 'cond', embed: [], field: { name: 'name', json: [] }, op: 'in', value: '', negate: true, list: ['c'] },
      { type: 'logic', op: 'or', negate: false, children: [
        { type: 'cond', embed: [], field: { name: 'name', json: [] }, op: 'like', value: '*x*', negate: false, list: undefined },
        { type: 'cond', embed: [], field: { name: 'name', json: [] }, op: 'in', value: '', negate: false, list: ['a', 'b'] },
      ] },
    ]);
  });
});
