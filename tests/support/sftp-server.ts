import { readdirSync, statSync, type Stats } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { timingSafeEqual } from 'node:crypto';
import ssh2 from 'ssh2';
import type { Connection, SFTPWrapper } from 'ssh2';

const { Server, utils } = ssh2;
const { STATUS_CODE } = utils.sftp;

export interface SftpServer {
  port: number;
  user: string;
  password: string;
  /** The directory the user's home (`/home/<user>`) lists. */
  dir: string;
  /** Files put in `dir` at start. */
  files: string[];
  close(): Promise<void>;
}

/**
 * An SFTP server on loopback written on ssh2's Server: password auth for one user, and just enough of SFTP v3 for a
 * client to find its home and list it (REALPATH, STAT/LSTAT, OPENDIR, READDIR, CLOSE). The home is a temp dir
 * with a couple of files; every other request is answered OP_UNSUPPORTED. Host key: a fresh ed25519 key per start.
 */
export async function startSftpServer(opts: { user?: string; password?: string } = {}): Promise<SftpServer> {
  const user = opts.user ?? 'tester';
  const password = opts.password ?? 'sftp-S3cret!';
  const dir = await mkdtemp(join(tmpdir(), 'conn-sftp-'));
  const files = ['report.csv', 'notes.txt'];
  for (const f of files) await writeFile(join(dir, f), `${f}\n`);
  const home = `/home/${user}`;
  const hostKey = utils.generateKeyPairSync('ed25519').private;
  const clients = new Set<Connection>();

  const same = (a: string, b: string) => {
    const x = Buffer.from(a);
    const y = Buffer.from(b);
    return x.length === y.length && timingSafeEqual(x, y);
  };

  const server = new Server({ hostKeys: [hostKey] }, (client) => {
    clients.add(client);
    client.on('close', () => clients.delete(client));
    client.on('error', () => {});
    client.on('authentication', (ctx) => {
      if (ctx.method === 'password' && same(ctx.username, user) && same(ctx.password, password)) return ctx.accept();
      ctx.reject(['password']);
    });
    client.on('ready', () => {
      client.on('session', (acceptSession) => {
        const session = acceptSession();
        session.on('sftp', (acceptSftp) => serveSftp(acceptSftp(), dir, home));
      });
    });
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
  return {
    port,
    user,
    password,
    dir,
    files,
    async close() {
      for (const c of clients) c.end();
      await new Promise<void>((r) => server.close(() => r()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** SFTP paths under `home` map into `dir`; anything else does not exist. */
function serveSftp(sftp: SFTPWrapper, dir: string, home: string): void {
  const handles = new Map<number, { path: string; listed: boolean }>();
  let nextHandle = 1;
  const resolvePath = (p: string) => posix.normalize(p === '.' || p === '' ? home : p.startsWith('/') ? p : posix.join(home, p));
  const local = (p: string) => {
    const abs = resolvePath(p);
    if (abs !== home && !abs.startsWith(`${home}/`)) return undefined;
    return join(dir, abs.slice(home.length));
  };
  const attrs = (s: Stats) => ({ mode: s.mode, uid: s.uid, gid: s.gid, size: s.size, atime: Math.floor(s.atimeMs / 1000), mtime: Math.floor(s.mtimeMs / 1000) });
  const longname = (name: string, s: Stats) => `${s.isDirectory() ? 'd' : '-'}rw-r--r-- 1 ${s.uid} ${s.gid} ${s.size} Jan 1 00:00 ${name}`;

  sftp.on('REALPATH', (id, p) => {
    const abs = resolvePath(p);
    sftp.name(id, [{ filename: abs, longname: abs, attrs: {} as never }]);
  });
  const onStat = (id: number, p: string) => {
    const l = local(p);
    try {
      if (!l) throw new Error('outside home');
      sftp.attrs(id, attrs(statSync(l)));
    } catch {
      sftp.status(id, STATUS_CODE.NO_SUCH_FILE);
    }
  };
  sftp.on('STAT', onStat);
  sftp.on('LSTAT', onStat);
  sftp.on('OPENDIR', (id, p) => {
    const l = local(p);
    if (!l) return sftp.status(id, STATUS_CODE.NO_SUCH_FILE);
    try {
      if (!statSync(l).isDirectory()) return sftp.status(id, STATUS_CODE.FAILURE);
    } catch {
      return sftp.status(id, STATUS_CODE.NO_SUCH_FILE);
    }
    const h = nextHandle++;
    handles.set(h, { path: l, listed: false });
    const buf = Buffer.alloc(4);
    buf.writeUInt32BE(h);
    sftp.handle(id, buf);
  });
  sftp.on('READDIR', (id, handle) => {
    const entry = handles.get(handle.readUInt32BE(0));
    if (!entry) return sftp.status(id, STATUS_CODE.FAILURE);
    if (entry.listed) return sftp.status(id, STATUS_CODE.EOF);
    entry.listed = true;
    const names = readdirSync(entry.path).map((name) => {
      const s = statSync(join(entry.path, name));
      return { filename: name, longname: longname(name, s), attrs: attrs(s) };
    });
    sftp.name(id, names);
  });
  sftp.on('CLOSE', (id, handle) => {
    handles.delete(handle.readUInt32BE(0));
    sftp.status(id, STATUS_CODE.OK);
  });
  for (const op of ['OPEN', 'READ', 'WRITE', 'FSTAT', 'FSETSTAT', 'SETSTAT', 'REMOVE', 'RMDIR', 'MKDIR', 'RENAME', 'READLINK', 'SYMLINK'] as const) {
    sftp.on(op as 'OPEN', (id: number) => sftp.status(id, STATUS_CODE.OP_UNSUPPORTED));
  }
}
