import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

// Saved views in saved_query through /api/db: every signed-in role reads and creates its own; only the creator (or an
// admin) renames or deletes a view; created_by is the actor; a bad body is a 400 naming the field and changes nothing.

let t: TestContext;
const ids: Record<'admin' | 'editor' | 'responder' | 'viewer' | 'other', string> = { admin: '', editor: '', responder: '', viewer: '', other: '' };
const headers: Record<string, Record<string, string>> = {};
type Who = keyof typeof ids;

const send = (who: Who, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, extra: Record<string, string> = {}) =>
  t.app.inject({
    method, url: `/api/db/${url}`, headers: { ...headers[who], 'content-type': 'application/json', ...extra },
    payload: payload === undefined ? undefined : JSON.stringify(payload),
  });
const rows = async () => (await t.db.query('SELECT name, description, query, created_by FROM saved_query ORDER BY name')).rows;
const insert = async (name: string, owner: Who) => (await t.db.query(
  'INSERT INTO saved_query (name, query, created_by) VALUES ($1, $2, $3) RETURNING id', [name, `/catalog?name=${name}`, ids[owner]])).rows[0].id as string;

beforeAll(async () => {
  t = await createTestApp();
  for (const who of Object.keys(ids) as Who[]) {
    const roles = who === 'viewer' || who === 'other' ? [] : [who as 'admin' | 'editor' | 'responder'];
    ids[who] = (await makePerson(t.db, { roles })).id;
    headers[who] = await sessionHeaders(t.db, ids[who]);
  }
});
beforeEach(async () => {
  await t.db.query('DELETE FROM saved_query');
});
afterAll(() => t.close());

