import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeaders, createTestApp, makePerson, sessionHeaders, type TestContext, type TestPerson } from './helpers.js';

let t: TestContext;
let admin: TestPerson;
let adminS: Record<string, string>;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_RATE_LIMIT: '1000' });
  admin = await makePerson(t.db, { roles: ['admin'], first: 'Main', last: 'Admin' });
  adminS = await sessionHeaders(t.db, admin.id);
});
afterAll(() => t.close());

const post = (url: string, payload: unknown, headers = adminS) => t.app.inject({ method: 'POST', url, payload: payload as object, headers });
const del = (url: string, headers = adminS) => t.app.inject({ method: 'DELETE', url, headers });
const login = (p: TestPerson) =>
  t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: p.email, password: p.password } });

describe('GET /api/auth/users', () => {
  it('lists users with roles and state, never a password hash', async () => {
    const u = await makePerson(t.db, { roles: ['commander', 'responder'], first: 'Uma', last: 'Users' });
    const bare = await makePerson(t.db, { first: 'No', last: 'Roles' });
    const res = await t.app.inject({ url: '/api/auth/users', headers: adminS });
    expect(res.statusCode).toBe(200);
    const rows = res.json().payload as { id: string }[];
    expect(rows.find((r) => r.id === u.id)).toMatchObject({
      name: 'Uma Users', email: u.email, roles: ['commander', 'responder'], state: 'active',
      traits: { email: u.email, name: { first: 'Uma', last: 'Users' } }, created_at: expect.any(String),
    });
    expect(rows.find((r) => r.id === bare.id)).toMatchObject({ roles: ['viewer'] });
    expect(res.body).not.toMatch(/argon2|password/);
  });
});

