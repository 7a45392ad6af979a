import type { FastifyReply, FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UiNode, UiNodeInputAttributes } from '../../server/contracts/identity.js';
import { passkeyFactor } from '../../server/modules/auth/factors/passkey.js';
import { relyingParty } from '../../server/modules/auth/factors/webauthn-common.js';
import { webauthnFactor } from '../../server/modules/auth/factors/webauthn.js';
import { FlowValidationError, type FlowContext, type StoredFlow } from '../../server/modules/auth/flows/types.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import { bearerHeaders, createTestApp, makePerson, sessionHeaders, type TestContext, type TestPerson } from './helpers.js';
import { nodeOf, OryBrowser, type Flow } from './ory-browser.js';

// The factors against a real database, with flows made by hand (the engine's own tests drive /api/.ory).
let t: TestContext;
let alice: TestPerson;
let bob: TestPerson;
const ORIGIN = 'https://console.example.test';
let lastRefusal = '';

beforeAll(async () => {
  t = await createTestApp({ PUBLIC_URL: ORIGIN });
  alice = await makePerson(t.db, { first: 'Alice' });
  bob = await makePerson(t.db, { first: 'Bob' });
});
afterAll(async () => {
  await t?.close();
});

/** A flow row and the context a factor gets for one request on it. */
async function flowContext(type: 'login' | 'settings', personId: string | null, refresh = false): Promise<FlowContext> {
  const { rows } = await t.db.query<StoredFlow>(
    `INSERT INTO auth_flows (type, person_id, csrf_hash, refresh, expires_at)
     VALUES ($1, $2, 'x', $3, now() + interval '1 hour') RETURNING *`,
    [type, personId, refresh],
  );
  const flow = rows[0];
  // the factor logs why it refused (the user only sees one message): the tests check the reason
  const log = { info: (o: { why?: string; err?: Error }) => { lastRefusal = o.why ?? o.err?.message ?? ''; }, warn() {}, error() {}, debug() {} };
  const req = { ip: '127.0.0.1', headers: { 'user-agent': 'vitest' }, log } as unknown as FastifyRequest;
  return {
    db: t.db, config: t.config, req, reply: {} as FastifyReply, flow, personId,
    session: personId ? { id: '00000000-0000-0000-0000-000000000000', aal: 'aal1', authenticatedAt: new Date() } : null,
    async saveData(patch) {
      Object.assign(flow.data, patch);
      await t.db.query('UPDATE auth_flows SET data = data || $2 WHERE id = $1', [flow.id, patch]);
    },
    countAttempt: async () => 1,
  };
}

const attrs = (n: UiNode) => n.attributes as UiNodeInputAttributes;
const node = (nodes: UiNode[], name: string) => {
  const n = nodes.find((x) => attrs(x).name === name);
  if (!n) throw new Error(`no node ${name} in ${nodes.map((x) => attrs(x).name).join(', ')}`);
  return n;
};
const options = (nodes: UiNode[], trigger: string) => String(attrs(node(nodes, trigger)).value);

async function refused(p: Promise<unknown>, field: string, why?: RegExp): Promise<void> {
  lastRefusal = '';
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(FlowValidationError);
  expect((err as FlowValidationError).field).toBe(field);
  if (why) expect(lastRefusal).toMatch(why);
}

async function credentialRows(personId: string) {
  const { rows } = await t.db.query<{ id: string; name: string; counter: string; is_passkey: boolean; user_verified: boolean; last_used_at: Date | null }>(
    'SELECT id, name, counter, is_passkey, user_verified, last_used_at FROM auth_webauthn_credentials WHERE person_id = $1 ORDER BY created_at',
    [personId],
  );
  return rows;
}

