import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureSenders } from '../../notifications/senders/index.js';
import { notificationAction } from './notification.js';
import { createTestDb, insertConnection, testContext, type TestDb } from './test-context.js';

let db: TestDb;
let smtp: SMTPServer;
let smtpPort: number;
let web: Server;
let webBase: string;
const inbox: Array<{ from: string; to: string[]; raw: string; user?: string }> = [];
const hooks: Array<{ method: string; url: string; body: string; auth?: string }> = [];
let stallData = false;

beforeAll(async () => {
  db = await createTestDb();
  smtp = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === 'mailer' && auth.password === 'smtp-Pa55') cb(null, { user: auth.username });
      else cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        inbox.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          user: session.user as string | undefined,
        });
        if (!stallData) cb();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
  smtpPort = (smtp.server.address() as AddressInfo).port;
  web = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hooks.push({ method: req.method!, url: req.url!, body, auth: req.headers.authorization });
      res.writeHead(req.url?.startsWith('/fail') ? 500 : 200, { 'content-type': 'text/plain' });
      res.end(req.url?.startsWith('/fail') ? 'boom' : 'ok');
    });
  });
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  webBase = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((r) => smtp.close(() => r()));
  web.closeAllConnections();
  await new Promise((r) => web.close(r));
  await db.close();
});

describe('notification action', () => {
  it('emails through an smtp:// url (shoutrrr form): subject, body with properties, attachment, password masked', async () => {
    const ctx = testContext(db.pool);
    const result = await notificationAction.run({
      url: `smtp://mailer:smtp-Pa55@127.0.0.1:${smtpPort}/?from=bot@example.test&to=a@example.test,b@example.test`,
      title: 'Disk full on db-1', message: 'Free some space', properties: { severity: 'high' },
      attachments: [{ name: 'df.txt', content: 'Filesystem 100%' }],
    }, ctx);
    expect(result).toMatchObject({ type: 'email', to: ['a@example.test', 'b@example.test'] });
    const mail = inbox.at(-1)!;
    expect(mail).toMatchObject({ from: 'bot@example.test', to: ['a@example.test', 'b@example.test'], user: 'mailer' });
    expect(mail.raw).toContain('Subject: Disk full on db-1');
    expect(mail.raw).toContain('Free some space');
    expect(mail.raw).toContain('severity: high');
    expect(mail.raw).toContain('filename=df.txt');
    expect(ctx.secrets).toContain('smtp-Pa55');
  });

  it('emails through a connection of type email; a wrong password fails the action without showing it', async () => {
    await insertConnection(db.pool, { name: 'mail', type: 'email', url: `smtp://$(username):$(password)@127.0.0.1:${smtpPort}/?to=ops@example.test`, username: 'mailer', password: 'smtp-Pa55', properties: { from: 'console@example.test' } });
    const ctx = testContext(db.pool);
    await notificationAction.run({ connection: 'connection://default/mail', title: 'Hello' }, ctx);
    expect(inbox.at(-1)).toMatchObject({ from: 'console@example.test', to: ['ops@example.test'] });
    expect(ctx.secrets).toContain('smtp-Pa55');

    await insertConnection(db.pool, { name: 'mail-bad', type: 'email', url: `smtp://$(username):$(password)@127.0.0.1:${smtpPort}/?to=ops@example.test`, username: 'mailer', password: 'wr0ng-pass' });
    const err = await notificationAction.run({ connection: 'mail-bad', title: 'x' }, testContext(db.pool)).catch((e: Error) => e);
    expect(String(err)).toMatch(/Invalid username or password/);
    expect(String(err)).not.toContain('wr0ng-pass');
  });

  it('POSTs {title, message, ...properties} to a webhook url, a generic+ url and a generic_webhook connection', async () => {
    await notificationAction.run({ url: `${webBase}/hook`, title: 'T', message: 'M', properties: { a: '1' } }, testContext(db.pool));
    expect(hooks.at(-1)).toMatchObject({ method: 'POST', url: '/hook' });
    expect(JSON.parse(hooks.at(-1)!.body)).toEqual({ title: 'T', message: 'M', a: '1' });

    await notificationAction.run({ url: `generic+${webBase}/g?MessageKey=text&TitleKey=subject&keep=1`, title: 'T2', message: 'M2' }, testContext(db.pool));
    expect(hooks.at(-1)!.url).toBe('/g?keep=1');
    expect(JSON.parse(hooks.at(-1)!.body)).toMatchObject({ subject: 'T2', text: 'M2' });

    await insertConnection(db.pool, { name: 'hook', type: 'generic_webhook', url: `generic+http://user:h00k-pw@${new URL(webBase).host}/c` });
    const ctx = testContext(db.pool);
    await notificationAction.run({ connection: 'hook', title: 'T3' }, ctx);
    expect(hooks.at(-1)).toMatchObject({ url: '/c', auth: `Basic ${Buffer.from('user:h00k-pw').toString('base64')}` });
    expect(ctx.secrets).toContain('h00k-pw');
  });

  it('fails on a non-2xx webhook answer and on a refused connection', async () => {
    await expect(notificationAction.run({ url: `${webBase}/fail`, title: 'T' }, testContext(db.pool))).rejects.toThrow(/answered 500: boom/);
    await expect(notificationAction.run({ url: 'smtp://127.0.0.1:1/?to=a@example.test', title: 'T' }, testContext(db.pool))).rejects.toThrow(/ECONNREFUSED/);
  });

  it('sends through every notification service (slack by connection, its token masked); an unknown scheme is refused', async () => {
    configureSenders({ endpoints: { slack: webBase } });
    try {
      await insertConnection(db.pool, { name: 'slack', type: 'slack', url: 'slack://$(password)@$(username)', username: 'C0123', password: 'xoxb-s3cret' });
      const ctx = testContext(db.pool);
      expect(await notificationAction.run({ connection: 'slack', title: 'T', message: 'M' }, ctx)).toEqual({ type: 'slack' });
      expect(hooks.at(-1)).toMatchObject({ method: 'POST', url: '/api/chat.postMessage', auth: 'Bearer xoxb-s3cret' });
      expect(JSON.parse(hooks.at(-1)!.body)).toMatchObject({ channel: 'C0123' });
      expect(ctx.secrets).toContain('xoxb-s3cret');
    } finally {
      configureSenders({ endpoints: {} });
    }
    await expect(notificationAction.run({ url: 'carrier-pigeon://coop', title: 'T' }, testContext(db.pool))).rejects.toThrow('unsupported notification url (carrier-pigeon)');
  });

  it('stops a stalled delivery on cancel', async () => {
    stallData = true;
    try {
      const ctx = testContext(db.pool);
      const p = notificationAction.run({ url: `smtp://mailer:smtp-Pa55@127.0.0.1:${smtpPort}/?to=a@example.test`, title: 'stall' }, ctx);
      setTimeout(() => ctx.controller.abort(new Error('cancelled')), 500);
      await expect(p).rejects.toThrow('cancelled');
    } finally {
      stallData = false;
    }
  });
});
