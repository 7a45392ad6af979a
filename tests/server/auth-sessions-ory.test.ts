import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WS_CLOSE_SESSION_ENDED } from '../../server/contracts/events.js';
import { invalidatePrincipals } from '../../server/plugins/auth.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';
import { OryBrowser } from './ory-browser.js';
import { connectLive, listen } from './ws-client.js';

let t: TestContext;
let wsUrl: string;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_RATE_LIMIT: '1000', SESSION_IDLE_MINUTES: '30' });
  wsUrl = await listen(t.app);
});
afterAll(() => t.close());

const browser = () => new OryBrowser(t.app);
const csrf = async (b: OryBrowser) => ({ 'x-csrf-token': (await b.get('/api/auth/csrf')).json().csrf_token as string });

async function signedIn(email: string, password: string, ua = 'Mozilla/5.0 Test') {
  const b = browser();
  const flow = await b.flow('login');
  const ok = await b.request({
    method: 'POST', url: `/api/.ory/self-service/login?flow=${flow.id}`, headers: { 'user-agent': ua },
    payload: { csrf_token: flow.ui.nodes[0].attributes.value, method: 'password', identifier: email, password },
  });
  expect(ok.statusCode).toBe(200);
  return { b, id: ok.json().session.id as string };
}

describe('your sessions', () => {
  it('lists the others with device and last seen; revokes one, then all others; the current stays', async () => {
    const p = await makePerson(t.db);
    const one = await signedIn(p.email, p.password, 'Agent One');
    const two = await signedIn(p.email, p.password, 'Agent Two');
    const me = await signedIn(p.email, p.password, 'Agent Me');
    const list = await me.b.get('/api/.ory/sessions');
    expect(list.statusCode).toBe(200);
    const rows = list.json();
    expect(rows.map((s: { id: string }) => s.id).sort()).toEqual([one.id, two.id].sort());
    expect(rows.find((s: { id: string }) => s.id === one.id)).toMatchObject({
      active: true, authenticator_assurance_level: 'aal1', devices: [{ user_agent: 'Agent One', ip_address: '127.0.0.1' }],
      last_seen_at: expect.any(String),
    });
    // unsafe methods echo the CSRF token as every API write does
    const noCsrf = await me.b.request({ method: 'DELETE', url: `/api/.ory/sessions/${one.id}` });
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.json().error.id).toBe('security_csrf_violation');
    const headers = await csrf(me.b);
    const del = await me.b.request({ method: 'DELETE', url: `/api/.ory/sessions/${one.id}`, headers });
    expect(del.statusCode).toBe(204);
    expect((await one.b.get('/api/auth/whoami')).statusCode).toBe(401);
    expect((await me.b.request({ method: 'DELETE', url: `/api/.ory/sessions/${me.id}`, headers })).statusCode).toBe(400);
    const stranger = await makePerson(t.db);
    const theirs = await signedIn(stranger.email, stranger.password);
    expect((await me.b.request({ method: 'DELETE', url: `/api/.ory/sessions/${theirs.id}`, headers })).statusCode).toBe(404);
    expect((await theirs.b.get('/api/auth/whoami')).statusCode).toBe(200);
    const all = await me.b.request({ method: 'DELETE', url: '/api/.ory/sessions', headers });
    expect(all.json()).toEqual({ count: 1 });
    expect((await two.b.get('/api/auth/whoami')).statusCode).toBe(401);
    expect((await me.b.get('/api/auth/whoami')).statusCode).toBe(200);
    const ev = await t.db.query(`SELECT count(*)::int AS n FROM auth_events WHERE person_id = $1 AND type = 'session_revoked'`, [p.id]);
    expect(ev.rows[0].n).toBe(2);
  });

  it('without a session: whoami and the list are 401 session_inactive', async () => {
    const b = browser();
    const who = await b.get('/api/.ory/sessions/whoami');
    expect(who.statusCode).toBe(401);
    expect(who.json().error.id).toBe('session_inactive');
    expect((await b.get('/api/.ory/sessions')).statusCode).toBe(401);
  });

  it('a revoked session closes its WebSocket (4401)', async () => {
    const p = await makePerson(t.db);
    const victim = await signedIn(p.email, p.password);
    const me = await signedIn(p.email, p.password);
    const origin = `http://${new URL(wsUrl).host}`;
    const live = await connectLive(wsUrl, { cookie: victim.b.cookieHeader, origin });
    const res = await me.b.request({ method: 'DELETE', url: `/api/.ory/sessions/${victim.id}`, headers: await csrf(me.b) });
    expect(res.statusCode).toBe(204);
    expect(await live.closed()).toBe(WS_CLOSE_SESSION_ENDED);
  });

  it('logout: /self-service/logout/browser gives a token bound to the cookie; the logout ends the session', async () => {
    const p = await makePerson(t.db);
    const { b, id } = await signedIn(p.email, p.password);
    const lb = await b.get('/api/.ory/self-service/logout/browser?return_to=/login?x=1');
    expect(lb.statusCode).toBe(200);
    const { logout_url: url, logout_token: token } = lb.json();
    expect(url).toContain(`/api/.ory/self-service/logout?token=${token}`);
    const other = browser();
    other.cookies.set('session', 'someone-else');
    expect((await other.get(`/api/.ory/self-service/logout?token=${token}`)).statusCode).toBe(303);
    expect((await b.get('/api/.ory/self-service/logout?token=wrong')).statusCode).toBe(401);
    const out = await b.request({ method: 'GET', url: `/api/.ory/self-service/logout?token=${token}&return_to=/login`, json: false });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/login');
    expect(b.cookies.has('session')).toBe(false);
    const { rows } = await t.db.query('SELECT 1 FROM sessions WHERE id = $1', [id]);
    expect(rows).toHaveLength(0);
    const ev = await t.db.query(`SELECT 1 FROM auth_events WHERE person_id = $1 AND type = 'logout'`, [p.id]);
    expect(ev.rows).toHaveLength(1);
    expect((await browser().get('/api/.ory/self-service/logout/browser')).statusCode).toBe(401);
  });

  it('a session unused for SESSION_IDLE_MINUTES has ended', async () => {
    const p = await makePerson(t.db);
    const { b, id } = await signedIn(p.email, p.password);
    expect((await b.get('/api/auth/whoami')).statusCode).toBe(200);
    await t.db.query(`UPDATE sessions SET last_seen_at = now() - interval '31 minutes' WHERE id = $1`, [id]);
    invalidatePrincipals();
    expect((await b.get('/api/auth/whoami')).statusCode).toBe(401);
    expect((await b.get('/api/.ory/sessions/whoami')).json().error.id).toBe('session_inactive');
  });
});

