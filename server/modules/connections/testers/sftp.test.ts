import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, startHangingServer } from '../../../../tests/fixtures/servers/tcp.js';
import { startSftpServer, type SftpServer } from '../../../../tests/support/sftp-server.js';
import { sftpTarget, sftpTester } from './sftp.js';
import { ConnectionTestError, type HydratedConnection } from './types.js';

const ctx = (ms = 10_000) => ({ signal: AbortSignal.timeout(ms), timeoutMs: ms });
const conn = (over: Partial<HydratedConnection>): HydratedConnection => ({
  name: 'files', namespace: 'default', type: 'sftp', url: '', username: '', password: '', certificate: '',
  insecure_tls: false, properties: {}, secrets: [], ...over,
});

describe('sftpTarget', () => {
  it('reads a host, host:port or sftp://host:port, the port falling back to properties.port then 22', () => {
    expect(sftpTarget(conn({ url: 'files.example' }))).toEqual({ host: 'files.example', port: 22 });
    expect(sftpTarget(conn({ url: 'files.example', properties: { port: '2222' } }))).toEqual({ host: 'files.example', port: 2222 });
    expect(sftpTarget(conn({ url: 'sftp://files.example:2022', properties: { port: '2222' } }))).toEqual({ host: 'files.example', port: 2022 });
    expect(sftpTarget(conn({ url: '10.0.0.5:23' }))).toEqual({ host: '10.0.0.5', port: 23 });
  });

  it('refuses credentials in the url, another scheme and a bad port, never repeating the password', () => {
    expect(() => sftpTarget(conn({ url: 'sftp://bob:hunter2@files.example' }))).toThrow(/must not hold credentials/);
    expect(() => sftpTarget(conn({ url: 'http://files.example' }))).toThrow(/sftp:\/\//);
    expect(() => sftpTarget(conn({ url: 'files.example', properties: { port: 'x' } }))).toThrow(/port/);
    expect(() => sftpTarget(conn({ url: '' }))).toThrow(/url is required/);
  });
});

describe('sftp tester against an SFTP server on ssh2 (loopback)', () => {
  let server: SftpServer;
  beforeAll(async () => {
    server = await startSftpServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const good = () => conn({ url: `sftp://127.0.0.1:${server.port}`, username: server.user, password: server.password });

  it('signs in and lists the home directory', async () => {
    await expect(sftpTester(good(), ctx())).resolves.toEqual({
      host: '127.0.0.1', port: server.port, home: `/home/${server.user}`, entries: server.files.length,
    });
  });

  it('takes the port from properties when the url is a bare host', async () => {
    const c = { ...good(), url: '127.0.0.1', properties: { port: String(server.port) } };
    await expect(sftpTester(c, ctx())).resolves.toMatchObject({ port: server.port, entries: server.files.length });
  });

  it('says the password was refused, without the password', async () => {
    const err = await sftpTester({ ...good(), password: 'not-the-Pa55word' }, ctx()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionTestError);
    expect((err as Error).message).toMatch(/^authentication failed: 127\.0\.0\.1:\d+ refused the username or password$/);
    expect((err as Error).message).not.toContain('not-the-Pa55word');
  });

  it('says nothing listens on a closed port', async () => {
    const port = await closedPort();
    await expect(sftpTester({ ...good(), url: `127.0.0.1:${port}` }, ctx())).rejects.toThrow(
      `connection refused: nothing accepts connections at 127.0.0.1:${port}`,
    );
  });

  it('says the host does not resolve', async () => {
    await expect(sftpTester({ ...good(), url: 'no-such-host.invalid' }, ctx())).rejects.toThrow(/host not found: no-such-host\.invalid/);
  });

  it('gives up on a server that never answers when the time is up', async () => {
    const hang = await startHangingServer();
    try {
      const err = await sftpTester({ ...good(), url: `127.0.0.1:${hang.port}` }, ctx(500)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConnectionTestError);
      expect((err as Error).message).toMatch(/timed out|aborted/);
      expect(hang.connections()).toBe(1);
    } finally {
      await hang.close();
    }
  });
});
