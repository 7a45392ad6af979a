/**
 * npm run bench:connections: the connection test endpoint against the raw client doing the same work, and /api/db
 * while 50 tests are in flight. On loopback, in a temp dir (embedded PostgreSQL, a throwaway redis-server, a node:http
 * target).
 *
 * (a) Overhead: for postgres (connect, `select version(), current_database(), current_user`, close), redis (connect,
 *     PING, INFO server, quit) and http (GET), BENCH_ROUNDS (default 200) rounds, each timing the raw client then
 *     POST /api/connection/test/{id} over HTTP (auth, row load, hydration, the tester, the JSON reply), one at a time.
 *     Prints p50/p95 of both and the p95 overhead (target < 20 ms).
 * (b) Load: GET /api/db/connections as the Connections page asks for it (autocannon, 4 connections, BENCH_SECONDS,
 *     default 10) alone, then while a child process keeps 50 tests in flight: against an http target answering after
 *     250 ms (a remote service), then against the local postgres, redis and http targets (whose own work competes
 *     for this machine's CPUs). Prints its p95 each time (target < 50 ms) and the tests completed meanwhile.
 *     Signed in as the browser is (session cookie); the load average is printed, as the figures depend on it.
 */
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { buildApp } from '../server/app.js';
import { loadConfig } from '../server/config.js';
import { startEmbeddedPostgres } from '../server/db/embedded.js';
import { migrate } from '../server/db/migrate.js';
import { startRedis } from '../tests/fixtures/servers/redis.js';
import { createSession } from '../server/modules/auth/sessions.js';
import { adminToken, fmt, loadGenerator, overHttp, percentile, summarise } from './lib/load.js';

const IN_FLIGHT = 50;
const LIST = '/api/db/connections?select=*,created_by(id,name,avatar,email)&deleted_at=is.null&limit=100';

interface TestLoad {
  url: string;
  headers: Record<string, string>;
  ids: string[];
  concurrency: number;
  seconds: number;
}

/** Child process: keeps `concurrency` tests in flight for `seconds`, then reports how many ran and failed. */
async function testLoad() {
  const spec = await new Promise<TestLoad>((ok) => process.once('message', (m) => ok(m as TestLoad)));
  const end = Date.now() + spec.seconds * 1000;
  let done = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: spec.concurrency }, async (_, i) => {
      for (let n = i; Date.now() < end; n++) {
        const res = await fetch(`${spec.url}/api/connection/test/${spec.ids[n % spec.ids.length]}`, {
          method: 'POST', headers: spec.headers,
        }).catch(() => null);
        await res?.arrayBuffer();
        if (res?.status === 200) done++;
        else failed++;
      }
    }),
  );
  process.send!({ done, failed }, () => process.exit(0));
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

