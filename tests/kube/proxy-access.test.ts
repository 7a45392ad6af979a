import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Role } from '../../server/contracts/rbac.js';
import { bearerHeaders, createTestApp, makePerson, sessionHeaders, type TestContext } from '../server/helpers.js';

/**
 * Who may download a kubeconfig and use /kubeproxy, and what the file holds, without a cluster (KUBERNETES=off).
 * kubectl against a cluster is in proxy-kubectl.test.ts.
 */
let t: TestContext;
let https: TestContext;

beforeAll(async () => {
  [t, https] = await Promise.all([
    createTestApp({ KUBERNETES: 'off', PUBLIC_URL: 'http://console.test:8080' }),
    createTestApp({ KUBERNETES: 'off', PUBLIC_URL: 'https://ops.example.com/' }),
  ]);
});
afterAll(async () => {
  await Promise.all([t?.close(), https?.close()]);
});

const basic = (token: string) => ({ authorization: `Basic ${Buffer.from(`token:${token}`).toString('base64')}` });

interface Kubeconfig {
  clusters: { name: string; cluster: { server: string; 'insecure-skip-tls-verify'?: boolean } }[];
  users: { name: string; user: { username: string; password: string } }[];
  contexts: { name: string; context: { cluster: string; user: string } }[];
  'current-context': string;
}

