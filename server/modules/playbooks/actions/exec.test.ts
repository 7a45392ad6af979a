import { createHash } from 'node:crypto';
import { execFileSync, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecAction } from '../../../contracts/playbook-actions/exec.js';
import { parse } from 'yaml';
import { playbookSpecProblems } from '../spec.js';
import { SecretMasker } from '../../../lib/secret-mask.js';
import { startKubeApi, type KubeApi } from '../../../../tests/support/kube-api/index.js';
import { ARTIFACT_MAX_BYTES, ARTIFACT_MAX_FILES } from './exec-artifacts.js';
import { EXEC_DISABLED, execAction } from './exec.js';
import { EXEC_OUTPUT_CAP_BYTES, SPAWNER_STOPPED, spawnerKind, spawnerPid, useSpawner, makeTempTree, removeTree, runProcess, type SpawnerKind } from './exec-process.js';
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

// the process-level behaviour, both ways the spawner starts processes: posix_spawn (the default) and child_process
describe.each<SpawnerKind>(['posix_spawn', 'child_process'])('exec action (%s)', (kind) => {
  beforeAll(() => useSpawner(kind));
  afterAll(() => useSpawner(undefined));

  it('runs a bash script: stdout, stderr and exit code, output streamed as it comes', async () => {
    const ctx = testContext(db.pool);
    const result = await execAction.run({ script: 'echo hello; echo oops >&2; printf "ünï"' }, ctx);
    expect(await spawnerKind()).toBe(kind);
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
    const pidFile = join(dir, `bg-${kind}.pid`);
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

  it('scripts start from one long-lived spawner; when it dies, its running scripts fail interrupted, their groups are killed, and the next script starts a new one', async () => {
    const warm = testContext(db.pool);
    await execAction.run({ script: 'echo one' }, warm);
    const first = spawnerPid()!;
    expect(alive(first)).toBe(true);
    await execAction.run({ script: 'echo two' }, testContext(db.pool));
    expect(spawnerPid()).toBe(first);

    const pidFile = join(dir, `orphan-${kind}.pid`);
    const ctx = testContext(db.pool);
    ctx.env = { PIDFILE: pidFile };
    const running = execAction.run({ script: 'sleep 600 & echo $! > "$PIDFILE"; wait' }, ctx);
    const pid = Number(await waitFor(pidFile));
    process.kill(first, 'SIGKILL');
    const err = await failure(running);
    expect(err.message).toBe(`${SPAWNER_STOPPED} (signal SIGKILL)`);
    for (let i = 0; i < 40 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid)).toBe(false);

    expect(await execAction.run({ script: 'echo again' }, testContext(db.pool))).toMatchObject({ stdout: 'again\n', exitCode: 0 });
    expect(spawnerPid()).not.toBe(first);
  });

  it('a script that ignores SIGTERM is killed after the grace; a finished script leaves nothing behind', async () => {
    const pidFile = join(dir, `stubborn-${kind}.pid`);
    const ctx = testContext(db.pool);
    ctx.env = { PIDFILE: pidFile };
    const running = execAction.run({ script: 'trap "" TERM; echo $$ > "$PIDFILE"; while :; do sleep 0.2; done' }, ctx);
    const pid = Number(await waitFor(pidFile));
    ctx.controller.abort(new Error('stop'));
    const err = await failure(running);
    expect((err as ActionFailedError).result).toMatchObject({ exitCode: 137 });
    expect(alive(pid)).toBe(false);

    const leftFile = join(dir, `left-${kind}.pid`);
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

  it('a command that cannot start is refused with its errno; a NUL byte in the environment is refused before', async () => {
    const missing = await failure(runProcess({
      command: 'no-such-command-here', args: [], cwd: dir, env: { PATH: '/usr/bin:/bin' }, signal: new AbortController().signal, onOutput: () => undefined,
    }));
    expect((missing as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(missing.message).toContain('no-such-command-here');
    const badCwd = await failure(runProcess({
      command: 'bash', args: ['-c', 'true'], cwd: join(dir, 'not-there'), env: { PATH: '/usr/bin:/bin' }, signal: new AbortController().signal, onOutput: () => undefined,
    }));
    expect((badCwd as NodeJS.ErrnoException).code).toBe('ENOENT');
    const nul = await failure(runProcess({
      command: 'bash', args: ['-c', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin', BAD: 'a\0b' }, signal: new AbortController().signal, onOutput: () => undefined,
    }));
    expect((nul as NodeJS.ErrnoException).code).toBe('ERR_INVALID_ARG_VALUE');
  });

  it('makes a temporary tree (0700 directories, files with their mode, any bytes) and removes it', async () => {
    const text = 'a\0b ünï\n'.repeat(1000);
    const base = await makeTempTree(join(dir, 'tree-'), ['one', 'two'], [{ path: 'f.sh', text }, { path: 'one/x', text: 'x', mode: 0o700 }]);
    expect(base.startsWith(join(dir, 'tree-'))).toBe(true);
    expect(statSync(base).mode & 0o777).toBe(0o700);
    expect(statSync(join(base, 'two')).mode & 0o777).toBe(0o700);
    expect(statSync(join(base, 'f.sh')).mode & 0o777).toBe(0o600);
    expect(statSync(join(base, 'one/x')).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(base, 'f.sh'), 'utf8')).toBe(text);
    await removeTree(base);
    expect(existsSync(base)).toBe(false);
    await removeTree(base); // a missing tree is fine
  });
});

describe('exec action', () => {
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

describe('exec connections', () => {
  const insertRaw = async (name: string, type: string, cols: { url?: string; username?: string; password?: string; certificate?: string; properties?: Record<string, unknown> }) => {
    await db.pool.query(
      `INSERT INTO connections (name, namespace, type, url, username, password, certificate, properties, source)
       VALUES ($1, 'default', $2, $3, $4, $5, $6, $7, 'UI')`,
      [name, type, cols.url ?? null, cols.username ?? null, cols.password ?? null, cols.certificate ?? null, cols.properties ?? {}]);
  };

  it('kubernetes: a connection row\'s kubeconfig is written to KUBECONFIG (0600) and kubectl reaches the cluster with it', async () => {
    // kubectl sends its token over TLS only: a TLS API server of its own
    const tlsKube = await startKubeApi({ tls: true });
    tlsKube.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'exec-cfg', namespace: 'default' }, data: { region: 'eu-west' } });
    const kubeconfig = readFileSync(tlsKube.writeKubeconfig(join(dir, 'conn-kubeconfig')), 'utf8');
    await insertRaw('exec-kube', 'kubernetes', { certificate: kubeconfig });
    const ctx = testContext(db.pool);
    const r = await execAction.run({
      script: 'stat -c %a "$KUBECONFIG"; case "$KUBECONFIG" in "$HOME"*) echo in-home;; *) echo outside-home;; esac\n'
        + 'kubectl get configmap exec-cfg -n default -o jsonpath=\'{.data.region}\'; echo; cat "$KUBECONFIG"',
      connections: { kubernetes: { connection: 'connection://default/exec-kube' } },
    }, ctx);
    expect(r.stderr).toBe('');
    // the engine masks what the action registered (testContext records it): the whole kubeconfig
    expect(r.stdout).toBe(`600\noutside-home\neu-west\n${kubeconfig}`);
    expect(ctx.secrets).toContain(kubeconfig);
    const err = await failure(execAction.run({ script: 'true', connections: { kubernetes: { connection: 'no-such-conn' } } }, testContext(db.pool)));
    expect(err.message).toBe('exec: connections.kubernetes.connection: connection no-such-conn not found');
    await tlsKube.stop();
  });

  it('aws from a connection row, inline values with valueFrom over it; gcp key file; azure; all masked', async () => {
    await insertRaw('exec-aws', 'aws', { username: 'AKIAEXAMPLE', password: 'aws-secret-key-123', url: 'http://127.0.0.1:4566', properties: { region: 'eu-west-1' } });
    const ctx = testContext(db.pool);
    const r = await execAction.run({
      script: 'echo "$AWS_ACCESS_KEY_ID $AWS_REGION $AWS_DEFAULT_REGION $AWS_ENDPOINT_URL"; echo "$AWS_SECRET_ACCESS_KEY"; grep -c aws_secret_access_key "$AWS_SHARED_CREDENTIALS_FILE"',
      connections: { aws: { connection: 'exec-aws' } },
    }, ctx);
    expect(r.stdout).toBe('AKIAEXAMPLE eu-west-1 eu-west-1 http://127.0.0.1:4566\naws-secret-key-123\n1\n');
    expect(ctx.secrets).toContain('aws-secret-key-123');
    const inline = testContext(db.pool);
    const r2 = await execAction.run({
      script: 'echo "$AWS_SECRET_ACCESS_KEY" | wc -c; echo "$AWS_REGION"',
      connections: { aws: { connection: 'exec-aws', secretKey: { valueFrom: { secretKeyRef: { name: 'exec-auth', key: 'token' } } }, region: 'us-east-2' } },
    }, { ...inline, options: { ...inline.options, kube: kc } });
    expect(r2.stdout).toBe(`${SECRET.length + 1}\nus-east-2\n`);
    expect(inline.secrets).toContain(SECRET);

    const key = JSON.stringify({ type: 'service_account', private_key: 'gcp-private-key-xyz' });
    await insertRaw('exec-gcp', 'google_cloud', { password: key });
    await insertRaw('exec-azure', 'azure', { username: 'client-id-1', password: 'azure-client-secret', properties: { tenantID: 'tenant-9' } });
    const ctx3 = testContext(db.pool);
    const r3 = await execAction.run({
      script: 'test "$GOOGLE_APPLICATION_CREDENTIALS" = "$CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE" && grep -o service_account "$GOOGLE_APPLICATION_CREDENTIALS"; echo "$AZURE_CLIENT_ID $AZURE_TENANT_ID $AZURE_CLIENT_SECRET"',
      connections: { gcp: { connection: 'exec-gcp' }, azure: { connection: 'exec-azure' } },
    }, ctx3);
    expect(r3.stdout).toBe('service_account\nclient-id-1 tenant-9 azure-client-secret\n');
    expect(ctx3.secrets).toEqual(expect.arrayContaining([key, 'azure-client-secret']));

    const missing = await failure(execAction.run({ script: 'true', connections: { azure: { clientID: 'x' } } }, testContext(db.pool)));
    expect(missing.message).toBe('exec: connections.azure: clientID, clientSecret and tenantID are required');
  });

  it.skipIf(!hasGit || !existsSync(HTTP_BACKEND))('git: the script\'s own git commands authenticate with a git connection (GIT_ASKPASS)', async () => {
    const root = join(dir, 'conn-git-root');
    const src = join(dir, 'conn-git-src');
    execFileSync('git', ['init', '-q', src]);
    writeFileSync(join(src, 'y.txt'), 'by the script\n');
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'add', '.'], { cwd: src });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'one'], { cwd: src });
    execFileSync('git', ['clone', '-q', '--bare', src, join(root, 'r.git')]);
    const server = await gitHttpServer(root, 'bot', 'script-git-pass');
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/r.git`;
      await insertConnection(db.pool, { name: 'exec-git-conn', type: 'git', url, username: 'bot', password: 'script-git-pass' });
      const ctx = testContext(db.pool);
      const r = await execAction.run({ script: 'git clone -q "$GIT_URL" repo && cat repo/y.txt', connections: { git: { connection: 'exec-git-conn' } } }, ctx);
      expect(r.stdout).toBe('by the script\n');
      expect(server.authorized).toBeGreaterThan(0);
      expect(ctx.secrets).toContain('script-git-pass');
      const without = await failure(execAction.run({ script: `GIT_TERMINAL_PROMPT=0 git clone -q ${url} repo` }, testContext(db.pool)));
      expect(without.message).toBe('script exited with code 128');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('exec artifacts', () => {
  /** A real run and action row (artifacts reference playbook_run_actions). */
  async function actionRow(): Promise<string> {
    const pb = await db.pool.query<{ id: string }>(
      `INSERT INTO playbooks (name, namespace, title, spec, source) VALUES ($1, 'default', 'a', '{}', 'UI') RETURNING id`, [`art-${Date.now()}-${Math.random()}`]);
    const run = await db.pool.query<{ id: string }>(
      `INSERT INTO playbook_runs (playbook_id, spec, status, created_by) VALUES ($1, '{}', 'running', NULL) RETURNING id`, [pb.rows[0].id]);
    const act = await db.pool.query<{ id: string }>(
      `INSERT INTO playbook_run_actions (playbook_run_id, name, status) VALUES ($1, 'a', 'running') RETURNING id`, [run.rows[0].id]);
    return act.rows[0].id;
  }

  it('stores the files the paths and globs match in the working directory, also after a failing exit; not links or what is outside', async () => {
    const actionId = await actionRow();
    const ctx = { ...testContext(db.pool), actionId };
    const err = await failure(execAction.run({
      script: 'mkdir -p out; echo one > out/a.txt; printf \'{"b":2}\' > out/b.json; echo x > skip.log; ln -s /etc/hostname out/link.txt; exit 2',
      artifacts: [{ path: 'out/*.txt' }, { path: 'out/b.json' }, { path: 'missing/*' }],
    }, ctx));
    expect(err.message).toBe('script exited with code 2');
    const { rows } = await db.pool.query(
      'SELECT path, filename, content_type, size, checksum, convert_from(content, \'UTF8\') AS text FROM artifacts WHERE playbook_run_action_id = $1 ORDER BY path', [actionId]);
    expect(rows).toEqual([
      { path: 'out/a.txt', filename: 'a.txt', content_type: 'text/plain', size: 4, checksum: expect.stringMatching(/^[0-9a-f]{64}$/), text: 'one\n' },
      { path: 'out/b.json', filename: 'b.json', content_type: 'application/json', size: 7, checksum: expect.any(String), text: '{"b":2}' },
    ]);
    // the run's action query embeds them (content left out)
    const via = await db.pool.query<{ artifacts: { path: string }[] }>(
      'SELECT artifacts FROM get_playbook_run_actions((SELECT playbook_run_id FROM playbook_run_actions WHERE id = $1))', [actionId]);
    expect(via.rows[0].artifacts.map((a) => a.path).sort()).toEqual(['out/a.txt', 'out/b.json']);
    expect(via.rows[0].artifacts[0]).not.toHaveProperty('content');
  });

  it('masks the secrets the action knows in what it stores: text and binary artifacts, size and checksum of the masked bytes', async () => {
    const actionId = await actionRow();
    const ctx = { ...testContext(db.pool, { kube: kc }), actionId };
    await execAction.run({
      script: 'mkdir -p out; echo "token=$TOKEN" > out/t.txt; printf \'\\000\\377%s\\000\' "$TOKEN" > out/t.bin',
      env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'exec-auth', key: 'token' } } }],
      artifacts: [{ path: 'out/*' }],
    }, ctx);
    expect(ctx.secrets).toContain(SECRET);
    const { rows } = await db.pool.query<{ path: string; size: number; checksum: string; content: Buffer }>(
      'SELECT path, size, checksum, content FROM artifacts WHERE playbook_run_action_id = $1 ORDER BY path', [actionId]);
    expect(rows.map((r) => r.path)).toEqual(['out/t.bin', 'out/t.txt']);
    expect(rows[1].content.toString('utf8')).toBe('token=***\n');
    expect(rows[0].content).toEqual(Buffer.from([0, 0xff, ...Buffer.from('***'), 0]));
    for (const r of rows) {
      expect(r.size).toBe(r.content.length);
      expect(r.checksum).toBe(createHash('sha256').update(r.content).digest('hex'));
      expect(r.content.includes(SECRET)).toBe(false);
    }
  });

  it('stores absolute paths and globs where they point, by their absolute path; a relative path stays in the working directory', async () => {
    const actionId = await actionRow();
    const ctx = { ...testContext(db.pool), actionId };
    const outside = mkdtempSync(join(tmpdir(), 'exec-artifacts-abs-'));
    try {
      mkdirSync(join(outside, 'logs'));
      writeFileSync(join(outside, 'secret-target.txt'), 'not via a link\n');
      symlinkSync(join(outside, 'secret-target.txt'), join(outside, 'logs', 'link.log'));
      mkdirSync(join(outside, 'linked-dir'));
      writeFileSync(join(outside, 'linked-dir', 'deep.log'), 'deep\n');
      symlinkSync(join(outside, 'linked-dir'), join(outside, 'logs', 'dir-link'));
      await execAction.run({
        script: `echo "hello world" > ${outside}/output.txt; echo a > ${outside}/logs/a.log; echo b > ${outside}/logs/b.log; echo local > here.txt`,
        artifacts: [{ path: `${outside}/output.txt` }, { path: `${outside}/logs/**` }, { path: 'here.txt' }, { path: `${outside}/missing.txt` }, { path: '/dev/null' }],
      }, ctx);
      const { rows } = await db.pool.query(
        'SELECT path, filename, content_type, size, convert_from(content, \'UTF8\') AS text FROM artifacts WHERE playbook_run_action_id = $1 ORDER BY path', [actionId]);
      expect(rows).toEqual([
        { path: `${outside}/logs/a.log`, filename: 'a.log', content_type: 'text/plain', size: 2, text: 'a\n' },
        { path: `${outside}/logs/b.log`, filename: 'b.log', content_type: 'text/plain', size: 2, text: 'b\n' },
        { path: `${outside}/output.txt`, filename: 'output.txt', content_type: 'text/plain', size: 12, text: 'hello world\n' },
        { path: 'here.txt', filename: 'here.txt', content_type: 'text/plain', size: 6, text: 'local\n' },
      ].sort((a, b) => (a.path < b.path ? -1 : 1)));
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('stores /dev/stdout and /dev/stderr as the script\'s output (the reference\'s), masked', async () => {
    const actionId = await actionRow();
    const ctx = { ...testContext(db.pool, { kube: kc }), actionId };
    await execAction.run({
      script: 'echo "hello world"; echo "oops $TOKEN" >&2',
      env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'exec-auth', key: 'token' } } }],
      artifacts: [{ path: '/dev/stdout' }, { path: '/dev/stderr' }],
    }, ctx);
    const { rows } = await db.pool.query(
      'SELECT path, filename, content_type, convert_from(content, \'UTF8\') AS text FROM artifacts WHERE playbook_run_action_id = $1 ORDER BY path', [actionId]);
    expect(rows).toEqual([
      { path: 'stderr', filename: 'stderr', content_type: 'text/plain', text: expect.stringMatching(/^oops \*\*\*\n?$/) },
      { path: 'stdout', filename: 'stdout', content_type: 'text/plain', text: expect.stringMatching(/^hello world\n?$/) },
    ]);
  });

  it('keeps the limits for absolute paths: at most 50 files of 10 MiB', async () => {
    const actionId = await actionRow();
    const ctx = { ...testContext(db.pool), actionId };
    const outside = mkdtempSync(join(tmpdir(), 'exec-artifacts-many-'));
    try {
      for (let i = 0; i < 60; i++) writeFileSync(join(outside, `f${String(i).padStart(2, '0')}.txt`), `${i}\n`);
      writeFileSync(join(outside, 'big.bin'), Buffer.alloc(ARTIFACT_MAX_BYTES + 1));
      await execAction.run({ script: 'true', artifacts: [{ path: `${outside}/*.txt` }, { path: `${outside}/big.bin` }] }, ctx);
      const { rows } = await db.pool.query<{ path: string }>('SELECT path FROM artifacts WHERE playbook_run_action_id = $1', [actionId]);
      expect(rows).toHaveLength(ARTIFACT_MAX_FILES);
      expect(rows.some((r) => r.path.endsWith('big.bin'))).toBe(false);
      expect(ctx.output()).toContain(`artifacts: more than ${ARTIFACT_MAX_FILES} files match`);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('the reference\'s exec-artifact fixtures have no problems at save, and /tmp/output.txt is stored after the run', async () => {
    const fixture = parse(`
description: Simple script to generate an artifact
configs:
  - types:
      - EC2 Instance
    labelSelector: "telemetry=enabled"
actions:
  - name: 'Generate artifact'
    exec:
      script: echo "hello world" > /tmp/output.txt
      artifacts:
        - path: /tmp/output.txt
`) as { actions: Array<{ exec: Record<string, unknown> }> };
    const testdata = { ...fixture, actions: [{ name: 'Generate artifact', exec: { script: 'echo "hello world"', artifacts: [{ path: '/dev/stdout' }] } }] };
    expect(playbookSpecProblems(fixture)).toEqual([]);
    expect(playbookSpecProblems(testdata)).toEqual([]);
    const actionId = await actionRow();
    const existed = existsSync('/tmp/output.txt');
    try {
      await execAction.run(fixture.actions[0].exec, { ...testContext(db.pool), actionId });
    } finally {
      if (!existed) rmSync('/tmp/output.txt', { force: true });
    }
    const { rows } = await db.pool.query('SELECT path, convert_from(content, \'UTF8\') AS text FROM artifacts WHERE playbook_run_action_id = $1', [actionId]);
    expect(rows).toEqual([{ path: '/tmp/output.txt', text: 'hello world\n' }]);
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
    expect(problem({ script: 'x', connections: { aws: { region: 'eu' }, kubernetes: { connection: 'k' }, git: { connection: 'g' } }, artifacts: [{ path: 'out/*.txt' }] })).toBeNull();
    expect(problem({ script: 'x', connections: { kubernetes: {} } })).toMatch(/^connections\.kubernetes\.connection: connection or kubeconfig is required/);
    expect(problem({ script: 'x', connections: { fromConfigItem: 'abc' } })).toMatch(/^connections\.fromConfigItem: fromConfigItem .* not supported/);
    expect(problem({ script: 'x', setup: { python: { version: '3' } } })).toMatch(/^setup: exec setup .* not supported/);
    expect(problem({ script: 'x', artifacts: [{ path: '/tmp/a' }, { path: '/tmp/logs/*' }, { path: '/dev/stdout' }] })).toBeNull();
    expect(problem({ script: 'x', artifacts: [{ path: 'a/../../etc/passwd' }] })).toMatch(/^artifacts\.0\.path: must not contain \.\. : a relative path/);
    expect(problem({ script: 'x', artifacts: [{ path: '' }] })).toMatch(/^artifacts\.0\.path: path is required/);
    expect(problem({ script: 'x', env: [{ name: 'BAD NAME', value: '1' }] })).toMatch(/^env\.0\.name: must be an environment variable name/);
    expect(problem({ script: 'x', checkout: { destination: 'a' } })).toMatch(/^checkout\.url: url or connection is required/);
    expect(problem({ script: 'x', checkout: { url: 'u', destination: '/etc' } })).toMatch(/^checkout\.destination: must be a relative path/);
    expect(problem({ script: 'x', checkout: { url: 'u', destination: 'a/../../b' } })).toMatch(/^checkout\.destination: must be a relative path/);
  });
});
