import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, sendJson, startHttpServer, type HttpServer } from '../fixtures/servers/http.js';
import { mariadbMissing, startMariaDb, type MariaDb } from '../fixtures/servers/mariadb.js';
import { startFakePrometheus } from '../fixtures/servers/prometheus.js';
import { redisMissing, startRedis, type RedisServer } from '../fixtures/servers/redis.js';
import { startFakeSearch } from '../fixtures/servers/search.js';
import { closedPort, listen, startHangingServer } from '../fixtures/servers/tcp.js';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { until } from '../support/poll.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * POST /api/connection/test/{id} and POST /api/connection/test (Test before save), each testable type against a real
 * server on loopback: it passes, and it fails saying what failed (auth, refused, timeout). The 10 s timeout is
 * shortened through app.connectionTests so a hanging target ends quickly.
 */

const PASSWORD = 'c0nn-S3cret-pw';
const HANG_MS = 400;

let t: TestContext;
let admin: Record<string, string>;
let logs = '';
let closed: number;
let hang: Awaited<ReturnType<typeof startHangingServer>>;
let web: HttpServer;
let prom: HttpServer;
let es: HttpServer;
let os: HttpServer;
let redis: RedisServer | undefined;
let maria: MariaDb | undefined;
let kube: KubeApi;
let smtp: SMTPServer;
let smtpPort: number;
let dir: string;
let seq = 0;

beforeAll(async () => {
  const stream = new Writable({ write: (chunk, _enc, cb) => ((logs += String(chunk)), cb()) });
  t = await createTestApp({}, { logger: { level: 'trace', stream } });
  const me = await makePerson(t.db, { roles: ['admin'] });
  admin = await sessionHeaders(t.db, me.id);
  closed = await closedPort();
  hang = await startHangingServer();
  const auth = { user: 'ops', password: PASSWORD };
  web = await startHttpServer((req, res) => {
    const got = basicAuth(req);
    if (got?.user !== auth.user || got.password !== auth.password) return sendJson(res, 401, { error: 'unauthorized' });
    sendJson(res, 200, { ok: true });
  });
  prom = await startFakePrometheus({}, { auth });
  es = await startFakeSearch('elasticsearch', {}, { auth });
  os = await startFakeSearch('opensearch', {}, { auth });
  if (!redisMissing) redis = await startRedis({ requirePass: PASSWORD });
  if (!mariadbMissing) maria = await startMariaDb({ password: PASSWORD });
  kube = await startKubeApi();
  smtp = new SMTPServer({
    authOptional: false, allowInsecureAuth: true, disabledCommands: ['STARTTLS'], logger: false,
    onAuth: (a, _s, cb) => (a.username === 'mailer' && a.password === PASSWORD ? cb(null, { user: 'mailer' }) : cb(new Error('Invalid username or password'))),
  });
  smtpPort = await listen(smtp.server as never);
  dir = mkdtempSync(join(tmpdir(), 'conn-test-'));
  // a bare repo with one commit on main, for git ls-remote over file://
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  git('init', '-q', '--bare', '-b', 'main', 'repo.git');
  git('init', '-q', '-b', 'main', 'work');
  writeFileSync(join(dir, 'work', 'README'), 'hello\n');
  git('-C', 'work', 'add', 'README');
  git('-C', 'work', '-c', 'user.name=t', '-c', 'user.email=t@example.test', 'commit', '-q', '-m', 'first');
  git('-C', 'work', 'push', '-q', join(dir, 'repo.git'), 'main');
}, 180_000);

