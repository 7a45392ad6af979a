import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { NotificationMessage } from '../types.js';
import { deliver } from './index.js';

const message: NotificationMessage = { title: 'Check web is unhealthy', markdown: '**web** failed', text: 'web failed', html: '<p><strong>web</strong> failed</p>' };
const inbox: Array<{ from: string; to: string[]; raw: string; user?: string }> = [];
let smtp: SMTPServer;
let port: number;

beforeAll(async () => {
  smtp = new SMTPServer({
    secure: false, disabledCommands: ['STARTTLS'], allowInsecureAuth: true, logger: false,
    onAuth(auth, _s, cb) {
      if (auth.username === 'mailer' && auth.password === 'p@ss/w:rd') cb(null, { user: auth.username });
      else cb(new Error('Invalid username or password'));
    },
    onRcptTo(addr, _s, cb) {
      cb(addr.address.startsWith('nobody') ? Object.assign(new Error('no such user'), { responseCode: 550 }) : undefined);
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        inbox.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString(), user: session.user });
        cb();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
  port = (smtp.server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => smtp.close(() => r())));

it('email: nodemailer with auth, from name, the target\'s to, html and text parts', async () => {
  const url = `smtp://mailer:${encodeURIComponent('p@ss/w:rd')}@127.0.0.1:${port}/?UseStartTLS=false&SkipTLSVerify=false&Encryption=None&Auth=Plain&from=ops%40example.com&fromName=Ops%20Console&to=fallback%40example.com`;
  const r = await deliver({ url, properties: { to: 'alice@example.com' } }, message, { attempts: 1, timeoutMs: 5000 });
  expect(r).toMatchObject({ ok: true, channel: 'email' });
  const m = inbox.at(-1)!;
  expect(m).toMatchObject({ from: 'ops@example.com', to: ['alice@example.com'], user: 'mailer' });
  expect(m.raw).toContain('Subject: Check web is unhealthy');
  expect(m.raw).toContain('From: Ops Console <ops@example.com>');
  expect(m.raw).toContain('text/plain');
  expect(m.raw).toContain('text/html');
  expect(m.raw).toContain('<strong>web</strong>');
});

it('email: the URL\'s to when the target has none; a rejected recipient is a permanent error without the password', async () => {
  const base = `smtp://mailer:${encodeURIComponent('p@ss/w:rd')}@127.0.0.1:${port}/?Encryption=None&from=ops%40example.com`;
  expect((await deliver({ url: `${base}&to=bob%40example.com` }, message, { attempts: 1 })).ok).toBe(true);
  expect(inbox.at(-1)!.to).toEqual(['bob@example.com']);
  const r = await deliver({ url: `${base}&to=nobody%40example.com` }, message, { attempts: 3, backoffMs: 1 });
  expect(r).toMatchObject({ ok: false, attempts: 1 });
  expect(r.error).toContain('email');
  expect(r.error).not.toContain('p@ss/w:rd');
});

it('email: a wrong password fails with the server\'s answer, never the password', async () => {
  const r = await deliver({ url: `smtp://mailer:wr0ngpass@127.0.0.1:${port}/?Encryption=None&to=a%40example.com` }, message, { attempts: 1 });
  expect(r.ok).toBe(false);
  expect(r.error).toMatch(/Invalid username or password|auth/i);
  expect(r.error).not.toContain('wr0ngpass');
});
