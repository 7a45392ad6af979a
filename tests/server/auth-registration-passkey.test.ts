import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { passkeysAvailable } from '../../server/modules/auth/factors/passkey-registration.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';
import { ClientBrowser, nextIp } from './mail-catcher.js';
import { nodeNames, nodeOf, type Flow } from './ory-browser.js';

// Invite-only registration with an optional passkey (issue 17): the registration flow offers Kratos' `passkey`
// method; the answer of a (software) authenticator creates the person with that passkey and no password, and the
// passkey then signs in on its own.

let t: TestContext;
const ORIGIN = 'https://console.example.test';

beforeAll(async () => {
  t = await createTestApp({ PUBLIC_URL: ORIGIN, LOGIN_RATE_LIMIT: '1000' });
});
afterAll(async () => {
  await t?.close();
});

const browser = () => new ClientBrowser(t.app, nextIp());

async function invite(email: string): Promise<string> {
  const admin = await makePerson(t.db, { roles: ['admin'] });
  const res = await t.app.inject({
    method: 'POST', url: '/api/auth/invite_user', headers: await sessionHeaders(t.db, admin.id),
    payload: { email, firstName: 'Ada', lastName: 'Lovelace', role: 'editor' },
  });
  expect(res.statusCode).toBe(200);
  return new URL(res.json().link).searchParams.get('invite')!;
}

const optionsOf = (flow: Flow) => String(nodeOf(flow, 'passkey_register_trigger')!.attributes.value);

async function identitiesWith(email: string) {
  const { rows } = await t.db.query<{ id: string }>(`SELECT id FROM identities WHERE lower(traits ->> 'email') = lower($1)`, [email]);
  return rows;
}

