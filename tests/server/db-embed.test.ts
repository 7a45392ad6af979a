import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeaders, createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

// Resource embedding along foreign keys, including views embedded through their base tables, and the UI's query shapes.

let t: TestContext;
let admin: Record<string, string>;
let viewer: Record<string, string>;
let ada: string;
let bob: string;
let sre: string;
let dev: string;

const get = (url: string, headers: Record<string, string> = admin) => t.app.inject({ method: 'GET', url: `/api/db/${url}`, headers });

beforeAll(async () => {
  t = await createTestApp();
  ada = (await makePerson(t.db, { roles: ['admin'], first: 'Ada', last: 'Lovelace' })).id;
  bob = (await makePerson(t.db, { roles: ['editor'], first: 'Bob', last: 'Builder' })).id;
  admin = await bearerHeaders(t.db, ada);
  viewer = await sessionHeaders(t.db, (await makePerson(t.db, {})).id);
  const teams = await t.db.query<{ id: string }>(
    `INSERT INTO teams (name, icon, created_by) VALUES ('sre', 'fire', $1), ('dev', 'code', $2), ('empty', NULL, $1) RETURNING id`, [ada, bob]);
  [sre, dev] = teams.rows.map((r) => r.id);
  await t.db.query(`INSERT INTO team_members (team_id, person_id) VALUES ($1, $3), ($1, $4), ($2, $4)`, [sre, dev, ada, bob]);
  await t.db.query(`INSERT INTO properties (name, value, created_by) VALUES ('incidents.disable', 'true', $1), ('logs.disable', 'false', NULL)`, [ada]);
  await t.db.query(`INSERT INTO agents (name, created_by) VALUES ('edge', $1), ('core', NULL)`, [bob]);
});
afterAll(() => t.close());

describe('UI query shapes', () => {
  it('teams?select=*,created_by(id,name,avatar)', async () => {
    const res = await get('teams?select=*,created_by(id,name,avatar)&name=eq.sre');
    expect(res.statusCode).toBe(200);
    const [team] = res.json();
    expect(team).toMatchObject({ name: 'sre', icon: 'fire', created_by: { id: ada, name: 'Ada Lovelace', avatar: null } });
    expect(Object.keys(team.created_by)).toEqual(['id', 'name', 'avatar']);
  });

  it('team_members?select=*,team:teams(*,created_by(id,name))', async () => {
    const res = await get('team_members?select=*,team:teams(*, created_by(id,name))&person_id=eq.' + bob + '&order=team_id');
    const rows = res.json();
    expect(rows).toHaveLength(2);
    const byName = Object.fromEntries(rows.map((r: { team: { name: string } }) => [r.team.name, r]));
    expect(byName.sre).toMatchObject({ team_id: sre, person_id: bob, source: 'UI', team: { id: sre, created_by: { id: ada, name: 'Ada Lovelace' } } });
    expect(byName.dev.team.created_by).toEqual({ id: bob, name: 'Bob Builder' });
  });

  it('team_members?select=*,person_id(*) replaces the FK value with the row', async () => {
    const rows = (await get(`team_members?select=*,person_id(*)&team_id=eq.${dev}`)).json();
    expect(rows).toHaveLength(1);
    expect(rows[0].person_id).toMatchObject({ id: bob, name: 'Bob Builder', email: expect.any(String) });
  });

  it('people_roles?id=in.(a,b)', async () => {
    const rows = (await get(`people_roles?id=in.(${ada},${bob})&order=name`)).json();
    expect(rows).toEqual([
      { id: ada, name: 'Ada Lovelace', email: expect.any(String), roles: ['admin'] },
      { id: bob, name: 'Bob Builder', email: expect.any(String), roles: ['editor'] },
    ]);
  });

  it('properties?select=*,created_by(id,name,avatar)', async () => {
    const rows = (await get('properties?select=*,created_by(id,name,avatar)&order=name')).json();
    expect(rows.map((r: { name: string; created_by: unknown }) => [r.name, r.created_by])).toEqual([
      ['incidents.disable', { id: ada, name: 'Ada Lovelace', avatar: null }],
      ['logs.disable', null],
    ]);
  });

  it('agents_summary?select=*,created_by(id,name)&order=name.asc&limit=10&offset=0 with count', async () => {
    const res = await get('agents_summary?select=*,created_by(id,name)&order=name.asc&limit=2&offset=0', { ...admin, prefer: 'count=exact' });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe('0-1/3');
    const rows = res.json();
    expect(rows.map((r: { name: string }) => r.name)).toEqual(['core', 'edge']);
    expect(rows[1]).toMatchObject({ created_by: { id: bob, name: 'Bob Builder' }, health: 'unknown', status: 'unknown', checks_count: 0 });
  });
});