describe('admin', () => {
  it('an admin signs a person out everywhere and resets a second factor; others may not', async () => {
    const admin = await makePerson(t.db, { roles: ['admin'] });
    const viewer = await makePerson(t.db);
    const p = await makePerson(t.db);
    const a = await signedIn(p.email, p.password);
    const b2 = await signedIn(p.email, p.password);
    const adminHeaders = await sessionHeaders(t.db, admin.id);
    const viewerHeaders = await sessionHeaders(t.db, viewer.id);
    const list = await t.app.inject({ url: `/api/.ory/admin/identities/${p.id}/sessions`, headers: adminHeaders });
    expect(list.json()).toHaveLength(2);
    const denied = await t.app.inject({ method: 'DELETE', url: `/api/.ory/admin/identities/${p.id}/sessions`, headers: viewerHeaders });
    expect(denied.statusCode).toBe(403);
    const res = await t.app.inject({ method: 'DELETE', url: `/api/.ory/admin/identities/${p.id}/sessions`, headers: adminHeaders });
    expect(res.statusCode).toBe(204);
    expect((await a.b.get('/api/auth/whoami')).statusCode).toBe(401);
    expect((await b2.b.get('/api/auth/whoami')).statusCode).toBe(401);
    const ev = await t.db.query(`SELECT details FROM auth_events WHERE person_id = $1 AND type = 'session_revoked'`, [p.id]);
    expect(ev.rows[0].details).toMatchObject({ by: admin.id, all: true, count: 2 });
    const reset = await t.app.inject({ method: 'DELETE', url: `/api/.ory/admin/identities/${p.id}/credentials/webauthn`, headers: adminHeaders });
    expect(reset.statusCode).toBe(204);
    const pw = await t.app.inject({ method: 'DELETE', url: `/api/.ory/admin/identities/${p.id}/credentials/password`, headers: adminHeaders });
    expect(pw.statusCode).toBe(400);
    const viewerReset = await t.app.inject({ method: 'DELETE', url: `/api/.ory/admin/identities/${p.id}/credentials/webauthn`, headers: viewerHeaders });
    expect(viewerReset.statusCode).toBe(403);
    const missing = await t.app.inject({ method: 'DELETE', url: '/api/.ory/admin/identities/5b2f3a8e-1c4d-4e6f-9a0b-7c8d9e0f1a2b/sessions', headers: adminHeaders });
    expect(missing.statusCode).toBe(404);
  });
});
