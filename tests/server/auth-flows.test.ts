import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeaders, createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';
import { csrfOf, nodeNames, nodeOf, OryBrowser, type Flow } from './ory-browser.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_RATE_LIMIT: '1000', PUBLIC_URL: 'http://console.test' });
});
afterAll(() => t.close());

const browser = () => new OryBrowser(t.app);

describe('login flow', () => {
  it('creates a flow with a CSRF cookie and node, and signs in with the password', async () => {
    const p = await makePerson(t.db);
    const b = browser();
    const flow = await b.flow('login', 'return_to=/health');
    expect(flow).toMatchObject({ type: 'browser', requested_aal: 'aal1', refresh: false, return_to: '/health' });
    expect(flow.ui.action).toBe(`http://console.test/api/.ory/self-service/login?flow=${flow.id}`);
    expect(nodeNames(flow)).toEqual(expect.arrayContaining(['csrf_token', 'identifier', 'password', 'method']));
    expect(b.cookies.get('csrf_token_ory')).toBe(csrfOf(flow));
    const { rows } = await t.db.query('SELECT csrf_hash, expires_at FROM auth_flows WHERE id = $1', [flow.id]);
    expect(rows[0].csrf_hash).not.toBe(csrfOf(flow));
    expect(rows[0].expires_at.getTime() - Date.now()).toBeGreaterThan(59 * 60_000);
    const res = await b.submit(flow, { method: 'password', identifier: p.email, password: p.password });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.session).toMatchObject({ active: true, authenticator_assurance_level: 'aal1' });
    expect(body.session.authentication_methods[0]).toMatchObject({ method: 'password', aal: 'aal1' });
    expect(body.identity).toMatchObject({ id: p.id, traits: { email: p.email, name: { first: 'Test', last: 'User' } } });
    expect(body.continue_with).toEqual([{ action: 'redirect_browser_to', redirect_browser_to: '/health' }]);
    const who = await b.get('/api/.ory/sessions/whoami');
    expect(who.statusCode).toBe(200);
    expect(who.json().identity.id).toBe(p.id);
    const events = await t.db.query(`SELECT type, method, aal FROM auth_events WHERE person_id = $1`, [p.id]);
    expect(events.rows).toContainEqual({ type: 'login', method: 'password', aal: 'aal1' });
  });

  it('a wrong password answers 400 with 4000006 and the flow; the identifier is kept', async () => {
    const p = await makePerson(t.db);
    const b = browser();
    const flow = await b.flow('login');
    const res = await b.submit(flow, { method: 'password', identifier: p.email, password: 'wrong password' });
    expect(res.statusCode).toBe(400);
    const again: Flow = res.json();
    expect(again.id).toBe(flow.id);
    expect(again.ui.messages?.[0]).toMatchObject({ id: 4000006, type: 'error' });
    expect(nodeOf(again, 'identifier')!.attributes.value).toBe(p.email);
    const missing = await b.submit(flow, { method: 'password', identifier: p.email });
    expect(missing.statusCode).toBe(400);
    expect(nodeOf(missing.json(), 'password')!.messages[0]).toMatchObject({ id: 4000002 });
    const fetched = await b.get(`/api/.ory/self-service/login/flows?id=${flow.id}`);
    expect(fetched.json().id).toBe(flow.id);
  });

  it('without Accept: application/json, /browser redirects to the page with ?flow=', async () => {
    const b = browser();
    const res = await b.request({ method: 'GET', url: '/api/.ory/self-service/login/browser', json: false, headers: { accept: 'text/html' } });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(/^\/login\?flow=[0-9a-f-]{36}$/);
    for (const [type, page] of [['registration', '/registration'], ['settings', '/login']] as const) {
      const r = await b.request({ method: 'GET', url: `/api/.ory/self-service/${type}/browser`, json: false, headers: { accept: 'text/html' } });
      expect(r.statusCode).toBe(303);
      expect(r.headers.location).toContain(page);
    }
  });

  it('refuses a foreign return_to, accepts the public origin', async () => {
    const b = browser();
    const bad = await b.get('/api/.ory/self-service/login/browser?return_to=https://evil.example/x');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ id: 'self_service_flow_return_to_forbidden', code: 400 });
    for (const r of ['//evil.example', '/\\evil.example', 'javascript:alert(1)']) {
      const res = await b.get(`/api/.ory/self-service/login/browser?return_to=${encodeURIComponent(r)}`);
      expect(res.json().error.id).toBe('self_service_flow_return_to_forbidden');
    }
    const ok = await b.flow('login', `return_to=${encodeURIComponent('http://console.test/catalog?x=1')}`);
    expect(ok.return_to).toBe('/catalog?x=1');
  });

  it('CSRF: a missing or wrong token, or another browser, is 403 security_csrf_violation', async () => {
    const p = await makePerson(t.db);
    const b = browser();
    const flow = await b.flow('login');
    const wrong = await b.submit(flow, { method: 'password', identifier: p.email, password: p.password }, { csrf: 'x'.repeat(43) });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().error.id).toBe('security_csrf_violation');
    const other = browser();
    const stolen = await other.submit(flow, { method: 'password', identifier: p.email, password: p.password });
    expect(stolen.json().error.id).toBe('security_csrf_violation');
    expect(other.cookies.has('session')).toBe(false);
  });

  it('an expired flow is 410 self_service_flow_expired naming a new flow', async () => {
    const p = await makePerson(t.db);
    const b = browser();
    const flow = await b.flow('login', 'return_to=/x');
    await t.db.query(`UPDATE auth_flows SET expires_at = now() - interval '1 minute' WHERE id = $1`, [flow.id]);
    const res = await b.submit(flow, { method: 'password', identifier: p.email, password: p.password });
    expect(res.statusCode).toBe(410);
    const err = res.json().error;
    expect(err.id).toBe('self_service_flow_expired');
    const fresh = await b.get(`/api/.ory/self-service/login/flows?id=${err.details.use_flow_id}`);
    expect(fresh.statusCode).toBe(200);
    expect(fresh.json().return_to).toBe('/x');
    const get = await b.get(`/api/.ory/self-service/login/flows?id=${flow.id}`);
    expect(get.statusCode).toBe(410);
    expect((await b.get('/api/.ory/self-service/login/flows?id=00000000-0000-0000-0000-000000000000')).statusCode).toBe(404);
    expect((await b.get('/api/.ory/self-service/login/flows?id=nope')).statusCode).toBe(404);
  });

  it('signed in: a new login flow is session_already_available; refresh=true re-asks and renews authenticated_at', async () => {
    const p = await makePerson(t.db);
    const b = browser();
    expect((await b.signIn(p.email, p.password)).statusCode).toBe(200);
    const again = await b.get('/api/.ory/self-service/login/browser?return_to=/x');
    expect(again.statusCode).toBe(400);
    expect(again.json().error.id).toBe('session_already_available');
    const nav = await b.request({ method: 'GET', url: '/api/.ory/self-service/login/browser?return_to=/x', json: false, headers: { accept: 'text/html' } });
    expect(nav.statusCode).toBe(303);
    expect(nav.headers.location).toBe('/x');
    await t.db.query(`UPDATE sessions SET authenticated_at = now() - interval '1 hour' WHERE person_id = $1`, [p.id]);
    const flow = await b.flow('login', 'refresh=true');
    expect(flow.refresh).toBe(true);
    expect(nodeOf(flow, 'identifier')!.attributes).toMatchObject({ type: 'hidden', value: p.email });
    const sessionBefore = b.cookies.get('session');
    const res = await b.submit(flow, { method: 'password', identifier: p.email, password: p.password });
    expect(res.statusCode).toBe(200);
    expect(b.cookies.get('session')).toBe(sessionBefore);
    expect(Date.now() - Date.parse(res.json().session.authenticated_at)).toBeLessThan(60_000);
    expect(res.json().session.authentication_methods).toHaveLength(2);
  });

  it('a plain form post is answered with 303s: back to the flow page on error, to return_to on success', async () => {
    const p = await makePerson(t.db);
    const b = browser();
    const flow = await b.flow('login', 'return_to=/topology');
    const bad = await b.form(flow, { method: 'password', identifier: p.email, password: 'nope nope' });
    expect(bad.statusCode).toBe(303);
    expect(bad.headers.location).toBe(`/login?flow=${flow.id}`);
    const shown = await b.get(`/api/.ory/self-service/login/flows?id=${flow.id}`);
    expect(shown.json().ui.messages[0].id).toBe(4000006);
    const ok = await b.form(flow, { method: 'password', identifier: p.email, password: p.password });
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe('/topology');
    expect(b.cookies.has('session')).toBe(true);
  });

  it('a browser error without JSON goes to /error?id= and GET /self-service/errors returns it', async () => {
    const b = browser();
    const res = await b.request({
      method: 'GET', url: '/api/.ory/self-service/login/browser?return_to=https://evil.example', json: false, headers: { accept: 'text/html' },
    });
    expect(res.statusCode).toBe(303);
    const id = /\/error\?id=(.+)$/.exec(res.headers.location as string)![1];
    const err = await b.get(`/api/.ory/self-service/errors?id=${id}`);
    expect(err.statusCode).toBe(200);
    expect(err.json()).toMatchObject({ id, error: { code: 400, id: 'self_service_flow_return_to_forbidden' } });
    expect((await b.get('/api/.ory/self-service/errors?id=00000000-0000-0000-0000-000000000000')).statusCode).toBe(404);
  });

  it('ten failures in 15 minutes lock the person out (429, audited) even with the right password', async () => {
    const p = await makePerson(t.db);
    const b = browser();
    const flow = await b.flow('login');
    for (let i = 0; i < 10; i++) {
      expect((await b.submit(flow, { method: 'password', identifier: p.email, password: `wrong ${i}` })).statusCode).toBe(400);
    }
    const locked = await b.submit(flow, { method: 'password', identifier: p.email, password: p.password });
    expect(locked.statusCode).toBe(429);
    const { rows } = await t.db.query(`SELECT count(*)::int AS n FROM auth_events WHERE person_id = $1 AND type = 'locked'`, [p.id]);
    expect(rows[0].n).toBe(1);
    await t.db.query(`UPDATE auth_events SET created_at = created_at - interval '16 minutes' WHERE person_id = $1`, [p.id]);
    expect((await b.submit(flow, { method: 'password', identifier: p.email, password: p.password })).statusCode).toBe(200);
  });
});

