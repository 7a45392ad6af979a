/**
 * npm run bench:auth (issue 17 "Performance"): sign-in flows, the second factor, whoami and the profile's lists.
 * Starts an embedded PostgreSQL (or uses DATABASE_URL), serves the app on a loopback port, and measures from child
 * processes (the load never shares the server's event loop):
 * - 50 concurrent sign-ins (a login flow, then its password submission, through /api/.ory; POST /api/auth/login
 *   when the flow API is not there) for BENCH_SECONDS (default 60), with other API calls meanwhile;
 * - a TOTP check (the factor's own matchTotp), in process;
 * - GET /api/.ory/sessions/whoami with a session cookie: flat out on 16 and on 8 connections (autocannon), then
 *   at BENCH_WHOAMI_RATE (2,000) requests a second, evenly spaced and open loop (scripts/lib/load.ts `paced`);
 * - with 200,000 sessions and 1,000,000 auth_events seeded by SQL, the profile's lists: GET /api/.ory/sessions and
 *   /api/db/auth_events?select=…&person_id=eq.<me>&order=created_at.desc&limit=50 (the profile page's calls).
 * Prints figures; no assertions. BENCH_SIGNINS (default 50) sets the sign-in concurrency.
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import { cpus } from 'node:os';
import { adminToken, benchDatabase, fmt, loadGenerator, overHttp, percentile, summarise, type Figures } from './lib/load.js';
// The server's modules are imported in main() only: the forked generators (--signin, --load) would otherwise compile
// and load the whole server before sending a request, tens of seconds on a busy 2-core machine.

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const SHORT = Math.max(3, Math.min(SECONDS, 10));
const SIGNINS = Number(process.env.BENCH_SIGNINS ?? 50);
const PASSWORD = 'bench sign-in password';
const USERS = 200;
const SESSIONS = 200_000;
const EVENTS = 1_000_000;
const SEED_PEOPLE = 10_000;
// BENCH_VOLUME=0 skips seeding the 200,000 sessions and 1,000,000 events and the lists measured on them (quick runs)
const VOLUME = process.env.BENCH_VOLUME !== '0';
// The other API calls during the sign-ins, per second (BENCH_OTHER_RATE; 0: as fast as 4 connections get answers,
// which makes them a second CPU-bound load competing with the sign-ins rather than a console in use meanwhile)
const OTHER_RATE = Number(process.env.BENCH_OTHER_RATE ?? 100);
// BENCH_PROFILE=<file.cpuprofile>: a CPU profile of the server's main thread (the inspector's Profiler) over the
// sign-in cost run and the whoami run (<file>-whoami.cpuprofile), with their top functions and files printed
const PROFILE = process.env.BENCH_PROFILE;

interface SignInSpec {
  base: string;
  emails: string[];
  connections: number;
  duration: number;
}
interface SignInFigures extends Figures {
  via: 'flow' | 'legacy';
  statuses: Record<string, number>;
  /** The generator's own CPU time (user + system, µs) over the run. */
  cpuMicros: number;
}

// The generator's client: node:http over keep-alive connections (one agent per generator process), lighter than
// fetch, so the load generator's own CPU (on the same 2 cores) takes less from the server it measures.
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

interface Answer {
  status: number;
  cookies: string[];
  body: string;
}

