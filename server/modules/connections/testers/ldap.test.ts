import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, startHangingServer } from '../../../../tests/fixtures/servers/tcp.js';
import { slapdMissing, startSlapd, type Slapd } from '../../../../tests/support/slapd.js';
import { startTlsFront, type TlsFront } from '../../../../tests/support/tls-front.js';
import { ldapTester } from './ldap.js';
import { ConnectionTestError, type HydratedConnection } from './types.js';

const ctx = (ms = 10_000) => ({ signal: AbortSignal.timeout(ms), timeoutMs: ms });
const conn = (over: Partial<HydratedConnection>): HydratedConnection => ({
  name: 'directory', namespace: 'default', type: 'ldap', url: '', username: '', password: '', certificate: '',
  insecure_tls: false, properties: {}, secrets: [], ...over,
});
const failure = (p: Promise<unknown>) =>
  p.then(
    () => { throw new Error('the test passed'); },
    (e: unknown) => { expect(e).toBeInstanceOf(ConnectionTestError); return (e as Error).message; },
  );

describe('ldap tester, before connecting', () => {
  it('needs an ldap:// or ldaps:// url, a bind DN and a password', async () => {
    expect(await failure(ldapTester(conn({ url: 'http://x', username: 'cn=a', password: 'p' }), ctx()))).toMatch(/ldap:\/\/ or ldaps:\/\//);
    expect(await failure(ldapTester(conn({ url: 'ldap://x' , password: 'p' }), ctx()))).toMatch(/username is required/);
    expect(await failure(ldapTester(conn({ url: 'ldap://x', username: 'cn=a', password: '' }), ctx()))).toMatch(/anonymous bind/);
  });
});

describe.skipIf(slapdMissing)(`ldap tester against OpenLDAP slapd${slapdMissing ? ` (skipped: ${slapdMissing})` : ''}`, () => {
  let slapd: Slapd;
  let front: TlsFront;
  let dir: string;
  beforeAll(async () => {
    slapd = await startSlapd();
    dir = await mkdtemp(join(tmpdir(), 'conn-ldaps-'));
    front = await startTlsFront(dir, () => slapd.port, 'ldap test front');
  }, 60_000);
  afterAll(async () => {
    await front?.close();
    await slapd?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 30_000);

  const good = () => conn({ url: slapd.url, username: slapd.userDn, password: slapd.userPassword });
  const ldaps = () => front.url.replace('https://', 'ldaps://');

  it('binds as a user and says who the server thinks it is', async () => {
    await expect(ldapTester(good(), ctx())).resolves.toEqual({ url: slapd.url, bound: slapd.userDn, whoami: slapd.userDn });
  });

  it('binds as the rootdn', async () => {
    await expect(ldapTester({ ...good(), username: slapd.rootDn, password: slapd.rootPassword }, ctx())).resolves.toMatchObject({
      bound: slapd.rootDn,
    });
  });

  it('says the credentials are invalid for a wrong password, without the password', async () => {
    const message = await failure(ldapTester({ ...good(), password: 'Wr0ng-pass' }, ctx()));
    expect(message).toBe(`authentication failed: invalid credentials for ${slapd.userDn} at 127.0.0.1:${slapd.port}`);
    expect(message).not.toContain('Wr0ng-pass');
  });

  it('says the credentials are invalid for a DN that does not exist', async () => {
    const dn = `uid=nobody,ou=people,${slapd.suffix}`;
    expect(await failure(ldapTester({ ...good(), username: dn }, ctx()))).toMatch(/^authentication failed: .*uid=nobody/);
  });

  it('refuses a username that is not a DN', async () => {
    expect(await failure(ldapTester({ ...good(), username: 'alice' }, ctx()))).toMatch(/not a valid DN|authentication failed/);
  });

  it('ldaps: refuses a certificate it cannot trust, passes with insecure_tls or the CA in certificate', async () => {
    expect(await failure(ldapTester({ ...good(), url: ldaps() }, ctx()))).toMatch(/^TLS: the certificate of 127\.0\.0\.1:\d+ is not trusted/);
    await expect(ldapTester({ ...good(), url: ldaps(), insecure_tls: true }, ctx())).resolves.toMatchObject({ bound: slapd.userDn });
    await expect(ldapTester({ ...good(), url: ldaps(), certificate: front.ca }, ctx())).resolves.toMatchObject({ whoami: slapd.userDn });
  });

  it('says nothing listens on a closed port', async () => {
    const port = await closedPort();
    expect(await failure(ldapTester({ ...good(), url: `ldap://127.0.0.1:${port}` }, ctx()))).toBe(
      `connection refused: nothing accepts connections at 127.0.0.1:${port}`,
    );
  });

  it('says the host does not resolve', async () => {
    expect(await failure(ldapTester({ ...good(), url: 'ldap://no-such-host.invalid' }, ctx()))).toMatch(/^host not found: no-such-host\.invalid/);
  });

  it('gives up on a server that accepts and never answers when the time is up', async () => {
    const hang = await startHangingServer();
    try {
      expect(await failure(ldapTester({ ...good(), url: `ldap://127.0.0.1:${hang.port}` }, ctx(500)))).toMatch(/timed out|aborted/);
      expect(hang.connections()).toBe(1);
    } finally {
      await hang.close();
    }
  });
});
