import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeaders, createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_RATE_LIMIT: '1000', SESSION_TTL_HOURS: '12' });
});
afterAll(() => t.close());

function login(payload: Record<string, unknown>, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'POST', url: '/api/auth/login', payload, headers });
}

/** Cookie and CSRF headers from a login answer. */
function sessionOf(res: Awaited<ReturnType<typeof login>>) {
  const cookie = res.cookies.find((c) => c.name === 'session')!;
  return { cookie: `session=${cookie.value}`, 'x-csrf-token': res.json().csrf_token as string };
}

describe('POST /api/auth/login', () => {
  it('signs in by email, case-insensitively, and sets a hardened session cookie', async () => {
    const p = await makePerson(t.db, { roles: ['editor'] });
    const res = await login({ username: p.email.toUpperCase(), password: p.password });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ message: 'success', csrf_token: expect.any(String), roles: ['editor'] });
    expect(body.user).toEqual({ id: p.id, name: 'Test User', email: p.email });
    const cookie = res.cookies.find((c) => c.name === 'session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', maxAge: 12 * 3600 });
    expect(cookie.secure).toBeFalsy();
    const { rows } = await t.db.query('SELECT last_login FROM people WHERE id = $1', [p.id]);
    expect(rows[0].last_login).not.toBeNull();
    const who = await t.app.inject({ url: '/api/auth/whoami', headers: { cookie: `session=${cookie.value}` } });
    expect(who.json().payload.user.id).toBe(p.id);
  });

  it('signs in by name, case-insensitively', async () => {
    const p = await makePerson(t.db, { first: 'Ada', last: 'Lovelace-Byname' });
    const res = await login({ username: 'ada lovelace-BYNAME', password: p.password });
    expect(res.statusCode).toBe(200);
    expect(res.json().user.id).toBe(p.id);
    expect(res.json().roles).toEqual(['viewer']);
  });

  it('accepts a url-encoded form, and sends an HTML form on to return_to', async () => {
    const p = await makePerson(t.db);
    const form = new URLSearchParams({ username: p.email, password: p.password, return_to: '/health?x=1' });
    const json = await t.app.inject({
      method: 'POST', url: '/api/auth/login', payload: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(json.statusCode).toBe(200);
    expect(json.json().return_to).toBe('/health?x=1');
    const html = await t.app.inject({
      method: 'POST', url: '/api/auth/login', payload: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    });
    expect(html.statusCode).toBe(303);
    expect(html.headers.location).toBe('/health?x=1');
    expect(html.cookies.find((c) => c.name === 'session')).toBeDefined();
  });

  it('refuses a wrong password or an unknown user with the same 401', async () => {
    const p = await makePerson(t.db);
    for (const payload of [{ username: p.email, password: 'wrong password' }, { username: 'nobody@x.test', password: 'x' }]) {
      const res = await login(payload);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ error: 'invalid credentials' });
      expect(res.cookies).toHaveLength(0);
    }
  });

  it('refuses an inactive user and a deleted person', async () => {
    const inactive = await makePerson(t.db);
    await t.db.query(`UPDATE identities SET state = 'inactive' WHERE id = $1`, [inactive.id]);
    const deleted = await makePerson(t.db);
    await t.db.query('UPDATE people SET deleted_at = now() WHERE id = $1', [deleted.id]);
    for (const p of [inactive, deleted]) {
      const res = await login({ username: p.email, password: p.password });
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toBe('invalid credentials');
    }
  });

  it('answers a missing field with 400', async () => {
    const res = await login({ username: 'someone' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('password is required');
  });

  it('replaces the session the browser already had', async () => {
    const p = await makePerson(t.db);
    const first = sessionOf(await login({ username: p.email, password: p.password }));
    const second = await login({ username: p.email, password: p.password }, { cookie: first.cookie });
    expect(second.statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/auth/whoami', headers: first })).statusCode).toBe(401);
  });
});

describe('return_to', () => {
  it('echoes a same-origin path, and treats null as absent', async () => {
    const p = await makePerson(t.db);
    const none = await login({ username: p.email, password: p.password, return_to: null });
    expect(none.statusCode).toBe(200);
    expect(none.json()).not.toHaveProperty('return_to');
    for (const path of ['/', '/health?checkId=1&timeRange=1h', '/catalog/abc#x']) {
      const res = await login({ username: p.email, password: p.password, return_to: path });
      expect(res.statusCode).toBe(200);
      expect(res.json().return_to).toBe(path);
    }
  });

  it('refuses anything that could leave the site, before signing in', async () => {
    const p = await makePerson(t.db);
    const bad = ['//evil.example', '/\\evil.example', '\\\\evil.example', 'https://evil.example/', 'javascript:alert(1)',
      'health', '/\t/evil.example', '/%0a', ''];
    for (const path of bad) {
      const res = await login({ username: p.email, password: p.password, return_to: path });
      if (path === '/%0a') {
        expect(res.statusCode).toBe(200); // percent-encoded: still a path on this site
        continue;
      }
      expect(res.statusCode, path).toBe(400);
      expect(res.json().error).toMatch(/return_to/);
      expect(res.cookies).toHaveLength(0);
    }
  });
});

describe('CSRF', () => {
  it('is required for cookie-authenticated writes', async () => {
    const p = await makePerson(t.db);
    const s = sessionOf(await login({ username: p.email, password: p.password }));
    const payload = { name: 'ci', expiry: '1d' };
    const without = await t.app.inject({ method: 'POST', url: '/api/auth/create_token', payload, headers: { cookie: s.cookie } });
    expect(without.statusCode).toBe(403);
    expect(without.json().error).toMatch(/CSRF/);
    const wrong = await t.app.inject({
      method: 'POST', url: '/api/auth/create_token', payload, headers: { cookie: s.cookie, 'x-csrf-token': 'f'.repeat(64) },
    });
    expect(wrong.statusCode).toBe(403);
    const ok = await t.app.inject({ method: 'POST', url: '/api/auth/create_token', payload, headers: s });
    expect(ok.statusCode).toBe(200);
  });

  it('is not needed with a bearer token or Basic token:<t>', async () => {
    const admin = await makePerson(t.db, { roles: ['admin'] });
    const bearer = await bearerHeaders(t.db, admin.id);
    const payload = { firstName: 'No', lastName: 'Csrf', email: `nocsrf-${Date.now()}@example.test`, role: 'viewer' };
    const viaBearer = await t.app.inject({ method: 'POST', url: '/api/auth/invite_user', payload, headers: bearer });
    expect(viaBearer.statusCode).toBe(200);
    const token = bearer.authorization.slice('Bearer '.length);
    const basic = { authorization: `Basic ${Buffer.from(`token:${token}`).toString('base64')}` };
    const viaBasic = await t.app.inject({ method: 'POST', url: '/api/auth/invite_user', payload, headers: basic });
    expect(viaBasic.statusCode).toBe(200);
  });

  it('can be fetched again with GET /api/auth/csrf', async () => {
    const p = await makePerson(t.db);
    const res = await login({ username: p.email, password: p.password });
    const s = sessionOf(res);
    const again = await t.app.inject({ url: '/api/auth/csrf', headers: { cookie: s.cookie } });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ csrf_token: s['x-csrf-token'] });
    expect((await t.app.inject({ url: '/api/auth/csrf' })).statusCode).toBe(401);
  });
});