describe('GET /api/kubeconfig', () => {
  it.each<[Role | 'none', number]>([
    ['admin', 200], ['editor', 200], ['commander', 403], ['responder', 403], ['viewer', 403], ['none', 403],
  ])('%s: %i', async (role, status) => {
    const p = await makePerson(t.db, { roles: role === 'none' ? [] : [role] });
    const res = await t.app.inject({ url: '/api/kubeconfig', headers: await sessionHeaders(t.db, p.id) });
    expect(res.statusCode).toBe(status);
    if (status === 403) {
      // and no token was minted for the refused caller
      const { rows } = await t.db.query('SELECT 1 FROM access_tokens WHERE created_by = $1', [p.id]);
      expect(rows).toHaveLength(0);
    }
  });

  it('answers 401 without credentials', async () => {
    expect((await t.app.inject({ url: '/api/kubeconfig' })).statusCode).toBe(401);
  });

  it('returns a kubeconfig attachment named after the public host, whose token signs the caller in', async () => {
    const admin = await makePerson(t.db, { roles: ['admin'] });
    const res = await t.app.inject({ url: '/api/kubeconfig', headers: await sessionHeaders(t.db, admin.id) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/yaml; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="console.test-kubeconfig.yaml"');
    expect(res.headers['cache-control']).toBe('no-store');

    const kc = parse(res.body) as Kubeconfig;
    const token = kc.users[0].user.password;
    // plain http: kubectl applies kubeconfig credentials only over TLS, so the token is in the server URL too
    expect(kc.clusters).toEqual([
      { name: 'ops-console-console.test', cluster: { server: `http://console.test:8080/kubeproxy/t/${encodeURIComponent(token)}`, 'insecure-skip-tls-verify': true } },
    ]);
    expect(kc.contexts).toEqual([
      { name: 'ops-console-console.test', context: { cluster: 'ops-console-console.test', user: 'ops-console-console.test' } },
    ]);
    expect(kc['current-context']).toBe('ops-console-console.test');
    const { username, password } = kc.users[0].user;
    expect(username).toBe('token');

    // the password is a working access token of this admin (Basic token:<t>, as kubectl sends it)
    const who = await t.app.inject({ url: '/api/auth/whoami', headers: basic(password) });
    expect(who.statusCode).toBe(200);
    expect(who.json().payload.roles).toEqual(['admin']);

    // listed among the admin's tokens, so it can be revoked, with the default 90-day expiry
    const listed: { name: string; expires_at: string; created_by: { id: string } | null }[] =
      (await t.app.inject({ url: '/api/auth/tokens', headers: await sessionHeaders(t.db, admin.id) })).json().payload;
    const tokens = listed.filter((x) => x.created_by?.id === admin.id); // an admin lists everyone's
    expect(tokens).toHaveLength(1);
    expect(tokens[0].name).toMatch(/^kubeconfig \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [0-9a-f]{4}$/);
    const days = (Date.parse(tokens[0].expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThanOrEqual(90);

    // a second download is a second token, not a name clash
    expect((await t.app.inject({ url: '/api/kubeconfig', headers: await sessionHeaders(t.db, admin.id) })).statusCode).toBe(200);
    const { rows } = await t.db.query('SELECT count(*)::int AS n FROM access_tokens WHERE created_by = $1', [admin.id]);
    expect(rows[0].n).toBe(2);
  });

  it('follows the access_token.default_expiry property', async () => {
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('access_token.default_expiry', '7d')`);
    try {
      const editor = await makePerson(t.db, { roles: ['editor'] });
      expect((await t.app.inject({ url: '/api/kubeconfig', headers: await sessionHeaders(t.db, editor.id) })).statusCode).toBe(200);
      const { rows } = await t.db.query<{ days: number }>(
        `SELECT extract(epoch FROM expires_at - now()) / 86400 AS days FROM access_tokens WHERE created_by = $1`, [editor.id],
      );
      expect(Number(rows[0].days)).toBeGreaterThan(6.9);
      expect(Number(rows[0].days)).toBeLessThanOrEqual(7);
    } finally {
      await t.db.query(`DELETE FROM properties WHERE name = 'access_token.default_expiry'`);
    }
  });

  it('keeps TLS verification on for an https public URL', async () => {
    const admin = await makePerson(https.db, { roles: ['admin'] });
    const res = await https.app.inject({ url: '/api/kubeconfig', headers: await sessionHeaders(https.db, admin.id) });
    expect(res.headers['content-disposition']).toBe('attachment; filename="ops.example.com-kubeconfig.yaml"');
    const kc = parse(res.body) as Kubeconfig;
    expect(kc.clusters[0].cluster).toEqual({ server: 'https://ops.example.com/kubeproxy' });
  });

  it('refuses access-token callers (tokens do not mint tokens) and cross-site requests', async () => {
    const admin = await makePerson(t.db, { roles: ['admin'] });
    const byToken = await t.app.inject({ url: '/api/kubeconfig', headers: await bearerHeaders(t.db, admin.id) });
    expect(byToken.statusCode).toBe(403);
    expect(byToken.json().message).toMatch(/sign in/);
    const crossSite = await t.app.inject({
      url: '/api/kubeconfig', headers: { ...(await sessionHeaders(t.db, admin.id)), 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.statusCode).toBe(403);
    const sameOrigin = await t.app.inject({
      url: '/api/kubeconfig', headers: { ...(await sessionHeaders(t.db, admin.id)), 'sec-fetch-site': 'same-origin' },
    });
    expect(sameOrigin.statusCode).toBe(200);
    const { rows } = await t.db.query('SELECT count(*)::int AS n FROM access_tokens WHERE created_by = $1', [admin.id]);
    expect(rows[0].n).toBe(2); // the bearer token of the test itself, and the same-origin download
  });
});

describe('/kubeproxy without a cluster', () => {
  it('answers 401 as a Kubernetes Status to a caller without a token, or with a bad one', async () => {
    for (const headers of [{}, basic('0123456789abcdef0123456789abcdef.not-a-real-secret-at-all'), { authorization: 'Basic dXNlcjpwdw==' }]) {
      const res = await t.app.inject({ url: '/kubeproxy/api?timeout=32s', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401 });
    }
  });

  it('answers 503 with a clear Status to a signed-in caller', async () => {
    const viewer = await makePerson(t.db, { roles: ['viewer'] });
    const res = await t.app.inject({ url: '/kubeproxy/apis/canaries.flanksource.com/v1/canaries', headers: await bearerHeaders(t.db, viewer.id) });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', code: 503 });
    expect(res.json().message).toMatch(/not connected to a Kubernetes cluster/);
  });

  it('takes any body type without parsing it, and still needs CSRF from a browser session', async () => {
    const editor = await makePerson(t.db, { roles: ['editor'] });
    const patch = {
      method: 'PATCH' as const, url: '/kubeproxy/apis/canaries.flanksource.com/v1/namespaces/default/canaries/a',
      payload: 'spec:\n  schedule: "@every 1m"\n',
    };
    const byToken = await t.app.inject({ ...patch, headers: { ...(await bearerHeaders(t.db, editor.id)), 'content-type': 'application/apply-patch+yaml' } });
    expect(byToken.statusCode).toBe(503); // reached the handler: no 415 for the unusual type, no 400 from a parser
    const session = await sessionHeaders(t.db, editor.id);
    const noCsrf = await t.app.inject({ ...patch, headers: { cookie: session.cookie, 'content-type': 'application/merge-patch+json' } });
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.json()).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
  });
});