describe('role edits', () => {
  it('replaces roles with {role} or {roles}, and validates', async () => {
    const u = await makePerson(t.db, { roles: ['viewer'] });
    const one = await post(`/api/auth/${u.id}/properties`, { role: 'editor' });
    expect(one.statusCode).toBe(200);
    expect(one.json().payload).toEqual({ id: u.id, roles: ['editor'] });
    const two = await post(`/api/auth/${u.id}/properties`, { roles: ['commander', 'responder'] });
    expect(two.json().payload.roles).toEqual(['commander', 'responder']);
    const roles = await t.app.inject({ url: `/api/rbac/${u.id}/roles`, headers: adminS });
    expect(roles.json()).toEqual({ message: '', payload: ['commander', 'responder'] });

    const bad = await post(`/api/auth/${u.id}/properties`, { role: 'root' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('Please select any role');
    expect((await post(`/api/auth/${u.id}/properties`, {})).statusCode).toBe(400);
    expect((await post('/api/auth/00000000-0000-4000-8000-000000000001/properties', { role: 'editor' })).statusCode).toBe(404);
    expect((await post('/api/auth/nope/properties', { role: 'editor' })).statusCode).toBe(400);
    const after = await t.db.query('SELECT role FROM person_roles WHERE person_id = $1 ORDER BY role', [u.id]);
    expect(after.rows.map((r) => r.role)).toEqual(['commander', 'responder']);
  });

  it('takes effect on the next request of a signed-in user', async () => {
    const u = await makePerson(t.db, { roles: ['viewer'] });
    const s = await sessionHeaders(t.db, u.id);
    expect((await t.app.inject({ url: '/api/auth/users', headers: s })).statusCode).toBe(403);
    await post(`/api/auth/${u.id}/properties`, { role: 'editor' });
    expect((await t.app.inject({ url: '/api/auth/users', headers: s })).statusCode).toBe(200);
  });

  it('POST /api/rbac/:id/update_role adds roles', async () => {
    const u = await makePerson(t.db, { roles: ['responder'] });
    const res = await post(`/api/rbac/${u.id}/update_role`, { roles: ['editor'] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'Role updated successfully' });
    const roles = await t.app.inject({ url: `/api/rbac/${u.id}/roles`, headers: adminS });
    expect(roles.json().payload).toEqual(['editor', 'responder']);
    expect((await post(`/api/rbac/${u.id}/update_role`, { roles: [] })).statusCode).toBe(400);
  });

  it('lets anyone read their own roles, not others\'', async () => {
    const u = await makePerson(t.db);
    const s = await sessionHeaders(t.db, u.id);
    const own = await t.app.inject({ url: `/api/rbac/${u.id}/roles`, headers: s });
    expect(own.json().payload).toEqual(['viewer']);
    expect((await t.app.inject({ url: `/api/rbac/${admin.id}/roles`, headers: s })).statusCode).toBe(403);
  });
});

describe('POST /api/auth/:id/update_state', () => {
  it('deactivation ends sessions and blocks login; activation restores login', async () => {
    const u = await makePerson(t.db, { roles: ['editor'] });
    const s = await sessionHeaders(t.db, u.id);
    const off = await post(`/api/auth/${u.id}/update_state`, { id: u.id, state: 'inactive' });
    expect(off.statusCode).toBe(200);
    expect(off.json().payload).toEqual({ id: u.id, state: 'inactive' });
    expect((await t.app.inject({ url: '/api/auth/whoami', headers: s })).statusCode).toBe(401);
    const sessions = await t.db.query('SELECT count(*)::int AS n FROM sessions WHERE person_id = $1', [u.id]);
    expect(sessions.rows[0].n).toBe(0);
    expect((await login(u)).statusCode).toBe(401);
    const listed = (await t.app.inject({ url: '/api/auth/users', headers: adminS })).json().payload;
    expect(listed.find((r: { id: string }) => r.id === u.id)).toMatchObject({ state: 'inactive', state_changed_at: expect.any(String) });

    expect((await post(`/api/auth/${u.id}/update_state`, { state: 'active' })).statusCode).toBe(200);
    expect((await login(u)).statusCode).toBe(200);
  });

  it('validates the state and the id', async () => {
    const u = await makePerson(t.db);
    expect((await post(`/api/auth/${u.id}/update_state`, { state: 'banned' })).statusCode).toBe(400);
    expect((await post(`/api/auth/${u.id}/update_state`, { id: admin.id, state: 'inactive' })).statusCode).toBe(400);
    expect((await post(`/api/auth/${admin.id}/update_state`, { state: 'inactive' })).statusCode).toBe(400);
    const state = await t.db.query('SELECT state FROM identities WHERE id = ANY($1)', [[u.id, admin.id]]);
    expect(state.rows.map((r) => r.state)).toEqual(['active', 'active']);
  });
});

describe('DELETE /api/people/:id', () => {
  it('soft-deletes the person and removes identity, sessions and tokens', async () => {
    const u = await makePerson(t.db, { roles: ['editor'] });
    const s = await sessionHeaders(t.db, u.id);
    const b = await bearerHeaders(t.db, u.id);
    const made = await t.app.inject({ method: 'POST', url: '/api/auth/create_token', payload: { name: 'mine' }, headers: s });
    const token = made.json().payload.token;
    const res = await del(`/api/people/${u.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'success' });

    const person = await t.db.query('SELECT deleted_at FROM people WHERE id = $1', [u.id]);
    expect(person.rows[0].deleted_at).not.toBeNull();
    for (const sql of [
      'SELECT count(*)::int AS n FROM identities WHERE id = $1',
      'SELECT count(*)::int AS n FROM identity_credentials WHERE identity_id = $1',
      'SELECT count(*)::int AS n FROM sessions WHERE person_id = $1',
      'SELECT count(*)::int AS n FROM access_tokens WHERE created_by = $1 OR person_id = $1',
      `SELECT count(*)::int AS n FROM people WHERE type = 'access_token' AND email LIKE '%+token:mine@%' AND deleted_at IS NULL`,
    ]) {
      expect((await t.db.query(sql, sql.includes('$1') ? [u.id] : [])).rows[0].n, sql).toBe(0);
    }
    for (const headers of [s, b, { authorization: `Bearer ${token}` }]) {
      expect((await t.app.inject({ url: '/api/auth/whoami', headers })).statusCode).toBe(401);
    }
    expect((await login(u)).statusCode).toBe(401);
    const users = (await t.app.inject({ url: '/api/auth/users', headers: adminS })).json().payload;
    expect(users.map((r: { id: string }) => r.id)).not.toContain(u.id);
    expect((await del(`/api/people/${u.id}`)).statusCode).toBe(404);
  });

  it('the same email can be invited again after deletion', async () => {
    const u = await makePerson(t.db);
    await del(`/api/people/${u.id}`);
    const res = await post('/api/auth/invite_user', { firstName: 'Re', lastName: 'Turn', email: u.email, role: 'viewer' });
    expect(res.statusCode).toBe(200);
  });

  it('refuses deleting yourself and the System person', async () => {
    const self = await del(`/api/people/${admin.id}`);
    expect(self.statusCode).toBe(400);
    expect(self.json().error).toMatch(/yourself/);
    expect((await del('/api/people/00000000-0000-0000-0000-000000000000')).statusCode).toBe(400);
    // nor through a token you created
    const made = await t.app.inject({ method: 'POST', url: '/api/auth/create_token', payload: { name: 'self' }, headers: adminS });
    const viaToken = await del(`/api/people/${admin.id}`, { authorization: `Bearer ${made.json().payload.token}` });
    expect(viaToken.statusCode).toBe(400);
  });
});

describe('last-admin protection', () => {
  it('never leaves the console without an active admin', async () => {
    const solo = await createTestApp();
    try {
      const a = await makePerson(solo.db, { roles: ['admin'] });
      const b = await makePerson(solo.db, { roles: ['admin'] });
      const aS = await sessionHeaders(solo.db, a.id);
      // an admin that is not a user (no identity, e.g. an automation account) acting through a token; not of type
      // 'agent': an agent's token is valid on /api/upstream alone
      const bot = await solo.db.query<{ id: string }>(`INSERT INTO people (name, type) VALUES ('bot', 'service') RETURNING id`);
      await solo.db.query(`INSERT INTO person_roles (person_id, role) VALUES ($1, 'admin')`, [bot.rows[0].id]);
      const botToken = await bearerHeaders(solo.db, bot.rows[0].id);
      const go = (method: 'POST' | 'DELETE', url: string, headers: Record<string, string>, payload?: object) =>
        solo.app.inject({ method, url, headers, payload });

      // with two admins, one may demote the other
      expect((await go('POST', `/api/auth/${b.id}/properties`, aS, { role: 'editor' })).statusCode).toBe(200);
      // now a is the last admin: demoting, deactivating or deleting a is refused, whoever asks
      const demote = await go('POST', `/api/auth/${a.id}/properties`, aS, { role: 'editor' });
      expect(demote.statusCode).toBe(409);
      expect(demote.json().error).toMatch(/no active admin/);
      expect((await go('POST', `/api/auth/${a.id}/properties`, aS, { roles: ['admin', 'editor'] })).statusCode).toBe(200);
      expect((await go('POST', `/api/auth/${a.id}/update_state`, botToken, { state: 'inactive' })).statusCode).toBe(409);
      expect((await go('DELETE', `/api/people/${a.id}`, botToken)).statusCode).toBe(409);
      const roles = await solo.db.query(`SELECT role FROM person_roles WHERE person_id = $1 ORDER BY role`, [a.id]);
      expect(roles.rows.map((r) => r.role)).toEqual(['admin', 'editor']);
      const state = await solo.db.query('SELECT state FROM identities WHERE id = $1', [a.id]);
      expect(state.rows[0].state).toBe('active');
    } finally {
      await solo.close();
    }
  });
});
