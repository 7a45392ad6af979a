import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureCourier } from '../../server/modules/auth/courier/index.js';
import { codeLimits } from '../../server/modules/auth/one-time-codes.js';
import { createTestApp, makePerson, type TestContext } from './helpers.js';
import { ClientBrowser, codeIn, linkIn, MailCatcher, nextIp } from './mail-catcher.js';
import { nodeOf, type Flow } from './ory-browser.js';

// Email verification and the email change it guards: codes and links from real mail (smtp-server on loopback).

let t: TestContext;
const mail = new MailCatcher();

beforeAll(async () => {
  configureCourier({ intervalMs: 100, retryBaseMs: 100 });
  codeLimits.minAnswerMs = 30;
  await mail.start();
  t = await createTestApp({
    PUBLIC_URL: 'http://console.test', SMTP_HOST: '127.0.0.1', SMTP_PORT: String(mail.port), SMTP_ENCRYPTION: 'None',
  });
});
afterAll(async () => {
  await t.close();
  await mail.stop();
});

const browser = () => new ClientBrowser(t.app, nextIp());

async function addressOf(personId: string, value: string) {
  const { rows } = await t.db.query(
    `SELECT verified, status, verified_at FROM identity_verifiable_addresses WHERE person_id = $1 AND lower(value) = lower($2)`,
    [personId, value]);
  return rows[0];
}

const emailOf = async (id: string) =>
  (await t.db.query(`SELECT i.traits ->> 'email' AS identity, p.email AS person FROM identities i JOIN people p ON p.id = i.id WHERE i.id = $1`, [id])).rows[0];

/** Signs in and asks the settings flow for a new email; returns the browser. */
async function changeEmail(personEmail: string, password: string, newEmail: string) {
  const b = browser();
  expect((await b.signIn(personEmail, password)).statusCode).toBe(200);
  const flow = await b.flow('settings');
  const res = await b.submit(flow, { method: 'profile', 'traits.email': newEmail, 'traits.name.first': 'Test', 'traits.name.last': 'User' });
  return { b, res };
}

describe('existing identities', () => {
  it('have their email as a verified address (invited by an administrator), kept when an administrator changes it', async () => {
    const p = await makePerson(t.db);
    expect(await addressOf(p.id, p.email)).toMatchObject({ verified: true, status: 'completed' });
    await t.db.query(`UPDATE identities SET traits = jsonb_set(traits, '{email}', '"set-by-admin@example.test"') WHERE id = $1`, [p.id]);
    expect(await addressOf(p.id, 'set-by-admin@example.test')).toMatchObject({ verified: true });
    expect(await addressOf(p.id, p.email)).toBeUndefined();
  });
});

