import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

describe('MODE=check-runner: the health view and the health API only', () => {
  let t: TestContext;
  let admin: Record<string, string>;
  let person: { email: string; password: string };

  beforeAll(async () => {
    t = await createTestApp({ MODE: 'check-runner' });
    const p = await makePerson(t.db, { roles: ['admin'] });
    person = p;
    admin = await sessionHeaders(t.db, p.id);
  });
  afterAll(async () => {
    await t.close();
  });

  it('signs in and answers whoami', async () => {
    const login = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: person.email, password: person.password } });
    expect(login.statusCode, login.body).toBe(200);
    const cookie = String(login.headers['set-cookie']).match(/session=[^;]+/)?.[0];
    expect(cookie).toBeTruthy();
    const who = await t.app.inject({ method: 'GET', url: '/api/auth/whoami', headers: { cookie: cookie! } });
    expect(who.statusCode, who.body).toBe(200);
    const about = await t.app.inject({ method: 'GET', url: '/api/about' });
    expect(about.json()).toMatchObject({ mode: 'check-runner' });
  });

  it('serves the health API, with the same runner (Run Now) and the health relations of /api/db', async () => {
    const created = await t.app.inject({
      method: 'POST', url: '/api/canary', headers: admin,
      payload: { name: 'runner', spec: { http: [{ name: 'closed', url: 'http://127.0.0.1:1/', timeout: '2s' }] } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const checkId = (created.json() as { checks: Array<{ id: string }> }).checks[0].id;
    const run = await t.app.inject({ method: 'POST', url: `/api/canary/run/check/${checkId}`, headers: admin });
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json()).toMatchObject({ pass: false, status: 'unhealthy' });
    const summary = await t.app.inject({ method: 'GET', url: '/api/canary/api/summary?window=1h', headers: admin });
    expect(summary.statusCode).toBe(200);
    expect((summary.json() as { checks_summary: Array<{ id: string }> }).checks_summary.map((c) => c.id)).toContain(checkId);
    for (const rel of ['checks', 'canaries', 'check_statuses', 'check_summary']) {
      const res = await t.app.inject({ method: 'GET', url: `/api/db/${rel}?limit=1`, headers: admin });
      expect(res.statusCode, `${rel}: ${res.body}`).toBe(200);
    }
  });

  it('has no other /api route', async () => {
    const absent: Array<['GET' | 'POST', string]> = [
      ['POST', '/api/auth/invite_user'], ['POST', '/api/auth/registration'], ['GET', '/api/db/teams'], ['GET', '/api/db/people'],
      ['GET', '/api/db/properties'], ['GET', '/api/db/rpc/search_people'], ['GET', '/api/people'], ['GET', '/api/properties'],
      // an embed cannot reach a relation outside the health set either
      ['GET', '/api/db/canaries?select=id,people(id)'],
    ];
    for (const [method, url] of absent) {
      const res = await t.app.inject({ method, url, headers: admin, payload: method === 'POST' ? {} : undefined });
      expect([400, 404], `${method} ${url}: ${res.statusCode} ${res.body}`).toContain(res.statusCode);
      if (!url.includes('select=')) expect(res.statusCode, url).toBe(404);
    }
  });

  it('serves the web application', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/health', headers: { accept: 'text/html' } });
    // 200 with index.html once `npm run build` ran, 503 with the "not built" page on a clean clone (vitest runs
    // before the Playwright suite builds the bundle); either way the SPA fallback answers, unlike the agent mode
    expect([200, 503], res.body.slice(0, 200)).toContain(res.statusCode);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });
});

describe('MODE=agent: no UI', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp({ MODE: 'agent', UPSTREAM_URL: 'http://127.0.0.1:9', AGENT_TOKEN: 'x.y' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('starts with its API and probes but without the web application', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/about' })).json()).toMatchObject({ mode: 'agent' });
    for (const url of ['/', '/health', '/index.html']) {
      const res = await t.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
      expect(res.statusCode, url).toBe(404);
    }
  });
});
