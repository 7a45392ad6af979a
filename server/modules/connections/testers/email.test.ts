import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, listen, startHangingServer } from '../../../../tests/fixtures/servers/tcp.js';
import { emailTester } from './email.js';
import type { HydratedConnection } from './types.js';

const conn = (over: Partial<HydratedConnection>): HydratedConnection => ({
  name: 'e', namespace: 'default', type: 'email', url: '', username: '', password: '', certificate: '', insecure_tls: false,
  properties: {}, secrets: [], ...over,
});
const ctx = (ms = 10_000) => ({ signal: AbortSignal.timeout(ms), timeoutMs: ms });
let smtp: SMTPServer;
let port: number;
beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: false, allowInsecureAuth: true, disabledCommands: ['STARTTLS'], logger: false,
    onAuth: (a, _s, cb) => (a.username === 'm' && a.password === 'pw' ? cb(null, { user: 'm' }) : cb(new Error('Invalid username or password'))),
  });
  port = await listen(smtp.server as never);
});
afterAll(() => new Promise<void>((r) => smtp.close(() => r())));

describe('email tester (SMTP verify)', () => {
  it('passes with smtp://host:port, with properties host/port, and with the Email notification url', async () => {
    expect(await emailTester(conn({ url: `smtp://127.0.0.1:${port}`, username: 'm', password: 'pw' }), ctx())).toEqual({ host: '127.0.0.1', port, secure: false, auth: true });
    expect(await emailTester(conn({ properties: { host: '127.0.0.1', port: String(port) }, username: 'm', password: 'pw' }), ctx())).toMatchObject({ port });
    const notification = `smtp://m:pw@127.0.0.1:${port}/?UseStartTLS=false&SkipTLSVerify=false&Encryption=Auto&Auth=Unknown&from=a%40b.c`;
    expect(await emailTester(conn({ url: notification }), ctx())).toMatchObject({ auth: true });
  });

  it('fails: wrong password, closed port, no host', async () => {
    await expect(emailTester(conn({ url: `smtp://127.0.0.1:${port}`, username: 'm', password: 'x' }), ctx())).rejects.toThrow(/^authentication failed/);
    await expect(emailTester(conn({ url: `smtp://127.0.0.1:${await closedPort()}` }), ctx())).rejects.toThrow(/^connection refused/);
    await expect(emailTester(conn({}), ctx())).rejects.toThrow(/no SMTP host/);
  });

  it('a server that never greets ends when the signal aborts', async () => {
    const hang = await startHangingServer();
    try {
      await expect(emailTester(conn({ url: `smtp://127.0.0.1:${hang.port}` }), ctx(200))).rejects.toThrow();
    } finally {
      await hang.close();
    }
  });
});