describe('registration with a passkey', () => {
  it('offers Kratos\' passkey nodes for the identity to be; the answer creates the person with the passkey, no password, aal2 when verified', async () => {
    const email = `ada-${Date.now()}@example.test`;
    const b = browser();
    const flow = await b.flow('registration', `invite=${await invite(email)}`);
    expect(nodeNames(flow)).toEqual(expect.arrayContaining(['password', 'passkey_register_trigger', 'passkey_register']));
    const trigger = nodeOf(flow, 'passkey_register_trigger')!;
    expect(trigger.group).toBe('passkey');
    expect(trigger.attributes).toMatchObject({ type: 'button', onclickTrigger: 'oryPasskeyRegistration' });
    expect((trigger as unknown as { meta: { label: { id: number; text: string } } }).meta.label).toMatchObject({ id: 1040007, text: 'Sign up with passkey' });
    expect(nodeOf(flow, 'passkey_register')!.attributes.type).toBe('hidden');
    const opts = JSON.parse(optionsOf(flow));
    expect(opts.rp.id).toBe('console.example.test');
    expect(opts.user.name).toBe(email);
    expect(opts.authenticatorSelection).toMatchObject({ residentKey: 'required' });
    // the options are stable across renders (a refetch does not void a ceremony under way)
    expect(JSON.parse(optionsOf((await b.get(`/api/.ory/self-service/registration/flows?id=${flow.id}`)).json())).challenge).toBe(opts.challenge);

    const phone = new SoftAuthenticator(ORIGIN, { userVerified: true });
    const res = await b.submit(flow, {
      method: 'passkey', passkey_register: JSON.stringify(phone.create(opts)), traits: { name: { first: 'Ada A.', last: 'Lovelace' } },
    });
    expect(res.statusCode, res.body).toBe(200);
    const personId = res.json().identity.id as string;
    expect(Buffer.from(personId.replace(/-/g, ''), 'hex').toString('base64url')).toBe(opts.user.id); // the promised user handle
    expect(res.json().identity.traits).toEqual({ email, name: { first: 'Ada A.', last: 'Lovelace' } });
    expect(res.json().session.authenticator_assurance_level).toBe('aal2');
    expect((await b.get('/api/auth/whoami')).json().payload.roles).toEqual(['editor']);
    const { rows: creds } = await t.db.query('SELECT is_passkey, user_verified FROM auth_webauthn_credentials WHERE person_id = $1', [personId]);
    expect(creds).toEqual([{ is_passkey: true, user_verified: true }]);
    const { rows: pw } = await t.db.query('SELECT 1 FROM identity_credentials WHERE identity_id = $1', [personId]);
    expect(pw).toHaveLength(0);
    const { rows: inv } = await t.db.query('SELECT accepted_at FROM invites WHERE lower(email) = lower($1)', [email]);
    expect(inv[0].accepted_at).not.toBeNull();

    // the passkey alone signs in (discoverable: no identifier asked)
    const later = browser();
    const login = await later.flow('login');
    const answer = phone.get(String(nodeOf(login, 'passkey_login_trigger')!.attributes.value));
    const signedIn = await later.submit(login, { method: 'passkey', passkey_login: JSON.stringify(answer) });
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    expect(signedIn.json().identity.id).toBe(personId);
    // and no password does
    const pwLogin = await browser().signIn(email, 'any password at all');
    expect(pwLogin.statusCode).toBe(400);
  });

  it('a wrong answer (another origin) is a 400 at the field with nothing stored; the challenge is single use; then a right one works (aal1 unverified)', async () => {
    const email = `bob-${Date.now()}@example.test`;
    const b = browser();
    const flow = await b.flow('registration', `invite=${await invite(email)}`);
    const opts = optionsOf(flow);
    const evil = new SoftAuthenticator('https://evil.example.test', { userVerified: true });
    const bad = await b.submit(flow, { method: 'passkey', passkey_register: JSON.stringify(evil.create(opts)) });
    expect(bad.statusCode).toBe(400);
    expect(nodeOf(bad.json(), 'passkey_register')!.messages[0]).toMatchObject({ text: 'The security key or passkey could not be added. Please try again.' });
    expect(await identitiesWith(email)).toHaveLength(0);
    // the old challenge was used up: an honest answer to it is refused too
    const key = new SoftAuthenticator(ORIGIN);
    const stale = await b.submit(flow, { method: 'passkey', passkey_register: JSON.stringify(key.create(opts)) });
    expect(stale.statusCode).toBe(400);
    expect(await identitiesWith(email)).toHaveLength(0);
    // a malformed answer names the field
    const junk = await b.submit(flow, { method: 'passkey', passkey_register: '{not json' });
    expect(junk.statusCode).toBe(400);
    expect(nodeOf(junk.json(), 'passkey_register')!.messages[0].id).toBe(4000001);
    // the flow as answered carries a new challenge
    const fresh = optionsOf(junk.json());
    expect(JSON.parse(fresh).challenge).not.toBe(JSON.parse(opts).challenge);
    const ok = await b.submit(flow, { method: 'passkey', passkey_register: JSON.stringify(key.create(fresh)) });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().session.authenticator_assurance_level).toBe('aal1');
    expect(ok.json().identity.traits.name).toEqual({ first: 'Ada', last: 'Lovelace' }); // the invite's names
    expect(await identitiesWith(email)).toHaveLength(1);
  });

  it('without an invite there is no passkey to register; a used invite refuses a passkey too', async () => {
    const b = browser();
    const flow = await b.flow('registration');
    expect(nodeNames(flow)).not.toContain('passkey_register_trigger');
    const res = await b.submit(flow, { method: 'passkey', passkey_register: '{}' });
    expect(res.statusCode).toBe(400);
    expect(nodeOf(res.json(), 'invite')!.messages[0].id).toBe(1040002);

    const email = `cy-${Date.now()}@example.test`;
    const token = await invite(email);
    const first = browser();
    const f1 = await first.flow('registration', `invite=${token}`);
    const second = browser();
    const f2 = await second.flow('registration', `invite=${token}`);
    expect((await first.submit(f1, { method: 'password', password: 'a long enough secret' })).statusCode).toBe(200);
    const late = await second.submit(f2, { method: 'passkey', passkey_register: JSON.stringify(new SoftAuthenticator(ORIGIN).create(optionsOf(f2))) });
    expect(late.statusCode).toBe(400);
    expect(late.json().ui.messages[0].id).toBe(4000001);
    expect(await identitiesWith(email)).toHaveLength(1);
    const { rows } = await t.db.query(
      `SELECT count(*)::int AS n FROM auth_webauthn_credentials c JOIN identities i ON i.id = c.person_id WHERE lower(i.traits ->> 'email') = lower($1)`,
      [email],
    );
    expect(rows[0].n).toBe(0);
  });

  it('is offered only where browsers can use WebAuthn: a host name or loopback, not an IP address', () => {
    const cfg = (url: string) => loadConfig({ PUBLIC_URL: url, DATABASE_URL: 'postgres://x@localhost/x' });
    expect(passkeysAvailable(cfg('https://ops.example.com'))).toBe(true);
    expect(passkeysAvailable(cfg('http://localhost:8080'))).toBe(true);
    expect(passkeysAvailable(cfg('http://127.0.0.1:8080'))).toBe(true);
    expect(passkeysAvailable(cfg('http://10.1.2.3:8080'))).toBe(false);
    expect(passkeysAvailable(cfg('http://[fd00::1]:8080'))).toBe(false);
  });
});
