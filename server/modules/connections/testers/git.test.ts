import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import ssh2 from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHangingServer } from '../../../../tests/fixtures/servers/tcp.js';
import { gitTester } from './git.js';
import type { HydratedConnection } from './types.js';

const conn = (over: Partial<HydratedConnection>): HydratedConnection => ({
  name: 'g', namespace: 'default', type: 'git', url: '', username: '', password: '', certificate: '', insecure_tls: false,
  properties: {}, secrets: [], ...over,
});
const ctx = (ms = 10_000) => ({ signal: AbortSignal.timeout(ms), timeoutMs: ms });
let dir: string;
let head: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'conn-git-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' }).toString().trim();
  git('init', '-q', '--bare', '-b', 'main', 'repo.git');
  git('init', '-q', '-b', 'main', 'work');
  writeFileSync(join(dir, 'work', 'f'), 'x');
  git('-C', 'work', 'add', 'f');
  git('-C', 'work', '-c', 'user.name=t', '-c', 'user.email=t@example.test', 'commit', '-q', '-m', 'one');
  git('-C', 'work', 'push', '-q', join(dir, 'repo.git'), 'main');
  head = git('-C', 'work', 'rev-parse', 'HEAD');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('git tester (git ls-remote)', () => {
  it('passes with the commit of main (the default ref)', async () => {
    expect(await gitTester(conn({ url: `file://${dir}/repo.git` }), ctx())).toEqual({ url: `file://${dir}/repo.git`, ref: 'refs/heads/main', commit: head });
  });

  it('fails for a missing ref and a missing repository', async () => {
    await expect(gitTester(conn({ url: `file://${dir}/repo.git`, properties: { ref: 'dev' } }), ctx())).rejects.toThrow(/^ref dev not found/);
    await expect(gitTester(conn({ url: `file://${dir}/none.git` }), ctx())).rejects.toThrow(/^no git repository at/);
  });

  it('refuses a ref that git would read as an option', async () => {
    await expect(gitTester(conn({ url: `file://${dir}/repo.git`, properties: { ref: '--upload-pack=touch /tmp/x' } }), ctx())).rejects.toThrow(/must not start with '-'/);
  });

  it('a hanging http remote is killed when the signal aborts; the password never shows', async () => {
    const hang = await startHangingServer();
    try {
      const err = await gitTester(conn({ url: `http://u:pw-s3cret@127.0.0.1:${hang.port}/r.git` }), ctx(300)).catch((e: Error) => e);
      expect((err as Error).message).toBe('aborted');
    } finally {
      await hang.close();
    }
  });
});

/** An SSH server on loopback that accepts one public key and runs `git-upload-pack <path>` for ls-remote. */
async function startGitSshServer(publicKey: string) {
  const allowed = ssh2.utils.parseKey(publicKey) as ssh2.ParsedKey;
  const server = new ssh2.Server({ hostKeys: [ssh2.utils.generateKeyPairSync('ed25519').private] }, (client) => {
    client.on('error', () => {});
    client.on('authentication', (a) => {
      if (a.method === 'publickey' && a.key.data.equals(allowed.getPublicSSH())) return a.accept();
      a.reject(['publickey']);
    });
    client.on('ready', () =>
      client.on('session', (accept) =>
        accept().on('exec', (ok, _no, info) => {
          const stream = ok();
          const path = /^git-upload-pack '(.+)'$/.exec(info.command)?.[1] ?? '/nonexistent';
          const child = spawn('git', ['upload-pack', path]);
          stream.pipe(child.stdin);
          child.stdout.pipe(stream);
          child.stderr.pipe(stream.stderr);
          child.on('close', (code) => {
            stream.exit(code ?? 1);
            stream.end();
          });
        }),
      ),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('git tester over SSH (the key in certificate)', () => {
  it('passes with the right key and fails with another one', async () => {
    const key = ssh2.utils.generateKeyPairSync('ed25519');
    const other = ssh2.utils.generateKeyPairSync('ed25519');
    const server = await startGitSshServer(key.public);
    try {
      const url = `ssh://git@127.0.0.1:${server.port}${dir}/repo.git`;
      expect(await gitTester(conn({ url, certificate: key.private }), ctx())).toMatchObject({ commit: head });
      await expect(gitTester(conn({ url, certificate: other.private }), ctx())).rejects.toThrow(/^authentication failed for ssh:/);
    } finally {
      await server.close();
    }
  });
});
