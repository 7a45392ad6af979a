import { randomBytes } from 'node:crypto';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invalidatePrincipals } from '../../server/plugins/auth.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext, type TestPerson } from './helpers.js';
import { nodeNames, nodeOf, OryBrowser, type Flow } from './ory-browser.js';

/**
 * The authenticator app and recovery codes through /api/.ory as a browser walks them: enrol in the settings flow,
 * then the second step of sign-in (aal1 → aal2), wrong and replayed codes, single-use recovery codes, admin reset,
 * and no secret or code in plain text in any table.
 */

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_RATE_LIMIT: '1000', AUTH_ENCRYPTION_KEY: randomBytes(32).toString('hex') });
});
afterAll(() => t.close());

const browser = () => new OryBrowser(t.app);
type AnyNode = Flow['ui']['nodes'][number] & { attributes: Record<string, unknown> };
const byId = (flow: Flow, id: string) => (flow.ui.nodes as AnyNode[]).find((n) => n.attributes.id === id || n.attributes.name === id);
const secretOf = (flow: Flow) => ((byId(flow, 'totp_secret_key')!.attributes.text as { context: { secret: string } }).context.secret);
const codesOf = (flow: Flow) =>
  ((byId(flow, 'lookup_secret_codes')!.attributes.text as { context: { secrets: { text: string }[] } }).context.secrets).map((s) => s.text);
/** A code of the step `offset` steps from the current one, as an authenticator app a little fast or slow shows. */
const code = (secret: string, offset = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + offset * 30 });

/** Signs in with the password and enrols an authenticator (and optionally recovery codes) in the settings flow. */
async function enrolled(opts: { codes?: boolean } = {}) {
  const p = await makePerson(t.db);
  const b = browser();
  expect((await b.signIn(p.email, p.password)).statusCode).toBe(200);
  const flow = await b.flow('settings');
  const secret = secretOf(flow);
  const res = await b.submit(flow, { method: 'totp', totp_code: await code(secret) });
  expect(res.statusCode).toBe(200);
  let codes: string[] = [];
  if (opts.codes) {
    const shown = await b.submit(flow, { method: 'lookup_secret', lookup_secret_regenerate: true });
    codes = codesOf(shown.json());
    expect((await b.submit(flow, { method: 'lookup_secret', lookup_secret_confirm: true })).statusCode).toBe(200);
  }
  return { p, b, secret, codes };
}

/** A new browser past the password: its aal1 session and the second-step login flow. */
async function secondStep(p: TestPerson): Promise<{ b: OryBrowser; flow: Flow }> {
  const b = browser();
  const first = await b.signIn(p.email, p.password);
  expect(first.json().session.authenticator_assurance_level).toBe('aal1');
  return { b, flow: await b.flow('login', 'aal=aal2') };
}

describe('authenticator app (totp)', () => {
  it('enrols in the settings flow: QR code and text secret, a wrong code refused at the field, then saved', async () => {
    const p = await makePerson(t.db);
    const b = browser();
    await b.signIn(p.email, p.password);
    const flow = await b.flow('settings');
    expect(nodeNames(flow)).toEqual(expect.arrayContaining(['img', 'text', 'totp_code', 'method']));
    expect(String(byId(flow, 'totp_qr')!.attributes.src)).toMatch(/^data:image\/png;base64,/);
    const secret = secretOf(flow);
    expect((await b.flow('settings')).id).not.toBe(flow.id);
    expect(secretOf((await b.get(`/api/.ory/self-service/settings/flows?id=${flow.id}`)).json())).toBe(secret);

    const wrong = await b.submit(flow, { method: 'totp', totp_code: await code(secret, 3) });
    expect(wrong.statusCode).toBe(400);
    expect(nodeOf(wrong.json(), 'totp_code')!.messages[0]).toMatchObject({ id: 4000008, text: 'The provided authentication code is invalid, please try again.' });
    const ok = await b.submit(flow, { method: 'totp', totp_code: await code(secret) });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ state: 'success', ui: { messages: [expect.objectContaining({ id: 1050001 })] } });
    expect(nodeNames(ok.json())).toContain('totp_unlink');
    expect(nodeNames(ok.json())).not.toContain('totp_code');
    // the session that proved the code holds aal2 and goes on working
    const who = await b.get('/api/.ory/sessions/whoami');
    expect(who.json()).toMatchObject({ authenticator_assurance_level: 'aal2' });
    expect((await b.get('/api/auth/whoami')).statusCode).toBe(200);
  });

  it('enrolment needs a privileged session: an old sign-in gets session_refresh_required', async () => {
    const p = await makePerson(t.db);
    const b = browser();
    await b.signIn(p.email, p.password);
    const flow = await b.flow('settings');
    await t.db.query(`UPDATE sessions SET authenticated_at = now() - interval '1 hour' WHERE person_id = $1`, [p.id]);
    invalidatePrincipals();
    const res = await b.submit(flow, { method: 'totp', totp_code: await code(secretOf(flow)) });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.id).toBe('session_refresh_required');
    expect((await t.db.query('SELECT 1 FROM auth_totp WHERE person_id = $1', [p.id])).rowCount).toBe(0);
  });

  it('signs in at aal2 with a code after the password; a wrong code is 4000008, a used code is refused', async () => {
    const { p, secret } = await enrolled();
    const { b, flow } = await secondStep(p);
    expect((await b.get('/api/auth/whoami')).json().error?.id ?? 'none').toBe('session_aal2_required');
    expect(flow.requested_aal).toBe('aal2');
    expect(nodeOf(flow, 'totp_code')).toBeTruthy();
    expect(nodeOf(flow, 'lookup_secret')).toBeUndefined(); // no recovery codes set up

    const wrong = await b.submit(flow, { method: 'totp', totp_code: await code(secret, -3) });
    expect(wrong.statusCode).toBe(400);
    expect(nodeOf(wrong.json(), 'totp_code')!.messages[0].id).toBe(4000008);
    const next = await code(secret, 1);
    const ok = await b.submit(flow, { method: 'totp', totp_code: next });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().session.authenticator_assurance_level).toBe('aal2');
    expect(ok.json().session.authentication_methods.map((m: { method: string }) => m.method)).toEqual(['password', 'totp']);
    expect((await b.get('/api/auth/whoami')).statusCode).toBe(200);

    // the same code from another browser: already used
    const other = await secondStep(p);
    const replay = await other.b.submit(other.flow, { method: 'totp', totp_code: next });
    expect(replay.statusCode).toBe(400);
    expect(nodeOf(replay.json(), 'totp_code')!.messages[0].id).toBe(4000008);
    const events = await t.db.query(`SELECT type, method, success FROM auth_events WHERE person_id = $1 ORDER BY created_at`, [p.id]);
    expect(events.rows).toContainEqual({ type: 'totp_enrolled', method: 'totp', success: true });
    expect(events.rows).toContainEqual({ type: 'login_failed', method: 'totp', success: false });
    expect(events.rows).toContainEqual({ type: 'login', method: 'totp', success: true });
  });

  it('unlinks from the settings flow; then the password alone is aal1 with nothing more asked', async () => {
    const { p, b } = await enrolled();
    const flow = await b.flow('settings');
    const res = await b.submit(flow, { method: 'totp', totp_unlink: true });
    expect(res.statusCode).toBe(200);
    expect(nodeNames(res.json())).toContain('totp_code');
    const again = browser();
    const first = await again.signIn(p.email, p.password);
    expect(first.json().continue_with ?? []).not.toContainEqual(expect.objectContaining({ redirect_browser_to: expect.stringContaining('aal2') }));
    expect((await again.get('/api/auth/whoami')).statusCode).toBe(200);
  });
});