describe('registration flow', () => {
  async function invite(email: string) {
    const admin = await makePerson(t.db, { roles: ['admin'] });
    const headers = await sessionHeaders(t.db, admin.id);
    const res = await t.app.inject({
      method: 'POST', url: '/api/auth/invite_user', headers,
      payload: { email, firstName: 'Grace', lastName: 'Hopper', role: 'editor' },
    });
    expect(res.statusCode).toBe(200);
    return new URL(res.json().link).searchParams.get('invite')!;
  }

  it('is invite-only: traits come from the invite, a password finishes it with a session', async () => {
    const email = `grace-${Date.now()}@example.test`;
    const token = await invite(email);
    const b = browser();
    const flow = await b.flow('registration', `invite=${token}`);
    expect(nodeOf(flow, 'traits.email')!.attributes).toMatchObject({ value: email, disabled: true });
    expect(nodeOf(flow, 'traits.name.first')!.attributes.value).toBe('Grace');
    expect(nodeNames(flow)).not.toContain('invite');
    const { rows: stored } = await t.db.query('SELECT data::text AS d FROM auth_flows WHERE id = $1', [flow.id]);
    expect(stored[0].d).not.toContain(token);
    const short = await b.submit(flow, { method: 'password', password: 'short' });
    expect(short.statusCode).toBe(400);
    expect(nodeOf(short.json(), 'password')!.messages[0].id).toBe(4000032);
    const res = await b.submit(flow, { method: 'password', password: 'a long enough secret', traits: { name: { first: 'Grace B.', last: 'Hopper' } } });
    expect(res.statusCode).toBe(200);
    expect(res.json().identity.traits).toEqual({ email, name: { first: 'Grace B.', last: 'Hopper' } });
    expect(res.json().session.authenticator_assurance_level).toBe('aal1');
    const who = await b.get('/api/auth/whoami');
    expect(who.json().payload.roles).toEqual(['editor']);
    // the invite is used up
    const again = await browser().flow('registration', `invite=${token}`);
    const reuse = await browser().submit(again, { method: 'password', password: 'another long secret' });
    expect(reuse.statusCode).toBe(403); // another browser's flow: its CSRF cookie is not ours
    const same = browser();
    const f2 = await same.flow('registration', `invite=${token}`);
    const used = await same.submit(f2, { method: 'password', password: 'another long secret' });
    expect(used.statusCode).toBe(400);
    expect(used.json().ui.messages[0].id).toBe(4000001);
  });

  it('without an invite the flow asks for one; signed in it is session_already_available', async () => {
    const b = browser();
    const flow = await b.flow('registration');
    expect(nodeNames(flow)).toContain('invite');
    const res = await b.submit(flow, { method: 'password', password: 'a long enough secret' });
    expect(res.statusCode).toBe(400);
    expect(nodeOf(res.json(), 'invite')!.messages[0].id).toBe(1040002);
    const p = await makePerson(t.db);
    await b.signIn(p.email, p.password);
    expect((await b.get('/api/.ory/self-service/registration/browser')).json().error.id).toBe('session_already_available');
  });
});

