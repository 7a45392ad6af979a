import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureCourier } from '../../server/modules/auth/courier/index.js';
import { codeLimits } from '../../server/modules/auth/one-time-codes.js';
import { until } from '../support/poll.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';
import { ClientBrowser, codeIn, linkIn, MailCatcher, nextIp } from './mail-catcher.js';
import { nodeNames, nodeOf, type Flow } from './ory-browser.js';

// Account recovery through /api/.ory as a browser walks it: the mail really goes out (the leader's courier to a
// smtp-server on loopback), and the code or link from it gives a privileged session and a new settings flow.

let t: TestContext;
const mail = new MailCatcher();

beforeAll(async () => {
  configureCourier({ intervalMs: 100, retryBaseMs: 100 });
  codeLimits.minAnswerMs = 30;
  await mail.start();
  t = await createTestApp({
    PUBLIC_URL: 'http://console.test', SMTP_HOST: '127.0.0.1', SMTP_PORT: String(mail.port), SMTP_ENCRYPTION: 'None',
    SMTP_FROM: 'console@example.test',
  });
});
afterAll(async () => {
  await t.close();
  await mail.stop();
});

const browser = () => new ClientBrowser(t.app, nextIp());

/** Asks for a recovery mail for the address in a new flow; returns the flow as answered. */
async function ask(b: ClientBrowser, email: string): Promise<{ flow: Flow; res: Awaited<ReturnType<ClientBrowser['submit']>> }> {
  const flow = await b.flow('recovery');
  const res = await b.submit(flow, { method: 'code', email });
  return { flow, res };
}

describe('recovery by code', () => {
  it('choose_method → sent_email (1060003, one mail with code and link) → passed_challenge: a privileged session and a new settings flow (422)', async () => {
    const p = await makePerson(t.db);
    const other = await sessionHeaders(t.db, p.id); // another device, ended by the new password
    const b = browser();
    const flow = await b.flow('recovery');
    expect(flow.state).toBe('choose_method');
    expect(nodeNames(flow)).toEqual(expect.arrayContaining(['csrf_token', 'email', 'method']));
    const sent = await b.submit(flow, { method: 'code', email: p.email.toUpperCase() });
    expect(sent.statusCode).toBe(200);
    const shown: Flow = sent.json();
    expect(shown.state).toBe('sent_email');
    expect(shown.ui.messages).toEqual([expect.objectContaining({ id: 1060003, type: 'info' })]);
    expect(shown.ui.messages![0].text).toMatch(/^An email containing a recovery code has been sent/);
    expect(nodeNames(shown)).toEqual(expect.arrayContaining(['code', 'method', 'email']));
    const m = await mail.waitFor(p.email);
    const code = codeIn(m);
    expect(linkIn(m)).toContain(`/api/.ory/self-service/recovery?flow=${flow.id}&token=`);

    const wrong = await b.submit(flow, { method: 'code', code: code === '000000' ? '111111' : '000000' });
    expect(wrong.statusCode).toBe(400);
    expect(nodeOf(wrong.json(), 'code')!.messages[0]).toMatchObject({
      id: 4060006, text: 'The recovery code is invalid or has already been used. Please try again.',
    });

    const right = await b.submit(flow, { method: 'code', code });
    expect(right.statusCode).toBe(422);
    const body = right.json();
    expect(body.error.id).toBe('browser_location_change_required');
    const settingsId = /^\/profile-settings\?flow=([0-9a-f-]{36})$/.exec(body.redirect_browser_to)![1];
    const who = await b.get('/api/.ory/sessions/whoami');
    expect(who.statusCode).toBe(200);
    expect(who.json().identity.id).toBe(p.id);
    expect(who.json().authentication_methods).toEqual([expect.objectContaining({ method: 'code_recovery', aal: 'aal1' })]);
    expect(Date.now() - Date.parse(who.json().authenticated_at)).toBeLessThan(60_000);

    const settings = await b.get(`/api/.ory/self-service/settings/flows?id=${settingsId}`);
    expect(settings.statusCode).toBe(200);
    expect(settings.json().ui.messages[0]).toMatchObject({ id: 1060001 });
    const set = await b.submit(settings.json(), { method: 'password', password: 'a brand new passphrase 42' });
    expect(set.statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/whoami', headers: other })).statusCode).toBe(401);
    const login = await browser().signIn(p.email, 'a brand new passphrase 42');
    expect(login.statusCode).toBe(200);
    const events = await t.db.query(`SELECT type, method FROM auth_events WHERE person_id = $1 ORDER BY created_at`, [p.id]);
    expect(events.rows).toEqual(expect.arrayContaining([
      { type: 'recovery_requested', method: 'code' }, { type: 'recovered', method: 'code_recovery' },
      { type: 'password_changed', method: 'password' },
    ]));

    // used: the code again (and the flow's link) change nothing
    const replay = await b.submit(flow, { method: 'code', code });
    expect(replay.statusCode).toBe(400);
    expect(replay.json().ui.messages[0].id).toBe(4060006);
    const link = new URL(linkIn(m));
    const again = await browser().request({ method: 'GET', url: link.pathname + link.search, json: false, headers: { accept: 'text/html' } });
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe(`/recovery?flow=${flow.id}`);
    expect(again.cookies.find((c) => c.name === 'session')).toBeUndefined();
  });

  it('the fifth wrong code ends the flow (410 with a new flow); the right code no longer works', async () => {
    const p = await makePerson(t.db);
    const b = browser();
    const { flow } = await ask(b, p.email);
    const code = codeIn(await mail.waitFor(p.email));
    const wrongCode = code === '999999' ? '888888' : '999999';
    for (let i = 1; i <= 4; i++) expect((await b.submit(flow, { method: 'code', code: wrongCode })).statusCode).toBe(400);
    const fifth = await b.submit(flow, { method: 'code', code: wrongCode });
    expect(fifth.statusCode).toBe(410);
    expect(fifth.json().error.id).toBe('self_service_flow_expired');
    expect(fifth.json().error.details.use_flow_id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await b.submit(flow, { method: 'code', code })).statusCode).toBe(410);
    expect(b.cookies.get('session')).toBeUndefined();
  });

  it('a second request supersedes the first code; an expired code is refused (4060006), nothing changed', async () => {
    const p = await makePerson(t.db);
    const b = browser();
    const { flow } = await ask(b, p.email);
    const first = codeIn(await mail.waitFor(p.email, 1));
    expect((await b.submit(flow, { method: 'code', email: p.email })).statusCode).toBe(200); // resend
    const second = codeIn(await mail.waitFor(p.email, 2));
    if (first !== second) {
      const old = await b.submit(flow, { method: 'code', code: first });
      expect(old.statusCode).toBe(400);
      expect(nodeOf(old.json(), 'code')!.messages[0].id).toBe(4060006);
    }
    await t.db.query(`UPDATE auth_one_time_codes SET expires_at = now() - interval '1 second' WHERE flow_id = $1`, [flow.id]);
    const late = await b.submit(flow, { method: 'code', code: second });
    expect(late.statusCode).toBe(400);
    expect(nodeOf(late.json(), 'code')!.messages[0].id).toBe(4060006);
    expect(b.cookies.get('session')).toBeUndefined();
  });
});

