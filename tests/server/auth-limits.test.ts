import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureCourier } from '../../server/modules/auth/courier/index.js';
import { codeLimits } from '../../server/modules/auth/one-time-codes.js';
import { createTestApp, makePerson, type TestContext } from './helpers.js';
import { ClientBrowser, MailCatcher, nextIp } from './mail-catcher.js';

// Per-client limits of the self-service flows (issue 17, "Bad input and faults"): every flow submission counts
// (AUTH_FLOW_RATE_LIMIT, else 6 × LOGIN_RATE_LIMIT a minute), answered 429 with Kratos' error body and Retry-After;
// requests for a recovery mail have their own 10 a minute per client. The legacy login keeps LOGIN_RATE_LIMIT.

let t: TestContext;
let explicit: TestContext;
const mail = new MailCatcher();

beforeAll(async () => {
  configureCourier({ intervalMs: 100, retryBaseMs: 100 });
  codeLimits.minAnswerMs = 30;
  await mail.start();
  [t, explicit] = await Promise.all([
    createTestApp({ LOGIN_RATE_LIMIT: '2', PUBLIC_URL: 'http://console.test' }),
    createTestApp({ LOGIN_RATE_LIMIT: '1000', AUTH_FLOW_RATE_LIMIT: '3', PUBLIC_URL: 'http://console.test' }),
  ]);
  // mail goes through the `system` email connection (no SMTP_* set), so recovery is offered
  await t.db.query(
    `INSERT INTO connections (name, namespace, type, url) VALUES ('system', 'default', 'email', $1)`,
    [`smtp://127.0.0.1:${mail.port}/?from=system%40example.test&Encryption=None`],
  );
});
afterAll(async () => {
  await Promise.all([t?.close(), explicit?.close()]);
  await mail.stop();
});

function expectRateLimited(res: { statusCode: number; headers: Record<string, unknown>; json(): any }) {
  expect(res.statusCode).toBe(429);
  const after = Number(res.headers['retry-after']);
  expect(after).toBeGreaterThanOrEqual(1);
  expect(after).toBeLessThanOrEqual(60);
  const body = res.json();
  expect(body.error).toMatchObject({ code: 429, status: 'Too Many Requests', details: { retry_after_seconds: expect.any(Number) } });
  expect(body.error.message).toMatch(/^Too many .* retry in \d+ seconds\.$/);
}

describe('flow submissions per client', () => {
  it('follow 6 × LOGIN_RATE_LIMIT by default: the 13th POST in a minute is 429 with Retry-After; others go on', async () => {
    const b = new ClientBrowser(t.app, nextIp());
    const flow = await b.flow('login');
    for (let i = 0; i < 12; i++) {
      const res = await b.submit(flow, { method: 'password', identifier: 'nobody@example.test', password: `wrong ${i}` });
      expect(res.statusCode, `submission ${i + 1}`).toBe(400);
    }
    expectRateLimited(await b.submit(flow, { method: 'password', identifier: 'nobody@example.test', password: 'wrong' }));
    // a new flow can still be fetched (only submissions count), but submitting it is still limited
    const again = await b.flow('login');
    expectRateLimited(await b.submit(again, { method: 'password', identifier: 'nobody@example.test', password: 'wrong' }));
    // another client is not affected
    const other = new ClientBrowser(t.app, nextIp());
    expect((await other.submit(await other.flow('login'), { method: 'password', identifier: 'x@example.test', password: 'wrong' })).statusCode).toBe(400);
  });

  it('the legacy POST /api/auth/login keeps its own LOGIN_RATE_LIMIT', async () => {
    const ip = nextIp();
    const login = () => t.app.inject({
      method: 'POST', url: '/api/auth/login', remoteAddress: ip, payload: { username: 'nobody@example.test', password: 'wrong password' },
    });
    expect((await login()).statusCode).toBe(401);
    expect((await login()).statusCode).toBe(401);
    expect((await login()).statusCode).toBe(429);
  });

  it('AUTH_FLOW_RATE_LIMIT sets it: the 4th POST of 3 allowed is 429 on any flow kind', async () => {
    const b = new ClientBrowser(explicit.app, nextIp());
    const login = await b.flow('login');
    const recovery = await b.flow('recovery');
    for (let i = 0; i < 3; i++) {
      expect((await b.submit(login, { method: 'password', identifier: 'nobody@example.test', password: 'wrong' })).statusCode).toBe(400);
    }
    expectRateLimited(await b.submit(recovery, { method: 'code', email: 'someone@example.test' }));
    // a plain form post lands on the error page (a browser navigation), nothing else happens
    const form = await b.form(login, { method: 'password', identifier: 'nobody@example.test', password: 'wrong' });
    expect(form.statusCode).toBe(303);
    expect(form.headers.location).toMatch(/^\/error\?id=/);
  });
});

describe('recovery mails', () => {
  it('ten requests per client a minute, then 429 with Retry-After; three mails an address an hour, then the same answer and no mail', async () => {
    const p = await makePerson(t.db);
    const asks: Awaited<ReturnType<ClientBrowser['submit']>>[] = [];
    for (let i = 0; i < 4; i++) {
      const b = new ClientBrowser(t.app, nextIp());
      const res = await b.submit(await b.flow('recovery'), { method: 'code', email: p.email });
      asks.push(res);
      expect(res.statusCode).toBe(200);
    }
    // the fourth request's answer is the same as the first's: the same state and message
    const shape = (r: (typeof asks)[number]) => ({ state: r.json().state, messages: r.json().ui.messages });
    expect(shape(asks[3])).toEqual(shape(asks[0]));
    await mail.waitFor(p.email, 3);
    await new Promise((r) => setTimeout(r, 500)); // a fourth mail would have gone out by now
    expect(mail.to(p.email)).toHaveLength(3);
    expect(mail.to(p.email)[0].raw).toMatch(/^From: .*system@example\.test/m);

    const b = new ClientBrowser(t.app, nextIp());
    const flow = await b.flow('recovery');
    for (let i = 0; i < 10; i++) {
      expect((await b.submit(flow, { method: 'code', email: `unknown${i}@example.test` })).statusCode).toBe(200);
    }
    const over = await b.submit(flow, { method: 'code', email: 'unknown@example.test' });
    expectRateLimited(over);
    expect(over.headers['retry-after']).toBe('60');
    expect(over.json().error.message).toMatch(/recovery requests/);
    const { rows } = await t.db.query(`SELECT count(*)::int AS n FROM courier_messages WHERE recipient LIKE 'unknown%'`);
    expect(rows[0].n).toBe(0);
  });
});
