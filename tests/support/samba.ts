import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { findBinary, stopProcess, waitUntil } from '../fixtures/servers/proc.js';
import { freePort } from '../fixtures/servers/tcp.js';

const smbd = findBinary('smbd');
const smbpasswd = findBinary('smbpasswd');

/** Why the Samba tests cannot run here, or undefined when they can. */
export const sambaMissing = !smbd || !smbpasswd
  ? 'Samba is not installed (apt-get install -y samba)'
  : process.getuid?.() !== 0
    ? 'smbd must run as root (it switches to the signed-in user for each session)'
    : undefined;

export interface Samba {
  host: string;
  port: number;
  share: string;
  /** A Samba user (the unix user running the tests, as smbpasswd needs) with an NTLM password in the private passdb. */
  user: string;
  password: string;
  /** Files put in the share at start. */
  files: string[];
  stop(): Promise<void>;
}

/**
 * A throwaway Samba file server: apt's `smbd` (4.17 on Debian 12) in the foreground with its own smb.conf, every
 * state, lock, cache and private directory (the tdbsam passdb included) under a temp dir, listening on a free loopback
 * port, one share with two files and one user added with `smbpasswd -a`. Samba's defaults are kept where a client
 * would meet them (SMB2+ only, NTLMv2 only). Nothing touches /etc/samba or a system smbd. `stop()` ends it and removes
 * the directory.
 */
export async function startSamba(opts: { password?: string } = {}): Promise<Samba> {
  if (sambaMissing) throw new Error(sambaMissing);
  const dir = await mkdtemp(join(tmpdir(), 'conn-samba-'));
  const share = 'reports';
  const files = ['q1.csv', 'q2.csv'];
  const user = userInfo().username;
  const password = opts.password ?? 'smb-S3cret!';
  const sub = (name: string) => join(dir, name);
  for (const d of ['private', 'lock', 'state', 'cache', 'pid', 'ncalrpc', 'share']) await mkdir(sub(d));
  for (const f of files) await writeFile(join(sub('share'), f), `${f}\n`);
  const port = await freePort();
  const conf = join(dir, 'smb.conf');
  await writeFile(
    conf,
    [
      '[global]',
      'netbios name = CONNTEST',
      'workgroup = WORKGROUP',
      'server role = standalone server',
      'security = user',
      'map to guest = Never',
      `passdb backend = tdbsam:${join(sub('private'), 'passdb.tdb')}`,
      `private dir = ${sub('private')}`,
      `binddns dir = ${sub('private')}`,
      `lock directory = ${sub('lock')}`,
      `state directory = ${sub('state')}`,
      `cache directory = ${sub('cache')}`,
      `pid directory = ${sub('pid')}`,
      `ncalrpc dir = ${sub('ncalrpc')}`,
      `log file = ${join(dir, 'smbd.log')}`,
      `smb ports = ${port}`,
      'interfaces = 127.0.0.1',
      'bind interfaces only = yes',
      'disable netbios = yes',
      'load printers = no',
      'printing = bsd',
      'printcap name = /dev/null',
      'disable spoolss = yes',
      '',
      `[${share}]`,
      `path = ${sub('share')}`,
      'read only = yes',
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve, reject) => {
    const child = execFile(smbpasswd!, ['-c', conf, '-a', '-s', user], { timeout: 30_000 }, (err, _out, stderr) =>
      err ? reject(new Error(`smbpasswd -a failed: ${stderr || err.message}`)) : resolve(),
    );
    child.stdin!.end(`${password}\n${password}\n`);
  }).catch(async (err) => {
    await rm(dir, { recursive: true, force: true });
    throw err;
  });
  // its own process group (detached, and --no-process-group so smbd does not try to make one of a session leader):
  // on shutdown smbd signals its whole group, which must not be the test runner's
  const child = spawn(smbd!, ['--foreground', '--no-process-group', '-s', conf], { stdio: 'ignore', detached: true });
  const log = () => readFile(join(dir, 'smbd.log'), 'utf8').catch(() => '');
  let lastLog = '';
  const stop = async () => {
    await stopProcess(child, 10_000);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitUntil(
      'smbd',
      async () => {
        lastLog = (await log()).slice(-2000);
        return new Promise<boolean>((resolve) => {
          const s = connect(port, '127.0.0.1', () => {
            s.destroy();
            resolve(true);
          });
          s.on('error', () => resolve(false));
        });
      },
      { child, timeoutMs: 30_000, log: () => lastLog },
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { host: '127.0.0.1', port, share, user, password, files, stop };
}
