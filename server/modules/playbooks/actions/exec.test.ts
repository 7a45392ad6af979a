import { execFileSync, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecAction } from '../../../contracts/playbook-actions/exec.js';
import { SecretMasker } from '../../../lib/secret-mask.js';
import { startKubeApi, type KubeApi } from '../../../../tests/support/kube-api/index.js';
import { EXEC_DISABLED, execAction } from './exec.js';
import { EXEC_OUTPUT_CAP_BYTES } from './exec-process.js';
import { createTestDb, insertConnection, testContext, type RecordingContext, type TestDb } from './test-context.js';
import { ActionFailedError } from './types.js';

let db: TestDb;
let kube: KubeApi;
let kc: KubeConfig;
let dir: string;
const SECRET = 'sup3r-s3cret-value';
const hasGit = (() => {
  try {
    execFileSync('git', ['--version']);
    return true;
  } catch {
    return false;
  }
})();

beforeAll(async () => {
  db = await createTestDb();
  dir = mkdtempSync(join(tmpdir(), 'exec-test-'));
  kube = await startKubeApi({ tls: false });
  kc = new KubeConfig();
  kc.loadFromFile(kube.writeKubeconfig(join(dir, 'kubeconfig')));
  kube.apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'exec-auth', namespace: 'default' }, type: 'Opaque', stringData: { token: SECRET } });
  kube.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'exec-cfg', namespace: 'default' }, data: { region: 'eu-west' } });
});

afterAll(async () => {
  await kube?.stop();
  await db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A failed run's error; fails the test when the action succeeded. */
async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the action to fail');
}

const HTTP_BACKEND = '/usr/lib/git-core/git-http-backend';

/** git's smart HTTP (git-http-backend as CGI) behind basic auth; counts the requests that were authorised. */
async function gitHttpServer(root: string, user: string, password: string): Promise<Server & { authorized: number }> {
  const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const server = createServer((req, res) => {
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' });
      res.end();
      return;
    }
    (server as Server & { authorized: number }).authorized++;
    const u = new URL(req.url!, 'http://x');
    const cgi = spawn(HTTP_BACKEND, [], {
      env: {
        GIT_PROJECT_ROOT: root, GIT_HTTP_EXPORT_ALL: '1', PATH_INFO: u.pathname, QUERY_STRING: u.search.slice(1),
        REQUEST_METHOD: req.method!, CONTENT_TYPE: req.headers['content-type'] ?? '', REMOTE_USER: user, PATH: process.env.PATH,
      },
    });
    req.pipe(cgi.stdin);
    const chunks: Buffer[] = [];
    cgi.stdout.on('data', (c: Buffer) => chunks.push(c));
    cgi.on('close', () => {
      const out = Buffer.concat(chunks);
      const split = out.indexOf('\r\n\r\n');
      const head = out.subarray(0, split).toString().split('\r\n');
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head) {
        const [k, v] = [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()];
        if (k.toLowerCase() === 'status') status = Number(v.split(' ')[0]);
        else headers[k] = v;
      }
      res.writeHead(status, headers);
      res.end(out.subarray(split + 4));
    });
  }) as Server & { authorized: number };
  server.authorized = 0;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return server;
}