describe('saved_query', () => {
  it("takes the spec's POST shape (name, id, query) from any role and stamps created_by with the actor", async () => {
    for (const who of ['viewer', 'responder', 'editor', 'admin'] as const) {
      const id = (await t.db.query('SELECT generate_ulid() AS id')).rows[0].id as string;
      const res = await send(who, 'POST', 'saved_query?select=id,name,query,created_by', { name: `${who} view`, id, query: '/catalog?type=Kubernetes::Pod' },
        { prefer: 'return=representation' });
      expect(res.statusCode, res.payload).toBe(201);
      expect(res.json()).toEqual([{ id, name: `${who} view`, query: '/catalog?type=Kubernetes::Pod', created_by: ids[who] }]);
    }
    expect((await rows()).map((r) => r.created_by)).toEqual([ids.admin, ids.editor, ids.responder, ids.viewer]);
  });

  it('every role reads every view', async () => {
    await insert('mine', 'viewer');
    await insert('theirs', 'editor');
    for (const who of ['viewer', 'responder', 'other'] as const) {
      const res = await send(who, 'GET', 'saved_query?select=name&order=name');
      expect(res.statusCode, res.payload).toBe(200);
      expect(res.json()).toEqual([{ name: 'mine' }, { name: 'theirs' }]);
    }
  });

  it("refuses naming another person as created_by (403) unless the caller is an admin", async () => {
    const refused = await send('viewer', 'POST', 'saved_query', { name: 'x', query: '/catalog', created_by: ids.editor });
    expect(refused.statusCode, refused.payload).toBe(403);
    expect(await rows()).toEqual([]);
    const allowed = await send('admin', 'POST', 'saved_query', { name: 'x', query: '/catalog', created_by: ids.editor });
    expect(allowed.statusCode, allowed.payload).toBe(201);
    expect((await rows())[0].created_by).toBe(ids.editor);
  });

  it('lets a person rename and delete their own view', async () => {
    const id = await insert('old', 'viewer');
    const patched = await send('viewer', 'PATCH', `saved_query?id=eq.${id}`, { name: 'new', description: 'pods' });
    expect(patched.statusCode, patched.payload).toBe(204);
    expect(await rows()).toEqual([expect.objectContaining({ name: 'new', description: 'pods' })]);
    const deleted = await send('viewer', 'DELETE', `saved_query?id=eq.${id}`);
    expect(deleted.statusCode, deleted.payload).toBe(204);
    expect(await rows()).toEqual([]);
  });

  it("refuses updating or deleting someone else's view (403, nothing changes), even mixed with one's own", async () => {
    const theirs = await insert('theirs', 'other');
    const mine = await insert('mine', 'viewer');
    const before = await rows();
    for (const [method, url, body] of [
      ['PATCH', `saved_query?id=eq.${theirs}`, { name: 'taken' }],
      // rewriting the owner to oneself does not make the row one's own: the check reads the row before the write
      ['PATCH', `saved_query?id=eq.${theirs}`, { created_by: ids.viewer }],
      ['DELETE', `saved_query?id=eq.${theirs}`, undefined],
      ['DELETE', `saved_query?id=in.(${theirs},${mine})`, undefined],
      ['DELETE', 'saved_query?name=like.*', undefined],
      ['DELETE', 'saved_query?or=(name.eq.theirs,name.eq.mine)', undefined],
    ] as const) {
      const res = await send('viewer', method, url, body);
      expect(res.statusCode, `${method} ${url} ${res.payload}`).toBe(403);
    }
    // an editor's write permission on the database resource does not reach other people's views
    expect((await send('editor', 'DELETE', `saved_query?id=eq.${theirs}`)).statusCode).toBe(403);
    expect(await rows()).toEqual(before);
  });

  it('answers the changed row when asked, and lets any filter shape reach only own rows', async () => {
    await insert('theirs', 'other');
    const mine = await insert('mine', 'viewer');
    const res = await send('viewer', 'PATCH', 'saved_query?or=(name.eq.mine,name.eq.nobody)&select=name', { name: 'renamed' },
      { prefer: 'return=representation' });
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.json()).toEqual([{ name: 'renamed' }]);
    const del = await send('viewer', 'DELETE', `saved_query?id=eq.${mine}&name=not.is.null`, undefined, { accept: 'application/vnd.pgrst.object+json' });
    expect(del.statusCode, del.payload).toBe(200);
    expect((await rows()).map((r) => r.name)).toEqual(['theirs']);
  });

  it("lets an admin update and delete anyone's view", async () => {
    const theirs = await insert('theirs', 'other');
    expect((await send('admin', 'PATCH', `saved_query?id=eq.${theirs}`, { name: 'renamed' })).statusCode).toBe(204);
    expect((await rows())[0].name).toBe('renamed');
    expect((await send('admin', 'DELETE', `saved_query?id=eq.${theirs}`)).statusCode).toBe(204);
    expect(await rows()).toEqual([]);
  });

  it.each([
    ['no name', { query: '/catalog' }, 'name'],
    ['a blank name', { name: '  ', query: '/catalog' }, 'name'],
    ['no query', { name: 'a' }, 'query'],
    ['an unknown column', { name: 'a', query: '/catalog', colour: 'red' }, 'colour'],
    ['a read-only column', { name: 'a', query: '/catalog', created_at: '2020-01-01' }, 'created_at'],
    ['columns that are not JSON', '{"name":', undefined],
  ])('refuses %s with a 400 naming the field, and keeps nothing', async (_what, body, field) => {
    const res = await t.app.inject({
      method: 'POST', url: '/api/db/saved_query', headers: { ...headers.viewer, 'content-type': 'application/json' },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });
    expect(res.statusCode, res.payload).toBe(400);
    if (field) expect(res.json().message).toContain(field);
    expect(await rows()).toEqual([]);
  });

  it('refuses a second view of the same name by the same person (409), not by another person', async () => {
    await insert('pods', 'viewer');
    expect((await send('viewer', 'POST', 'saved_query', { name: 'pods', query: '/catalog' })).statusCode).toBe(409);
    expect((await send('other', 'POST', 'saved_query', { name: 'pods', query: '/catalog' })).statusCode).toBe(201);
    expect((await rows()).length).toBe(2);
  });

  it('refuses an update that blanks the name (400 naming it) and keeps the row', async () => {
    const id = await insert('pods', 'viewer');
    const res = await send('viewer', 'PATCH', `saved_query?id=eq.${id}`, { name: '' });
    expect(res.statusCode, res.payload).toBe(400);
    expect(res.json().message).toContain('name');
    expect((await rows())[0].name).toBe('pods');
  });
});