function request(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((ok, fail) => {
    const req = http.request(url, { method: opts.method ?? 'GET', headers: opts.headers, agent, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => ok({ status: res.statusCode ?? 0, cookies: res.headers['set-cookie'] ?? [], body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', fail);
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', fail);
    req.end(opts.body);
  });
}

/** The value of a cookie in a response's Set-Cookie headers. */
function cookieFrom(res: Answer, name: string): string | null {
  for (const line of res.cookies) {
    const [pair] = line.split(';');
    const at = pair.indexOf('=');
    if (pair.slice(0, at).trim() === name) return pair.slice(at + 1);
  }
  return null;
}

/** One sign-in through the Kratos-style flow: create (csrf cookie + node), submit the password. Returns the status. */
async function flowSignIn(base: string, email: string): Promise<number> {
  const created = await request(`${base}/api/.ory/self-service/login/browser`, { headers: { accept: 'application/json' } });
  if (created.status !== 200) return created.status === 404 ? -404 : created.status;
  const flow = JSON.parse(created.body) as { id: string; ui: { nodes: { attributes: { name?: string; value?: unknown } }[] } };
  const csrf = flow.ui.nodes.find((n) => n.attributes.name === 'csrf_token')?.attributes.value as string | undefined;
  const cookie = cookieFrom(created, 'csrf_token_ory');
  const body = JSON.stringify({ method: 'password', identifier: email, password: PASSWORD, csrf_token: csrf });
  const res = await request(`${base}/api/.ory/self-service/login?flow=${flow.id}`, {
    method: 'POST',
    headers: {
      accept: 'application/json', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)),
      ...(cookie && { cookie: `csrf_token_ory=${cookie}` }),
    },
    body,
  });
  return res.status;
}

async function legacySignIn(base: string, email: string): Promise<number> {
  const body = JSON.stringify({ username: email, password: PASSWORD });
  const res = await request(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    body,
  });
  return res.status;
}

/** Child process (`--signin`): `connections` browsers signing in back to back for `duration` seconds. */
async function signInGenerator() {
  const specReady = new Promise<SignInSpec>((ok) => process.once('message', (m) => ok(m as SignInSpec)));
  process.send!('ready');
  const spec = await specReady;
  const via: SignInFigures['via'] = (await flowSignIn(spec.base, spec.emails[0])) === -404 ? 'legacy' : 'flow';
  const one = via === 'flow' ? flowSignIn : legacySignIn;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let failures = 0;
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const end = started + spec.duration * 1000;
  await Promise.all(Array.from({ length: spec.connections }, async (_, worker) => {
    for (let i = worker; performance.now() < end; i += spec.connections) {
      const t0 = performance.now();
      let status: number;
      try {
        status = await one(spec.base, spec.emails[i % spec.emails.length]);
      } catch {
        status = 0;
      }
      latencies.push(performance.now() - t0);
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status < 200 || status >= 300) failures++;
    }
  }));
  const cpu = process.cpuUsage(cpu0);
  const figures: SignInFigures = {
    requests: latencies.length, failures, seconds: (performance.now() - started) / 1000, latencies, via, statuses,
    cpuMicros: cpu.user + cpu.system,
  };
  process.send!(figures, () => process.exit(0));
}

function overSignIns(spec: SignInSpec): Promise<SignInFigures> {
  const child = fork(process.argv[1], ['--signin'], { stdio: 'inherit' });
  // the spec goes once the child listens (a message sent while its modules still load would be lost)
  return new Promise<SignInFigures>((ok, fail) => {
    child.on('message', (m) => (m === 'ready' ? child.send(spec) : ok(m as SignInFigures)));
    child.once('exit', (code) => fail(new Error(`sign-in generator exited with ${code}`)));
  });
}