afterAll(async () => {
  await Promise.allSettled([
    t?.close(), hang?.close(), web?.close(), prom?.close(), es?.close(), os?.close(), redis?.stop(), maria?.stop(), kube?.stop(),
    new Promise<void>((r) => (smtp ? smtp.close(() => r()) : r())),
  ]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Row {
  type: string;
  namespace?: string;
  url?: string | null;
  username?: string | null;
  password?: string | null;
  certificate?: string | null;
  insecure_tls?: boolean;
  properties?: Record<string, unknown>;
}

async function save(row: Row): Promise<string> {
  const { rows } = await t.db.query<{ id: string }>(
    `INSERT INTO connections (name, namespace, type, url, username, password, certificate, insecure_tls, properties)
     VALUES ($1, $9, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
    [`c${seq++}`, row.type, row.url ?? null, row.username ?? null, row.password ?? null, row.certificate ?? null, row.insecure_tls ?? false, row.properties ?? {}, row.namespace ?? 'default'],
  );
  return rows[0].id;
}

async function test(row: Row, headers = admin) {
  const res = await t.app.inject({ method: 'POST', url: `/api/connection/test/${await save(row)}`, headers });
  return { status: res.statusCode, body: res.json() as { message?: string; error?: string; payload?: { payload: Record<string, unknown> } } };
}

function pgUrl(password: string | null): string {
  const u = new URL(t.config.DATABASE_URL!);
  u.password = '';
  return password === null ? u.toString() : (u.password = encodeURIComponent(password), u.toString());
}
const realPgPassword = () => decodeURIComponent(new URL(t.config.DATABASE_URL!).password);
const kubeconfig = (token?: string) => {
  const path = join(dir, `kubeconfig-${seq++}`);
  kube.writeKubeconfig(path, token ? { token } : {});
  return readFileSync(path, 'utf8');
};
const hangingKubeconfig = () =>
  `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:${hang.port}\n    insecure-skip-tls-verify: true\n` +
  `users:\n- name: u\n  user:\n    token: x\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\n`;

/** Each type: a connection that passes, and ones that fail with what the message must say. */
const CASES: Array<{ type: string; skip?: () => string | undefined; pass: () => Row; fail: Array<[string, () => Row, RegExp]>; hang?: () => Row }> = [
  {
    type: 'postgres',
    pass: () => ({ type: 'postgres', url: pgUrl(null), username: 'postgres', password: realPgPassword() }),
    fail: [
      ['wrong password', () => ({ type: 'postgres', url: pgUrl(null), username: 'postgres', password: PASSWORD }), /^authentication failed/],
      ['closed port', () => ({ type: 'postgres', url: `postgres://127.0.0.1:${closed}/x`, username: 'u', password: PASSWORD }), /^connection refused/],
    ],
    hang: () => ({ type: 'postgres', url: `postgres://127.0.0.1:${hang.port}/x`, password: PASSWORD }),
  },
  {
    type: 'mysql',
    skip: () => mariadbMissing,
    pass: () => ({ type: 'mysql', url: `mysql://127.0.0.1:${maria!.port}/${maria!.database}`, username: maria!.user, password: PASSWORD }),
    fail: [
      ['wrong password', () => ({ type: 'mysql', url: `mysql://127.0.0.1:${maria!.port}/${maria!.database}`, username: maria!.user, password: 'nope-nope' }), /^authentication failed/],
      ['closed port', () => ({ type: 'mysql', url: `mysql://127.0.0.1:${closed}/x`, username: 'u', password: PASSWORD }), /^connection refused/],
    ],
    hang: () => ({ type: 'mysql', url: `mysql://127.0.0.1:${hang.port}/x`, username: 'u', password: PASSWORD }),
  },
  {
    type: 'redis',
    skip: () => redisMissing,
    pass: () => ({ type: 'redis', url: `redis://127.0.0.1:${redis!.port}`, password: PASSWORD, properties: { db: '2' } }),
    fail: [
      ['wrong password', () => ({ type: 'redis', url: `redis://127.0.0.1:${redis!.port}`, password: 'nope-nope' }), /^authentication failed/],
      ['closed port', () => ({ type: 'redis', url: `redis://127.0.0.1:${closed}`, password: PASSWORD }), /^connection refused/],
    ],
    hang: () => ({ type: 'redis', url: `redis://127.0.0.1:${hang.port}`, password: PASSWORD }),
  },
  {
    type: 'http',
    pass: () => ({ type: 'http', url: `${web.url}/healthz`, username: 'ops', password: PASSWORD }),
    fail: [
      ['wrong password', () => ({ type: 'http', url: `${web.url}/healthz`, username: 'ops', password: 'nope-nope' }), /^authentication failed: GET .* answered 401/],
      ['closed port', () => ({ type: 'http', url: `http://127.0.0.1:${closed}/`, password: PASSWORD }), /^connection refused/],
      ['unknown host', () => ({ type: 'http', url: 'http://no-such-host.invalid/', password: PASSWORD }), /^host not found: no-such-host\.invalid/],
    ],
    hang: () => ({ type: 'http', url: hang.url, password: PASSWORD }),
  },
  {
    type: 'prometheus',
    pass: () => ({ type: 'prometheus', url: prom.url, username: 'ops', password: PASSWORD }),
    fail: [
      ['wrong password', () => ({ type: 'prometheus', url: prom.url, username: 'ops', password: 'nope-nope' }), /^authentication failed/],
      ['closed port', () => ({ type: 'prometheus', url: `http://127.0.0.1:${closed}`, password: PASSWORD }), /^connection refused/],
    ],
    hang: () => ({ type: 'prometheus', url: hang.url, password: PASSWORD }),
  },
  ...(['elasticsearch', 'opensearch'] as const).map((type) => ({
    type,
    pass: () => ({ type, url: (type === 'elasticsearch' ? es : os).url, username: 'ops', password: PASSWORD }),
    fail: [
      ['wrong password', () => ({ type, url: (type === 'elasticsearch' ? es : os).url, username: 'ops', password: 'nope-nope' }), /^authentication failed/] as [string, () => Row, RegExp],
      ['closed port', () => ({ type, url: `http://127.0.0.1:${closed}`, password: PASSWORD }), /^connection refused/] as [string, () => Row, RegExp],
    ],
    hang: () => ({ type, url: hang.url, password: PASSWORD }),
  })),
  {
    type: 'kubernetes',
    pass: () => ({ type: 'kubernetes', certificate: kubeconfig() }),
    fail: [
      ['wrong token', () => ({ type: 'kubernetes', certificate: kubeconfig('not-the-token') }), /^authentication failed: the Kubernetes API .* 401/],
      ['not a kubeconfig', () => ({ type: 'kubernetes', certificate: 'just: text' }), /kubeconfig/],
    ],
    hang: () => ({ type: 'kubernetes', certificate: hangingKubeconfig() }),
  },
  {
    type: 'folder',
    pass: () => ({ type: 'folder', properties: { path: dir } }),
    fail: [['missing path', () => ({ type: 'folder', properties: { path: join(dir, 'nope') } }), /does not exist/]],
  },
  {
    type: 'git',
    pass: () => ({ type: 'git', url: `file://${join(dir, 'repo.git')}`, properties: { ref: 'main' } }),
    fail: [
      ['missing ref', () => ({ type: 'git', url: `file://${join(dir, 'repo.git')}`, properties: { ref: 'release' } }), /^ref release not found/],
      ['no repository', () => ({ type: 'git', url: `file://${join(dir, 'nope.git')}` }), /^no git repository at file:/],
      ['closed port', () => ({ type: 'git', url: `http://127.0.0.1:${closed}/repo.git`, username: 'u', password: PASSWORD }), /^connection refused/],
    ],
    hang: () => ({ type: 'git', url: `${hang.url}/repo.git`, username: 'u', password: PASSWORD }),
  },
  {
    type: 'email',
    pass: () => ({ type: 'email', url: `smtp://127.0.0.1:${smtpPort}`, username: 'mailer', password: PASSWORD }),
    fail: [
      ['wrong password', () => ({ type: 'email', url: `smtp://127.0.0.1:${smtpPort}`, username: 'mailer', password: 'nope-nope' }), /^authentication failed/],
      ['closed port', () => ({ type: 'email', properties: { host: '127.0.0.1', port: String(closed) }, username: 'mailer', password: PASSWORD }), /^connection refused/],
    ],
    hang: () => ({ type: 'email', url: `smtp://127.0.0.1:${hang.port}`, username: 'mailer', password: PASSWORD }),
  },
];

describe('POST /api/connection/test/{id}, type by type', () => {
  for (const c of CASES) {
    describe(c.type, () => {
      it('passes against a real server: 200 {message: ok, payload}', async ({ skip }) => {
        if (c.skip?.()) skip(c.skip());
        const r = await test(c.pass());
        expect(r, JSON.stringify(r.body)).toMatchObject({ status: 200, body: { message: 'ok' } });
        expect(Object.keys(r.body.payload!.payload).length).toBeGreaterThan(0);
      });
      for (const [name, row, message] of c.fail) {
        it(`fails with 400 saying what failed: ${name}`, async ({ skip }) => {
          if (c.skip?.()) skip(c.skip());
          const r = await test(row());
          expect(r.status, JSON.stringify(r.body)).toBe(400);
          expect(r.body.error).toMatch(message);
          expect(JSON.stringify(r.body)).not.toContain(PASSWORD);
        });
      }
      if (c.hang) {
        it('a hanging target ends at the timeout', async () => {
          t.app.connectionTests.limits.timeoutMs = HANG_MS;
          try {
            const r = await test(c.hang!());
            expect(r.status, JSON.stringify(r.body)).toBe(400);
            expect(r.body.error).toMatch(/^timed out after 400 ms/);
            expect(JSON.stringify(r.body)).not.toContain(PASSWORD);
          } finally {
            t.app.connectionTests.limits.timeoutMs = 10_000;
          }
          expect(t.app.connectionTests.inFlight()).toBe(0);
        });
      }
    });
  }

  it('postgres: the payload is version, database and user, as the reference names them', async () => {
    const r = await test(CASES[0].pass());
    expect(r.body.payload!.payload).toMatchObject({ version: expect.stringMatching(/^PostgreSQL /), database: new URL(t.config.DATABASE_URL!).pathname.slice(1), user: 'postgres' });
  });
});

describe('POST /api/connection/test/{id}, the rest', () => {
  it('404 connection was not found: unknown, malformed and deleted ids', async () => {
    const gone = await save({ type: 'http', url: web.url });
    await t.db.query('UPDATE connections SET deleted_at = now() WHERE id = $1', [gone]);
    for (const id of ['00000000-0000-4000-8000-000000000001', 'not-a-uuid', gone]) {
      const res = await t.app.inject({ method: 'POST', url: `/api/connection/test/${id}`, headers: admin });
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toBe('connection was not found');
    }
  });

  it('501 for a type without a tester (slack)', async () => {
    const r = await test({ type: 'slack', url: 'slack://token@channel' });
    expect(r.status).toBe(501);
    expect(r.body.error).toMatch(/slack/);
  });

  it('403 for an editor and a viewer (connections write is admin only); 401 signed out', async () => {
    const id = await save({ type: 'http', url: web.url });
    for (const role of ['editor', 'viewer'] as const) {
      const p = await makePerson(t.db, { roles: [role] });
      const res = await t.app.inject({ method: 'POST', url: `/api/connection/test/${id}`, headers: await sessionHeaders(t.db, p.id) });
      expect(res.statusCode, role).toBe(403);
      const unsaved = await t.app.inject({ method: 'POST', url: '/api/connection/test', headers: await sessionHeaders(t.db, p.id), payload: { type: 'http', url: web.url } });
      expect(unsaved.statusCode, role).toBe(403);
    }
    const anon = await t.app.inject({ method: 'POST', url: `/api/connection/test/${id}` });
    expect(anon.statusCode).toBe(401);
  });

  it('a secret:// password without a cluster fails with 400 naming the field, not the value', async () => {
    const r = await test({ type: 'http', url: web.url, username: 'ops', password: 'secret://web/password' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/password|valueFrom|cluster/i);
  });

  it('65 tests at once: the 65th is refused with 429 while 64 hang; all 64 end at the timeout', async () => {
    t.app.connectionTests.limits.timeoutMs = 5_000;
    try {
      const ids = await Promise.all(Array.from({ length: 64 }, () => save({ type: 'http', url: hang.url })));
      const running = ids.map((id) => t.app.inject({ method: 'POST', url: `/api/connection/test/${id}`, headers: admin }));
      await until(async () => t.app.connectionTests.inFlight() === 64, '64 tests in flight');
      const extra = await test({ type: 'http', url: web.url, username: 'ops', password: PASSWORD });
      expect(extra.status).toBe(429);
      expect(extra.body.error).toMatch(/too many connection tests running \(at most 64\)/);
      const done = await Promise.all(running);
      expect(done.map((r) => r.statusCode)).toEqual(ids.map(() => 400));
      expect(t.app.connectionTests.inFlight()).toBe(0);
      expect((await test({ type: 'http', url: web.url, username: 'ops', password: PASSWORD })).status).toBe(200);
    } finally {
      t.app.connectionTests.limits.timeoutMs = 10_000;
    }
  }, 60_000);

  it('never logs a secret: a failing test with the password in the url and in the field', async () => {
    const r = await test({ type: 'http', url: `http://ops:${PASSWORD}@127.0.0.1:${prom.port}/elsewhere`, username: 'ops', password: PASSWORD });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe(`GET http://ops:***@127.0.0.1:${prom.port}/elsewhere answered 404 Not Found`);
    expect(logs).toContain('/api/connection/test/');
    expect(logs).not.toContain(PASSWORD);
  });
});

describe('POST /api/connection/test (Test before save)', () => {
  const post = (payload: object) => t.app.inject({ method: 'POST', url: '/api/connection/test', headers: admin, payload });

  it('tests the form as sent: passes and fails like a saved one', async () => {
    const ok = await post({ type: 'http', url: web.url, username: 'ops', password: PASSWORD, properties: {} });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().message).toBe('ok');
    const bad = await post({ type: 'http', url: web.url, username: 'ops', password: 'nope-nope' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatch(/^authentication failed/);
  });

  it('*** is the stored secret of the connection named by id', async () => {
    const id = await save({ type: 'http', url: web.url, username: 'ops', password: PASSWORD });
    const ok = await post({ id, type: 'http', url: web.url, username: 'ops', password: '***' });
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('*** without an id is a 400 naming the field; nothing is tested', async () => {
    const before = web.requests.length;
    const res = await post({ type: 'http', url: web.url, username: 'ops', password: '***' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/^password: \*\*\* stands for a stored secret/);
    expect(res.json().details).toHaveProperty('password');
    expect(web.requests.length).toBe(before);
  });

  it('a body without a type is a 400 naming it; an untestable type is 501', async () => {
    const res = await post({ url: web.url });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toHaveProperty('type');
    expect((await post({ type: 'teams', url: 'teams://x' })).statusCode).toBe(501);
  });
});

describe('secret:// passwords, read from the connection\'s namespace in the cluster', () => {
  let k: TestContext;
  let headers: Record<string, string>;
  const NS = 'apps';
  const secret = (password: string) =>
    kube.apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'web-auth', namespace: NS }, type: 'Opaque', stringData: { password } });

  beforeAll(async () => {
    kube.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    secret(PASSWORD);
    const path = join(dir, 'kubeconfig-console');
    kube.writeKubeconfig(path);
    k = await createTestApp({ KUBECONFIG: path, POD_NAME: 'console-conn-test', POD_NAMESPACE: 'default', VALUE_FROM_CACHE_SECONDS: '1' });
    headers = await sessionHeaders(k.db, (await makePerson(k.db, { roles: ['admin'] })).id);
  }, 60_000);
  afterAll(async () => k?.close());

  it('a saved and an unsaved connection pass with the Secret\'s value; a rotated Secret reaches the next test', async () => {
    const { rows } = await k.db.query<{ id: string }>(
      `INSERT INTO connections (name, namespace, type, url, username, password) VALUES ('web', $1, 'http', $2, 'ops', 'secret://web-auth/password') RETURNING id`,
      [NS, web.url],
    );
    const saved = () => k.app.inject({ method: 'POST', url: `/api/connection/test/${rows[0].id}`, headers });
    const first = await saved();
    expect(first.statusCode, first.body).toBe(200);
    const unsaved = await k.app.inject({
      method: 'POST', url: '/api/connection/test', headers,
      payload: { type: 'http', namespace: NS, url: web.url, username: 'ops', password: 'secret://web-auth/password' },
    });
    expect(unsaved.statusCode, unsaved.body).toBe(200);
    secret('rotated-but-wrong');
    const after = await until(async () => {
      const r = await saved();
      return r.statusCode === 400 && r;
    }, 'the rotated Secret to reach the test', 15_000);
    expect(after.json().error).toMatch(/^authentication failed/);
    secret(PASSWORD);
    await until(async () => (await saved()).statusCode === 200, 'the restored Secret to reach the test', 15_000);
  });

  it('a Secret that is not there fails with 400 naming it, not a value', async () => {
    const res = await k.app.inject({
      method: 'POST', url: '/api/connection/test', headers,
      payload: { type: 'http', namespace: NS, url: web.url, username: 'ops', password: 'secret://missing/password' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/missing/);
  });
});