describe('relationships', () => {
  it('embeds one-to-many as arrays, with nested embeds, order, limit and offset', async () => {
    const rows = (await get(`teams?select=name,members:team_members(person:person_id(name))&members.order=person_id.desc&order=name`)).json();
    expect(rows).toEqual([
      { name: 'dev', members: [{ person: { name: 'Bob Builder' } }] },
      { name: 'empty', members: [] },
      { name: 'sre', members: expect.arrayContaining([{ person: { name: 'Ada Lovelace' } }, { person: { name: 'Bob Builder' } }]) },
    ]);
    const limited = (await get(`teams?select=name,team_members(person_id)&team_members.limit=1&team_members.offset=1&team_members.order=person_id&name=eq.sre`)).json();
    expect(limited[0].team_members).toEqual([{ person_id: [ada, bob].sort()[1] }]);
  });

  it('answers 300 PGRST201 for an ambiguous embed, and resolves it with a constraint or column hint', async () => {
    const res = await get('people?select=name,teams(name)');
    expect(res.statusCode).toBe(300);
    const body = res.json();
    expect(body.code).toBe('PGRST201');
    expect(body.details).toEqual(expect.arrayContaining([
      { cardinality: 'one-to-many', embedding: 'people with teams', relationship: 'teams_created_by_fkey using people(id) and teams(created_by)' },
      { cardinality: 'many-to-one', embedding: 'people with teams', relationship: 'people_team_id_fkey using people(team_id) and teams(id)' },
    ]));
    expect(body.hint).toContain("'teams!teams_created_by_fkey'");
    const byFk = (await get(`people?select=name,teams!teams_created_by_fkey(name)&id=eq.${ada}`)).json();
    expect(byFk[0].teams.map((x: { name: string }) => x.name).sort()).toEqual(['empty', 'sre']);
    const byColumn = (await get(`people?select=name,teams!created_by(name)&id=eq.${bob}`)).json();
    expect(byColumn[0].teams).toEqual([{ name: 'dev' }]);
  });

  it('embeds by FK column name with an alias (commander:commander_id style)', async () => {
    const rows = (await get(`teams?select=name,owner:created_by(name)&name=eq.dev`)).json();
    expect(rows).toEqual([{ name: 'dev', owner: { name: 'Bob Builder' } }]);
  });

  it('embeds views through their base table keys, as target and as source', async () => {
    const rows = (await get(`teams?select=name,people_roles!teams_created_by_fkey(roles)&name=eq.sre`)).json();
    expect(rows).toEqual([{ name: 'sre', people_roles: { roles: ['admin'] } }]);
    const agents = (await get(`agents_summary?select=name,created_by(name)&name=eq.edge`)).json();
    expect(agents).toEqual([{ name: 'edge', created_by: { name: 'Bob Builder' } }]);
  });

  it('!inner drops parents without a matching child; embedded filters otherwise only filter children', async () => {
    const left = (await get(`teams?select=name,team_members(person_id)&team_members.person_id=eq.${ada}&order=name`)).json();
    expect(left.map((r: { name: string; team_members: unknown[] }) => [r.name, r.team_members.length])).toEqual([['dev', 0], ['empty', 0], ['sre', 1]]);
    const inner = (await get(`teams?select=name,team_members!inner(person_id)&team_members.person_id=eq.${ada}`)).json();
    expect(inner).toEqual([{ name: 'sre', team_members: [{ person_id: ada }] }]);
    const res = await get(`teams?select=name,team_members!inner(person_id)&team_members.person_id=eq.${ada}`, { ...admin, prefer: 'count=exact' });
    expect(res.headers['content-range']).toBe('0-0/1');
  });

  it('filters parents by presence of an embed with rel=is.null / not.is.null, also inside or=()', async () => {
    const none = (await get('teams?select=name,team_members()&team_members=is.null')).json();
    expect(none).toEqual([{ name: 'empty' }]);
    const some = (await get('teams?select=name,team_members(person_id)&team_members=not.is.null&order=name')).json();
    expect(some.map((r: { name: string }) => r.name)).toEqual(['dev', 'sre']);
    const either = (await get(`teams?select=name,team_members()&or=(team_members.is.null,name.eq.dev)&order=name`)).json();
    expect(either).toEqual([{ name: 'dev' }, { name: 'empty' }]);
  });

  it('orders by a to-one embed column and refuses to order by a to-many one', async () => {
    const rows = (await get('teams?select=name,created_by(name)&order=created_by(name).desc,name')).json();
    expect(rows.map((r: { name: string }) => r.name)).toEqual(['dev', 'empty', 'sre']);
    const res = await get('teams?select=name,team_members(person_id)&order=team_members(person_id)');
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('PGRST118');
  });

  it('casts an embed to jsonb or text', async () => {
    const rows = (await get('teams?select=name,c:created_by(name)::text&name=eq.sre')).json();
    expect(JSON.parse(rows[0].c)).toEqual({ name: 'Ada Lovelace' });
  });
});

describe('embed errors', () => {
  it.each([
    ['teams?select=*,nothing(*)', 400, 'PGRST200'],
    ['teams?select=*,people!nope(*)', 400, 'PGRST200'],
    ['teams?select=*,sessions(*)', 400, 'PGRST200'],
    ['teams?select=*,created_by(nope)', 400, '42703'],
    ['teams?select=name&created_by.name=eq.x', 400, 'PGRST108'],
    ['teams?select=name,team_members(person_id)&team_members=eq.1', 400, 'PGRST120'],
    ['teams?select=a:team_members(b:teams(c:team_members(d:teams(e:team_members(*)))))', 400, 'PGRST100'],
  ])('%s → %i %s', async (url, status, code) => {
    const res = await get(url);
    expect(res.statusCode, res.payload).toBe(status);
    expect(res.json().code).toBe(code);
  });

  it('allows four levels of embedding', async () => {
    const res = await get('teams?select=a:team_members(b:teams(c:team_members(d:teams(name))))&name=eq.dev');
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.json()[0].a[0].b.c[0].d).toEqual({ name: 'dev' });
  });

  it('requires read permission on every embedded relation', async () => {
    const res = await get('teams?select=name,people_roles!teams_created_by_fkey(roles)', viewer);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: '42501', message: 'permission denied for people_roles' });
    expect((await get('teams?select=name,created_by(name)', viewer)).statusCode).toBe(200);
  });
});
