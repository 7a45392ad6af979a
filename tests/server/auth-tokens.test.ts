import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAccessToken } from '../../server/modules/auth/tokens.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function createToken(headers: Record<string, string>, payload: Record<string, unknown>) {
  return t.app.inject({ method: 'POST', url: '/api/auth/create_token', payload, headers });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const basic = (token: string) => ({ authorization: `Basic ${Buffer.from(`token:${token}`).toString('base64')}` });

describe('POST /api/auth/create_token', () => {
  it('returns the token once; it works as Bearer and as Basic token:<t>, acting as "<name> (Token)"', async () => {
    const p = await makePerson(t.db, { roles: ['editor'], first: 'Grace', last: 'Hopper' });
    const res = await createToken(await sessionHeaders(t.db, p.id), { name: 'ci', expiry: '30d', auto_renew: false });
    expect(res.statusCode).toBe(200);
    const { message, payload } = res.json();
    expect(message).toBe('success');
    expect(payload.token).toMatch(/^[0-9a-f]{32}\./);
    const days = (Date.parse(payload.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);

    for (const headers of [bearer(payload.token), basic(payload.token)]) {
      const who = await t.app.inject({ url: '/api/auth/whoami', headers });
      expect(who.statusCode).toBe(200);
      expect(who.json().payload.user).toMatchObject({ name: 'Grace Hopper (Token)', type: 'access_token' });
      expect(who.json().payload.roles).toEqual(['editor']);
    }
    const stored = await t.db.query('SELECT value FROM access_tokens WHERE id = $1', [payload.id]);
    expect(stored.rows[0].value).toMatch(/^\$argon2id\$/);
    expect(stored.rows[0].value).not.toContain(payload.token.split('.')[1]);
  });

  it('defaults to 90 days, or the access_token.default_expiry property', async () => {
    const p = await makePerson(t.db);
    const headers = await sessionHeaders(t.db, p.id);
    const daysLeft = (r: { json(): { payload: { expires_at: string } } }) =>
      Math.round((Date.parse(r.json().payload.expires_at) - Date.now()) / 86_400_000);
    expect(daysLeft(await createToken(headers, { name: 'default' }))).toBe(90);
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('access_token.default_expiry', '7d')`);
    try {
      expect(daysLeft(await createToken(headers, { name: 'from-property' }))).toBe(7);
    } finally {
      await t.db.query(`DELETE FROM properties WHERE name = 'access_token.default_expiry'`);
    }
  });

  it('refuses a bad expiry, a bad name or a duplicate name, creating nothing', async () => {
    const p = await makePerson(t.db);
    const headers = await sessionHeaders(t.db, p.id);
    for (const expiry of ['30 days', '-1d', '0h', '1000y', 'forever', '30']) {
      const res = await createToken(headers, { name: 'x', expiry });
      expect(res.statusCode, expiry).toBe(400);
      expect(res.json().error).toMatch(/expiry/);
    }
    expect((await createToken(headers, { name: '' })).statusCode).toBe(400);
    expect((await createToken(headers, { name: 'a/b' })).statusCode).toBe(400);
    const count = async () =>
      (await t.db.query('SELECT count(*)::int AS n FROM access_tokens WHERE created_by = $1', [p.id])).rows[0].n;
    expect(await count()).toBe(0);
    expect((await createToken(headers, { name: 'dup' })).statusCode).toBe(200);
    const again = await createToken(headers, { name: 'DUP' });
    expect(again.statusCode).toBe(409);
    expect(await count()).toBe(1);
  });

  it('cannot be called with an access token', async () => {
    const p = await makePerson(t.db);
    const first = (await createToken(await sessionHeaders(t.db, p.id), { name: 'outer' })).json().payload.token;
    const res = await createToken(bearer(first), { name: 'inner' });
    expect(res.statusCode).toBe(403);
  });
});

describe('token lifetime and owner', () => {
  it('refuses an expired token', async () => {
    const p = await makePerson(t.db, { roles: ['admin'] });
    const expired = await insertAccessToken(t.db, {
      personId: p.id, name: 'old', createdBy: p.id, expiresAt: new Date(Date.now() - 1000), autoRenew: true,
    });
    const res = await t.app.inject({ url: '/api/auth/whoami', headers: bearer(expired.token) });
    expect(res.statusCode).toBe(401);
  });

  it('extends an auto-renewing token used in the second half of its life', async () => {
    const p = await makePerson(t.db);
    const tok = await insertAccessToken(t.db, {
      personId: p.id, name: 'renew', createdBy: p.id, expiresAt: new Date(Date.now() + 3_600_000), autoRenew: true,
    });
    await t.db.query(`UPDATE access_tokens SET expires_at = now() + interval '10 minutes' WHERE id = $1`, [tok.id]);
    expect((await t.app.inject({ url: '/api/auth/whoami', headers: bearer(tok.token) })).statusCode).toBe(200);
    const { rows } = await t.db.query('SELECT expires_at FROM access_tokens WHERE id = $1', [tok.id]);
    expect(rows[0].expires_at.getTime() - Date.now()).toBeGreaterThan(50 * 60_000);
  });

  it('loses rights when its owner is demoted, and stops working when the owner is deactivated', async () => {
    const owner = await makePerson(t.db, { roles: ['admin'] });
    const other = await makePerson(t.db, { roles: ['admin'] });
    const token = (await createToken(await sessionHeaders(t.db, owner.id), { name: 'ops' })).json().payload.token;
    expect((await t.app.inject({ url: '/api/auth/users', headers: bearer(token) })).statusCode).toBe(200);

    const otherSession = await sessionHeaders(t.db, other.id);
    const demote = await t.app.inject({
      method: 'POST', url: `/api/auth/${owner.id}/properties`, payload: { role: 'viewer' }, headers: otherSession,
    });
    expect(demote.statusCode).toBe(200);
    const after = await t.app.inject({ url: '/api/auth/users', headers: bearer(token) });
    expect(after.statusCode).toBe(403);
    expect((await t.app.inject({ url: '/api/auth/whoami', headers: bearer(token) })).json().payload.roles).toEqual(['viewer']);

    const deactivate = await t.app.inject({
      method: 'POST', url: `/api/auth/${owner.id}/update_state`, payload: { state: 'inactive' }, headers: otherSession,
    });
    expect(deactivate.statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/auth/whoami', headers: bearer(token) })).statusCode).toBe(401);
  });

  it('rejects Basic with a real password and malformed tokens', async () => {
    const p = await makePerson(t.db);
    const userPass = { authorization: `Basic ${Buffer.from(`${p.email}:${p.password}`).toString('base64')}` };
    for (const headers of [userPass, bearer('abc'), bearer(`${'0'.repeat(32)}.${'x'.repeat(43)}`)]) {
      expect((await t.app.inject({ url: '/api/auth/whoami', headers })).statusCode).toBe(401);
    }
  });
});

describe('GET /api/auth/tokens and DELETE /api/auth/token/:id', () => {
  it('lists own tokens (admins: all) without values; the creator or an admin deletes', async () => {
    const alice = await makePerson(t.db, { roles: ['editor'] });
    const bob = await makePerson(t.db, { roles: ['editor'] });
    const admin = await makePerson(t.db, { roles: ['admin'] });
    const aliceS = await sessionHeaders(t.db, alice.id);
    const bobS = await sessionHeaders(t.db, bob.id);
    const adminS = await sessionHeaders(t.db, admin.id);
    const a1 = (await createToken(aliceS, { name: 'a1', auto_renew: true })).json().payload;
    const b1 = (await createToken(bobS, { name: 'b1' })).json().payload;

    const aliceList = await t.app.inject({ url: '/api/auth/tokens', headers: aliceS });
    expect(aliceList.statusCode).toBe(200);
    const rows = aliceList.json().payload;
    expect(rows.map((r: { id: string }) => r.id)).toEqual([a1.id]);
    expect(rows[0]).toMatchObject({
      name: 'a1', auto_renew: true, person: { name: 'Test User (Token)' }, created_by: { id: alice.id, email: alice.email },
    });
    expect(rows[0]).not.toHaveProperty('value');
    expect(aliceList.body).not.toContain(a1.token.split('.')[1]);
    expect(aliceList.body).not.toContain('argon2');

    const adminList = (await t.app.inject({ url: '/api/auth/tokens', headers: adminS })).json().payload;
    expect(adminList.map((r: { id: string }) => r.id)).toEqual(expect.arrayContaining([a1.id, b1.id]));

    // Bob cannot see or delete Alice's token
    const bobDelete = await t.app.inject({ method: 'DELETE', url: `/api/auth/token/${a1.id}`, headers: bobS });
    expect(bobDelete.statusCode).toBe(404);
    expect((await t.app.inject({ url: '/api/auth/whoami', headers: bearer(a1.token) })).statusCode).toBe(200);

    const aliceDelete = await t.app.inject({ method: 'DELETE', url: `/api/auth/token/${a1.id}`, headers: aliceS });
    expect(aliceDelete.statusCode).toBe(200);
    expect(aliceDelete.json()).toEqual({ message: 'success' });
    expect((await t.app.inject({ url: '/api/auth/whoami', headers: bearer(a1.token) })).statusCode).toBe(401);
    const person = await t.db.query(
      `SELECT deleted_at FROM people WHERE name = 'Test User (Token)' AND email = $1`,
      [alice.email.replace('@', '+token:a1@')],
    );
    expect(person.rows[0].deleted_at).not.toBeNull();

    const adminDelete = await t.app.inject({ method: 'DELETE', url: `/api/auth/token/${b1.id}`, headers: adminS });
    expect(adminDelete.statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/auth/whoami', headers: bearer(b1.token) })).statusCode).toBe(401);

    const bad = await t.app.inject({ method: 'DELETE', url: '/api/auth/token/not-a-uuid', headers: adminS });
    expect(bad.statusCode).toBe(400);
  });
});