/** The TOTP factor's own check, if the factor is there (part C): p50/p99 of `n` checks of a current code. */
async function totpFigures(n: number): Promise<{ p50: number; p99: number } | string> {
  const module = '../server/modules/auth/factors/totp.js';
  let matchTotp: (secret: string, code: string, afterStep: number) => Promise<number | null>;
  try {
    ({ matchTotp } = (await import(module)) as { matchTotp: typeof matchTotp });
  } catch (err) {
    return `no TOTP factor (${(err as Error).message.split('\n')[0]})`;
  }
  const { generate, generateSecret } = await import('otplib');
  const secret = generateSecret();
  const times: number[] = [];
  let valid = 0;
  for (let i = 0; i < n; i++) {
    const code = await generate({ secret });
    const t0 = performance.now();
    if ((await matchTotp(secret, code, 0)) !== null) valid++;
    times.push(performance.now() - t0);
  }
  if (valid !== n) return `only ${valid} of ${n} current codes matched`;
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

async function seedUsers(db: import('pg').Pool): Promise<string[]> {
  const { hashSecret } = await import('../server/lib/crypto.js');
  const hash = await hashSecret(PASSWORD);
  const { rows } = await db.query<{ id: string; email: string }>(
    `INSERT INTO identities (traits)
     SELECT jsonb_build_object('email', 'signin' || i || '@example.test', 'name', jsonb_build_object('first', 'Sign', 'last', 'In ' || i))
     FROM generate_series(1, ${USERS}) i RETURNING id, traits ->> 'email' AS email`,
  );
  await db.query(
    'INSERT INTO identity_credentials (identity_id, password_hash) SELECT unnest($1::uuid[]), $2',
    [rows.map((r) => r.id), hash],
  );
  return rows.map((r) => r.email);
}

/** 200,000 sessions and 1,000,000 auth_events over 10,000 people (20 and 100 each), the measured person among them. */
async function seedVolume(db: import('pg').Pool, me: string) {
  await db.query(
    `INSERT INTO identities (traits)
     SELECT jsonb_build_object('email', 'volume' || i || '@example.test', 'name', jsonb_build_object('first', 'Volume', 'last', 'Person ' || i))
     FROM generate_series(1, ${SEED_PEOPLE - 1}) i`,
  );
  const people = `(SELECT array_agg(id ORDER BY id) || $1::uuid AS ids FROM people WHERE email LIKE 'volume%@example.test')`;
  await db.query(
    `INSERT INTO sessions (person_id, token_hash, created_at, last_seen_at, expires_at, ip, user_agent, aal, authenticated_at, methods)
     SELECT p.ids[1 + i % ${SEED_PEOPLE}], md5('bench-session-' || i) || md5('s' || i), now() - make_interval(hours => i % 700),
            now() - make_interval(mins => i % 6000), now() + interval '7 days', '10.' || (i % 250) || '.0.' || (i % 200),
            'Mozilla/5.0 (X11; Linux x86_64) bench/' || (i % 7), 'aal1', now() - make_interval(hours => i % 700),
            '[{"method":"password","aal":"aal1"}]'::jsonb
     FROM ${people} p, generate_series(1, ${SESSIONS}) i`,
    [me],
  );
  await db.query(
    `INSERT INTO auth_events (person_id, type, method, aal, success, ip, user_agent, created_at)
     SELECT p.ids[1 + i % ${SEED_PEOPLE}], CASE WHEN i % 10 = 0 THEN 'login_failed' ELSE 'login' END, 'password',
            'aal1', i % 10 <> 0, '10.' || (i % 250) || '.1.' || (i % 200), 'bench/' || (i % 7),
            now() - make_interval(secs => (i * 7) % (89 * 86400))
     FROM ${people} p, generate_series(1, ${EVENTS}) i`,
    [me],
  );
  await db.query('ANALYZE sessions');
  await db.query('ANALYZE auth_events');
}

/** CPU time (µs) of a PostgreSQL server's processes: the postmaster (with its reaped children) and its live children. */
async function postgresCpuMicros(postmaster: number | null): Promise<number | null> {
  if (postmaster === null) return null;
  const { readdir, readFile } = await import('node:fs/promises');
  const tick = 1_000_000 / 100; // USER_HZ is 100 on Linux
  let ticks = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = await readFile(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from the 3rd on (state)
    const pid = Number(entry);
    const ppid = Number(f[1]);
    if (pid === postmaster) ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    else if (ppid === postmaster) ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks * tick;
}

/** CPU time (µs) of this process's main thread (the event loop: HTTP, JSON, SQL client), from /proc; the rest of
 * process.cpuUsage() is other threads: libuv's pool (argon2), V8's GC and compiler threads. null off Linux. */
async function mainThreadCpuMicros(): Promise<number | null> {
  const { readFile } = await import('node:fs/promises');
  try {
    const stat = await readFile(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * (1_000_000 / 100);
  } catch {
    return null;
  }
}

/** The postmaster of the bench's database, when it runs on this machine (embedded): the parent of a backend. */
async function findPostmaster(db: import('pg').Pool): Promise<number | null> {
  const { readFile } = await import('node:fs/promises');
  try {
    const backend = (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const stat = await readFile(`/proc/${backend}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** Statements sent by this process's PostgreSQL clients (the app's pool, the bench's own few), counted by wrapping
 * the client's query (pool.query goes through it once). */
async function countStatements(): Promise<{ count: () => number; connects: () => number }> {
  const { default: pg } = await import('pg');
  let n = 0;
  let c = 0;
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown; connect: (...args: unknown[]) => unknown };
  const query = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    n++;
    return query.apply(this, args);
  };
  // new connections (each a SCRAM handshake here and a backend start in PostgreSQL)
  const connect = proto.connect;
  proto.connect = function (this: unknown, ...args: unknown[]) {
    c++;
    return connect.apply(this, args);
  };
  return { count: () => n, connects: () => c };
}

/** Starts the inspector's CPU profiler on this (the server's) thread; the returned stop() writes the profile to `file`
 * and prints its heaviest functions (self time) and files. */
async function startProfile(file: string): Promise<() => Promise<void>> {
  const { Session } = await import('node:inspector/promises');
  const { writeFile } = await import('node:fs/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    await writeFile(file, JSON.stringify(profile));
    const dt = new Map<number, number>();
    for (let i = 0; i < profile.samples!.length; i++) {
      dt.set(profile.samples![i], (dt.get(profile.samples![i]) ?? 0) + (profile.timeDeltas![i] ?? 0));
    }
    const total = [...dt.values()].reduce((a, b) => a + b, 0) || 1;
    const byFn = new Map<string, number>();
    const byFile = new Map<string, number>();
    for (const node of profile.nodes) {
      const t = dt.get(node.id) ?? 0;
      if (!t) continue;
      const f = node.callFrame;
      const where = f.url.replace(/^file:\/\//, '').replace(process.cwd() + '/', '') || '(native)';
      const fn = `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`;
      byFn.set(fn, (byFn.get(fn) ?? 0) + t);
      const file = where.includes('node_modules/') ? where.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1') : where;
      byFile.set(file, (byFile.get(file) ?? 0) + t);
    }
    const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n)
      .map(([k, v]) => `  ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`).join('\n');
    console.log(`profile ${file} (main thread, ${(total / 1000).toFixed(0)} ms sampled): top functions (self)\n${top(byFn, 30)}`);
    console.log(`top files / packages (self)\n${top(byFile, 25)}`);
  };
}

type Row = [string, string, ReturnType<typeof summarise>];

function printTable(rows: Row[]) {
  const head = ['scenario', 'conns', 'requests', 'req/s', 'p50 ms', 'p95 ms', 'p99 ms', 'failed'];
  const table = [head, ...rows.map(([name, c, s]) => [name, c, String(s.n), fmt(s.rps), fmt(s.p50, 2), fmt(s.p95, 2), fmt(s.p99, 2), String(s.failures)])];
  const widths = head.map((_, i) => Math.max(...table.map((r) => r[i].length)));
  for (const [i, r] of table.entries()) {
    console.log(r.map((cell, j) => (j === 0 ? cell.padEnd(widths[j]) : cell.padStart(widths[j]))).join('  '));
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}

async function main() {
  const { buildApp } = await import('../server/app.js');
  const { loadConfig } = await import('../server/config.js');
  const { createSession } = await import('../server/modules/auth/sessions.js');
  const database = await benchDatabase('console-bench-auth');
  const config = loadConfig({
    DATABASE_URL: database.url, DEMO_DATA: 'false', LOG_LEVEL: 'silent', MODE: 'console', DB_POOL_MAX: '20',
    // one client address sends every sign-in: the per-client limit would measure itself
    LOGIN_RATE_LIMIT: '100000000',
  });
  const app = await buildApp(config, { logger: false });
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as import('node:net').AddressInfo;
    const base = `http://127.0.0.1:${port}`;
    const emails = await seedUsers(app.db);
    const statements = await countStatements();
    const postmaster = await findPostmaster(app.db);
    const token = await adminToken(app.db);
    const version = (await app.db.query('SHOW server_version')).rows[0].server_version;
    const rows: Row[] = [];

    // the pool's 20 connections opened before measuring: on a busy machine the warm-up may not reach them all, and
    // each new one costs a SCRAM handshake here and a backend start in PostgreSQL inside the measured run
    const clients = await Promise.all(Array.from({ length: 20 }, () => app.db.connect()));
    for (const c of clients) c.release();
    console.log(`warming up (${SIGNINS} sign-ins for 3 s)`);
    await overSignIns({ base, emails, connections: SIGNINS, duration: 3 });
    // Cost per sign-in, alone (load-insensitive: CPU time and statements, not wall clock): the server process (argon2
    // on its threads included), PostgreSQL's processes and the generator, over SHORT seconds of sign-ins.
    console.log(`measuring the cost of a sign-in (${SIGNINS} concurrent, ${SHORT} s, nothing else)`);
    // the server's background work (leader loops, queue consumers) over 3 s with no requests, per second: the cost
    // figures are given with it and without it ("net")
    const idle0 = { node: process.cpuUsage(), pg: await postgresCpuMicros(postmaster), q: statements.count(), t: performance.now() };
    await new Promise((r) => setTimeout(r, 3000));
    const idleNode = process.cpuUsage(idle0.node);
    const idlePg = await postgresCpuMicros(postmaster);
    const idleSeconds = (performance.now() - idle0.t) / 1000;
    const idle = {
      node: (idleNode.user + idleNode.system) / idleSeconds,
      pg: idle0.pg !== null && idlePg !== null ? (idlePg - idle0.pg) / idleSeconds : 0,
      q: (statements.count() - idle0.q) / idleSeconds,
    };
    const node0 = process.cpuUsage();
    const main0 = await mainThreadCpuMicros();
    const pg0 = await postgresCpuMicros(postmaster);
    const q0 = statements.count();
    const c0 = statements.connects();
    const stopProfile = PROFILE ? await startProfile(PROFILE) : null;
    const costRun = await overSignIns({ base, emails, connections: SIGNINS, duration: SHORT });
    const nodeCpu = process.cpuUsage(node0);
    const main1 = await mainThreadCpuMicros();
    const pg1 = await postgresCpuMicros(postmaster);
    await stopProfile?.(); // (the profiler's own overhead is in the CPU figures of a profiled run)
    const n = Math.max(1, costRun.requests);
    const both = (total: number, idlePerSecond: number, unit: number, digits: number) =>
      `${fmt(total / unit / n, digits)} (net ${fmt((total - idlePerSecond * costRun.seconds) / unit / n, digits)})`;
    const cost = [
      `${costRun.requests} sign-ins (${JSON.stringify(costRun.statuses)}): per sign-in`,
      `${both(statements.count() - q0, idle.q, 1, 1)} statements,`,
      `server ${both(nodeCpu.user + nodeCpu.system, idle.node, 1000, 2)} ms CPU`,
      main0 !== null && main1 !== null
        ? `(main thread ${fmt((main1 - main0) / 1000 / n, 2)}, other threads: argon2, GC ${fmt((nodeCpu.user + nodeCpu.system - (main1 - main0)) / 1000 / n, 2)}),`
        : ',',
      pg0 !== null && pg1 !== null ? `PostgreSQL ${both(pg1 - pg0, idle.pg, 1000, 2)} ms CPU,` : 'PostgreSQL CPU not measured (external),',
      `generator ${fmt(costRun.cpuMicros / 1000 / n, 2)} ms CPU;`,
      `${statements.connects() - c0} new database connections;`,
      `idle server: ${fmt(idle.q, 0)} statements/s, ${fmt(idle.node / 1000, 1)} ms/s Node CPU, ${fmt(idle.pg / 1000, 1)} ms/s PostgreSQL CPU`,
    ].join(' ');
    console.log(cost);
    console.log(`measuring ${SIGNINS} sign-ins for ${SECONDS} s with other API calls meanwhile`);
    const other = {
      url: base, headers: { authorization: `Bearer ${token}` }, connections: 4, duration: SECONDS, rate: OTHER_RATE || undefined,
      paths: ['/api/auth/whoami', '/api/db/people?select=id,name,email&limit=20', '/api/about'],
    };
    const [signIns, during] = await Promise.all([overSignIns({ base, emails, connections: SIGNINS, duration: SECONDS }), overHttp(other)]);
    const signInLabel = signIns.via === 'flow' ? 'sign-in: flow + submit (/api/.ory)' : 'sign-in: POST /api/auth/login (no flow API)';
    rows.push([signInLabel, String(SIGNINS), summarise(signIns)]);
    rows.push([`other API meanwhile (whoami, /api/db/people, about; ${OTHER_RATE ? `${OTHER_RATE}/s` : 'unpaced'})`, String(other.connections), summarise(during)]);

    console.log('measuring the TOTP check, then whoami');
    const totp = await totpFigures(2_000);

    const me = (await app.db.query<{ id: string }>('SELECT id FROM people WHERE email = $1', [emails[0]])).rows[0].id;
    const session = await createSession(app.db, me, 24);
    const cookie = { cookie: `session=${session.token}` };
    const whoamiPath = (await fetch(`${base}/api/.ory/sessions/whoami`, { headers: cookie })).status === 200
      ? '/api/.ory/sessions/whoami' : '/api/auth/whoami';
    const whoami = { url: base, headers: cookie, paths: [whoamiPath], connections: 16, duration: SHORT };
    await overHttp({ ...whoami, duration: 2 });
    const wNode0 = process.cpuUsage();
    const wPg0 = await postgresCpuMicros(postmaster);
    const wQ0 = statements.count();
    const stopWhoamiProfile = PROFILE ? await startProfile(PROFILE.replace(/(\.cpuprofile)?$/, '-whoami.cpuprofile')) : null;
    const whoamiFigures = await overHttp(whoami);
    const wNode = process.cpuUsage(wNode0);
    const wPg1 = await postgresCpuMicros(postmaster);
    await stopWhoamiProfile?.();
    const calls = Math.max(1, whoamiFigures.requests);
    const perCall = (total: number, idlePerSecond: number, unit: number, digits: number) =>
      `${fmt(total / unit / calls, digits)} (net ${fmt((total - idlePerSecond * whoamiFigures.seconds) / unit / calls, digits)})`;
    const whoamiCost = [
      `per call ${perCall(statements.count() - wQ0, idle.q, 1, 2)} statements,`,
      `server ${perCall(wNode.user + wNode.system, idle.node, 1000, 3)} ms CPU,`,
      wPg0 !== null && wPg1 !== null ? `PostgreSQL ${perCall(wPg1 - wPg0, idle.pg, 1000, 3)} ms CPU` : 'PostgreSQL CPU not measured (external)',
    ].join(' ');
    rows.push([`GET ${whoamiPath} (session cookie), flat out`, String(whoami.connections), summarise(whoamiFigures)]);
    rows.push([`GET ${whoamiPath} (session cookie), flat out`, '8', summarise(await overHttp({ ...whoami, connections: 8 }))]);
    // the target's rate, evenly paced (open loop, latency from each request's due time): p95 at 2,000 req/s rather
    // than the queue a flat-out run builds; up to 64 connections, so a slow answer never holds the next request back.
    // 5 s of warm-up at the rate, not counted: right after the flat-out runs the first 1-3 s at a steady rate answered
    // in up to a few hundred ms before settling (not so against a trivial server), and the figure is the steady state
    const pacedRate = Number(process.env.BENCH_WHOAMI_RATE ?? 2000);
    const paced = await overHttp({ ...whoami, connections: 64, rate: pacedRate, warmUp: 5 });
    rows.push([`GET ${whoamiPath} (session cookie), paced at ${pacedRate}/s`, '64', summarise(paced)]);

    console.log(VOLUME ? `seeding ${SESSIONS} sessions and ${EVENTS} auth_events` : 'BENCH_VOLUME=0: no volume seeded');
    const t0 = performance.now();
    if (VOLUME) await seedVolume(app.db, me);
    const seedSeconds = (performance.now() - t0) / 1000;
    const counts = (await app.db.query<{ sessions: string; events: string; mine: string }>(
      `SELECT (SELECT count(*) FROM sessions) AS sessions, (SELECT count(*) FROM auth_events) AS events,
              (SELECT count(*) FROM auth_events WHERE person_id = $1) AS mine`, [me])).rows[0];
    const lists = [
      ['GET /api/.ory/sessions (own, ~20)', '/api/.ory/sessions'],
      // the profile's sign-in activity call (web/src/features/profile/api.ts useSignInActivity)
      ['GET /api/db/auth_events own, latest 50', `/api/db/auth_events?select=id,person_id,session_id,type,method,aal,success,ip,user_agent,created_at&person_id=eq.${me}&order=created_at.desc&limit=50`],
    ] as const;
    for (const [name, path] of VOLUME ? lists : []) {
      const probe = await fetch(`${base}${path}`, { headers: cookie });
      const note = probe.ok ? '' : ` [answers ${probe.status}]`;
      await probe.arrayBuffer();
      const spec = { url: base, headers: cookie, paths: [path], connections: 4, duration: SHORT };
      await overHttp({ ...spec, duration: 2 });
      rows.push([name + note, String(spec.connections), summarise(await overHttp(spec))]);
    }

    console.log(`\nsign-in benchmark: PostgreSQL ${version}, Node ${process.version}, ${cpus().length} CPUs, loopback; sign-ins ${SECONDS} s, others ${SHORT} s`);
    console.log(`sign-in answers: ${JSON.stringify(signIns.statuses)}`);
    console.log(`sign-in cost: ${cost}`);
    console.log(`whoami cost: ${whoamiCost}`);
    console.log(`seeded ${counts.sessions} sessions and ${counts.events} auth_events (${counts.mine} of the measured person's) in ${fmt(seedSeconds)} s\n`);
    printTable(rows);
    console.log(typeof totp === 'string' ? `\nTOTP check: ${totp}` : `\nTOTP check (matchTotp, 2,000 current codes): p50 ${fmt(totp.p50, 3)} ms, p99 ${fmt(totp.p99, 3)} ms`);
  } finally {
    await app.close();
    await database.close();
  }
}

if (process.argv.includes('--load')) await loadGenerator();
else if (process.argv.includes('--signin')) await signInGenerator();
else await main();