describe('recovery by link', () => {
  it('the link signs in (303 to the settings page) once; replayed or expired it shows 4060004', async () => {
    const p = await makePerson(t.db);
    const b = browser();
    await ask(b, p.email);
    const link = new URL(linkIn(await mail.waitFor(p.email)));
    const other = browser(); // a link works in any browser
    const res = await other.request({ method: 'GET', url: link.pathname + link.search, json: false, headers: { accept: 'text/html' } });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(/^\/profile-settings\?flow=[0-9a-f-]{36}$/);
    expect(other.cookies.get('session')).toBeTruthy();
    const who = await other.get('/api/.ory/sessions/whoami');
    expect(who.json().authentication_methods[0].method).toBe('link_recovery');

    const replay = await browser().request({ method: 'GET', url: link.pathname + link.search, json: false, headers: { accept: 'text/html' } });
    expect(replay.statusCode).toBe(303);
    expect(replay.cookies.find((c) => c.name === 'session')).toBeUndefined();

    const q = await browser();
    const { flow } = await ask(q, p.email);
    const expired = new URL(linkIn(await mail.waitFor(p.email, 2)));
    await t.db.query(`UPDATE auth_one_time_codes SET expires_at = now() - interval '1 second' WHERE flow_id = $1`, [flow.id]);
    const late = await q.request({ method: 'GET', url: expired.pathname + expired.search, json: false, headers: { accept: 'text/html' } });
    expect(late.statusCode).toBe(303);
    expect(late.headers.location).toBe(`/recovery?flow=${flow.id}`);
    const shown = await q.get(`/api/.ory/self-service/recovery/flows?id=${flow.id}`);
    expect(shown.json().ui.messages).toEqual([expect.objectContaining({ id: 4060004, type: 'error' })]);
    expect(q.cookies.get('session')).toBeUndefined();
  });
});

