import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS_CHANNEL } from '../../server/lib/events.js';
import { bearerHeaders, createTestApp, makePerson, sessionHeaders, type TestContext, type TestPerson } from './helpers.js';

// Your Profile: POST /api/auth/password and PATCH /api/auth/profile.

let t: TestContext;

const call = (method: 'POST' | 'PATCH', url: string, payload: unknown, headers: Record<string, string>) =>
  t.app.inject({ method, url, payload: payload as object, headers });
const whoami = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/api/auth/whoami', headers });
const login = (username: string, password: string) =>
  t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password } });
const sessionCount = async (id: string) =>
  (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions WHERE person_id = $1', [id])).rows[0].n;

beforeAll(async () => {
  t = await createTestApp({ LOGIN_RATE_LIMIT: '1000' });
});
afterAll(() => t.close());

describe('POST /api/auth/password', () => {
  let person: TestPerson;
  beforeAll(async () => {
    person = await makePerson(t.db, { password: 'old password 1' });
  });

  it('changes the password, ends the other sessions and keeps this one', async () => {
    const mine = await sessionHeaders(t.db, person.id);
    const other = await sessionHeaders(t.db, person.id);
    const token = await bearerHeaders(t.db, person.id);
    const res = await call('POST', '/api/auth/password', { current_password: 'old password 1', new_password: 'new password 2' }, mine);
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.json()).toEqual({ message: 'success' });
    expect(res.payload).not.toContain('password 2');

    expect((await whoami(mine)).statusCode).toBe(200);
    expect((await whoami(other)).statusCode).toBe(401);
    expect(await sessionCount(person.id)).toBe(1);
    expect((await whoami(token)).statusCode).toBe(200); // access tokens are managed on their own page
    expect((await login(person.email, 'old password 1')).statusCode).toBe(401);
    expect((await login(person.email, 'new password 2')).statusCode).toBe(200);
  });

  it('refuses a wrong current password with 400 and changes nothing', async () => {
    const p = await makePerson(t.db, { password: 'right password' });
    const mine = await sessionHeaders(t.db, p.id);
    await sessionHeaders(t.db, p.id);
    const res = await call('POST', '/api/auth/password', { current_password: 'wrong password', new_password: 'whatever 123' }, mine);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('current password is incorrect');
    expect(await sessionCount(p.id)).toBe(2);
    expect((await login(p.email, 'right password')).statusCode).toBe(200);
  });

  it('validates the body: a new password of 8 characters or more, both fields present', async () => {
    const mine = await sessionHeaders(t.db, person.id);
    let res = await call('POST', '/api/auth/password', { current_password: 'new password 2', new_password: 'short' }, mine);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('password must be at least 8 characters');
    res = await call('POST', '/api/auth/password', { new_password: 'long enough' }, mine);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('current password is required');
  });

  it('needs the CSRF token with the session cookie', async () => {
    const { cookie } = await sessionHeaders(t.db, person.id);
    const res = await call('POST', '/api/auth/password', { current_password: 'new password 2', new_password: 'newer password 3' }, { cookie });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toContain('CSRF');
    expect((await login(person.email, 'new password 2')).statusCode).toBe(200);
  });

  it('refuses access tokens (403) and anonymous callers (401)', async () => {
    const token = await bearerHeaders(t.db, person.id);
    let res = await call('POST', '/api/auth/password', { current_password: 'new password 2', new_password: 'newer password 3' }, token);
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toMatch(/access tokens cannot change passwords/);
    res = await call('POST', '/api/auth/password', { current_password: 'new password 2', new_password: 'newer password 3' }, {});
    expect(res.statusCode).toBe(401);
    expect((await login(person.email, 'new password 2')).statusCode).toBe(200);
  });
});

describe('PATCH /api/auth/profile', () => {
  it('renames the user: identity traits and the people row (through the trigger), and tells live clients', async () => {
    const p = await makePerson(t.db, { first: 'Old', last: 'Name' });
    const mine = await sessionHeaders(t.db, p.id);
    const listener = await t.db.connect();
    const events: string[] = [];
    listener.on('notification', (n) => events.push(n.payload ?? ''));
    await listener.query(`LISTEN ${EVENTS_CHANNEL}`);
    try {
      const res = await call('PATCH', '/api/auth/profile', { firstName: '  Grace ', lastName: 'Hopper' }, mine);
      expect(res.statusCode, res.payload).toBe(200);
      expect(res.json()).toEqual({ message: 'success', payload: { user: { id: p.id, name: 'Grace Hopper', email: p.email } } });
      const { rows } = await t.db.query(
        'SELECT i.traits, p.name FROM identities i JOIN people p ON p.id = i.id WHERE i.id = $1', [p.id],
      );
      expect(rows[0].name).toBe('Grace Hopper');
      expect(rows[0].traits).toEqual({ email: p.email, name: { first: 'Grace', last: 'Hopper' } });
      expect((await whoami(mine)).json().payload.user.name).toBe('Grace Hopper');
      await expect.poll(() => events.map((e) => JSON.parse(e).relation).sort(), { timeout: 2_000 }).toEqual(['identities', 'people']);
      expect(JSON.parse(events[0]).ids).toEqual([p.id]);
    } finally {
      listener.release();
    }
  });

  it('answers the form messages for missing names', async () => {
    const p = await makePerson(t.db);
    const mine = await sessionHeaders(t.db, p.id);
    let res = await call('PATCH', '/api/auth/profile', { firstName: ' ', lastName: 'X' }, mine);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Please provide valid first name');
    res = await call('PATCH', '/api/auth/profile', { firstName: 'X' }, mine);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Please provide valid last name');
    expect(res.json().details).toEqual({ lastName: 'Please provide valid last name' });
  });

  it('needs the CSRF token with the cookie; anonymous callers get 401; an access token has no profile', async () => {
    const p = await makePerson(t.db, { first: 'Keep', last: 'Me' });
    const { cookie } = await sessionHeaders(t.db, p.id);
    let res = await call('PATCH', '/api/auth/profile', { firstName: 'A', lastName: 'B' }, { cookie });
    expect(res.statusCode).toBe(403);
    res = await call('PATCH', '/api/auth/profile', { firstName: 'A', lastName: 'B' }, {});
    expect(res.statusCode).toBe(401);
    // a token made on the Access Tokens page acts as a person of its own, which has no identity to rename
    const created = await call('POST', '/api/auth/create_token', { name: 'ci' }, await sessionHeaders(t.db, p.id));
    expect(created.statusCode, created.payload).toBe(200);
    const token = { authorization: `Bearer ${created.json().payload.token}` };
    res = await call('PATCH', '/api/auth/profile', { firstName: 'A', lastName: 'B' }, token);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/have a profile to edit/);
    const { rows } = await t.db.query('SELECT name FROM people WHERE id = $1', [p.id]);
    expect(rows[0].name).toBe('Keep Me');
  });
});
