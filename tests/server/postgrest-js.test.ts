import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { PostgrestClient } from '@supabase/postgrest-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';

// Conformance of /api/db with the PostgREST client the reference's ecosystem uses (@supabase/postgrest-js 2.x): each
// case runs the builder against a listening server and compares the decoded { data, count, error } with what the same
// query returns straight from SQL. Rows carry a per-run prefix so the file depends on no other data.

let t: TestContext;
// The reference runs PostgREST 14 (reference/postgrest.md); the version unlocks maxAffected in the builder's types.
type Client = PostgrestClient<any, { PostgrestVersion: '14' }>; // eslint-disable-line @typescript-eslint/no-explicit-any
let db: Client;
let base: string;
let headers: Record<string, string>;
let ada: string;
let bob: string;
const P = `pgjs-${randomBytes(3).toString('hex')}`;
const like = `${P}%`;

/** The rows of `text` as PostgreSQL renders them in JSON: what PostgREST answers for the same query. */
async function sql(text: string, params: unknown[] = []): Promise<unknown[]> {
  const { rows } = await t.db.query(`SELECT coalesce(json_agg(q), '[]'::json) AS j FROM (${text}) q`, params);
  return rows[0].j;
}

/** The one assertion of a case: the client's decoded result equals the SQL rows (and count, when asked). */
function same(res: { data: unknown; count: number | null; error: unknown }, data: unknown, count: number | null = null) {
  expect({ error: res.error, data: res.data, count: res.count }).toEqual({ error: null, data, count });
}

const first = async (text: string, params: unknown[] = []) => (await sql(text, params))[0];

