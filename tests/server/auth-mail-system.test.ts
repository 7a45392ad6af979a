import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureCourier, mailAvailable } from '../../server/modules/auth/courier/index.js';
import { systemMailRoute } from '../../server/modules/auth/courier/sender.js';
import { codeLimits } from '../../server/modules/auth/one-time-codes.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';
import { ClientBrowser, codeIn, MailCatcher, nextIp } from './mail-catcher.js';
import { nodeOf } from './ory-browser.js';

// The courier's mail server is resolved as the notifications' system email is: the email connection named `system`
// when there is one, else SMTP_*; the recovery and verification pages say there is no mail server only when there is
// neither. Mail is caught by smtp-server on loopback; no SMTP_* is set here.

let t: TestContext;
const mail = new MailCatcher();

beforeAll(async () => {
  configureCourier({ intervalMs: 100, retryBaseMs: 100 });
  codeLimits.minAnswerMs = 30;
  await mail.start();
  t = await createTestApp({ PUBLIC_URL: 'http://console.test', LOGIN_RATE_LIMIT: '1000' });
});
afterAll(async () => {
  await t?.close();
  await mail.stop();
});

const browser = () => new ClientBrowser(t.app, nextIp());

describe('the `system` email connection', () => {
  it('without it (and no SMTP_*) the pages say so; with it recovery and invites mail through it', async () => {
    expect(await mailAvailable(t.db, t.config)).toBe(false);
    const before = await browser().flow('recovery');
    expect(JSON.stringify(before.ui.nodes)).toContain('this console has no mail server configured');
    const verification = await browser().flow('verification');
    expect(JSON.stringify(verification.ui.nodes)).toContain('Email verification is not available');

    // a connection of another type or name does not count
    await t.db.query(`INSERT INTO connections (name, type, url) VALUES ('system', 'slack', 'slack://token@channel'), ('mailer', 'email', 'smtp://127.0.0.1:1/')`);
    expect(await mailAvailable(t.db, t.config)).toBe(false);

    await t.db.query(
      `INSERT INTO connections (name, namespace, type, url, properties) VALUES ('system', 'ops', 'email', $1, '{"fromName": "Ops Console"}')`,
      [`smtp://127.0.0.1:${mail.port}/?from=noreply%40ops.example.test&Encryption=None`],
    );
    expect(await mailAvailable(t.db, t.config)).toBe(true);
    const p = await makePerson(t.db);
    const b = browser();
    const flow = await b.flow('recovery');
    expect(nodeOf(flow, 'email')).toBeDefined();
    expect((await b.submit(flow, { method: 'code', email: p.email })).statusCode).toBe(200);
    const m = await mail.waitFor(p.email);
    expect(m.raw).toMatch(/^From: .*noreply@ops\.example\.test/m);
    const right = await b.submit(flow, { method: 'code', code: codeIn(m) });
    expect(right.statusCode).toBe(422); // recovered: on to the settings flow

    // invite_user mails the link through it too
    const admin = await makePerson(t.db, { roles: ['admin'] });
    const invitee = `new-${Date.now()}@example.test`;
    const res = await t.app.inject({
      method: 'POST', url: '/api/auth/invite_user', headers: await sessionHeaders(t.db, admin.id),
      payload: { email: invitee, firstName: 'New', lastName: 'Person', role: 'viewer' },
    });
    expect(res.statusCode).toBe(200);
    expect((await mail.waitFor(invitee)).text).toContain('/registration?invite=');
  });

  it('takes precedence over SMTP_*; SMTP_* applies without it; credentials are filled in from the connection', async () => {
    const env = { ...t.config, SMTP_HOST: 'smtp.env.example.test', SMTP_PORT: 2525, SMTP_FROM: 'env@example.test' };
    const viaConnection = await systemMailRoute(t.db, env, 1000);
    expect(viaConnection!.source).toEqual({ connectionId: expect.any(String) });
    expect(viaConnection!.options).toMatchObject({ host: '127.0.0.1', port: mail.port, ignoreTLS: true });
    expect(viaConnection!.from).toBe('noreply@ops.example.test');

    await t.db.query(`UPDATE connections SET deleted_at = now() WHERE name = 'system'`);
    const viaEnv = await systemMailRoute(t.db, env, 1000);
    expect(viaEnv).toMatchObject({ source: 'env', from: 'env@example.test', options: { host: 'smtp.env.example.test', port: 2525 } });
    expect(await systemMailRoute(t.db, t.config, 1000)).toBeNull();

    await t.db.query(
      `INSERT INTO connections (name, type, url, username, password) VALUES ('system', 'smtp', 'smtp://$(username):$(password)@mail.example.test:587/?from=a%40example.test', 'mailer', 'p@ss/word')`,
    );
    const withAuth = await systemMailRoute(t.db, t.config, 1000);
    expect(withAuth!.options.auth).toEqual({ user: 'mailer', pass: 'p@ss/word' });
    expect(withAuth!.secrets).toEqual(expect.arrayContaining(['p@ss/word']));
  });
});
