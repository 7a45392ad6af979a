import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOG_SERIALIZERS } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { checkOidcConfig } from '../../server/modules/auth/oidc/client.js';
import { createRoleMapper } from '../../server/modules/auth/oidc/role-mapping.js';
import { claimOrganizations } from '../../server/modules/auth/oidc/claims.js';
import { CookieJar, startOidcProvider, walkProvider, type OidcTestProvider } from '../support/oidc-provider.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

// Hosted mode against a real oidc-provider on loopback (behind a proxy that can rewrite its token answers).
const PUBLIC = 'http://localhost:8340';
const CALLBACK = `${PUBLIC}/api/auth/oidc/callback`;
const RULES = [
  { claim: 'realm_access.roles', value: 'console-admin*', role: 'admin' },
  { claim: 'groups', value: 'sre-*', role: 'editor', org: 'acme' },
];
const CEL = `has(claims.department) && claims.department == 'ops' && org.id == 'globex' ? ['responder'] : []`;

let provider: OidcTestProvider;
let t: TestContext;

function cookieOf(res: LightMyRequestResponse, name: string): string | undefined {
  const all = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const line = all.find((c) => c.startsWith(`${name}=`));
  const value = line?.split(';')[0].slice(name.length + 1);
  return value || undefined;
}

/** Starts a sign-in at the console and walks the provider as a browser would; returns the callback URL and state cookie. */
async function startAndWalk(sub: string | null, query = '', jar = new CookieJar()) {
  provider.loginAs = sub;
  const start = await t.app.inject({ url: `/api/auth/oidc/login${query}` });
  expect(start.statusCode).toBe(302);
  const state = cookieOf(start, 'oidc_state')!;
  const callback = await walkProvider(start.headers.location as string, CALLBACK, jar);
  return { callback, state };
}

async function finish(callback: string, state: string | undefined) {
  return t.app.inject({ url: callback.slice(PUBLIC.length), headers: state ? { cookie: `oidc_state=${state}` } : {} });
}

async function signIn(sub: string, query = '') {
  const { callback, state } = await startAndWalk(sub, query);
  const res = await finish(callback, state);
  return { res, session: cookieOf(res, 'session'), callback, state };
}

async function whoami(session: string) {
  return (await t.app.inject({ url: '/api/auth/whoami', headers: { cookie: `session=${session}` } })).json().payload;
}

const errorOf = (res: LightMyRequestResponse) => new URL(res.headers.location as string, PUBLIC).searchParams.get('oidc_error');

beforeAll(async () => {
  provider = await startOidcProvider({ redirectUris: [CALLBACK], postLogoutRedirectUris: [`${PUBLIC}/login`] });
  t = await createTestApp({
    AUTH_MODE: 'oidc', PUBLIC_URL: PUBLIC, OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId,
    OIDC_CLIENT_SECRET: provider.clientSecret, OIDC_DISPLAY_NAME: 'Acme SSO', OIDC_ROLE_MAPPING: JSON.stringify(RULES),
    OIDC_ROLE_MAPPER_CEL: CEL, OIDC_LOCAL_LOGIN: 'admins', SECRETS_KEY: randomBytes(32).toString('hex'),
  });
  const admin = await makePerson(t.db, { roles: ['admin'] });
  await t.db.query(`INSERT INTO teams (name, created_by) VALUES ('Platform', $1)`, [admin.id]);
  await t.db.query(`INSERT INTO teams (name, spec, created_by) VALUES ('Ops', '{"oidc_groups": ["sre-oncall"]}', $1)`, [admin.id]);
  provider.accounts.set('alice', {
    email: 'alice@acme.test', email_verified: true, name: 'Alice Liddell', given_name: 'Alice', family_name: 'Liddell',
    organization: { acme: { name: 'Acme' } }, groups: ['sre-oncall', 'Platform'], realm_access: { roles: ['console-admin-eu'] },
  });
});

afterAll(async () => {
  await t?.close();
  await provider?.stop();
});

