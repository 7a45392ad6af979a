import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'ldapts';
import { findBinary, stopProcess, waitUntil } from '../fixtures/servers/proc.js';
import { freePort } from '../fixtures/servers/tcp.js';

const slapdBin = findBinary('slapd');
const MODULE_DIR = ['/usr/lib/ldap', '/usr/lib/x86_64-linux-gnu/ldap', '/usr/lib/aarch64-linux-gnu/ldap'].find((d) => existsSync(join(d, 'back_mdb.so')));
const SCHEMA_DIR = '/etc/ldap/schema';

/** Why the slapd tests cannot run here, or undefined when they can. */
export const slapdMissing =
  slapdBin && MODULE_DIR && existsSync(join(SCHEMA_DIR, 'inetorgperson.schema'))
    ? undefined
    : 'OpenLDAP slapd is not installed (apt-get install -y slapd)';

export interface Slapd {
  /** `ldap://127.0.0.1:<port>`. */
  url: string;
  port: number;
  suffix: string;
  rootDn: string;
  rootPassword: string;
  /** A person entry with a password, to bind as. */
  userDn: string;
  userPassword: string;
  stop(): Promise<void>;
}

/**
 * A throwaway OpenLDAP: `slapd` from apt in the foreground with its own slapd.conf (mdb backend, core/cosine/
 * inetorgperson schemas) and database in a temp dir, on a free loopback port, as whoever runs the tests (root in CI;
 * no -u/-g, so it keeps that user). The suffix, an `ou=people` and one user are added over LDAP as the rootdn.
 * `stop()` ends it and removes the directory. Nothing touches /etc/ldap or a system slapd.
 */
export async function startSlapd(opts: { userPassword?: string } = {}): Promise<Slapd> {
  if (slapdMissing) throw new Error(slapdMissing);
  const dir = await mkdtemp(join(tmpdir(), 'conn-slapd-'));
  const suffix = 'dc=example,dc=org';
  const rootDn = `cn=admin,${suffix}`;
  const rootPassword = 'root-S3cret!';
  const userDn = `uid=alice,ou=people,${suffix}`;
  const userPassword = opts.userPassword ?? 'alice-S3cret!';
  await mkdir(join(dir, 'data'));
  const conf = [
    ...['core', 'cosine', 'inetorgperson'].map((s) => `include ${SCHEMA_DIR}/${s}.schema`),
    `pidfile ${join(dir, 'slapd.pid')}`,
    `modulepath ${MODULE_DIR}`,
    'moduleload back_mdb',
    'database mdb',
    'maxsize 16777216',
    `suffix "${suffix}"`,
    `rootdn "${rootDn}"`,
    `rootpw ${rootPassword}`,
    `directory ${join(dir, 'data')}`,
    // a person may read the tree once bound; anonymous users may only bind
    'access to attrs=userPassword by self write by anonymous auth by * none',
    'access to * by users read by * none',
  ].join('\n');
  await writeFile(join(dir, 'slapd.conf'), `${conf}\n`);
  const port = await freePort();
  const url = `ldap://127.0.0.1:${port}`;
  let stderr = '';
  // -d keeps slapd in the foreground (level 0: no debug output beyond errors)
  const child = spawn(slapdBin!, ['-d', '0', '-f', join(dir, 'slapd.conf'), '-h', `${url}/`], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const stop = async () => {
    await stopProcess(child, 10_000);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitUntil(
      'slapd',
      async () => {
        const c = new Client({ url, connectTimeout: 1000 });
        try {
          await c.bind(rootDn, rootPassword);
          return true;
        } finally {
          await c.unbind().catch(() => {});
        }
      },
      { child, timeoutMs: 30_000, log: () => stderr },
    );
    const admin = new Client({ url });
    try {
      await admin.bind(rootDn, rootPassword);
      await admin.add(suffix, { objectClass: ['top', 'dcObject', 'organization'], dc: 'example', o: 'Example' });
      await admin.add(`ou=people,${suffix}`, { objectClass: ['top', 'organizationalUnit'], ou: 'people' });
      await admin.add(userDn, {
        objectClass: ['top', 'person', 'organizationalPerson', 'inetOrgPerson'],
        uid: 'alice', cn: 'Alice', sn: 'Example', userPassword,
      });
    } finally {
      await admin.unbind().catch(() => {});
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, port, suffix, rootDn, rootPassword, userDn, userPassword, stop };
}