describe('POST /api/auth/logout', () => {
  it('ends the session and clears the cookie', async () => {
    const p = await makePerson(t.db);
    const s = sessionOf(await login({ username: p.email, password: p.password }));
    expect((await t.app.inject({ url: '/api/auth/whoami', headers: s })).statusCode).toBe(200);
    const out = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: s });
    expect(out.statusCode).toBe(200);
    expect(out.json()).toEqual({ message: 'logged out' });
    const cleared = out.cookies.find((c) => c.name === 'session')!;
    expect(cleared.value).toBe('');
    expect(cleared.expires!.getTime()).toBeLessThan(Date.now());
    expect((await t.app.inject({ url: '/api/auth/whoami', headers: s })).statusCode).toBe(401);
    const { rows } = await t.db.query('SELECT count(*)::int AS n FROM sessions WHERE person_id = $1', [p.id]);
    expect(rows[0].n).toBe(0);
  });

  it('answers without a session too', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/logout' });
    expect(res.statusCode).toBe(200);
  });
});

describe('GET /api/auth/whoami', () => {
  it('describes the user, roles, permissions, features and host', async () => {
    const p = await makePerson(t.db, { roles: ['responder'] });
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('health.disable', 'true'), ('logs.disable', 'false')`);
    const res = await t.app.inject({ url: '/api/auth/whoami', headers: await sessionHeaders(t.db, p.id) });
    await t.db.query(`DELETE FROM properties WHERE name IN ('health.disable', 'logs.disable')`);
    expect(res.statusCode).toBe(200);
    const { message, payload } = res.json();
    expect(message).toBe('success');
    expect(payload.user).toMatchObject({ id: p.id, name: 'Test User', email: p.email, type: 'identity' });
    expect(payload.user).not.toHaveProperty('deleted_at');
    expect(payload.roles).toEqual(['responder']);
    expect(payload.permissions).toContainEqual({ subject: p.id, object: 'incident', action: 'write' });
    expect(payload.permissions).toContainEqual({ subject: p.id, object: 'canaries', action: 'read' });
    expect(payload.permissions).not.toContainEqual({ subject: p.id, object: 'canaries', action: 'write' });
    expect(payload.permissions).not.toContainEqual(expect.objectContaining({ object: 'identities' }));
    expect(payload.features).toMatchObject({ health: false, 'settings.health': false, 'settings.job_history': false, logs: true });
    expect(payload.hostname).toEqual(expect.any(String));
  });

  it('answers 401 with a JSON error when not signed in or with a bad credential', async () => {
    for (const headers of [{}, { cookie: 'session=nope' }, { authorization: 'Bearer nope' }]) {
      const res = await t.app.inject({ url: '/api/auth/whoami', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ error: expect.any(String) });
    }
  });
});

describe('GET /api/properties', () => {
  it('returns live properties as a map to any signed-in user', async () => {
    const p = await makePerson(t.db);
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('a.prop', 'one'), ('b.prop', 'two')`);
    await t.db.query(`INSERT INTO properties (name, value, deleted_at) VALUES ('gone.prop', 'x', now())`);
    const res = await t.app.inject({ url: '/api/properties', headers: await sessionHeaders(t.db, p.id) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ 'a.prop': 'one', 'b.prop': 'two' });
    expect(res.json()).not.toHaveProperty('gone.prop');
    expect((await t.app.inject({ url: '/api/properties' })).statusCode).toBe(401);
  });
});