describe('hosted mode (AUTH_MODE=oidc)', () => {
  it('GET /api/auth/config tells the login page to offer the provider and the break-glass form', async () => {
    const res = await t.app.inject({ url: '/api/auth/config' });
    expect(res.json()).toEqual({ mode: 'oidc', oidc: { display_name: 'Acme SSO', login_url: '/api/auth/oidc/login' }, local_login: 'admins' });
  });

  it('first sign-in creates the person, maps roles (dotted path + glob, org rule), joins teams by group, opens an oidc session', async () => {
    const { res, session } = await signIn('alice', '?return_to=/health');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/health');
    expect(session).toBeTruthy();
    const { rows: [p] } = await t.db.query(`SELECT id, name, email, type, external_id FROM people WHERE external_id = $1`, [`${provider.issuer}|alice`]);
    expect(p).toMatchObject({ name: 'Alice Liddell', email: 'alice@acme.test', type: 'user' });
    const me = await whoami(session!);
    expect(me.user.id).toBe(p.id);
    expect(me.roles.sort()).toEqual(['admin', 'editor']);
    expect(me.organization).toMatchObject({ external_id: 'acme', name: 'Acme' });
    expect(me.features['settings.users']).toBe(false);
    const { rows: [s] } = await t.db.query(`SELECT aal, methods, organization_id FROM sessions WHERE person_id = $1`, [p.id]);
    expect(s.aal).toBe('aal1');
    expect(s.methods[0]).toMatchObject({ method: 'oidc', aal: 'aal1' });
    expect(s.organization_id).toBe(me.organization.id);
    const { rows: teams } = await t.db.query(
      `SELECT t.name, m.source FROM team_members m JOIN teams t ON t.id = m.team_id WHERE m.person_id = $1 ORDER BY t.name`, [p.id]);
    expect(teams).toEqual([{ name: 'Ops', source: 'oidc' }, { name: 'Platform', source: 'oidc' }]);
    const { rows: ev } = await t.db.query(`SELECT type, method FROM auth_events WHERE person_id = $1`, [p.id]);
    expect(ev).toContainEqual({ type: 'oidc_login', method: 'oidc' });
    // the id_token is kept sealed, never in plain text
    const { rows: [o] } = await t.db.query(`SELECT id_token_sealed FROM oidc_sessions`);
    expect(o.id_token_sealed).toMatch(/^enc:v1:/);
  });

  it('the next sign-in re-syncs name, organisations (list form), roles and teams; switch applies an organisation\'s roles', async () => {
    provider.accounts.set('alice', {
      email: 'alice@acme.test', email_verified: true, name: 'Alice Pleasance', organization: ['acme', 'globex'],
      groups: ['Platform', 'sre-x'], department: 'ops', realm_access: { roles: [] },
    });
    const { session } = await signIn('alice');
    const me = await whoami(session!);
    expect(me.user.name).toBe('Alice Pleasance');
    // two organisations and none chosen: viewer until the gate's choice
    expect(me.organization).toBeNull();
    expect(me.roles).toEqual(['viewer']);
    const headers = { cookie: `session=${session}`, 'x-csrf-token': (await t.app.inject({ url: '/api/auth/csrf', headers: { cookie: `session=${session}` } })).json().csrf_token };
    const orgs = (await t.app.inject({ url: '/api/auth/organizations', headers })).json();
    expect(orgs.required).toBe(true);
    expect(orgs.active_organization_id).toBeNull();
    const byId = Object.fromEntries(orgs.organizations.map((o: { external_id: string; id: string; roles: string[] }) => [o.external_id, o]));
    expect(byId.acme.roles).toEqual(['editor']);
    expect(byId.globex.roles).toEqual(['responder']); // CEL
    const sw = await t.app.inject({ method: 'POST', url: '/api/auth/organizations/switch', headers, payload: { organization_id: byId.globex.id } });
    expect(sw.statusCode).toBe(200);
    expect((await whoami(session!)).roles).toEqual(['responder']);
    expect((await whoami(session!)).organization.name).toBe('globex');
    const other = await t.db.query<{ id: string }>(`INSERT INTO organizations (external_id, name) VALUES ('initech', 'Initech') RETURNING id`);
    const denied = await t.app.inject({ method: 'POST', url: '/api/auth/organizations/switch', headers, payload: { organization_id: other.rows[0].id } });
    expect(denied.statusCode).toBe(403);
    const { rows: teams } = await t.db.query(
      `SELECT t.name FROM team_members m JOIN teams t ON t.id = m.team_id JOIN people p ON p.id = m.person_id WHERE p.name = 'Alice Pleasance'`);
    expect(teams.map((r) => r.name)).toEqual(['Platform']); // the sre-oncall group went, so did Ops
  });

  it('links a local person by email only when the provider verified it', async () => {
    const bob = await makePerson(t.db, { email: 'bob@acme.test', roles: ['viewer'] });
    provider.accounts.set('bob', { email: 'bob@acme.test', email_verified: false, name: 'Bob' });
    const refused = await signIn('bob');
    expect(refused.res.statusCode).toBe(303);
    expect(errorOf(refused.res)).toMatch(/Acme SSO.*has not verified/);
    expect(refused.session).toBeUndefined();
    expect((await t.db.query(`SELECT 1 FROM sessions WHERE person_id = $1`, [bob.id])).rowCount).toBe(0);
    provider.accounts.set('bob', { email: 'bob@acme.test', email_verified: true, name: 'Bob Builder' });
    const linked = await signIn('bob');
    expect((await whoami(linked.session!)).user.id).toBe(bob.id);
    const { rows: [p] } = await t.db.query(`SELECT external_id FROM people WHERE id = $1`, [bob.id]);
    expect(p.external_id).toBe(`${provider.issuer}|bob`);
    // a second provider account with the same address does not take the person over
    provider.accounts.set('bob-2', { email: 'bob@acme.test', email_verified: true, name: 'Not Bob' });
    const other = await signIn('bob-2');
    expect(errorOf(other.res)).toMatch(/bob@acme\.test already belongs to another Acme SSO account/);
    expect(other.session).toBeUndefined();
  });

  it('refuses a wrong state, a callback without the browser\'s state cookie, and a replayed callback', async () => {
    const wrong = await t.app.inject({ url: '/api/auth/oidc/callback?code=x&state=bogus' });
    expect(errorOf(wrong)).toMatch(/Sign-in with Acme SSO failed: .*unknown.*Administrators can use the local sign-in/);
    const other = await startAndWalk('alice');
    const noCookie = await finish(other.callback, undefined);
    expect(errorOf(noCookie)).toMatch(/another browser/);
    const ok = await signIn('alice');
    expect(ok.session).toBeTruthy();
    const replay = await finish(ok.callback, ok.state);
    expect(errorOf(replay)).toMatch(/already used/);
    expect(cookieOf(replay, 'session')).toBeUndefined();
  });

  it('refuses a replayed code (a used code under a fresh state) and an expired state', async () => {
    const first = await signIn('alice');
    const second = await startAndWalk('alice');
    const code = new URL(first.callback).searchParams.get('code')!;
    const url = new URL(second.callback);
    url.searchParams.set('code', code);
    const replayed = await finish(url.href, second.state);
    expect(errorOf(replayed)).toMatch(/code was already used or has expired/);
    expect(cookieOf(replayed, 'session')).toBeUndefined();
    const late = await startAndWalk('alice');
    await t.db.query(`UPDATE oidc_auth_requests SET expires_at = now() - interval '1 minute'`);
    const expired = await finish(late.callback, late.state);
    expect(errorOf(expired)).toMatch(/took too long/);
  });

  it('refuses a tampered id_token (the proxy rewrites the token answer)', async () => {
    provider.rewriteToken = (body) => {
      const [h, p, s] = String(body.id_token).split('.');
      const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
      const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'mallory' })).toString('base64url');
      return { ...body, id_token: `${h}.${forged}.${s}` };
    };
    try {
      const { res, session } = await signIn('alice');
      expect(errorOf(res)).toMatch(/Acme SSO sent an answer that failed verification/);
      expect(session).toBeUndefined();
    } finally {
      provider.rewriteToken = null;
    }
    expect((await t.db.query(`SELECT 1 FROM people WHERE external_id LIKE '%|mallory'`)).rowCount).toBe(0);
  });

  it('prompt=none without a provider session goes quietly back to /login with return_to', async () => {
    const { callback, state } = await startAndWalk(null, '?prompt=none&return_to=/catalog');
    const res = await finish(callback, state);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/login?return_to=%2Fcatalog');
  });

  it('the local form is for administrators only; invites are off; logout answers the provider\'s logout URL', async () => {
    const admin = await makePerson(t.db, { roles: ['admin'] });
    const viewer = await makePerson(t.db, { roles: ['viewer'] });
    const ok = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: admin.email, password: admin.password } });
    expect(ok.statusCode).toBe(200);
    const no = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: viewer.email, password: viewer.password } });
    expect(no.statusCode).toBe(403);
    expect(no.json().error).toMatch(/sign in with Acme SSO/);
    const invite = await t.app.inject({
      method: 'POST', url: '/api/auth/invite_user', headers: await sessionHeaders(t.db, admin.id),
      payload: { firstName: 'A', lastName: 'B', email: 'ab@acme.test', role: 'viewer' },
    });
    expect(invite.statusCode).toBe(409);
    expect(invite.json().error).toMatch(/hosted mode \(AUTH_MODE=oidc\).*Acme SSO/);
    const { session } = await signIn('alice');
    const out = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie: `session=${session}` } });
    const logoutUrl = new URL(out.json().logout_url);
    expect(logoutUrl.origin).toBe(provider.issuer);
    expect(logoutUrl.searchParams.get('id_token_hint')).toMatch(/^ey/);
    expect(logoutUrl.searchParams.get('post_logout_redirect_uri')).toBe(`${PUBLIC}/login`);
    expect((await t.app.inject({ url: '/api/auth/whoami', headers: { cookie: `session=${session}` } })).statusCode).toBe(401);
  });

  it('provider stopped: no session, a message naming the provider', async () => {
    const { callback, state } = await startAndWalk('alice');
    await provider.stop();
    const res = await finish(callback, state);
    expect(errorOf(res)).toMatch(/Acme SSO is not reachable/);
    expect(cookieOf(res, 'session')).toBeUndefined();
    // a new sign-in is not sent to a dead provider: /login says so at once
    const start = await t.app.inject({ url: '/api/auth/oidc/login?return_to=/health' });
    expect(start.statusCode).toBe(303);
    expect(errorOf(start)).toMatch(/Sign-in with Acme SSO failed: Acme SSO is not reachable\. Administrators can use the local sign-in below\./);
    expect(new URL(start.headers.location as string, PUBLIC).searchParams.get('return_to')).toBe('/health');
  });
});

