import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { argon2Load, hashSecret, verifySecret } from '../../server/lib/crypto.js';
import { invalidatePrincipals } from '../../server/plugins/auth.js';
import { createTestApp, bearerHeaders, makePerson, type TestContext } from './helpers.js';
import { OryBrowser } from './ory-browser.js';

// The paths npm run bench:auth loads (issue 17 "Performance"): concurrent sign-ins, whoami, API calls by token while
// sign-ins clear the principal cache. Figures live in the bench; these check behaviour only.

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_RATE_LIMIT: '100000' });
});
afterAll(() => t.close());

describe('argon2 work', () => {
  it('runs at most one hash per core at once; the rest wait their turn and all answer correctly', async () => {
    const phc = await hashSecret('the password');
    const { slots } = argon2Load();
    let most = 0;
    let queued = 0;
    const sampler = setInterval(() => {
      const l = argon2Load();
      most = Math.max(most, l.running);
      queued = Math.max(queued, l.waiting);
    }, 1);
    const answers = await Promise.all(
      Array.from({ length: slots * 4 }, (_, i) => verifySecret(phc, i % 2 ? 'the password' : 'wrong password')),
    );
    clearInterval(sampler);
    expect(answers).toEqual(Array.from({ length: slots * 4 }, (_, i) => i % 2 === 1));
    expect(most).toBeLessThanOrEqual(slots);
    expect(queued).toBeGreaterThan(0);
    expect(argon2Load()).toMatchObject({ running: 0, waiting: 0 });
  });
});

describe('concurrent sign-ins', () => {
  it('30 browsers signing in at once through the flows all get their own session; a token caller is served meanwhile', async () => {
    const people = await Promise.all(Array.from({ length: 5 }, () => makePerson(t.db)));
    const admin = await makePerson(t.db, { roles: ['admin'] });
    const bearer = await bearerHeaders(t.db, admin.id);
    const browsers = Array.from({ length: 30 }, () => new OryBrowser(t.app));
    const [answers, during] = await Promise.all([
      Promise.all(browsers.map(async (b, i) => {
        const p = people[i % people.length];
        const flow = await b.flow('login');
        return b.submit(flow, { method: 'password', identifier: p.email, password: p.password });
      })),
      Promise.all(Array.from({ length: 10 }, () => t.app.inject({ method: 'GET', url: '/api/auth/whoami', headers: bearer }))),
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual(answers.map(() => 200));
    const ids = answers.map((a) => a.json().session.id as string);
    expect(new Set(ids).size).toBe(30);
    expect(during.map((r) => r.statusCode)).toEqual(during.map(() => 200));
    for (const [i, b] of browsers.entries()) {
      const who = await b.get('/api/.ory/sessions/whoami');
      expect(who.statusCode).toBe(200);
      expect(who.json()).toMatchObject({ id: ids[i], active: true, identity: { traits: { email: people[i % people.length].email } } });
    }
  });
});

describe('whoami', () => {
  it('answers the session and its identity; a session ended elsewhere (another replica) is 401 at once', async () => {
    const p = await makePerson(t.db, { first: 'Who', last: 'Ami' });
    const b = new OryBrowser(t.app);
    expect((await b.signIn(p.email, p.password)).statusCode).toBe(200);
    const who = await b.get('/api/.ory/sessions/whoami');
    expect(who.statusCode).toBe(200);
    const body = who.json();
    expect(body).toMatchObject({
      active: true, authenticator_assurance_level: 'aal1',
      identity: { id: p.id, state: 'active', traits: { email: p.email, name: { first: 'Who', last: 'Ami' } } },
      devices: [{ id: body.id }],
    });
    expect(body.identity.verifiable_addresses[0]).toMatchObject({ value: p.email });
    // deleted straight in the database, as another replica's revoke does: this replica's cached principal is not
    // cleared, yet whoami reads the session row and refuses it
    await t.db.query('DELETE FROM sessions WHERE id = $1', [body.id]);
    const gone = await b.get('/api/.ory/sessions/whoami');
    expect(gone.statusCode).toBe(401);
    expect(gone.json().error.id).toBe('session_inactive');
  });
});

describe('access tokens after a verification', () => {
  it('a verified token skips argon2 next time, but a wrong secret, a deleted token or a new hash are refused at once', async () => {
    const admin = await makePerson(t.db, { roles: ['admin'] });
    const good = await bearerHeaders(t.db, admin.id);
    const call = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/api/auth/whoami', headers });
    expect((await call(good)).statusCode).toBe(200);
    // the principal cache cleared (a logout, a role change): the token still works, without argon2
    invalidatePrincipals();
    expect((await call(good)).statusCode).toBe(200);
    // same token id, another secret
    const [id] = good.authorization.slice('Bearer '.length).split('.');
    expect((await call({ authorization: `Bearer ${id}.${'x'.repeat(43)}` })).statusCode).toBe(401);
    // the stored hash replaced (as a regenerated secret would): the old secret no longer passes
    const tokenId = `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
    await t.db.query('UPDATE access_tokens SET value = $2 WHERE id = $1', [tokenId, await hashSecret('another secret entirely')]);
    invalidatePrincipals();
    expect((await call(good)).statusCode).toBe(401);
    // deleted
    const other = await bearerHeaders(t.db, admin.id);
    expect((await call(other)).statusCode).toBe(200);
    await t.db.query('DELETE FROM access_tokens WHERE person_id = $1', [admin.id]);
    invalidatePrincipals();
    expect((await call(other)).statusCode).toBe(401);
  });
});

describe('statements per sign-in', () => {
  it('a password sign-in reads its flow and login candidates in one statement: 1 to make the flow, 2 to submit', async () => {
    const p = await makePerson(t.db, { first: 'Count', last: 'Statements' });
    // statements sent from within each request's async context only (not the leader's or listeners' meanwhile)
    const requests = new AsyncLocalStorage<string>();
    const counts: Record<string, number> = {};
    const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
    const query = proto.query;
    proto.query = function (this: unknown, ...args: unknown[]) {
      const step = requests.getStore();
      if (step) counts[step] = (counts[step] ?? 0) + 1;
      return query.apply(this, args);
    };
    try {
      const b = new OryBrowser(t.app);
      const flow = await requests.run('create', () => b.flow('login'));
      // the identifier as typed: spaces and case do not matter, and the candidates read with the flow are the ones used
      const res = await requests.run('submit', () =>
        b.submit(flow, { method: 'password', identifier: `  ${p.email.toUpperCase()} `, password: p.password }));
      expect(res.statusCode).toBe(200);
      expect(res.json().session.identity.id).toBe(p.id);
      const wrong = await b.flow('login', 'refresh=true');
      const refused = await requests.run('refresh', () => b.submit(wrong, { method: 'password', identifier: p.email, password: 'not it' }));
      expect(refused.statusCode).toBe(400);
    } finally {
      proto.query = query;
    }
    expect(counts.create).toBe(1);
    expect(counts.submit).toBe(2);
    expect(counts.refresh).toBeGreaterThan(0); // a refresh proves the signed-in person's own password: no candidates
  });
});
