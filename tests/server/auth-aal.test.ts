import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACTORS } from '../../server/modules/auth/factors/index.js';
import { message } from '../../server/modules/auth/flows/messages.js';
import { FlowValidationError, type Factor } from '../../server/modules/auth/flows/types.js';
import { invalidatePrincipals } from '../../server/plugins/auth.js';
import { createTestApp, makePerson, type TestContext } from './helpers.js';
import { nodeNames, OryBrowser, type Flow } from './ory-browser.js';

/** A second factor known only to this test: the code is 123456; enrolment through the settings flow. */
const enrolled = new Set<string>();
const testFactor: Factor = {
  method: 'test_code' as 'totp',
  group: 'totp',
  aal: 'aal2',
  async enrolled(_db, personId) {
    return enrolled.has(personId);
  },
  async loginNodes() {
    return [{
      type: 'input', group: 'totp', messages: [], meta: {},
      attributes: { node_type: 'input', name: 'test_code', type: 'text', required: true },
    }];
  },
  async login(ctx, body) {
    if (body.test_code !== '123456') throw new FlowValidationError([message(4000008)], 'test_code');
    return { personId: ctx.flow.person_id!, aal: 'aal2' };
  },
  async settings(ctx) {
    enrolled.add(ctx.flow.person_id!);
    return { kind: 'show' };
  },
  async reset(_db, personId) {
    enrolled.delete(personId);
  },
};

let t: TestContext;
beforeAll(async () => {
  FACTORS.push(testFactor);
  t = await createTestApp({ LOGIN_RATE_LIMIT: '1000' });
});
afterAll(async () => {
  FACTORS.splice(FACTORS.indexOf(testFactor), 1);
  await t.close();
});

const browser = () => new OryBrowser(t.app);