/** Adds a security key (or a passkey) for the person through a settings flow. */
async function enrol(auth: SoftAuthenticator, personId: string, passkey: boolean, name: string) {
  const factor = passkey ? passkeyFactor : webauthnFactor;
  const ctx = await flowContext('settings', personId);
  const nodes = await factor.settingsNodes!(ctx);
  const response = auth.create(options(nodes, passkey ? 'passkey_register_trigger' : 'webauthn_register_trigger'));
  const field = passkey ? 'passkey_settings_register' : 'webauthn_register';
  const out = await factor.settings!(ctx, {
    method: factor.method, [field]: JSON.stringify(response), [`${factor.method}_register_displayname`]: name,
  });
  expect(out).toEqual({ kind: 'show', messages: [expect.objectContaining({ id: 1050001 })] });
  return auth.credentials.at(-1)!;
}

describe('security keys (second factor)', () => {
  const key = new SoftAuthenticator(ORIGIN);

  it('a loopback IP public URL makes localhost the relying party (browsers refuse an IP as RP ID)', () => {
    expect(relyingParty({ ...t.config, publicUrl: 'http://127.0.0.1:8304' })).toEqual({ rpID: 'localhost', origins: ['http://localhost:8304'] });
    expect(relyingParty(t.config)).toEqual({ rpID: 'console.example.test', origins: [ORIGIN] });
  });

  it('registers through settings: name, options with the relying party, the answer saved with its name', async () => {
    const ctx = await flowContext('settings', alice.id);
    const nodes = await webauthnFactor.settingsNodes!(ctx);
    expect(nodes.map((n) => [attrs(n).name, attrs(n).type])).toEqual([
      ['webauthn_register_displayname', 'text'], ['webauthn_register_trigger', 'button'], ['webauthn_register', 'hidden'],
    ]);
    const trigger = attrs(node(nodes, 'webauthn_register_trigger'));
    expect(trigger.onclickTrigger).toBe('oryWebAuthnRegistration');
    const opts = JSON.parse(String(trigger.value));
    expect(opts).toMatchObject({ rp: { id: 'console.example.test' }, attestation: 'none', user: { name: alice.email } });
    // rendering the flow again keeps the same challenge (a refetch must not void a ceremony under way)
    expect(JSON.parse(options(await webauthnFactor.settingsNodes!(ctx), 'webauthn_register_trigger')).challenge).toBe(opts.challenge);

    expect(await webauthnFactor.enrolled(t.db, alice.id)).toBe(false);
    const out = await webauthnFactor.settings!(ctx, {
      method: 'webauthn', webauthn_register: JSON.stringify(key.create(opts)), webauthn_register_displayname: 'YubiKey 5',
    });
    expect(out).toEqual({ kind: 'show', messages: [expect.objectContaining({ id: 1050001, type: 'success' })] });
    expect(await credentialRows(alice.id)).toEqual([expect.objectContaining({ name: 'YubiKey 5', is_passkey: false, counter: '0' })]);
    expect(await webauthnFactor.enrolled(t.db, alice.id)).toBe(true);
    expect(await passkeyFactor.enrolled(t.db, alice.id)).toBe(false);

    // listed with a remove button whose label tells name and dates; the next key excludes this one
    const again = await webauthnFactor.settingsNodes!(ctx);
    const remove = node(again, 'webauthn_remove');
    expect(remove.meta.label).toMatchObject({ id: 1050018, text: 'Remove security key "YubiKey 5"', context: { display_name: 'YubiKey 5', last_used_at: null } });
    expect(JSON.parse(options(again, 'webauthn_register_trigger')).excludeCredentials).toHaveLength(1);
    const { rows } = await t.db.query("SELECT type, method FROM auth_events WHERE person_id = $1 AND type = 'webauthn_added'", [alice.id]);
    expect(rows).toEqual([{ type: 'webauthn_added', method: 'webauthn' }]);
  });

  it('the registration challenge is single use; a wrong origin is refused', async () => {
    const ctx = await flowContext('settings', alice.id);
    const opts = options(await webauthnFactor.settingsNodes!(ctx), 'webauthn_register_trigger');
    const other = new SoftAuthenticator('https://evil.example.test');
    await refused(webauthnFactor.settings!(ctx, { method: 'webauthn', webauthn_register: JSON.stringify(other.create(opts)) }), 'webauthn_register', /origin/i);
    // the challenge went with the refused answer: a good answer to it is refused too
    await refused(webauthnFactor.settings!(ctx, { method: 'webauthn', webauthn_register: JSON.stringify(key.create(opts)) }), 'webauthn_register');
    await refused(webauthnFactor.settings!(ctx, { method: 'webauthn', webauthn_register: '{not json' }), 'webauthn_register');
    await refused(webauthnFactor.settings!(ctx, { method: 'webauthn' }), 'webauthn_register');
    expect(await credentialRows(alice.id)).toHaveLength(1);
  });

  it('signs in as the second factor: aal2, counter and last use recorded; a replayed answer is refused', async () => {
    expect(await webauthnFactor.loginNodes!(await flowContext('login', null))).toEqual([]);
    const ctx = await flowContext('login', alice.id);
    const nodes = await webauthnFactor.loginNodes!(ctx);
    expect(nodes.map((n) => attrs(n).name)).toEqual(['webauthn_login_trigger', 'webauthn_login']);
    const opts = JSON.parse(options(nodes, 'webauthn_login_trigger'));
    expect(opts.allowCredentials).toEqual([expect.objectContaining({ id: key.credentials[0].id.toString('base64url') })]);
    const answer = JSON.stringify(key.get(opts));
    expect(await webauthnFactor.login!(ctx, { method: 'webauthn', webauthn_login: answer })).toEqual({ personId: alice.id, aal: 'aal2' });
    expect(await credentialRows(alice.id)).toEqual([expect.objectContaining({ counter: '1', last_used_at: expect.any(Date) })]);

    await refused(webauthnFactor.login!(ctx, { method: 'webauthn', webauthn_login: answer }), 'webauthn_login', /no challenge/);
    // a fresh flow's challenge is not the one signed either
    const ctx2 = await flowContext('login', alice.id);
    await webauthnFactor.loginNodes!(ctx2);
    await refused(webauthnFactor.login!(ctx2, { method: 'webauthn', webauthn_login: answer }), 'webauthn_login', /challenge/i);
  });

  it('a wrong signature is refused and uses up the challenge', async () => {
    const ctx = await flowContext('login', alice.id);
    const opts = options(await webauthnFactor.loginNodes!(ctx), 'webauthn_login_trigger');
    const answer = key.get(opts) as { response: { signature: string } };
    const sig = Buffer.from(answer.response.signature, 'base64url');
    sig[sig.length - 1] ^= 0xff;
    await refused(webauthnFactor.login!(ctx, { method: 'webauthn', webauthn_login: { ...answer, response: { ...answer.response, signature: sig.toString('base64url') } } }), 'webauthn_login', /^signature$/);
    // the next render offers a new challenge, which the untampered answer to the old one does not fit
    const fresh = JSON.parse(options(await webauthnFactor.loginNodes!(ctx), 'webauthn_login_trigger'));
    expect(fresh.challenge).not.toBe(JSON.parse(opts).challenge);
    await refused(webauthnFactor.login!(ctx, { method: 'webauthn', webauthn_login: JSON.stringify(key.get(opts)) }), 'webauthn_login');
  });

  it('a counter that does not move forward (a cloned key) is refused', async () => {
    const ctx = await flowContext('login', alice.id);
    const opts = options(await webauthnFactor.loginNodes!(ctx), 'webauthn_login_trigger');
    const stored = Number((await credentialRows(alice.id))[0].counter);
    key.credentials[0].counter = stored - 1; // the next assertion signs counter = stored
    await refused(webauthnFactor.login!(ctx, { method: 'webauthn', webauthn_login: JSON.stringify(key.get(opts)) }), 'webauthn_login', /counter/i);
    const ctx2 = await flowContext('login', alice.id);
    const opts2 = options(await webauthnFactor.loginNodes!(ctx2), 'webauthn_login_trigger');
    key.credentials[0].counter = stored + 5;
    expect(await webauthnFactor.login!(ctx2, { method: 'webauthn', webauthn_login: JSON.stringify(key.get(opts2)) })).toEqual({ personId: alice.id, aal: 'aal2' });
    expect((await credentialRows(alice.id))[0].counter).toBe(String(stored + 6));
  });

  it("another person's key is refused, and nobody removes another's key", async () => {
    const ctx = await flowContext('login', bob.id);
    // Bob has none: no nodes; an answer by Alice's key to Bob's flow is refused
    expect(await webauthnFactor.loginNodes!(ctx)).toEqual([]);
    await webauthnFactor.loginNodes!(await flowContext('login', alice.id));
    const bobKey = new SoftAuthenticator(ORIGIN);
    await enrol(bobKey, bob.id, false, 'Bob key');
    const opts = JSON.parse(options(await webauthnFactor.loginNodes!(ctx), 'webauthn_login_trigger'));
    await refused(webauthnFactor.login!(ctx, { method: 'webauthn', webauthn_login: JSON.stringify(key.get(opts, key.credentials[0])) }), 'webauthn_login', /another person's credential/);

    const aliceKeyId = (await credentialRows(alice.id))[0].id;
    await refused(webauthnFactor.settings!(await flowContext('settings', bob.id), { method: 'webauthn', webauthn_remove: aliceKeyId }), 'webauthn_remove');
    expect(await credentialRows(alice.id)).toHaveLength(1);
  });

  it('removes a key through settings, and reset removes the rest', async () => {
    const carol = await makePerson(t.db);
    const k = new SoftAuthenticator(ORIGIN);
    await enrol(k, carol.id, false, 'one');
    await enrol(k, carol.id, false, 'two');
    await enrol(new SoftAuthenticator(ORIGIN, { userVerified: true }), carol.id, true, 'phone');
    const [one] = await credentialRows(carol.id);
    const out = await webauthnFactor.settings!(await flowContext('settings', carol.id), { method: 'webauthn', webauthn_remove: one.id });
    expect(out.kind).toBe('show');
    expect((await credentialRows(carol.id)).map((r) => r.name)).toEqual(['two', 'phone']);
    const { rows } = await t.db.query("SELECT details->>'name' AS name FROM auth_events WHERE person_id = $1 AND type = 'webauthn_removed'", [carol.id]);
    expect(rows).toEqual([{ name: 'one' }]);

    const client = await t.db.connect();
    try {
      await webauthnFactor.reset!(client, carol.id);
    } finally {
      client.release();
    }
    expect((await credentialRows(carol.id)).map((r) => r.name)).toEqual(['phone']);
  });
});

describe('passkeys (first factor)', () => {
  const phone = new SoftAuthenticator(ORIGIN, { userVerified: true });
  const plainKey = new SoftAuthenticator(ORIGIN, { userVerified: false });
  let dave: TestPerson;
  beforeAll(async () => {
    dave = await makePerson(t.db, { first: 'Dave' });
  });

  it('registers a discoverable credential through settings', async () => {
    const ctx = await flowContext('settings', dave.id);
    const nodes = await passkeyFactor.settingsNodes!(ctx);
    expect(nodes.map((n) => attrs(n).name)).toEqual(['passkey_register_displayname', 'passkey_register_trigger', 'passkey_settings_register']);
    const opts = JSON.parse(options(nodes, 'passkey_register_trigger'));
    expect(opts.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'preferred' });
    expect(opts.user.id).toBe(Buffer.from(dave.id.replace(/-/g, ''), 'hex').toString('base64url'));
    await passkeyFactor.settings!(ctx, { method: 'passkey', passkey_settings_register: JSON.stringify(phone.create(opts)), passkey_register_displayname: 'Phone' });
    expect(await credentialRows(dave.id)).toEqual([expect.objectContaining({ name: 'Phone', is_passkey: true, user_verified: true })]);
    expect(await passkeyFactor.enrolled(t.db, dave.id)).toBe(true);
    // a passkey is no second factor by itself: highest-available assurance does not ask for aal2
    expect(await webauthnFactor.enrolled(t.db, dave.id)).toBe(false);
    expect(node(await passkeyFactor.settingsNodes!(ctx), 'passkey_remove').meta.label).toMatchObject({ id: 1050020, text: 'Remove passkey "Phone"' });
  });

  it('signs in without an identifier: the user handle finds the person; user-verified gives aal2', async () => {
    const ctx = await flowContext('login', null);
    const nodes = await passkeyFactor.loginNodes!(ctx);
    expect(nodes.map((n) => attrs(n).name)).toEqual(['passkey_login_trigger', 'passkey_login']);
    const opts = JSON.parse(options(nodes, 'passkey_login_trigger'));
    expect(opts.allowCredentials).toBeUndefined();
    const answer = JSON.stringify(phone.get(opts));
    expect(await passkeyFactor.login!(ctx, { method: 'passkey', passkey_login: answer })).toEqual({ personId: dave.id, aal: 'aal2' });
    await refused(passkeyFactor.login!(ctx, { method: 'passkey', passkey_login: answer }), 'passkey_login');
  });

  it('without user verification the passkey gives aal1', async () => {
    const erin = await makePerson(t.db);
    await enrol(plainKey, erin.id, true, 'Key');
    const ctx = await flowContext('login', null);
    const opts = options(await passkeyFactor.loginNodes!(ctx), 'passkey_login_trigger');
    expect(await passkeyFactor.login!(ctx, { method: 'passkey', passkey_login: JSON.stringify(plainKey.get(opts)) })).toEqual({ personId: erin.id, aal: 'aal1' });
  });

  it("a user handle naming someone else, or a security key's answer, is refused", async () => {
    const ctx = await flowContext('login', null);
    const opts = options(await passkeyFactor.loginNodes!(ctx), 'passkey_login_trigger');
    const forged = phone.get(opts) as { response: Record<string, string> };
    forged.response.userHandle = Buffer.from(bob.id.replace(/-/g, ''), 'hex').toString('base64url');
    await refused(passkeyFactor.login!(ctx, { method: 'passkey', passkey_login: forged }), 'passkey_login', /user handle of another person/);

    const sk = new SoftAuthenticator(ORIGIN, { userVerified: true });
    const frank = await makePerson(t.db);
    const cred = await enrol(sk, frank.id, false, 'Key');
    const ctx2 = await flowContext('login', null);
    const opts2 = options(await passkeyFactor.loginNodes!(ctx2), 'passkey_login_trigger');
    await refused(passkeyFactor.login!(ctx2, { method: 'passkey', passkey_login: JSON.stringify(sk.get(opts2, cred)) }), 'passkey_login', /not a passkey/);
  });

  it('an inactive identity cannot sign in with its passkey', async () => {
    const gina = await makePerson(t.db);
    const k = new SoftAuthenticator(ORIGIN, { userVerified: true });
    await enrol(k, gina.id, true, 'Phone');
    await t.db.query("UPDATE identities SET state = 'inactive' WHERE id = $1", [gina.id]);
    const ctx = await flowContext('login', null);
    const opts = options(await passkeyFactor.loginNodes!(ctx), 'passkey_login_trigger');
    await refused(passkeyFactor.login!(ctx, { method: 'passkey', passkey_login: JSON.stringify(k.get(opts)) }), 'passkey_login', /unknown credential/);
  });

  it('a refresh asks for the signed-in person\'s passkeys only; the second step leaves passkeys to security keys', async () => {
    expect(await passkeyFactor.loginNodes!(await flowContext('login', dave.id))).toEqual([]);
    const ctx = await flowContext('login', dave.id, true);
    const opts = JSON.parse(options(await passkeyFactor.loginNodes!(ctx), 'passkey_login_trigger'));
    expect(opts.allowCredentials).toHaveLength(1);
    // as a second factor, a passkey proves possession too
    const ctx2 = await flowContext('login', dave.id);
    const opts2 = options(await webauthnFactor.loginNodes!(ctx2), 'webauthn_login_trigger');
    expect(await webauthnFactor.login!(ctx2, { method: 'webauthn', webauthn_login: JSON.stringify(phone.get(opts2)) })).toEqual({ personId: dave.id, aal: 'aal2' });
    // Alice's refresh flow refuses Dave's passkey, even answering her flow's own challenge
    const ctx3 = await flowContext('login', alice.id, true);
    const challenge = Buffer.alloc(32, 7).toString('base64url');
    await ctx3.saveData({ passkey_login_challenge: { challenge, issued_at: Date.now() } });
    const answer = phone.get({ challenge, rpId: 'console.example.test' });
    await refused(passkeyFactor.login!(ctx3, { method: 'passkey', passkey_login: JSON.stringify(answer) }), 'passkey_login', /another person's credential/);
  });

  it('the last passkey of a person without a password stays', async () => {
    const hank = await makePerson(t.db);
    await t.db.query('DELETE FROM identity_credentials WHERE identity_id = $1', [hank.id]);
    await enrol(new SoftAuthenticator(ORIGIN, { userVerified: true }), hank.id, true, 'Only');
    const [only] = await credentialRows(hank.id);
    await refused(passkeyFactor.settings!(await flowContext('settings', hank.id), { method: 'passkey', passkey_remove: only.id }), 'passkey_remove');
    expect(await credentialRows(hank.id)).toHaveLength(1);
    // with a password it goes
    const out = await passkeyFactor.settings!(await flowContext('settings', dave.id), { method: 'passkey', passkey_remove: (await credentialRows(dave.id))[0].id });
    expect(out.kind).toBe('show');
    expect(await credentialRows(dave.id)).toEqual([]);
  });
});

describe('through /api/.ory (the engine, as a browser)', () => {
  const trigger = (flow: Flow, name: string) => String(nodeOf(flow, name)!.attributes.value);

  /** Signs in with the password, adds a credential through the settings flow, and signs out (a fresh browser). */
  async function withCredential(auth: SoftAuthenticator, passkey: boolean): Promise<TestPerson> {
    const p = await makePerson(t.db);
    const b = new OryBrowser(t.app);
    expect((await b.signIn(p.email, p.password)).statusCode).toBe(200);
    const flow = await b.flow('settings');
    const answer = auth.create(trigger(flow, passkey ? 'passkey_register_trigger' : 'webauthn_register_trigger'));
    const res = await b.submit(flow, passkey
      ? { method: 'passkey', passkey_settings_register: JSON.stringify(answer), passkey_register_displayname: 'Laptop' }
      : { method: 'webauthn', webauthn_register: JSON.stringify(answer), webauthn_register_displayname: 'Key' });
    expect(res.statusCode).toBe(200);
    expect(res.json().ui.messages).toEqual([expect.objectContaining({ id: 1050001 })]);
    expect(nodeOf(res.json(), passkey ? 'passkey_remove' : 'webauthn_remove')).toBeDefined();
    return p;
  }

  it('a passkey signs in from a fresh login flow, without identifier or password, at aal2 when user-verified', async () => {
    const phone = new SoftAuthenticator(ORIGIN, { userVerified: true });
    const p = await withCredential(phone, true);
    const b = new OryBrowser(t.app);
    const flow = await b.flow('login');
    const answer = JSON.stringify(phone.get(trigger(flow, 'passkey_login_trigger')));
    const res = await b.submit(flow, { method: 'passkey', passkey_login: answer });
    expect(res.statusCode).toBe(200);
    expect(res.json().session).toMatchObject({ authenticator_assurance_level: 'aal2', identity: { id: p.id } });
    expect(res.json().session.authentication_methods).toEqual([expect.objectContaining({ method: 'passkey', aal: 'aal2' })]);
    expect((await b.get('/api/.ory/sessions/whoami')).json().identity.id).toBe(p.id);

    // the same answer on another flow: refused with the flow shown again
    const other = new OryBrowser(t.app);
    const again = await other.submit(await other.flow('login'), { method: 'passkey', passkey_login: answer });
    expect(again.statusCode).toBe(400);
    expect(nodeOf(again.json(), 'passkey_login')!.messages).toEqual([expect.objectContaining({ id: 4000006 })]);
    expect((await other.get('/api/.ory/sessions/whoami')).statusCode).toBe(401);
  });

  it('a security key is the second step after the password; a wrong answer keeps the session at aal1', async () => {
    const key = new SoftAuthenticator(ORIGIN);
    const p = await withCredential(key, false);
    const b = new OryBrowser(t.app);
    const first = await b.signIn(p.email, p.password);
    expect(first.json().session.authenticator_assurance_level).toBe('aal1');
    expect(first.json().continue_with[0].redirect_browser_to).toMatch(/^\/login\?aal=aal2/);
    expect((await b.get('/api/.ory/sessions/whoami')).json().error.id).toBe('session_aal2_required');

    const flow = await b.flow('login', 'aal=aal2');
    expect(nodeOf(flow, 'password')).toBeUndefined();
    const answer = key.get(trigger(flow, 'webauthn_login_trigger')) as { response: { signature: string } };
    const bad = { ...answer, response: { ...answer.response, signature: Buffer.from('nope').toString('base64url') } };
    const wrong = await b.submit(flow, { method: 'webauthn', webauthn_login: JSON.stringify(bad) });
    expect(wrong.statusCode).toBe(400);
    expect((await b.get('/api/.ory/sessions/whoami')).statusCode).toBe(403);

    const retry: Flow = wrong.json();
    const ok = await b.submit(retry, { method: 'webauthn', webauthn_login: JSON.stringify(key.get(trigger(retry, 'webauthn_login_trigger'))) });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().session.authenticator_assurance_level).toBe('aal2');
    expect((await b.get('/api/.ory/sessions/whoami')).statusCode).toBe(200);
  });

  it('the legacy login cannot skip a security key; an admin resets it from Edit User', async () => {
    const key = new SoftAuthenticator(ORIGIN);
    const p = await withCredential(key, false);
    const legacy = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: p.email, password: p.password } });
    expect(legacy.statusCode).toBe(200);
    const cookie = legacy.cookies.find((c) => c.name === 'session')!;
    const denied = await t.app.inject({ method: 'GET', url: '/api/auth/whoami', headers: { cookie: `session=${cookie.value}` } });
    expect(denied.statusCode).toBe(403);

    const admin = await makePerson(t.db, { roles: ['admin'] });
    const reset = await t.app.inject({
      method: 'DELETE', url: `/api/.ory/admin/identities/${p.id}/credentials/webauthn`, headers: await sessionHeaders(t.db, admin.id),
    });
    expect(reset.statusCode).toBeLessThan(300);
    expect(await credentialRows(p.id)).toEqual([]);
  });

  it('adding a key needs a browser session (an access token is refused)', async () => {
    const p = await makePerson(t.db);
    const res = await t.app.inject({ method: 'GET', url: '/api/.ory/self-service/settings/browser', headers: { ...(await bearerHeaders(t.db, p.id)), accept: 'application/json' } });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
  });
});