describe('settings flow', () => {
  it('needs a session (401 session_inactive), is its person\'s alone (403 security_identity_mismatch)', async () => {
    const anon = await browser().get('/api/.ory/self-service/settings/browser');
    expect(anon.statusCode).toBe(401);
    expect(anon.json()).toMatchObject({ error: { id: 'session_inactive' }, redirect_browser_to: '/login?return_to=%2Fprofile-settings' });
    const p = await makePerson(t.db);
    const q = await makePerson(t.db);
    const b = browser();
    await b.signIn(p.email, p.password);
    const flow = await b.flow('settings');
    expect(flow).toMatchObject({ state: 'show_form', identity: { id: p.id, traits: { email: p.email } } });
    const other = browser();
    await other.signIn(q.email, q.password);
    const res = await other.get(`/api/.ory/self-service/settings/flows?id=${flow.id}`);
    expect(res.statusCode).toBe(403);
    expect(res.json().error.id).toBe('security_identity_mismatch');
    // an access token is not a browser session: it cannot change credentials
    const token = await bearerHeaders(t.db, p.id);
    const viaToken = await t.app.inject({ url: '/api/.ory/self-service/settings/browser', headers: { ...token, accept: 'application/json' } });
    expect(viaToken.statusCode).toBe(401);
  });

  it('saves the name; an email change without a mail server applies at once', async () => {
    const p = await makePerson(t.db);
    const b = browser();
    await b.signIn(p.email, p.password);
    const flow = await b.flow('settings');
    const res = await b.submit(flow, { method: 'profile', traits: { email: p.email, name: { first: 'Ada', last: 'King' } } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ state: 'success', identity: { traits: { name: { first: 'Ada', last: 'King' } } } });
    expect(res.json().ui.messages[0]).toMatchObject({ id: 1050001, type: 'success' });
    const { rows } = await t.db.query('SELECT name FROM people WHERE id = $1', [p.id]);
    expect(rows[0].name).toBe('Ada King');
    const empty = await b.submit(flow, { method: 'profile', 'traits.email': p.email, 'traits.name.first': '' });
    expect(empty.statusCode).toBe(400);
    expect(nodeOf(empty.json(), 'traits.name.first')!.messages[0].id).toBe(4000002);
    const bad = await b.submit(flow, { method: 'profile', 'traits.email': 'not-an-email' });
    expect(nodeOf(bad.json(), 'traits.email')!.messages[0].id).toBe(4000001);
    const email = `new-${p.email}`;
    const changed = await b.submit(flow, { method: 'profile', 'traits.email': email });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().identity.traits.email).toBe(email);
  });
});

describe('hosted mode', () => {
  it('OIDC_LOCAL_LOGIN=admins: the password flow signs in admins only', async () => {
    const h = await createTestApp({ AUTH_MODE: 'oidc', OIDC_LOCAL_LOGIN: 'admins', OIDC_ISSUER: 'http://127.0.0.1:9/', OIDC_CLIENT_ID: 'x' });
    try {
      const admin = await makePerson(h.db, { roles: ['admin'] });
      const user = await makePerson(h.db);
      const refused = await new OryBrowser(h.app).signIn(user.email, user.password);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().ui.messages[0].text).toContain('only administrators');
      expect((await new OryBrowser(h.app).signIn(admin.email, admin.password)).statusCode).toBe(200);
    } finally {
      await h.close();
    }
  });
});
