import { describe, expect, it } from 'vitest';
import { parseSelect } from './select.js';

const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as { code: string }).code;
  }
  return 'ok';
};

describe('parseSelect', () => {
  it('parses columns, aliases, casts and JSON paths', () => {
    expect(parseSelect('id,user_email:email,n::text,labels->>env,x:spec->a->>b')).toEqual([
      { type: 'field', field: { name: 'id', json: [] }, alias: undefined, cast: undefined },
      { type: 'field', field: { name: 'email', json: [] }, alias: 'user_email', cast: undefined },
      { type: 'field', field: { name: 'n', json: [] }, alias: undefined, cast: 'text' },
      { type: 'field', field: { name: 'labels', json: [{ arrow: '->>', key: 'env' }] }, alias: undefined, cast: undefined },
      { type: 'field', field: { name: 'spec', json: [{ arrow: '->', key: 'a' }, { arrow: '->>', key: 'b' }] }, alias: 'x', cast: undefined },
    ]);
  });

  it('parses embeds with aliases, hints, join types, nesting and whitespace', () => {
    const [star, embed] = parseSelect('*, team:teams!teams_created_by_fkey!inner(*, created_by(id,name))');
    expect(star).toEqual({ type: 'star' });
    expect(embed).toMatchObject({
      type: 'embed', name: 'teams', alias: 'team', hint: 'teams_created_by_fkey', join: 'inner',
      items: [{ type: 'star' }, { type: 'embed', name: 'created_by', join: 'left', items: [{ type: 'field' }, { type: 'field' }] }],
    });
  });

  it('accepts an empty embed and an embed cast', () => {
    expect(parseSelect('id,teams()')[1]).toMatchObject({ type: 'embed', items: [] });
    expect(parseSelect('a:teams(*)::jsonb')[0]).toMatchObject({ type: 'embed', cast: 'jsonb' });
  });

  it('reads quoted names and JSON keys with dots', () => {
    expect(parseSelect('labels->>"app.kubernetes.io/name"')[0]).toMatchObject({
      field: { name: 'labels', json: [{ arrow: '->>', key: 'app.kubernetes.io/name' }] },
    });
  });

  it('reads quoted fields, aliases, embeds, hints and JSON keys, with "" or \\" for a quote', () => {
    expect(parseSelect('"my col","the alias":"name","a""b",x:"data"->>"k.1"->"k,2"')).toEqual([
      { type: 'field', field: { name: 'my col', json: [] }, alias: undefined, cast: undefined },
      { type: 'field', field: { name: 'name', json: [] }, alias: 'the alias', cast: undefined },
      { type: 'field', field: { name: 'a"b', json: [] }, alias: undefined, cast: undefined },
      { type: 'field', field: { name: 'data', json: [{ arrow: '->>', key: 'k.1' }, { arrow: '->', key: 'k,2' }] }, alias: 'x', cast: undefined },
    ]);
    expect(parseSelect('"c:b":"teams"!"teams_created_by_fkey"!inner("x\\"y")')[0]).toMatchObject({
      type: 'embed', name: 'teams', alias: 'c:b', hint: 'teams_created_by_fkey', join: 'inner', items: [{ field: { name: 'x"y' } }],
    });
  });

  it('trims unquoted names and reads inner spaces as PostgREST does', () => {
    expect(parseSelect(' first name , teams ( id )')).toMatchObject([{ field: { name: 'first name' } }, { type: 'embed', name: 'teams', items: [{ field: { name: 'id' } }] }]);
    expect(parseSelect('data->>a b@c')[0]).toMatchObject({ field: { json: [{ key: 'a b@c' }] } });
  });

  it.each([',,,', '', 'id,', 'teams(id', 'teams(id))', 'a:', '!x', 'id::', '...teams(id)', 'a!b!c(id)', '"unterminated'])(
    'rejects %j with PGRST100', (src) => {
      expect(code(() => parseSelect(src))).toBe('PGRST100');
    });

  it('caps embedding depth and the number of items', () => {
    expect(code(() => parseSelect('a(b(c(d(*))))'))).toBe('ok');
    expect(code(() => parseSelect('a(b(c(d(e(*)))))'))).toBe('PGRST100');
    expect(code(() => parseSelect(Array(301).fill('id').join(',')))).toBe('PGRST100');
  });
});