/** Whether a process is running (a zombie waiting for its reaper counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function waitFor(file: string): Promise<string> {
  for (;;) {
    if (existsSync(file)) {
      const text = readFileSync(file, 'utf8').trim();
      if (text) return text;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('exec action', () => {
  it('runs a bash script: stdout, stderr and exit code, output streamed as it comes', async () => {
    const ctx = testContext(db.pool);
    const result = await execAction.run({ script: 'echo hello; echo oops >&2; printf "ünï"' }, ctx);
    expect(result).toEqual({ stdout: 'hello\nünï', stderr: 'oops\n', exitCode: 0 });
    expect(ctx.lines.filter((l) => l.stream === 'stdout').map((l) => l.text).join('')).toBe('hello\nünï');
    expect(ctx.lines.filter((l) => l.stream === 'stderr').map((l) => l.text).join('')).toBe('oops\n');
  });

  it('a non-zero exit fails the action with the result kept', async () => {
    const err = await failure(execAction.run({ script: 'echo partial; echo bad >&2; exit 3' }, testContext(db.pool)));
    expect(err).toBeInstanceOf(ActionFailedError);
    expect(err.message).toBe('script exited with code 3');
    expect((err as ActionFailedError).result).toEqual({ stdout: 'partial\n', stderr: 'bad\n', exitCode: 3 });
  });

  it('builds the environment from scratch, in a temporary HOME removed afterwards', async () => {
    process.env.DATABASE_URL = 'postgres://console:leak@db/console';
    process.env.ADMIN_PASSWORD = 'admin-leak-password';
    try {
      const ctx = testContext(db.pool);
      ctx.env = { FROM_RUN: 'run-env', SHARED: 'run' };
      const result = await execAction.run({
        script: 'env | sort; echo "pwd=$(pwd)"',
        env: [{ name: 'SHARED', value: 'block' }, { name: 'REGION', valueFrom: { configMapKeyRef: { name: 'exec-cfg', key: 'region' } } }],
      }, { ...ctx, options: { ...ctx.options, kube: kc } });
      const stdout = String(result.stdout);
      const vars = Object.fromEntries(stdout.split('\n').filter((l) => l.includes('=') && !l.startsWith('pwd=')).map((l) => l.split(/=(.*)/s).slice(0, 2)));
      const home = stdout.match(/^pwd=(.*)$/m)![1];
      expect(stdout).not.toContain('leak');
      expect(vars.DATABASE_URL).toBeUndefined();
      expect(vars.HOME).toBe(home);
      expect(vars.TMPDIR).toBe(join(home, '..', 'tmp'));
      expect(existsSync(vars.TMPDIR)).toBe(false);
      expect(vars).toMatchObject({ PATH: process.env.PATH, FROM_RUN: 'run-env', SHARED: 'block', REGION: 'eu-west' });
      // what bash adds itself (PWD, SHLVL, _) aside, nothing else
      expect(Object.keys(vars).filter((k) => !['PWD', 'SHLVL', '_', 'OLDPWD'].includes(k)).sort())
        .toEqual(['FROM_RUN', 'HOME', 'LANG', 'PATH', 'REGION', 'SHARED', 'TMPDIR']);
      expect(existsSync(home)).toBe(false);
      expect(ctx.secrets).toEqual([]);
    } finally {
      delete process.env.DATABASE_URL;
      delete process.env.ADMIN_PASSWORD;
    }
  });

  it('a valueFrom Secret reaches the script and is masked in its output, also base64-encoded', async () => {
    const masker = new SecretMasker();
    const ctx = testContext(db.pool, { kube: kc });
    const logged = masker.stream();
    let streamed = '';
    const result = await execAction.run({
      script: 'echo "token=$TOKEN"; printf %s "$TOKEN" | base64',
      env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'exec-auth', key: 'token' } } }],
    }, { ...ctx, addSecret: (v) => masker.add(v), log: (_s, text) => { streamed += logged.push(text); } });
    streamed += logged.end();
    expect(String(result.stdout)).toContain(SECRET);
    const masked = masker.maskDeep(result);
    expect(masked.stdout).toBe(`token=***\n***\n`);
    expect(streamed).toBe(masked.stdout);
  });

  it('abort kills the whole process group: a background sleep is gone too', async () => {
    const pidFile = join(dir, 'bg.pid');
    const ctx = testContext(db.pool);
    ctx.env = { PIDFILE: pidFile };
    const running = execAction.run({ script: 'sleep 600 & echo $! > "$PIDFILE"; echo started; wait' }, ctx);
    const pid = Number(await waitFor(pidFile));
    expect(alive(pid)).toBe(true);
    ctx.controller.abort(new Error('cancelled by a test'));
    const err = await failure(running);
    expect(err).toBeInstanceOf(ActionFailedError);
    expect(err.message).toBe('cancelled by a test');
    expect((err as ActionFailedError).result).toMatchObject({ stdout: 'started\n' });
    for (let i = 0; i < 40 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid)).toBe(false);
  });

  it('a script that ignores SIGTERM is killed after the grace; a finished script leaves nothing behind', async () => {
    const pidFile = join(dir, 'stubborn.pid');
    const ctx = testContext(db.pool);
    ctx.env = { PIDFILE: pidFile };
    const running = execAction.run({ script: 'trap "" TERM; echo $$ > "$PIDFILE"; while :; do sleep 0.2; done' }, ctx);
    const pid = Number(await waitFor(pidFile));
    ctx.controller.abort(new Error('stop'));
    const err = await failure(running);
    expect((err as ActionFailedError).result).toMatchObject({ exitCode: 137 });
    expect(alive(pid)).toBe(false);

    const leftFile = join(dir, 'left.pid');
    const done = testContext(db.pool);
    done.env = { PIDFILE: leftFile };
    await execAction.run({ script: 'sleep 600 >/dev/null 2>&1 & echo $! > "$PIDFILE"; echo done' }, done);
    const left = Number(await waitFor(leftFile));
    for (let i = 0; i < 60 && alive(left); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive(left)).toBe(false);
  });

  it('stops at its deadline (the action timeout)', async () => {
    const ctx = testContext(db.pool, { timeoutMs: 1_000 });
    const err = await failure(execAction.run({ script: 'echo waiting; sleep 600' }, ctx));
    expect(err).toBeInstanceOf(ActionFailedError);
    expect(err.message).toBe('exec action timed out');
    expect((err as ActionFailedError).result).toMatchObject({ stdout: 'waiting\n' });
  });

  it('keeps 1 MB of 100 MB of output without holding it all', async () => {
    const ctx = testContext(db.pool);
    let logged = 0;
    const before = process.memoryUsage().rss;
    let peak = before;
    const result = await execAction.run({ script: 'head -c 104857600 /dev/zero | tr "\\0" x; echo tail >&2' }, {
      ...ctx,
      log: (_s, text) => {
        logged += text.length;
        peak = Math.max(peak, process.memoryUsage().rss);
      },
    });
    expect(logged).toBe(104857600 + 5);
    expect(String(result.stdout).length).toBe(EXEC_OUTPUT_CAP_BYTES);
    expect(result.stderr).toBe('tail\n');
    expect(result.truncated).toEqual({ stdout: 104857600 });
    const grew = (peak - before) / 1024 / 1024;
    console.log(`exec 100 MB of output: rss grew ${grew.toFixed(1)} MB while streaming`);
    expect(grew).toBeLessThan(100);
  });

  it.skipIf(!hasGit)('checks out a repository (depth 1) and runs the script inside it; a connection gives the URL', async () => {
    const src = join(dir, 'src');
    const bare = join(dir, 'repo.git');
    const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd });
    execFileSync('git', ['init', '-q', src]);
    writeFileSync(join(src, 'hello.txt'), 'first\n');
    git(src, 'add', '.');
    git(src, 'commit', '-qm', 'one');
    writeFileSync(join(src, 'hello.txt'), 'from the repo\n');
    git(src, 'commit', '-qam', 'two');
    execFileSync('git', ['clone', '-q', '--bare', src, bare]);

    const ctx = testContext(db.pool);
    const result = await execAction.run({
      script: 'cat hello.txt; git rev-list --count HEAD; basename "$(pwd)"',
      checkout: { url: `file://${bare}`, destination: 'code' },
    }, ctx);
    expect(result.stdout).toBe('from the repo\n1\ncode\n');

    await insertConnection(db.pool, { name: 'exec-repo', type: 'git', url: `file://${bare}`, username: 'bot', password: 'git-conn-password' });
    const viaConn = testContext(db.pool);
    const r2 = await execAction.run({ script: 'cat hello.txt', checkout: { connection: 'connection://default/exec-repo' } }, viaConn);
    expect(r2.stdout).toBe('from the repo\n');
    expect(viaConn.secrets).toContain('git-conn-password');

    const bad = await failure(execAction.run({ script: 'true', checkout: { url: `file://${join(dir, 'nope.git')}` } }, testContext(db.pool)));
    expect(bad.message).toMatch(/^checkout of file:\/\/.*nope\.git failed \(git exit 128\)/);
  });

  it.skipIf(!hasGit || !existsSync(HTTP_BACKEND))('hands a connection\'s credentials to git over HTTP basic auth, never in the URL', async () => {
    const root = join(dir, 'http-root');
    const src = join(dir, 'http-src');
    execFileSync('git', ['init', '-q', src]);
    writeFileSync(join(src, 'x.txt'), 'over http\n');
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'add', '.'], { cwd: src });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'one'], { cwd: src });
    execFileSync('git', ['clone', '-q', '--bare', src, join(root, 'r.git')]);
    const server = await gitHttpServer(root, 'bot', 'http-pass-word');
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/r.git`;
      await insertConnection(db.pool, { name: 'exec-http-repo', type: 'git', url, username: 'bot', password: 'http-pass-word' });
      const ctx = testContext(db.pool);
      const r = await execAction.run({ script: 'cat x.txt; git remote get-url origin', checkout: { connection: 'exec-http-repo' } }, ctx);
      expect(r.stdout).toBe(`over http\n${url}\n`);
      expect(ctx.secrets).toContain('http-pass-word');
      expect(server.authorized).toBeGreaterThan(0);

      await insertConnection(db.pool, { name: 'exec-http-bad', type: 'git', url, username: 'bot', password: 'wrong-password' });
      const bad = await failure(execAction.run({ script: 'true', checkout: { connection: 'exec-http-bad' } }, testContext(db.pool)));
      expect(bad.message).toMatch(/checkout of http:\/\/127\.0\.0\.1:\d+\/r\.git failed \(git exit 128\)/);
      expect(bad.message).not.toContain('wrong-password');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('refuses a checkout with a clear message when git is missing', async () => {
    const path = process.env.PATH;
    process.env.PATH = join(dir, 'empty-path');
    try {
      const err = await failure(execAction.run({ script: 'true', checkout: { url: 'https://example.com/r.git' } }, testContext(db.pool)));
      expect(err.message).toBe('checkout needs git, which is not installed on the console\'s machine (or not on its PATH)');
    } finally {
      process.env.PATH = path;
    }
  });

  it('PLAYBOOK_EXEC=off refuses exec actions', async () => {
    const ctx: RecordingContext = testContext(db.pool, { execEnabled: false });
    const err = await failure(execAction.run({ script: 'touch /tmp/should-not-run' }, ctx));
    expect(err.message).toBe(EXEC_DISABLED);
    expect(ctx.lines).toEqual([]);
  });
});

describe('exec block', () => {
  const problem = (block: unknown) => {
    const r = ExecAction.safeParse(block);
    return r.success ? null : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  };

  it('needs a script and refuses what this console does not run, by path', () => {
    expect(problem({ script: 'echo ok', env: [{ name: 'A', value: '1' }], checkout: { url: 'https://x/r.git', destination: 'src' } })).toBeNull();
    expect(problem({})).toMatch(/^script: script is required/);
    expect(problem({ script: '  ' })).toMatch(/^script: script is required/);
    expect(problem({ script: 'x', connections: { aws: { region: 'eu' } } })).toMatch(/^connections: exec connections .* not supported/);
    expect(problem({ script: 'x', setup: { python: { version: '3' } } })).toMatch(/^setup: exec setup .* not supported/);
    expect(problem({ script: 'x', artifacts: [{ path: '/tmp/a' }] })).toMatch(/^artifacts: exec artifacts are not stored/);
    expect(problem({ script: 'x', env: [{ name: 'BAD NAME', value: '1' }] })).toMatch(/^env\.0\.name: must be an environment variable name/);
    expect(problem({ script: 'x', checkout: { destination: 'a' } })).toMatch(/^checkout\.url: url or connection is required/);
    expect(problem({ script: 'x', checkout: { url: 'u', destination: '/etc' } })).toMatch(/^checkout\.destination: must be a relative path/);
    expect(problem({ script: 'x', checkout: { url: 'u', destination: 'a/../../b' } })).toMatch(/^checkout\.destination: must be a relative path/);
  });
});
