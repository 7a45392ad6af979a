import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

let t: TestContext;
let admin: Record<string, string>;
beforeAll(async () => {
  t = await createTestApp({ PUBLIC_URL: 'https://ops.example.com/', LOGIN_RATE_LIMIT: '1000' });
  admin = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
});
afterAll(() => t.close());

let seq = 0;
const freshEmail = () => `invitee-${Date.now()}-${seq++}@example.test`;

function invite(payload: Record<string, unknown>, headers = admin) {
  return t.app.inject({ method: 'POST', url: '/api/auth/invite_user', payload, headers });
}

function register(payload: Record<string, unknown>) {
  return t.app.inject({ method: 'POST', url: '/api/auth/registration', payload });
}

const tokenOf = (link: string) => new URL(link).searchParams.get('invite')!;
const inviteCount = async (email: string) =>
  (await t.db.query('SELECT count(*)::int AS n FROM invites WHERE lower(email) = lower($1)', [email])).rows[0].n;

describe('POST /api/auth/invite_user', () => {
  it('validates the form with the spec messages and creates nothing', async () => {
    const good = { firstName: 'Ann', lastName: 'Lee', email: freshEmail(), role: 'editor' };
    const cases: [Record<string, unknown>, string, string][] = [
      [{ ...good, firstName: '  ' }, 'firstName', 'Please provide valid first name'],
      [{ ...good, firstName: undefined }, 'firstName', 'Please provide valid first name'],
      [{ ...good, lastName: '' }, 'lastName', 'Please provide valid last name'],
      [{ ...good, email: '' }, 'email', 'Please provide valid email'],
      [{ ...good, email: 'not-an-email' }, 'email', 'Entered value does not match email format'],
      [{ ...good, role: undefined }, 'role', 'Please select any role'],
      [{ ...good, role: 'root' }, 'role', 'Please select any role'],
    ];
    for (const [payload, field, message] of cases) {
      const res = await invite(payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe(message);
      expect(res.json().details[field]).toBe(message);
    }
    expect(await inviteCount(good.email)).toBe(0);
  });

  it('answers a link under PUBLIC_URL and stores only a hash of the token', async () => {
    const email = freshEmail();
    const res = await invite({ firstName: 'Ann', lastName: 'Lee', email, role: 'editor' });
    expect(res.statusCode).toBe(200);
    const { link, expires_at } = res.json();
    expect(link).toMatch(/^https:\/\/ops\.example\.com\/registration\?invite=[\w-]{40,}$/);
    expect((Date.parse(expires_at) - Date.now()) / 86_400_000).toBeCloseTo(7, 1);
    const { rows } = await t.db.query('SELECT * FROM invites WHERE email = $1', [email]);
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).not.toBe(tokenOf(link));
    expect(JSON.stringify(rows[0])).not.toContain(tokenOf(link));
    expect(res.body).not.toContain(rows[0].token_hash);
  });

  it('replaces a pending invite for the same email', async () => {
    const email = freshEmail();
    const first = tokenOf((await invite({ firstName: 'A', lastName: 'B', email, role: 'viewer' })).json().link);
    const second = tokenOf((await invite({ firstName: 'A', lastName: 'B', email: email.toUpperCase(), role: 'editor' })).json().link);
    expect(await inviteCount(email)).toBe(1);
    expect((await register({ invite: first, password: 'long enough' })).statusCode).toBe(400);
    const ok = await register({ invite: second, password: 'long enough' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().roles).toEqual(['editor']);
  });

  it('refuses the email of an existing user with 409', async () => {
    const p = await makePerson(t.db);
    const res = await invite({ firstName: 'A', lastName: 'B', email: p.email.toUpperCase(), role: 'viewer' });
    expect(res.statusCode).toBe(409);
    expect(await inviteCount(p.email)).toBe(0);
  });

  it('needs write on identities', async () => {
    const editor = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['editor'] })).id);
    const res = await invite({ firstName: 'A', lastName: 'B', email: freshEmail(), role: 'viewer' }, editor);
    expect(res.statusCode).toBe(403);
  });
});