describe('recovery codes (lookup_secret)', () => {
  it('ten codes shown once; each signs in once (4000012 after), a wrong one is 4000016', async () => {
    const { p, codes } = await enrolled({ codes: true });
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    const { b, flow } = await secondStep(p);
    expect(nodeOf(flow, 'lookup_secret')).toBeTruthy();
    const bad = await b.submit(flow, { method: 'lookup_secret', lookup_secret: 'zzzzzzzz' });
    expect(bad.statusCode).toBe(400);
    expect(nodeOf(bad.json(), 'lookup_secret')!.messages[0]).toMatchObject({ id: 4000016 });
    const ok = await b.submit(flow, { method: 'lookup_secret', lookup_secret: codes[0] });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().session.authenticator_assurance_level).toBe('aal2');

    const other = await secondStep(p);
    const used = await other.b.submit(other.flow, { method: 'lookup_secret', lookup_secret: codes[0] });
    expect(used.statusCode).toBe(400);
    expect(nodeOf(used.json(), 'lookup_secret')!.messages[0]).toMatchObject({ id: 4000012, text: 'This backup recovery code has already been used.' });
    // a plain HTML form works too: a 303 back to the flow's page
    const form = await other.b.form(other.flow, { method: 'lookup_secret', lookup_secret: codes[1] });
    expect(form.statusCode).toBe(303);
    expect((await other.b.get('/api/.ory/sessions/whoami')).json().authenticator_assurance_level).toBe('aal2');

    // the settings flow no longer shows them, only how many are left
    const settings = await other.b.flow('settings');
    expect(byId(settings, 'lookup_secret_codes')).toBeUndefined();
    expect(JSON.stringify(settings)).not.toContain(codes[2]);
    expect((byId(settings, 'lookup_secret_remaining')!.attributes.text as { context: unknown }).context).toEqual({ unused: 8, total: 10 });
  });

  it('an admin resets the second factor: authenticator and codes gone, the password alone signs in', async () => {
    const { p, codes } = await enrolled({ codes: true });
    const admin = await makePerson(t.db, { roles: ['admin'] });
    const headers = await sessionHeaders(t.db, admin.id);
    for (const type of ['totp', 'lookup_secret']) {
      const res = await t.app.inject({ method: 'DELETE', url: `/api/.ory/admin/identities/${p.id}/credentials/${type}`, headers });
      expect(res.statusCode).toBeLessThan(300);
    }
    expect((await t.db.query('SELECT 1 FROM auth_totp WHERE person_id = $1', [p.id])).rowCount).toBe(0);
    expect((await t.db.query('SELECT 1 FROM auth_lookup_secrets WHERE person_id = $1', [p.id])).rowCount).toBe(0);
    const b = browser();
    await b.signIn(p.email, p.password);
    expect((await b.get('/api/auth/whoami')).statusCode).toBe(200);
    expect(codes).toHaveLength(10);
  });

  it('no TOTP secret or recovery code in plain text in any table', async () => {
    const { p, secret, codes } = await enrolled({ codes: true });
    const { rows: tables } = await t.db.query<{ t: string }>(
      `SELECT quote_ident(table_name) AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`);
    let all = '';
    for (const { t: table } of tables) {
      const { rows } = await t.db.query(`SELECT r::text AS r FROM ${table} r`);
      all += rows.map((r) => r.r).join('\n').toLowerCase();
    }
    expect(all).toContain(p.id);
    for (const s of [secret.toLowerCase(), ...codes]) expect(all).not.toContain(s);
  });
});
