import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeaders, createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

// two apps: mail set up (recovery can reach a verified address) and not (the password must stay)
let mail: TestContext;
let noMail: TestContext;
beforeAll(async () => {
  [mail, noMail] = await Promise.all([
    createTestApp({ LOGIN_RATE_LIMIT: '1000', SMTP_HOST: '127.0.0.1', SMTP_PORT: '2' }),
    createTestApp({ LOGIN_RATE_LIMIT: '1000' }),
  ]);
});
afterAll(() => Promise.all([mail?.close(), noMail?.close()]));

const sessionCount = async (t: TestContext, id: string) =>
  Number((await t.db.query('SELECT count(*) FROM sessions WHERE person_id = $1', [id])).rows[0].count);
/** Marks the person's email verified (the address row may exist already, unverified). */
async function verify(t: TestContext, p: { id: string; email: string }) {
  await t.db.query(
    `INSERT INTO identity_verifiable_addresses (person_id, value, verified, verified_at, status) VALUES ($1, $2, true, now(), 'completed')
     ON CONFLICT (person_id, lower(value)) DO UPDATE SET verified = true, verified_at = now(), status = 'completed'`,
    [p.id, p.email],
  );
}
const hasPassword = async (t: TestContext, id: string) =>
  (await t.db.query('SELECT 1 FROM identity_credentials WHERE identity_id = $1', [id])).rows.length > 0;

describe("POST /api/auth/not-me (This wasn't me)", () => {
  it('ends every session, this one too, removes the password when recovery can reach a verified address, and records it', async () => {
    const t = mail;
    const p = await makePerson(t.db);
    await verify(t, p);
    const mine = await sessionHeaders(t.db, p.id);
    const other = await sessionHeaders(t.db, p.id);
    const bystander = await makePerson(t.db);
    await sessionHeaders(t.db, bystander.id);

    const res = await t.app.inject({ method: 'POST', url: '/api/auth/not-me', headers: { ...mine, 'user-agent': 'test-agent/1' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ sessions_ended: 2, password_reset_required: true });
    expect(res.headers['set-cookie']).toEqual(expect.stringMatching(/session=;/));
    expect(await sessionCount(t, p.id)).toBe(0);
    expect(await sessionCount(t, bystander.id)).toBe(1);
    expect(await hasPassword(t, p.id)).toBe(false);
    for (const h of [mine, other]) {
      expect((await t.app.inject({ method: 'GET', url: '/api/auth/whoami', headers: h })).statusCode).toBe(401);
    }
    // the old password no longer signs in
    const login = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: p.email, password: p.password } });
    expect(login.statusCode).toBe(401);
    const ev = await t.db.query('SELECT type, success, user_agent, details FROM auth_events WHERE person_id = $1', [p.id]);
    expect(ev.rows).toContainEqual({ type: 'not_me', success: true, user_agent: 'test-agent/1', details: { sessions_ended: 2, password_removed: true } });
  });

  it('keeps the password when recovery could not reach them (no mail set up, or no verified address)', async () => {
    for (const [t, verified] of [[noMail, true], [mail, false]] as const) {
      const p = await makePerson(t.db);
      if (verified) await verify(t, p);
      else await t.db.query('UPDATE identity_verifiable_addresses SET verified = false, verified_at = NULL, status = $2 WHERE person_id = $1', [p.id, 'pending']);
      const res = await t.app.inject({ method: 'POST', url: '/api/auth/not-me', headers: await sessionHeaders(t.db, p.id) });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ sessions_ended: 1, password_reset_required: false });
      expect(await hasPassword(t, p.id)).toBe(true);
      expect(await sessionCount(t, p.id)).toBe(0);
    }
  });

  it('refuses access tokens, a missing CSRF token and anonymous callers, changing nothing', async () => {
    const t = noMail;
    const p = await makePerson(t.db);
    const s = await sessionHeaders(t.db, p.id);
    expect((await t.app.inject({ method: 'POST', url: '/api/auth/not-me', headers: await bearerHeaders(t.db, p.id) })).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'POST', url: '/api/auth/not-me', headers: { cookie: s.cookie } })).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'POST', url: '/api/auth/not-me' })).statusCode).toBe(401);
    expect(await sessionCount(t, p.id)).toBe(1);
    expect(await hasPassword(t, p.id)).toBe(true);
  });
});