beforeAll(async () => {
  t = await createTestApp();
  ada = (await makePerson(t.db, { roles: ['admin'], first: P, last: 'Ada' })).id;
  headers = await bearerHeaders(t.db, ada);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api/db`;
  db = new PostgrestClient(base, { headers }) as Client;
  const person = `INSERT INTO people (name, title, organization, properties) VALUES ($1, $2, $3, $4) RETURNING id`;
  bob = (await t.db.query(person, [`${P}-bob`, 'engineer', 'acme', { team: 'core', level: 2 }])).rows[0].id;
  await t.db.query(person, [`${P}-cy`, null, 'acme', { team: 'edge' }]);
  await t.db.query(person, [`${P}-dee`, 'boss', 'initech', null]);
  await t.db.query(person, [`${P}-Eve`, 'engineer', null, { team: 'core' }]);
});
afterAll(() => t.close());

describe('insert', () => {
  it('one row with .select().single() answers the row as SQL has it', async () => {
    const res = await db.from('teams').insert({ name: `${P}-one`, spec: { a: 1 }, created_by: ada }).select().single();
    same(res, await first('SELECT * FROM teams WHERE name = $1', [`${P}-one`]));
  });

  it('many rows with .select(): the quoted columns= of postgrest-js is accepted', async () => {
    const rows = [
      { name: `${P}-red`, spec: { tier: 1 }, created_by: ada },
      { name: `${P}-blue`, created_by: bob },
    ];
    const res = await db.from('teams').insert(rows).select('name,spec,created_by');
    same(res, await sql('SELECT name, spec, created_by FROM teams WHERE name = ANY($1) ORDER BY name DESC', [[`${P}-red`, `${P}-blue`]]));
    await db.from('team_members').insert([{ team_id: await teamId('red'), person_id: ada }, { team_id: await teamId('red'), person_id: bob }]);
  });
});

const teamId = async (suffix: string) => (await t.db.query('SELECT id FROM teams WHERE name = $1', [`${P}-${suffix}`])).rows[0].id as string;

describe('single and maybeSingle', () => {
  it('single: one object; none is a 406 PGRST116', async () => {
    same(await db.from('people').select('name,title').eq('name', `${P}-bob`).single(),
      await first('SELECT name, title FROM people WHERE name = $1', [`${P}-bob`]));
    const none = await db.from('people').select('name').eq('name', `${P}-nobody`).single();
    expect([none.status, none.data, none.error]).toEqual([406, null,
      { code: 'PGRST116', message: 'JSON object requested, multiple (or no) rows returned', details: 'The result contains 0 rows', hint: null }]);
  });

  it('maybeSingle: null for no row, the object for one, PGRST116 for several', async () => {
    same(await db.from('people').select('name').eq('name', `${P}-nobody`).maybeSingle(), null);
    same(await db.from('people').select('name').eq('name', `${P}-dee`).maybeSingle(), { name: `${P}-dee` });
    const many = await db.from('people').select('name').like('name', like).maybeSingle();
    expect((many.error as { code: string } | null)?.code).toBe('PGRST116');
  });
});

describe('filters', () => {
  const people = (where: string, params: unknown[] = []) =>
    sql(`SELECT name, title FROM people WHERE name LIKE $1 AND ${where} ORDER BY name`, [like, ...params]);
  const q = () => db.from('people').select('name,title').like('name', like).order('name');

  it('eq, neq, gt, lt', async () => {
    same(await q().eq('title', 'engineer'), await people(`title = 'engineer'`));
    same(await q().neq('title', 'engineer'), await people(`title <> 'engineer'`));
    same(await q().gt('name', `${P}-c`), await people('name > $2', [`${P}-c`]));
    same(await q().lt('name', `${P}-c`), await people('name < $2', [`${P}-c`]));
  });

  it('like, ilike (with * and %), in with reserved characters, is', async () => {
    same(await q().like('name', `*-E*`), await people(`name LIKE '%-E%'`));
    same(await q().ilike('name', `%-e%`), await people(`name ILIKE '%-e%'`));
    same(await q().in('name', [`${P}-bob`, `${P}-dee`, 'a,b.(c)']), await people('name = ANY($2)', [[`${P}-bob`, `${P}-dee`]]));
    same(await q().is('title', null), await people('title IS NULL'));
  });

  it('contains and overlaps on jsonb and arrays', async () => {
    same(await q().contains('properties', { team: 'core' }), await people(`properties @> '{"team":"core"}'`));
    const inc = (await t.db.query(`INSERT INTO incidents (title, created_by) VALUES ($1, $2) RETURNING id`, [`${P}-inc`, ada])).rows[0].id;
    await t.db.query(`INSERT INTO comments (comment, incident_id, created_by, read) VALUES ('a', $1, $2, '{1,2}'), ('b', $1, $2, '{3}'), ('c', $1, $2, NULL)`, [inc, ada]);
    const comments = (where: string) => sql(`SELECT comment, read FROM comments WHERE incident_id = $1 AND ${where} ORDER BY comment`, [inc]);
    const c = () => db.from('comments').select('comment,read').eq('incident_id', inc).order('comment');
    same(await c().overlaps('read', [2, 3]), await comments(`read && '{2,3}'`));
    same(await c().contains('read', [1]), await comments(`read @> '{1}'`));
    same(await c().containedBy('read', [1, 2, 3]), await comments(`read <@ '{1,2,3}'`));
  });

  it('likeAnyOf, likeAllOf, ilikeAnyOf, ilikeAllOf, match, isDistinct, textSearch', async () => {
    same(await q().likeAnyOf('name', ['*-b*', '*-c*']), await people(`name LIKE ANY ('{%-b%,%-c%}')`));
    same(await q().likeAllOf('name', ['*-*', '*e*']), await people(`name LIKE ALL ('{%-%,%e%}')`));
    same(await q().ilikeAnyOf('name', ['*-EVE', '*-DEE']), await people(`name ILIKE ANY ('{%-EVE,%-DEE}')`));
    same(await q().ilikeAllOf('name', ['*E*', '*V*']), await people(`name ILIKE ALL ('{%E%,%V%}')`));
    same(await q().match({ title: 'engineer', organization: 'acme' }), await people(`title = 'engineer' AND organization = 'acme'`));
    same(await q().isDistinct('title', 'engineer'), await people(`title IS DISTINCT FROM 'engineer'`));
    same(await q().textSearch('name', `${P}-bob`, { type: 'websearch', config: 'simple' }),
      await people(`to_tsvector('simple', name) @@ websearch_to_tsquery('simple', $2)`, [`${P}-bob`]));
  });

  it('not, and or with a nested and', async () => {
    same(await q().not('title', 'is', null), await people('title IS NOT NULL'));
    same(await q().not('name', 'in', `(${P}-bob,${P}-cy)`), await people('NOT (name = ANY($2))', [[`${P}-bob`, `${P}-cy`]]));
    same(await q().or(`title.eq.boss,and(organization.eq.acme,title.is.null)`),
      await people(`(title = 'boss' OR (organization = 'acme' AND title IS NULL))`));
    same(await q().or(`properties->>team.eq.edge,not.and(title.eq.engineer,organization.is.null)`),
      await people(`(properties->>'team' = 'edge' OR NOT (title = 'engineer' AND organization IS NULL))`));
  });

  it('quoted identifiers in select, aliases, JSON paths, filter keys, order and logic trees', async () => {
    const res = await db.from('people').select('"name","the title":"title",team:"properties"->>"team"')
      .like('"name"', like).neq('"properties"->>"team"', 'x').or('"title".eq.engineer,"organization".eq.initech')
      .order('"name"', { ascending: false });
    same(res, await sql(`SELECT name, title AS "the title", properties->>'team' AS team FROM people
      WHERE name LIKE $1 AND properties->>'team' <> 'x' AND (title = 'engineer' OR organization = 'initech') ORDER BY name DESC`, [like]));
  });
});

describe('stripNulls', () => {
  it('leaves out keys whose value is null, for arrays and single objects', async () => {
    const rows = `SELECT json_strip_nulls(json_build_object('name', name, 'title', title)) AS o FROM people WHERE name LIKE $1 ORDER BY name`;
    same(await db.from('people').select('name,title').like('name', like).order('name').stripNulls(), (await sql(rows, [like])).map((r) => (r as { o: unknown }).o));
    same(await db.from('people').select('name,title').eq('name', `${P}-cy`).single().stripNulls(), { name: `${P}-cy` });
  });
});

describe('order, range and count', () => {
  it('order with nullsFirst and nullsLast', async () => {
    const res = await db.from('people').select('name,title').like('name', like).order('title', { ascending: false, nullsFirst: false }).order('name', { nullsFirst: true });
    same(res, await sql('SELECT name, title FROM people WHERE name LIKE $1 ORDER BY title DESC NULLS LAST, name ASC NULLS FIRST', [like]));
    const nullsFirst = await db.from('people').select('name').like('name', like).order('organization', { nullsFirst: true }).order('name');
    same(nullsFirst, await sql('SELECT name FROM people WHERE name LIKE $1 ORDER BY organization NULLS FIRST, name', [like]));
  });

  it('range, with and without an exact count', async () => {
    const page = `SELECT name FROM people WHERE name LIKE $1 ORDER BY name LIMIT 2 OFFSET 1`;
    same(await db.from('people').select('name').like('name', like).order('name').range(1, 2), await sql(page, [like]));
    const total = Number((await t.db.query('SELECT count(*) FROM people WHERE name LIKE $1', [like])).rows[0].count);
    same(await db.from('people').select('name', { count: 'exact' }).like('name', like).order('name').range(1, 2), await sql(page, [like]), total);
  });

  it("count: 'exact' with head answers only the count", async () => {
    const total = Number((await t.db.query(`SELECT count(*) FROM people WHERE name LIKE $1 AND title = 'engineer'`, [like])).rows[0].count);
    same(await db.from('people').select('*', { count: 'exact', head: true }).like('name', like).eq('title', 'engineer'), null, total);
  });
});

describe('update, delete and upsert', () => {
  it('update with filters and .select()', async () => {
    const res = await db.from('teams').update({ icon: 'star' }).like('name', `${P}-%`).neq('name', `${P}-blue`).select('name,icon').order('name');
    same(res, await sql(`SELECT name, icon FROM teams WHERE name LIKE $1 AND name <> $2 ORDER BY name`, [`${P}-%`, `${P}-blue`]));
    expect(res.data).toHaveLength(2);
  });

  it("count: 'exact' on insert, update and delete", async () => {
    const ins = await db.from('properties').insert([{ name: `${P}.c1`, value: '1' }, { name: `${P}.c2`, value: '2' }], { count: 'exact' });
    expect([ins.status, ins.error, ins.count]).toEqual([201, null, 2]);
    const upd = await db.from('properties').update({ value: '3' }, { count: 'exact' }).like('name', `${P}.c%`).select('name').order('name');
    same(upd, await sql(`SELECT name FROM properties WHERE name LIKE $1 ORDER BY name`, [`${P}.c%`]), 2);
    const del = await db.from('properties').delete({ count: 'exact' }).like('name', `${P}.c%`);
    expect([del.status, del.error, del.count]).toEqual([204, null, 2]);
  });

  it('maxAffected refuses updates, deletes and function calls past the bound and changes nothing', async () => {
    await t.db.query(`INSERT INTO properties (name, value) VALUES ($1, 'a'), ($2, 'b')`, [`${P}.m1`, `${P}.m2`]);
    const rows = () => sql('SELECT name, value FROM properties WHERE name LIKE $1 ORDER BY name', [`${P}.m%`]);
    const before = await rows();
    const code = (r: { status: number; error: unknown }) => [r.status, (r.error as { code: string } | null)?.code];
    expect(code(await db.from('properties').update({ value: 'z' }).like('name', `${P}.m%`).maxAffected(1))).toEqual([400, 'PGRST124']);
    expect(code(await db.from('properties').delete().like('name', `${P}.m%`).maxAffected(1))).toEqual([400, 'PGRST124']);
    same({ data: await rows(), count: null, error: null }, before);
    same(await db.from('properties').update({ value: 'z' }).eq('name', `${P}.m1`).maxAffected(1).select('value'), [{ value: 'z' }]);
    expect(code(await db.rpc('search_people', { query: P }).maxAffected(1))).toEqual([400, 'PGRST124']);
    expect(code(await db.rpc('team_member_count', { team_id: await teamId('red') }).maxAffected(5))).toEqual([400, 'PGRST128']);
  });

  it('delete with filters, with and without .select()', async () => {
    await t.db.query(`INSERT INTO teams (name, created_by) VALUES ($1, $3), ($2, $3)`, [`${P}-gone1`, `${P}-gone2`, ada]);
    const before = await sql('SELECT name FROM teams WHERE name = $1', [`${P}-gone1`]);
    same(await db.from('teams').delete().eq('name', `${P}-gone1`).select('name'), before);
    const res = await db.from('teams').delete().in('name', [`${P}-gone2`]);
    expect([res.status, res.error, res.data]).toEqual([204, null, null]);
    same({ data: await sql('SELECT name FROM teams WHERE name LIKE $1', [`${P}-gone%`]), count: null, error: null }, []);
  });

  it('upsert with onConflict merges, with ignoreDuplicates keeps the stored row', async () => {
    const flag = `${P}.flag`;
    const row = () => sql('SELECT name, value FROM properties WHERE name = $1', [flag]);
    same(await db.from('properties').upsert({ name: flag, value: 'on' }, { onConflict: 'name' }).select('name,value'), await row());
    const merged = await db.from('properties').upsert({ name: flag, value: 'off' }, { onConflict: '"name"' }).select('name,value');
    same(merged, await row());
    expect(merged.data).toEqual([{ name: flag, value: 'off' }]);
    same(await db.from('properties').upsert({ name: flag, value: 'x' }, { onConflict: 'name', ignoreDuplicates: true }).select('name,value'), []);
    same({ data: await row(), count: null, error: null }, [{ name: flag, value: 'off' }]);
  });

  it('defaultToNull: false (Prefer: missing=default) gives keys a row lacks their column default, not NULL', async () => {
    const team = await teamId('one');
    const dee = (await t.db.query('SELECT id FROM people WHERE name = $1', [`${P}-dee`])).rows[0].id as string;
    const rows = [{ team_id: team, person_id: ada, source: 'api' }, { team_id: team, person_id: dee }];
    const nulls = await db.from('team_members').insert(rows).select('person_id,source');
    expect([nulls.status, (nulls.error as { code: string } | null)?.code]).toEqual([400, '23502']);
    const res = await db.from('team_members').insert(rows, { defaultToNull: false }).select('person_id,source');
    same(res, await sql(`SELECT person_id, source FROM team_members WHERE team_id = $1 ORDER BY source <> 'api'`, [team]));
    expect(res.data).toEqual([{ person_id: ada, source: 'api' }, { person_id: dee, source: 'UI' }]);
    // a merge overwrites with EXCLUDED, which holds the default for a key the row lacks
    const up = await db.from('team_members').upsert([{ team_id: team, person_id: ada }, { team_id: team, person_id: dee, source: 'x' }],
      { onConflict: 'team_id,person_id', defaultToNull: false }).select('source');
    same(up, [{ source: 'UI' }, { source: 'x' }]);
  });

  it('upsert on a composite key (team_members team_id,person_id)', async () => {
    const team = await teamId('blue');
    const res = await db.from('team_members').upsert([{ team_id: team, person_id: ada, source: 'api' }], { onConflict: 'team_id, person_id' }).select('source');
    same(res, await sql('SELECT source FROM team_members WHERE team_id = $1 AND person_id = $2', [team, ada]));
    const again = await db.from('team_members').upsert({ team_id: team, person_id: ada, source: 'ui' }, { onConflict: '"team_id","person_id"' }).select('source');
    same(again, [{ source: 'ui' }]);
  });
});

describe('embeds', () => {
  it('many-to-one with an alias and a foreign key hint', async () => {
    const res = await db.from('teams').select('name,creator:people!teams_created_by_fkey(name)').in('name', [`${P}-red`, `${P}-blue`]).order('name');
    same(res, await sql(`SELECT t.name, (SELECT json_build_object('name', p.name) FROM people p WHERE p.id = t.created_by) AS creator
      FROM teams t WHERE t.name = ANY($1) ORDER BY t.name`, [[`${P}-red`, `${P}-blue`]]));
  });

  it('one-to-many, ordered inside the embed', async () => {
    const res = await db.from('teams').select('name,team_members(person_id)').like('name', `${P}-%`).order('name')
      .order('person_id', { referencedTable: 'team_members' });
    same(res, await sql(`SELECT t.name, (SELECT coalesce(json_agg(json_build_object('person_id', m.person_id) ORDER BY m.person_id), '[]'::json)
      FROM team_members m WHERE m.team_id = t.id) AS team_members FROM teams t WHERE t.name LIKE $1 ORDER BY t.name`, [`${P}-%`]));
  });

  it('limit and range inside a one-to-many embed', async () => {
    const res = await db.from('teams').select('name,team_members(person_id)').eq('name', `${P}-red`)
      .order('person_id', { referencedTable: 'team_members', ascending: false }).range(1, 1, { referencedTable: 'team_members' });
    same(res, await sql(`SELECT t.name, (SELECT coalesce(json_agg(x), '[]'::json) FROM (SELECT m.person_id FROM team_members m
      WHERE m.team_id = t.id ORDER BY m.person_id DESC LIMIT 1 OFFSET 1) x) AS team_members FROM teams t WHERE t.name = $1`, [`${P}-red`]));
  });

  it('!inner with a filter on the embedded table drops parents without a match', async () => {
    const res = await db.from('teams').select('name,members:team_members!inner(person_id)').like('name', `${P}-%`).eq('members.person_id', bob);
    same(res, await sql(`SELECT t.name, (SELECT json_agg(json_build_object('person_id', m.person_id)) FROM team_members m
      WHERE m.team_id = t.id AND m.person_id = $2) AS members FROM teams t WHERE t.name LIKE $1
      AND EXISTS (SELECT 1 FROM team_members m WHERE m.team_id = t.id AND m.person_id = $2)`, [`${P}-%`, bob]));
    expect(res.data).toHaveLength(1);
  });
});

describe('csv', () => {
  it('answers text/csv as PostgreSQL renders the rows', async () => {
    const res = await db.from('people').select('name,title,properties').like('name', like).order('name').csv();
    const { rows } = await t.db.query(`SELECT 'name,title,properties' || E'\\n' || string_agg(substring(r::text, 2, length(r::text) - 2), E'\\n') AS csv
      FROM (SELECT name, title, properties FROM people WHERE name LIKE $1 ORDER BY name) r`, [like]);
    same(res, rows[0].csv);
    // PostgREST's header comes from the first row, so an empty result is a lone newline.
    same(await db.from('people').select('name').eq('name', `${P}-nobody`).csv(), '\n');
    const fn = await db.rpc('search_people', { query: P }, { get: true }).select('name').order('name').csv();
    const viaFn = await t.db.query(`SELECT 'name' || E'\\n' || string_agg(substring(r::text, 2, length(r::text) - 2), E'\\n') AS csv
      FROM (SELECT name FROM search_people($1) ORDER BY name) r`, [P]);
    same(fn, viaFn.rows[0].csv);
  });
});

describe('rpc', () => {
  it('GET with arguments, select, filters and order', async () => {
    const res = await db.rpc('search_people', { query: P }, { get: true }).select('name,title').neq('name', `${P}-cy`).order('name', { ascending: false });
    same(res, await sql(`SELECT name, title FROM search_people($1) WHERE name <> $2 ORDER BY name DESC`, [P, `${P}-cy`]));
  });

  it('POST with a JSON body, for set-returning and scalar functions, and head with a count', async () => {
    same(await db.rpc('search_people', { query: P, max_results: 2 }).select('name'), await sql('SELECT name FROM search_people($1, 2)', [P]));
    const count = await first('SELECT team_member_count($1) AS n', [await teamId('red')]) as { n: number };
    same(await db.rpc('team_member_count', { team_id: await teamId('red') }), count.n);
    same(await db.rpc('team_member_count', { team_id: await teamId('red') }, { get: true }), count.n);
    same(await db.rpc('search_people', { query: P }, { head: true, count: 'exact' }), null, (await sql('SELECT 1 FROM search_people($1)', [P])).length);
  });
});

describe('schema profiles', () => {
  it('public is accepted for reads and writes; another schema is a 406 PGRST106', async () => {
    const pub = new PostgrestClient(base, { headers, schema: 'public' });
    same(await pub.from('people').select('name').eq('name', `${P}-dee`), [{ name: `${P}-dee` }]);
    same(await pub.from('properties').insert({ name: `${P}.pub`, value: '1' }).select('value'), [{ value: '1' }]);
    const other = new PostgrestClient(base, { headers, schema: 'auth' });
    const read = await other.from('people').select('name');
    expect([read.status, read.error]).toEqual([406, { code: 'PGRST106', message: 'Invalid schema: auth', details: null, hint: 'Only the following schemas are exposed: public' }]);
    const write = await other.from('properties').insert({ name: `${P}.auth`, value: '1' });
    expect([write.status, (write.error as { code: string } | null)?.code]).toEqual([406, 'PGRST106']);
    same({ data: await sql('SELECT 1 FROM properties WHERE name = $1', [`${P}.auth`]), count: null, error: null }, []);
  });
});
