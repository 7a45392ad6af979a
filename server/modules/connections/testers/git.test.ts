import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