describe('POST /api/auth/registration', () => {
  it('creates the user from the invite, signs them in, and uses up the invite', async () => {
    const email = freshEmail();
    const token = tokenOf((await invite({ firstName: 'Joan', lastName: 'Clarke', email, role: 'responder' })).json().link);
    const res = await register({ invite: token, password: 'enigma-1940' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ message: 'success', csrf_token: expect.any(String), roles: ['responder'] });
    expect(body.user).toMatchObject({ name: 'Joan Clarke', email });
    const cookie = res.cookies.find((c) => c.name === 'session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: true });
    expect(res.body).not.toMatch(/argon2|token_hash/);

    const who = await t.app.inject({ url: '/api/auth/whoami', headers: { cookie: `session=${cookie.value}` } });
    expect(who.json().payload).toMatchObject({ user: { id: body.user.id, name: 'Joan Clarke' }, roles: ['responder'] });
    const identity = await t.db.query('SELECT traits, state FROM identities WHERE id = $1', [body.user.id]);
    expect(identity.rows[0]).toEqual({ traits: { email, name: { first: 'Joan', last: 'Clarke' } }, state: 'active' });
    const accepted = await t.db.query('SELECT accepted_at FROM invites WHERE email = $1', [email]);
    expect(accepted.rows[0].accepted_at).not.toBeNull();

    const login = await t.app.inject({
      method: 'POST', url: '/api/auth/login', payload: { username: email, password: 'enigma-1940' },
    });
    expect(login.statusCode).toBe(200);

    const again = await register({ invite: token, password: 'enigma-1940' });
    expect(again.statusCode).toBe(410);
    expect(again.json().error).toMatch(/already been used/);
  });

  it('refuses unknown and expired invites and short passwords, creating nothing', async () => {
    expect((await register({ invite: 'no-such-invite', password: 'long enough' })).statusCode).toBe(400);
    expect((await register({ invite: 'no-such-invite', password: 'long enough' })).json().error).toBe('invalid invite link');

    const email = freshEmail();
    const token = tokenOf((await invite({ firstName: 'A', lastName: 'B', email, role: 'viewer' })).json().link);
    const short = await register({ invite: token, password: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.json().error).toBe('password must be at least 8 characters');

    await t.db.query(`UPDATE invites SET expires_at = now() - interval '1 second' WHERE email = $1`, [email]);
    const expired = await register({ invite: token, password: 'long enough' });
    expect(expired.statusCode).toBe(410);
    expect(expired.json().error).toMatch(/expired/);
    const { rows } = await t.db.query(`SELECT count(*)::int AS n FROM identities WHERE traits ->> 'email' = $1`, [email]);
    expect(rows[0].n).toBe(0);
  });

  it('is all-or-nothing: a conflicting email leaves the invite unused', async () => {
    const email = freshEmail();
    const token = tokenOf((await invite({ firstName: 'A', lastName: 'B', email, role: 'editor' })).json().link);
    await makePerson(t.db, { email });
    const res = await register({ invite: token, password: 'long enough' });
    expect(res.statusCode).toBe(409);
    expect(res.cookies).toHaveLength(0);
    const inv = await t.db.query('SELECT accepted_at FROM invites WHERE email = $1', [email]);
    expect(inv.rows[0].accepted_at).toBeNull();
  });

  it('rolls back the identity when a later step fails', async () => {
    // an invite whose role the role table refuses: the identity insert succeeds, the role binding fails
    const email = freshEmail();
    const token = 'broken-invite-token-0123456789';
    await t.db.query(
      `INSERT INTO invites (email, first_name, last_name, role, token_hash, expires_at)
       VALUES ($1, 'A', 'B', 'superuser', encode(sha256($2::bytea), 'hex'), now() + interval '1 day')`,
      [email, token],
    );
    const res = await register({ invite: token, password: 'long enough' });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.cookies).toHaveLength(0);
    const ids = await t.db.query(`SELECT count(*)::int AS n FROM identities WHERE traits ->> 'email' = $1`, [email]);
    expect(ids.rows[0].n).toBe(0);
    const people = await t.db.query('SELECT count(*)::int AS n FROM people WHERE email = $1', [email]);
    expect(people.rows[0].n).toBe(0);
    const inv = await t.db.query('SELECT accepted_at FROM invites WHERE email = $1', [email]);
    expect(inv.rows[0].accepted_at).toBeNull();
  });
});