async function main() {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 200);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const dir = await mkdtemp(join(tmpdir(), 'bench-connections-'));
  const quiet = { info() {}, warn() {}, debug() {} };
  const embedded = await startEmbeddedPostgres(dir, 0, quiet);
  const redis = await startRedis({ requirePass: 'bench-redis-pw' });
  const target = createServer((req, res) => {
    const answer = () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    if (req.url?.includes('slow=1')) setTimeout(answer, 250);
    else answer();
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  const httpUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/healthz`;
  const db = new pg.Pool({ connectionString: embedded.url, max: 4 });
  try {
    await migrate(db);
    const config = loadConfig({ DATABASE_URL: embedded.url, DEMO_DATA: 'false', LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1', KUBERNETES: 'off' });
    const app = await buildApp(config, { logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    // the browser's door: a session cookie and its CSRF token (a bearer token costs an argon2id verify per request)
    await adminToken(db);
    const person = (await db.query<{ id: string }>(`SELECT id FROM people WHERE email = 'bench-admin@example.test'`)).rows[0].id;
    const session = await createSession(db, person, 1);
    const headers = { cookie: `session=${session.token}`, 'x-csrf-token': session.csrfToken };
    const pgUrl = new URL(embedded.url);
    const pgPassword = decodeURIComponent(pgUrl.password);
    pgUrl.password = '';
    const insert = async (name: string, type: string, url: string, password: string | null) =>
      (await db.query<{ id: string }>(
        `INSERT INTO connections (name, type, url, username, password) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
        [name, type, url, type === 'postgres' ? decodeURIComponent(pgUrl.username) : null, password],
      )).rows[0].id;
    const ids = {
      postgres: await insert('bench-postgres', 'postgres', pgUrl.toString(), pgPassword),
      redis: await insert('bench-redis', 'redis', `redis://127.0.0.1:${redis.port}`, 'bench-redis-pw'),
      http: await insert('bench-http', 'http', httpUrl, null),
    };
    // a page's worth of rows for the list
    await db.query(`INSERT INTO connections (name, type, url, password) SELECT 'conn-' || g, 'http', 'https://svc-' || g || '.example', 'pw-' || g FROM generate_series(1, 97) g`);

    const raw: Record<keyof typeof ids, () => Promise<unknown>> = {
      postgres: async () => {
        const c = new pg.Client({ connectionString: embedded.url });
        await c.connect();
        await c.query('select version() as version, current_database() as database, current_user as user');
        await c.end();
      },
      redis: async () => {
        const c = new Redis({ host: '127.0.0.1', port: redis.port, password: 'bench-redis-pw', lazyConnect: true, retryStrategy: () => null });
        await c.connect();
        await c.ping();
        await c.info('server');
        c.disconnect();
      },
      http: async () => (await fetch(httpUrl)).arrayBuffer(),
    };
    const viaApi = (id: string) => async () => {
      const res = await fetch(`${base}/api/connection/test/${id}`, { method: 'POST', headers });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`test answered ${res.status}: ${body}`);
    };

    console.log(`(a) ${rounds} rounds each, one at a time\n`);
    console.log('| type | raw p50 ms | raw p95 ms | endpoint p50 ms | endpoint p95 ms | p95 overhead ms |\n|---|---|---|---|---|---|');
    for (const type of Object.keys(ids) as Array<keyof typeof ids>) {
      for (let i = 0; i < 10; i++) { await raw[type](); await viaApi(ids[type])(); } // warm-up
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < rounds; i++) {
        a.push(await timed(raw[type]));
        b.push(await timed(viaApi(ids[type])));
      }
      a.sort((x, y) => x - y);
      b.sort((x, y) => x - y);
      const [rp50, rp95, ep50, ep95] = [percentile(a, 0.5), percentile(a, 0.95), percentile(b, 0.5), percentile(b, 0.95)];
      console.log(`| ${type} | ${fmt(rp50)} | ${fmt(rp95)} | ${fmt(ep50)} | ${fmt(ep95)} | ${fmt(ep95 - rp95)} |`);
    }

    console.log(`\n(b) GET ${LIST} (100 rows), autocannon 4 connections, ${seconds} s\n`);
    console.log('| while | req/s | p50 ms | p95 ms | p99 ms | failures | tests done (failed) |\n|---|---|---|---|---|---|---|');
    const alone = summarise(await overHttp({ url: base, headers, paths: [LIST], connections: 4, duration: seconds }));
    console.log(`| nothing else | ${alone.rps.toFixed(0)} | ${fmt(alone.p50)} | ${fmt(alone.p95)} | ${fmt(alone.p99)} | ${alone.failures} | - |`);
    // 50 tests always in flight: against a target that answers after 250 ms (a remote service: the tests mostly wait),
    // then the local postgres, redis and http targets in turn (their own work then shares this machine's CPUs)
    const slow = await insert('bench-slow-http', 'http', `${httpUrl}?slow=1`, null);
    for (const [label, targets] of [['50 tests in flight (250 ms target)', [slow]], ['50 tests in flight (local pg, redis, http)', Object.values(ids)]] as const) {
      const child = fork(process.argv[1], ['--tests'], { stdio: 'inherit' });
      const tests = new Promise<{ done: number; failed: number }>((ok) => child.once('message', (m) => ok(m as { done: number; failed: number })));
      child.send({ url: base, headers, ids: [...targets], concurrency: IN_FLIGHT, seconds: seconds + 2 } satisfies TestLoad);
      await new Promise((r) => setTimeout(r, 1000)); // the 50 loops are running before the list is measured
      const loaded = summarise(await overHttp({ url: base, headers, paths: [LIST], connections: 4, duration: seconds }));
      const t = await tests;
      console.log(`| ${label} | ${loaded.rps.toFixed(0)} | ${fmt(loaded.p50)} | ${fmt(loaded.p95)} | ${fmt(loaded.p99)} | ${loaded.failures} | ${t.done} (${t.failed}) |`);
    }
    console.log(`\nload average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} CPUs`);
    await app.close();
  } finally {
    await db.end();
    target.close();
    await redis.stop();
    await embedded.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--load')) void loadGenerator();
else if (process.argv.includes('--tests')) void testLoad();
else void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
