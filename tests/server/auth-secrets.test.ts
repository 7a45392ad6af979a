import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_RATE_LIMIT: '1000' });
});
afterAll(() => t.close());

describe('secrets never leave the server', () => {
  it('no response body carries a password, a hash, a token secret or an invite hash', async () => {
    const admin = await makePerson(t.db, { roles: ['admin'], password: 'admin-password-31415' });
    const login = await t.app.inject({
      method: 'POST', url: '/api/auth/login', payload: { username: admin.email, password: 'admin-password-31415' },
    });
    const sessionToken = login.cookies.find((c) => c.name === 'session')!.value;
    const s = { cookie: `session=${sessionToken}`, 'x-csrf-token': login.json().csrf_token };

    const made = await t.app.inject({ method: 'POST', url: '/api/auth/create_token', payload: { name: 'leak-check' }, headers: s });
    const plaintext: string = made.json().payload.token;
    const invite = await t.app.inject({
      method: 'POST', url: '/api/auth/invite_user', headers: s,
      payload: { firstName: 'Leak', lastName: 'Check', email: 'leak-check@example.test', role: 'viewer' },
    });
    const inviteToken = new URL(invite.json().link).searchParams.get('invite')!;
    const registration = await t.app.inject({
      method: 'POST', url: '/api/auth/registration', payload: { invite: inviteToken, password: 'registered-password-27' },
    });
    expect(registration.statusCode).toBe(200);
    const other = await sessionHeaders(t.db, (await makePerson(t.db)).id);

    const bodies = [login.body, registration.body, invite.body.replace(inviteToken, ''), made.body.replace(plaintext, '')];
    for (const url of ['/api/auth/whoami', '/api/auth/users', '/api/auth/tokens', `/api/rbac/${admin.id}/roles`, '/api/properties', '/api/auth/csrf']) {
      for (const headers of [s, { authorization: `Bearer ${plaintext}` }, other]) {
        bodies.push((await t.app.inject({ url, headers })).body);
      }
    }

    const db = async (sql: string) => (await t.db.query(sql)).rows.map((r) => Object.values(r)[0] as string);
    const secrets = [
      'admin-password-31415', 'registered-password-27', sessionToken, plaintext, plaintext.split('.')[1], inviteToken,
      ...(await db('SELECT password_hash FROM identity_credentials')),
      ...(await db('SELECT value FROM access_tokens')),
      ...(await db('SELECT token_hash FROM invites')),
      ...(await db('SELECT token_hash FROM sessions')),
    ];
    for (const body of bodies) {
      expect(body).not.toMatch(/\$argon2|password_hash|token_hash/);
      for (const secret of secrets) expect(body.includes(secret), `${secret.slice(0, 12)}… in ${body.slice(0, 80)}`).toBe(false);
    }
  });
});
