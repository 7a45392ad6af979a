import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureCourier, enqueueMail, runRetention } from '../../server/modules/auth/courier/index.js';
import { until } from '../support/poll.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';
import { MailCatcher } from './mail-catcher.js';

// The sign-in mail outbox: the leader's sender delivers through SMTP_* with retries (a real smtp-server on
// loopback, stopped and started again), no request waits for SMTP; plus the invite mail, retention and the sign-in
// activity through /api/db (own rows; admins all).

let t: TestContext;
const mail = new MailCatcher();

beforeAll(async () => {
  configureCourier({ intervalMs: 100, retryBaseMs: 100, retryMaxMs: 400, maxSends: 30 });
  await mail.reservePort(); // the mail server is down at first
  t = await createTestApp({
    PUBLIC_URL: 'http://console.test', SMTP_HOST: '127.0.0.1', SMTP_PORT: String(mail.port), SMTP_ENCRYPTION: 'None',
    SMTP_FROM: 'console@example.test',
  });
});
afterAll(async () => {
  await t.close();
  await mail.stop();
});

const row = async (id: string) =>
  (await t.db.query('SELECT status, send_count, last_error, body_text FROM courier_messages WHERE id = $1', [id])).rows[0];

const queue = (to: string, subject = 'Hello') =>
  enqueueMail(t.db, t.config, { recipient: to, subject, bodyText: `secret body for ${to}\n`, bodyHtml: '<p>secret</p>', template: 'test' });

describe('courier', () => {
  it('while SMTP is down a mail is retried with back-off, then sent once it is back; the body is sealed at rest', async () => {
    const id = await queue('down@example.test');
    const failed = await until(async () => {
      const r = await row(id);
      return r.send_count >= 2 && r.status === 'queued' ? r : null;
    }, 'two failed attempts');
    expect(failed.last_error).toMatch(/ECONNREFUSED|connect/i);
    expect(failed.body_text).not.toContain('secret body');
    await mail.start();
    const m = await mail.waitFor('down@example.test');
    expect(m.text).toContain('secret body for down@example.test');
    expect(m.raw).toContain('From: console@example.test');
    await until(async () => (await row(id)).status === 'sent', 'marked sent');
    expect((await row(id)).last_error).toBeNull();
  });

  it('a row stuck in processing (its sender died) is taken again once its lease is over', async () => {
    const id = await queue('stuck@example.test');
    await t.db.query(`UPDATE courier_messages SET status = 'processing', next_attempt_at = now() - interval '1 second' WHERE id = $1`, [id]);
    await mail.waitFor('stuck@example.test');
    await until(async () => (await row(id)).status === 'sent', 'stuck row sent');
  });

  it('a mail the server keeps refusing is abandoned after maxSends', async () => {
    configureCourier({ maxSends: 2 });
    try {
      // smtp-server refuses a recipient without a domain part
      const id = await queue('no-domain');
      const r = await until(async () => {
        const x = await row(id);
        return x.status === 'abandoned' ? x : null;
      }, 'abandoned');
      expect(r.send_count).toBe(2);
    } finally {
      configureCourier({ maxSends: 30 });
    }
  });

  it('invite_user also mails the registration link', async () => {
    const admin = await makePerson(t.db, { roles: ['admin'] });
    const res = await t.app.inject({
      method: 'POST', url: '/api/auth/invite_user', headers: await sessionHeaders(t.db, admin.id),
      payload: { firstName: 'Ines', lastName: 'Vite', email: 'invited@example.test', role: 'viewer' },
    });
    expect(res.statusCode).toBe(200);
    const m = await mail.waitFor('invited@example.test');
    expect(m.text).toContain(res.json().link);
    expect(m.text).toContain('Hello Ines');
  });
});

