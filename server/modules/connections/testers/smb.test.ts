import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, startHangingServer } from '../../../../tests/fixtures/servers/tcp.js';
import { sambaMissing, startSamba, type Samba } from '../../../../tests/support/samba.js';
import { smbTarget, smbTester } from './smb.js';
import { ConnectionTestError, type HydratedConnection } from './types.js';

const ctx = (ms = 10_000) => ({ signal: AbortSignal.timeout(ms), timeoutMs: ms });
const conn = (over: Partial<HydratedConnection>): HydratedConnection => ({
  name: 'fileshare', namespace: 'default', type: 'smb', url: '', username: '', password: '', certificate: '',
  insecure_tls: false, properties: {}, secrets: [], ...over,
});
const failure = (p: Promise<unknown>) =>
  p.then(
    () => { throw new Error('the test passed'); },
    (e: unknown) => { expect(e).toBeInstanceOf(ConnectionTestError); return (e as Error).message; },
  );

describe('smbTarget', () => {
  it('reads smb://, \\\\host\\share and a bare host with the form\'s properties', () => {
    expect(smbTarget(conn({ url: 'smb://files.example/reports/2024/q1' }))).toEqual({ host: 'files.example', port: 445, share: 'reports', path: '2024/q1' });
    expect(smbTarget(conn({ url: '\\\\10.0.0.9\\Some Share\\a\\b' }))).toEqual({ host: '10.0.0.9', port: 445, share: 'Some Share', path: 'a/b' });
    expect(smbTarget(conn({ url: 'files.example', properties: { port: '1445', sharename: 'docs', searchPath: '/x/y/' } }))).toEqual({
      host: 'files.example', port: 1445, share: 'docs', path: 'x/y',
    });
    expect(smbTarget(conn({ url: 'smb://files.example:4450/docs', properties: { port: '1445', sharename: 'other' } }))).toMatchObject({ port: 4450, share: 'docs' });
  });

  it('refuses a missing share, credentials in the url, another scheme and ..', () => {
    expect(() => smbTarget(conn({ url: 'files.example' }))).toThrow(/share is required/);
    expect(() => smbTarget(conn({ url: 'smb://u:pw@files.example/docs' }))).toThrow(/must not hold credentials/);
    expect(() => smbTarget(conn({ url: 'http://files.example/docs' }))).toThrow(/smb:\/\//);
    expect(() => smbTarget(conn({ url: 'smb://files.example/docs', properties: { searchPath: '../etc' } }))).toThrow(/\.\./);
  });
});

describe.skipIf(sambaMissing)(`smb tester against Samba smbd${sambaMissing ? ` (skipped: ${sambaMissing})` : ''}`, () => {
  let samba: Samba;
  beforeAll(async () => {
    samba = await startSamba();
  }, 60_000);
  afterAll(async () => {
    await samba?.stop();
  }, 30_000);

  const good = () => conn({ url: `smb://${samba.host}:${samba.port}/${samba.share}`, username: samba.user, password: samba.password });

  it('signs in with NTLMv2 and lists the share', async () => {
    await expect(smbTester(good(), ctx())).resolves.toEqual({
      server: samba.host, port: samba.port, share: samba.share, path: '/', entries: samba.files.length,
    });
  });

  it('takes port and share from properties, as the reference form stores them', async () => {
    const c = { ...good(), url: samba.host, properties: { port: String(samba.port), sharename: samba.share } };
    await expect(smbTester(c, ctx())).resolves.toMatchObject({ share: samba.share, entries: samba.files.length });
  });

  it('says the password was refused, without the password', async () => {
    const message = await failure(smbTester({ ...good(), password: 'Wr0ng-pass' }, ctx()));
    expect(message).toBe(`authentication failed: ${samba.host}:${samba.port} refused the username or password`);
    expect(message).not.toContain('Wr0ng-pass');
  });

  it('says a share does not exist', async () => {
    const c = { ...good(), url: `smb://${samba.host}:${samba.port}/nosuchshare` };
    expect(await failure(smbTester(c, ctx()))).toBe(`share not found: ${samba.host} has no share named nosuchshare`);
  });

  it('says a folder in the share does not exist', async () => {
    const c = { ...good(), url: `smb://${samba.host}:${samba.port}/${samba.share}/missing` };
    expect(await failure(smbTester(c, ctx()))).toBe(`folder not found: missing in share ${samba.share}`);
  });

  it('says nothing listens on a closed port', async () => {
    const port = await closedPort();
    expect(await failure(smbTester({ ...good(), url: `smb://127.0.0.1:${port}/${samba.share}` }, ctx()))).toBe(
      `connection refused: nothing accepts connections at 127.0.0.1:${port}`,
    );
  });

  it('says the host does not resolve', async () => {
    expect(await failure(smbTester({ ...good(), url: `smb://no-such-host.invalid/${samba.share}` }, ctx()))).toMatch(/^host not found: no-such-host\.invalid/);
  });

  it('gives up on a server that accepts and never answers when the time is up', async () => {
    const hang = await startHangingServer();
    try {
      expect(await failure(smbTester({ ...good(), url: `smb://127.0.0.1:${hang.port}/${samba.share}` }, ctx(500)))).toMatch(/timed out|aborted/);
      expect(hang.connections()).toBe(1);
    } finally {
      await hang.close();
    }
  });
});