describe('highest available assurance', () => {
  it('a session from the hosted sign-in (method oidc) is not asked for the local second factor a linked person has', async () => {
    const p = await makePerson(t.db);
    enrolled.add(p.id);
    const { createSession } = await import('../../server/modules/auth/sessions.js');
    const s = await createSession(t.db, p.id, 1);
    await t.db.query(`UPDATE sessions SET methods = '[{"method": "oidc", "aal": "aal1", "completed_at": "2026-01-01T00:00:00Z"}]'
      WHERE person_id = $1`, [p.id]);
    invalidatePrincipals();
    const res = await t.app.inject({ method: 'GET', url: '/api/auth/whoami', cookies: { session: s.token } });
    expect(res.statusCode, res.body).toBe(200);
    // the same person's password session still owes the second step
    await t.db.query(`UPDATE sessions SET methods = '[]' WHERE person_id = $1`, [p.id]);
    invalidatePrincipals();
    const local = await t.app.inject({ method: 'GET', url: '/api/auth/whoami', cookies: { session: s.token } });
    expect(local.statusCode).toBe(403);
    expect(local.json().error.id).toBe('session_aal2_required');
  });

  it('after the password a person with a second factor holds aal1, every API call is 403 until the second step', async () => {
    const p = await makePerson(t.db);
    enrolled.add(p.id);
    const b = browser();
    const first = await b.signIn(p.email, p.password, 'return_to=/catalog');
    expect(first.statusCode).toBe(200);
    expect(first.json().session.authenticator_assurance_level).toBe('aal1');
    expect(first.json().continue_with).toEqual([
      { action: 'redirect_browser_to', redirect_browser_to: '/login?aal=aal2&return_to=%2Fcatalog' },
    ]);
    for (const url of ['/api/auth/whoami', '/api/db/people', '/api/.ory/sessions/whoami']) {
      const res = await b.get(url, { referer: 'http://localhost:8080/topology?x=1' });
      expect(res.statusCode, url).toBe(403);
      expect(res.json().error.id, url).toBe('session_aal2_required');
      expect(res.json().redirect_browser_to, url).toMatch(/^\/login\?aal=aal2&return_to=/);
    }
    expect((await b.get('/api/db/people', { referer: 'http://localhost:8080/topology?x=1' })).json().redirect_browser_to)
      .toBe('/login?aal=aal2&return_to=%2Ftopology%3Fx%3D1');
    // a plain login flow now is the second step (highest available), with a Sign out link and no password
    const flow = await b.flow('login', 'aal=aal2&return_to=/catalog');
    expect(flow.requested_aal).toBe('aal2');
    expect(nodeNames(flow)).toContain('test_code');
    expect(nodeNames(flow)).not.toContain('password');
    expect(flow.ui.nodes.find((n) => n.attributes.node_type === 'a')!.attributes.href).toBe('/api/.ory/self-service/logout/browser');
    const wrong = await b.submit(flow, { method: 'test_code', test_code: '000000' });
    expect(wrong.statusCode).toBe(400);
    expect((wrong.json() as Flow).ui.nodes.find((n) => n.attributes.name === 'test_code')!.messages[0].id).toBe(4000008);
    const ok = await b.submit(flow, { method: 'test_code', test_code: '123456' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().session.authenticator_assurance_level).toBe('aal2');
    expect(ok.json().session.authentication_methods.map((m: { method: string }) => m.method)).toEqual(['password', 'test_code']);
    expect(ok.json().continue_with).toEqual([{ action: 'redirect_browser_to', redirect_browser_to: '/catalog' }]);
    expect((await b.get('/api/auth/whoami')).statusCode).toBe(200);
    expect((await b.get('/api/.ory/sessions/whoami')).json().authenticator_assurance_level).toBe('aal2');
  });

  it('the legacy POST /api/auth/login cannot skip the second factor', async () => {
    const p = await makePerson(t.db);
    enrolled.add(p.id);
    const b = browser();
    const res = await b.request({ method: 'POST', url: '/api/auth/login', payload: { username: p.email, password: p.password } });
    expect(res.statusCode).toBe(200);
    const who = await b.get('/api/auth/whoami');
    expect(who.statusCode).toBe(403);
    expect(who.json().error.id).toBe('session_aal2_required');
    const write = await b.request({ method: 'POST', url: '/api/auth/create_token', payload: { name: 'x' }, headers: { 'x-csrf-token': res.json().csrf_token } });
    expect(write.statusCode).toBe(403);
    const { rows } = await t.db.query('SELECT aal FROM sessions WHERE person_id = $1', [p.id]);
    expect(rows).toEqual([{ aal: 'aal1' }]);
  });

  it('five wrong second-factor answers end the flow (410)', async () => {
    const p = await makePerson(t.db);
    enrolled.add(p.id);
    const b = browser();
    await b.signIn(p.email, p.password);
    const flow = await b.flow('login', 'aal=aal2');
    for (let i = 0; i < 4; i++) expect((await b.submit(flow, { method: 'test_code', test_code: `bad${i}` })).statusCode).toBe(400);
    const fifth = await b.submit(flow, { method: 'test_code', test_code: 'bad4' });
    expect(fifth.statusCode).toBe(410);
    expect(fifth.json().error.id).toBe('self_service_flow_expired');
    expect((await b.submit(flow, { method: 'test_code', test_code: '123456' })).statusCode).toBe(410);
    const failed = await t.db.query(`SELECT count(*)::int AS n FROM auth_events WHERE person_id = $1 AND type = 'login_failed'`, [p.id]);
    expect(failed.rows[0].n).toBe(5);
  });

  it('auth.mfa.required: a person without a second factor may only enrol, then reaches aal2', async () => {
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('auth.mfa.required', 'true')`);
    try {
      const p = await makePerson(t.db);
      const b = browser();
      const res = await b.signIn(p.email, p.password);
      expect(res.json().continue_with).toEqual([{ action: 'redirect_browser_to', redirect_browser_to: '/profile-settings' }]);
      expect((await b.get('/api/auth/whoami')).statusCode).toBe(200);
      const other = await b.get('/api/db/people');
      expect(other.statusCode).toBe(403);
      expect(other.json()).toMatchObject({ error: { id: 'session_aal2_required' }, redirect_browser_to: '/profile-settings' });
      const aal2 = await b.get('/api/.ory/self-service/login/browser?aal=aal2');
      expect(aal2.statusCode).toBe(422);
      expect(aal2.json().redirect_browser_to).toBe('/profile-settings');
      const settings = await b.flow('settings');
      const enrol = await b.submit(settings, { method: 'test_code' });
      expect(enrol.statusCode).toBe(200);
      expect(enrol.json().state).toBe('success');
      invalidatePrincipals();
      expect((await b.get('/api/db/people')).statusCode).toBe(200);
      expect((await b.get('/api/.ory/sessions/whoami')).json().authenticator_assurance_level).toBe('aal2');
    } finally {
      await t.db.query(`DELETE FROM properties WHERE name = 'auth.mfa.required'`);
    }
  });
});

describe('privileged sessions', () => {
  it('a password change needs a recent sign-in; it ends every other session', async () => {
    const p = await makePerson(t.db);
    const other = browser();
    await other.signIn(p.email, p.password);
    const b = browser();
    await b.signIn(p.email, p.password);
    await t.db.query(`UPDATE sessions SET authenticated_at = now() - interval '16 minutes' WHERE person_id = $1`, [p.id]);
    invalidatePrincipals();
    const flow = await b.flow('settings');
    const stale = await b.submit(flow, { method: 'password', password: 'a brand new secret' });
    expect(stale.statusCode).toBe(403);
    expect(stale.json()).toMatchObject({
      error: { id: 'session_refresh_required' }, redirect_browser_to: '/login?refresh=true&return_to=%2Fprofile-settings',
    });
    const refresh = await b.flow('login', 'refresh=true&return_to=/profile-settings');
    expect((await b.submit(refresh, { method: 'password', identifier: p.email, password: p.password })).statusCode).toBe(200);
    const short = await b.submit(flow, { method: 'password', password: 'short' });
    expect(short.statusCode).toBe(400);
    expect((short.json() as Flow).ui.nodes.find((n) => n.attributes.name === 'password' && n.group === 'password')!.messages[0].id).toBe(4000032);
    const ok = await b.submit(flow, { method: 'password', password: 'a brand new secret' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ state: 'success', ui: { messages: [{ id: 1050001, text: 'Your changes have been saved!' }] } });
    invalidatePrincipals();
    expect((await other.get('/api/auth/whoami')).statusCode).toBe(401);
    expect((await b.get('/api/auth/whoami')).statusCode).toBe(200);
    expect((await browser().signIn(p.email, 'a brand new secret')).statusCode).toBe(200);
    expect((await browser().signIn(p.email, p.password)).statusCode).toBe(400);
    const ev = await t.db.query(`SELECT details FROM auth_events WHERE person_id = $1 AND type = 'password_changed'`, [p.id]);
    expect(ev.rows[0].details).toEqual({ other_sessions_ended: 1 });
  });

  it('enrolling or removing a factor needs a privileged session too', async () => {
    const p = await makePerson(t.db);
    const b = browser();
    await b.signIn(p.email, p.password);
    await t.db.query(`UPDATE sessions SET authenticated_at = now() - interval '1 hour' WHERE person_id = $1`, [p.id]);
    invalidatePrincipals();
    const flow = await b.flow('settings');
    const res = await b.submit(flow, { method: 'test_code' });
    expect(res.json().error.id).toBe('session_refresh_required');
    expect(enrolled.has(p.id)).toBe(false);
  });
});