describe('hosted mode configuration and mapping', () => {
  it('refuses a plain-http issuer off loopback', () => {
    const cfg = loadConfig({ AUTH_MODE: 'oidc', OIDC_ISSUER: 'http://idp.example.com', OIDC_CLIENT_ID: 'c' });
    expect(() => checkOidcConfig(cfg)).toThrow(/plain http.*loopback/);
    expect(() => checkOidcConfig(loadConfig({ AUTH_MODE: 'oidc', OIDC_ISSUER: 'http://127.0.0.1:9', OIDC_CLIENT_ID: 'c' }))).not.toThrow();
  });

  it('keeps the callback\'s code and state out of the request log', () => {
    const req = { method: 'GET', url: '/api/auth/oidc/callback?code=abc123&state=s3cr3t&iss=x', host: 'h', ip: '127.0.0.1' };
    expect(LOG_SERIALIZERS.req(req as never).url).toBe('/api/auth/oidc/callback?code=[redacted]&state=[redacted]&iss=x');
  });

  it('reads organisations as a string, a list or an object keyed by id; maps roles by glob, dotted path and CEL', () => {
    expect(claimOrganizations({ o: 'acme' }, 'o')).toEqual([{ externalId: 'acme', name: 'acme' }]);
    expect(claimOrganizations({ o: { 'id-1': { name: 'Acme' } } }, 'o')).toEqual([{ externalId: 'id-1', name: 'Acme' }]);
    expect(claimOrganizations({}, 'o')).toBeNull();
    const m = createRoleMapper(JSON.stringify(RULES), `'x' in claims.groups ? {'role': 'commander'} : 'viewer'`);
    expect(m.rolesFor({ realm_access: { roles: ['console-admin'] }, groups: ['x'] }, null)).toEqual(['admin', 'commander']);
    expect(m.rolesFor({ groups: ['sre-a'] }, null)).toEqual(['viewer']);
    expect(m.rolesFor({ groups: ['sre-a'] }, { externalId: 'acme', name: 'Acme' })).toEqual(['editor', 'viewer']);
    expect(() => createRoleMapper('[{"claim": "g"}]', undefined)).toThrow(/OIDC_ROLE_MAPPING/);
    expect(() => createRoleMapper(undefined, 'claims.(')).toThrow(/OIDC_ROLE_MAPPER_CEL/);
  });
});