describe('email change', () => {
  it('a new email is pending until verified by the code; then it applies and the old address gets a notice', async () => {
    const p = await makePerson(t.db);
    const next = `changed-${p.id.slice(0, 8)}@example.test`;
    const { b, res } = await changeEmail(p.email, p.password, next);
    expect(res.statusCode).toBe(200);
    expect(res.json().ui.messages).toEqual(expect.arrayContaining([expect.objectContaining({ id: 1080003 })]));
    expect(await emailOf(p.id)).toEqual({ identity: p.email, person: p.email });
    expect(await addressOf(p.id, next)).toMatchObject({ verified: false, status: 'sent' });

    const m = await mail.waitFor(next);
    const flowId = /flow=([0-9a-f-]{36})/.exec(linkIn(m))![1];
    const flow: Flow = (await b.get(`/api/.ory/self-service/verification/flows?id=${flowId}`)).json();
    expect(flow.state).toBe('sent_email');
    const wrong = await b.submit(flow, { method: 'code', code: codeIn(m) === '123456' ? '654321' : '123456' });
    expect(wrong.statusCode).toBe(400);
    expect(nodeOf(wrong.json(), 'code')!.messages[0]).toMatchObject({
      id: 4070006, text: 'The verification code is invalid or has already been used. Please try again.',
    });
    const right = await b.submit(flow, { method: 'code', code: codeIn(m) });
    expect(right.statusCode).toBe(200);
    expect(right.json().state).toBe('passed_challenge');
    expect(right.json().ui.messages).toEqual([expect.objectContaining({ id: 1080002, text: 'You successfully verified your email address.' })]);
    expect(await emailOf(p.id)).toEqual({ identity: next, person: next });
    expect(await addressOf(p.id, next)).toMatchObject({ verified: true, status: 'completed' });
    expect(await addressOf(p.id, p.email)).toBeUndefined(); // recovery reaches the current address only
    const notice = await mail.waitFor(p.email);
    expect(notice.text).toContain(`changed to ${next}`);
    const replay = await b.submit(flow, { method: 'code', code: codeIn(m) });
    expect(replay.statusCode).toBe(400);
    expect(replay.json().ui.messages[0].id).toBe(4070006);
    const events = await t.db.query(`SELECT type FROM auth_events WHERE person_id = $1`, [p.id]);
    expect(events.rows.map((r) => r.type)).toEqual(expect.arrayContaining(['email_change_requested', 'email_changed', 'verified']));
  });

  it('the link verifies it in any browser, once; a used or unknown link shows 4070001', async () => {
    const p = await makePerson(t.db);
    const next = `linked-${p.id.slice(0, 8)}@example.test`;
    await changeEmail(p.email, p.password, next);
    const link = new URL(linkIn(await mail.waitFor(next)));
    const other = browser();
    const res = await other.request({ method: 'GET', url: link.pathname + link.search, json: false, headers: { accept: 'text/html' } });
    expect(res.statusCode).toBe(303);
    const flowId = /flow=([0-9a-f-]{36})/.exec(link.search)![1];
    expect(res.headers.location).toBe(`/verification?flow=${flowId}`);
    expect((await emailOf(p.id)).identity).toBe(next);
    const shown = await other.get(`/api/.ory/self-service/verification/flows?id=${flowId}`);
    expect(shown.json().ui.messages[0].id).toBe(1080002);

    const fresh = browser();
    const flow = await fresh.flow('verification');
    const bad = await fresh.request({ method: 'GET', url: `/api/.ory/self-service/verification?flow=${flow.id}&token=not-a-token`, json: false, headers: { accept: 'text/html' } });
    expect(bad.statusCode).toBe(303);
    const after = await fresh.get(`/api/.ory/self-service/verification/flows?id=${flow.id}`);
    expect(after.json().ui.messages[0]).toMatchObject({ id: 4070001, type: 'error' });
  });

  it('an address another person uses is refused (4000007), nothing pending', async () => {
    const p = await makePerson(t.db);
    const q = await makePerson(t.db);
    const { res } = await changeEmail(p.email, p.password, q.email);
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json())).toContain('4000007');
    expect(await addressOf(p.id, q.email)).toBeUndefined();
  });
});

describe('verification flow', () => {
  it('choose_method → sent_email (1080003) for a pending address; unknown addresses get the same answer and no mail', async () => {
    const p = await makePerson(t.db);
    const pending = `pending-${p.id.slice(0, 8)}@example.test`;
    await t.db.query(`INSERT INTO identity_verifiable_addresses (person_id, value) VALUES ($1, $2)`, [p.id, pending]);
    const answers = [];
    for (const email of [pending, 'unknown-verify@example.test']) {
      const b = browser();
      const flow = await b.flow('verification');
      expect(flow.state).toBe('choose_method');
      const res = await b.submit(flow, { method: 'code', email });
      expect(res.statusCode).toBe(200);
      answers.push({ state: res.json().state, messages: res.json().ui.messages });
      if (email === pending) {
        const code = codeIn(await mail.waitFor(pending));
        const ok = await b.submit(flow, { method: 'code', code });
        expect(ok.json().ui.messages[0].id).toBe(1080002);
        expect(await addressOf(p.id, pending)).toMatchObject({ verified: true });
        expect((await emailOf(p.id)).identity).toBe(pending); // a pending address is a requested change
      }
    }
    expect(answers[1]).toEqual({ state: 'sent_email', messages: [expect.objectContaining({ id: 1080003 })] });
    expect(answers[0].messages).toEqual(answers[1].messages);
    const { rows } = await t.db.query(`SELECT count(*)::int AS n FROM courier_messages WHERE recipient = 'unknown-verify@example.test'`);
    expect(rows[0].n).toBe(0);
  });

  it('five wrong codes end the flow (410)', async () => {
    const p = await makePerson(t.db);
    const pending = `five-${p.id.slice(0, 8)}@example.test`;
    await t.db.query(`INSERT INTO identity_verifiable_addresses (person_id, value) VALUES ($1, $2)`, [p.id, pending]);
    const b = browser();
    const flow = await b.flow('verification');
    await b.submit(flow, { method: 'code', email: pending });
    const code = codeIn(await mail.waitFor(pending));
    const wrong = code === '000001' ? '000002' : '000001';
    for (let i = 0; i < 4; i++) expect((await b.submit(flow, { method: 'code', code: wrong })).statusCode).toBe(400);
    expect((await b.submit(flow, { method: 'code', code: wrong })).statusCode).toBe(410);
    expect((await b.submit(flow, { method: 'code', code })).statusCode).toBe(410);
    expect(await addressOf(p.id, pending)).toMatchObject({ verified: false });
  });
});