describe('retention', () => {
  it('deletes sign-in activity older than 90 days and flows and codes expired over a day ago', async () => {
    const p = await makePerson(t.db);
    await t.db.query(
      `INSERT INTO auth_events (person_id, type, created_at) VALUES ($1, 'old', now() - interval '91 days'), ($1, 'recent', now() - interval '89 days')`,
      [p.id]);
    const { rows: [flow] } = await t.db.query(
      `INSERT INTO auth_flows (type, csrf_hash, expires_at) VALUES ('recovery', 'x', now() - interval '2 days') RETURNING id`);
    const { rows: [live] } = await t.db.query(
      `INSERT INTO auth_flows (type, csrf_hash, expires_at) VALUES ('recovery', 'x', now() + interval '1 hour') RETURNING id`);
    await t.db.query(
      `INSERT INTO auth_one_time_codes (flow_id, person_id, purpose, kind, address, secret_hash, expires_at)
       VALUES ($1, $2, 'recovery', 'code', 'a@example.test', 'h-old', now() - interval '2 days')`, [live.id, p.id]);
    const n = await runRetention(t.db);
    expect(n.events).toBeGreaterThanOrEqual(1);
    const types = (await t.db.query('SELECT type FROM auth_events WHERE person_id = $1', [p.id])).rows.map((r) => r.type);
    expect(types).toEqual(['recent']);
    expect((await t.db.query('SELECT id FROM auth_flows WHERE id = ANY($1)', [[flow.id, live.id]])).rows).toEqual([{ id: live.id }]);
    expect((await t.db.query(`SELECT 1 FROM auth_one_time_codes WHERE secret_hash = 'h-old'`)).rows).toEqual([]);
  });
});

describe('sign-in activity and sessions through /api/db', () => {
  it('everyone reads their own rows; admins read everyone\'s; token hashes never show', async () => {
    const viewer = await makePerson(t.db);
    const other = await makePerson(t.db);
    const admin = await makePerson(t.db, { roles: ['admin'] });
    for (const p of [viewer, other]) {
      await t.db.query(`INSERT INTO auth_events (person_id, type, method) VALUES ($1, 'login', 'password')`, [p.id]);
    }
    const vh = await sessionHeaders(t.db, viewer.id);
    const mine = await t.app.inject({ method: 'GET', url: '/api/db/auth_events?select=person_id,type&order=created_at.desc', headers: vh });
    expect(mine.statusCode).toBe(200);
    expect(mine.json().length).toBeGreaterThan(0);
    expect(new Set(mine.json().map((r: { person_id: string }) => r.person_id))).toEqual(new Set([viewer.id]));
    const asked = await t.app.inject({ method: 'GET', url: `/api/db/auth_events?person_id=eq.${other.id}`, headers: vh, });
    expect(asked.json()).toEqual([]);
    const counted = await t.app.inject({ method: 'HEAD', url: '/api/db/auth_events', headers: { ...vh, prefer: 'count=exact' } });
    expect(counted.headers['content-range']).toMatch(/\/1$/);

    const all = await t.app.inject({
      method: 'GET', url: `/api/db/auth_events?person_id=in.(${viewer.id},${other.id})&select=person_id`, headers: await sessionHeaders(t.db, admin.id),
    });
    expect(new Set(all.json().map((r: { person_id: string }) => r.person_id))).toEqual(new Set([viewer.id, other.id]));

    await sessionHeaders(t.db, other.id);
    const sessions = await t.app.inject({ method: 'GET', url: '/api/db/sessions?select=*', headers: vh });
    expect(sessions.statusCode).toBe(200);
    expect(sessions.json().every((s: { person_id: string }) => s.person_id === viewer.id)).toBe(true);
    expect(sessions.json()[0]).not.toHaveProperty('token_hash');
    const embedded = await t.app.inject({ method: 'GET', url: `/api/db/people?id=eq.${other.id}&select=id,sessions(id)`, headers: vh });
    expect(embedded.json()).toEqual([{ id: other.id, sessions: [] }]);
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/db/auth_events' });
    expect(anonymous.statusCode).toBe(401);
  });
});