describe('security headers', () => {
  it('sends a CSP and framing protection', async () => {
    const res = await t.app.inject({ url: '/api/about' });
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("worker-src 'self' blob:");
    expect(csp).toContain("connect-src 'self' ws: wss:");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("img-src 'self' data:");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });

  it('lets pages of the same origin frame the bare /view/ pages only', async () => {
    for (const url of ['/view/topology/00000000-0000-4000-8000-000000000001', '/view/topology/x?refererId=y']) {
      const res = await t.app.inject({ url });
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'self'");
      expect(res.headers['content-security-policy']).not.toContain("frame-ancestors 'none'");
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    }
    for (const url of ['/topology', '/viewer', '/api/topology']) {
      const res = await t.app.inject({ url });
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
  });
});

describe('behind an https public URL', () => {
  it('marks the cookie Secure and sends HSTS', async () => {
    const https = await createTestApp({ PUBLIC_URL: 'https://console.example.com' });
    try {
      const p = await makePerson(https.db);
      const res = await https.app.inject({
        method: 'POST', url: '/api/auth/login', payload: { username: p.email, password: p.password },
      });
      expect(res.cookies.find((c) => c.name === 'session')!.secure).toBe(true);
      expect(res.headers['strict-transport-security']).toMatch(/max-age=/);
      expect(res.headers['content-security-policy']).toContain('upgrade-insecure-requests');
    } finally {
      await https.close();
    }
  });
});

describe('login rate limit', () => {
  it('answers 429 JSON after LOGIN_RATE_LIMIT attempts a minute from one address', async () => {
    const limited = await createTestApp({ LOGIN_RATE_LIMIT: '3' });
    try {
      const attempt = (remoteAddress: string) => limited.app.inject({
        method: 'POST', url: '/api/auth/login', payload: { username: 'x@y.test', password: 'bad' }, remoteAddress,
      });
      for (let i = 0; i < 3; i++) expect((await attempt('10.0.0.1')).statusCode).toBe(401);
      const blocked = await attempt('10.0.0.1');
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json()).toMatchObject({ error: expect.stringMatching(/too many attempts/) });
      expect(blocked.headers['retry-after']).toBeDefined();
      // another client is not affected
      expect((await attempt('10.0.0.2')).statusCode).toBe(401);
    } finally {
      await limited.close();
    }
  });
});