describe('hosted mode with OIDC_LOCAL_LOGIN=none and the provider down from the start', () => {
  let n: TestContext;
  beforeAll(async () => {
    n = await createTestApp({
      AUTH_MODE: 'oidc', PUBLIC_URL: PUBLIC, OIDC_ISSUER: 'http://127.0.0.1:9', OIDC_CLIENT_ID: 'console',
      OIDC_DISPLAY_NAME: 'Okta', OIDC_LOCAL_LOGIN: 'none',
    });
  });
  afterAll(async () => {
    await n?.close();
  });

  it('refuses every password sign-in, admins too, naming the provider; /login learns of the dead provider', async () => {
    expect((await n.app.inject({ url: '/api/auth/config' })).json().local_login).toBe('none');
    const admin = await makePerson(n.db, { roles: ['admin'] });
    const res = await n.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: admin.email, password: admin.password } });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('password sign-in is off: sign in with Okta');
    const start = await n.app.inject({ url: '/api/auth/oidc/login' });
    expect(new URL(start.headers.location as string, PUBLIC).searchParams.get('oidc_error')).toBe('Sign-in with Okta failed: Okta is not reachable.');
    // a local session sees no organisation gate
    const orgs = await n.app.inject({ url: '/api/auth/organizations', headers: await sessionHeaders(n.db, admin.id) });
    expect(orgs.json()).toEqual({ organizations: [], active_organization_id: null, required: false });
  });
});