describe('unknown and unverified addresses', () => {
  it('get the same answer and no mail; no code is stored; no plaintext code or token in any table', async () => {
    const known = await makePerson(t.db);
    const unverified = await makePerson(t.db);
    await t.db.query(`UPDATE identity_verifiable_addresses SET verified = false, verified_at = NULL, status = 'pending' WHERE person_id = $1`, [unverified.id]);
    const inactive = await makePerson(t.db);
    await t.db.query(`UPDATE identities SET state = 'inactive' WHERE id = $1`, [inactive.id]);

    const answers = [];
    for (const email of [known.email, 'nobody-here@example.test', unverified.email, inactive.email]) {
      const { flow, res } = await ask(browser(), email);
      expect(res.statusCode).toBe(200);
      const f: Flow = res.json();
      answers.push({ state: f.state, messages: f.ui.messages, nodes: nodeNames(f) });
      const { rows } = await t.db.query('SELECT count(*)::int AS n FROM auth_one_time_codes WHERE flow_id = $1', [flow.id]);
      expect(rows[0].n).toBe(email === known.email ? 2 : 0);
    }
    for (const a of answers) expect(a).toEqual(answers[0]);
    const m = await mail.waitFor(known.email);
    // nothing is left in the outbox: nothing went (or will go) to the others
    await until(async () => (await t.db.query(`SELECT count(*)::int AS n FROM courier_messages WHERE status <> 'sent'`)).rows[0].n === 0, 'outbox drained');
    for (const e of ['nobody-here@example.test', unverified.email, inactive.email]) expect(mail.to(e)).toEqual([]);
    const { rows } = await t.db.query(`SELECT count(*)::int AS n FROM courier_messages WHERE recipient = ANY($1)`,
      [['nobody-here@example.test', unverified.email, inactive.email]]);
    expect(rows[0].n).toBe(0);

    const code = codeIn(m);
    const token = decodeURIComponent(/token=([^&\s]+)/.exec(linkIn(m))![1]);
    for (const table of ['auth_one_time_codes', 'courier_messages', 'auth_flows', 'auth_events', 'auth_flow_errors']) {
      const dump = (await t.db.query(`SELECT coalesce(string_agg(x::text, ' '), '') AS s FROM ${table} x`)).rows[0].s as string;
      expect(dump.includes(token), `token in ${table}`).toBe(false);
      expect(new RegExp(`(^|[^0-9a-f.])${code}([^0-9a-f]|$)`).test(dump), `code in ${table}`).toBe(false);
    }
  });
});

describe('limits', () => {
  it('three mails per address per hour (then the same answer, no mail); ten requests per client per minute (429)', async () => {
    const p = await makePerson(t.db);
    for (let i = 0; i < 4; i++) expect((await ask(browser(), p.email)).res.statusCode).toBe(200);
    await mail.waitFor(p.email, 3);
    const { rows } = await t.db.query('SELECT count(*)::int AS n FROM courier_messages WHERE recipient = $1', [p.email]);
    expect(rows[0].n).toBe(3);

    const b = browser();
    const flow = await b.flow('recovery');
    for (let i = 0; i < 10; i++) expect((await b.submit(flow, { method: 'code', email: `x${i}@example.test` })).statusCode).toBe(200);
    const over = await b.submit(flow, { method: 'code', email: 'x@example.test' });
    expect(over.statusCode).toBe(429);
    expect((await ask(browser(), 'y@example.test')).res.statusCode).toBe(200); // another client goes on
  });
});

describe('without a mail server', () => {
  let bare: TestContext;
  beforeAll(async () => {
    bare = await createTestApp({ PUBLIC_URL: 'http://console.test' });
  });
  afterAll(() => bare.close());

  it('the flow says recovery is not available, and no code is made', async () => {
    const p = await makePerson(bare.db);
    const b = new ClientBrowser(bare.app, nextIp());
    const flow = await b.flow('recovery');
    const text = flow.ui.nodes.find((n) => n.type === 'text');
    expect(JSON.stringify(text)).toContain('Account recovery is not available: this console has no mail server configured.');
    expect(nodeOf(flow, 'email')).toBeUndefined();
    const res = await b.submit(flow, { method: 'code', email: p.email });
    expect(res.statusCode).toBe(400);
    expect(res.json().ui.messages[0].text).toMatch(/no mail server configured/);
    const { rows } = await bare.db.query('SELECT count(*)::int AS n FROM auth_one_time_codes');
    expect(rows[0].n).toBe(0);
  });
});
