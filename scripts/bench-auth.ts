/**
 * npm run bench:auth (issue 17 "Performance"): sign-in flows, the second factor, whoami and the profile's lists.
 * Starts an embedded PostgreSQL (or uses DATABASE_URL), serves the app on a loopback port, and measures from child
 * processes (the load never shares the server's event loop):
 * - 50 concurrent sign-ins (a login flow, then its password submission, through /api/.ory; POST /api/auth/login
 *   when the flow API is not there) for BENCH_SECONDS (default 60), with other API calls meanwhile;
 * - a TOTP check (the factor's own matchTotp), in process;
 * - GET /api/.ory/sessions/whoami with a session cookie (autocannon);
 * - with 200,000 sessions and 1,000,000 auth_events seeded by SQL, the profile's lists: GET /api/.ory/sessions and
 *   /api/db/auth_events?select=…&person_id=eq.<me>&order=created_at.desc&limit=50 (the profile page's calls).
 * Prints figures; no assertions. BENCH_SIGNINS (default 50) sets the sign-in concurrency.
 */
import { fork } from 'node:child_process';
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

interface SignInSpec {
  base: string;
  emails: string[];
  connections: number;
  duration: number;
}
interface SignInFigures extends Figures {
  via: 'flow' | 'legacy';
  statuses: Record<string, number>;
}

/** The value of a cookie in a response's Set-Cookie headers. */
function cookieFrom(res: Response, name: string): string | null {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const at = pair.indexOf('=');
    if (pair.slice(0, at).trim() === name) return pair.slice(at + 1);
  }
  return null;
}

/** One sign-in through the Kratos-style flow: create (csrf cookie + node), submit the password. Returns the status. */
async function flowSignIn(base: string, email: string): Promise<number> {
  const created = await fetch(`${base}/api/.ory/self-service/login/browser`, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(30_000) });
  if (created.status !== 200) return created.status === 404 ? -404 : created.status;
  const flow = (await created.json()) as { id: string; ui: { nodes: { attributes: { name?: string; value?: unknown } }[] } };
  const csrf = flow.ui.nodes.find((n) => n.attributes.name === 'csrf_token')?.attributes.value as string | undefined;
  const cookie = cookieFrom(created, 'csrf_token_ory');
  const res = await fetch(`${base}/api/.ory/self-service/login?flow=${flow.id}`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json', cookie: cookie ? `csrf_token_ory=${cookie}` : '' },
    body: JSON.stringify({ method: 'password', identifier: email, password: PASSWORD, csrf_token: csrf }),
    signal: AbortSignal.timeout(30_000),
  });
  await res.arrayBuffer();
  return res.status;
}

async function legacySignIn(base: string, email: string): Promise<number> {
  const res = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({ username: email, password: PASSWORD }),
    signal: AbortSignal.timeout(30_000),
  });
  await res.arrayBuffer();
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
  const figures: SignInFigures = { requests: latencies.length, failures, seconds: (performance.now() - started) / 1000, latencies, via, statuses };
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
    const token = await adminToken(app.db);
    const version = (await app.db.query('SHOW server_version')).rows[0].server_version;
    const rows: Row[] = [];

    console.log(`warming up (${SIGNINS} sign-ins for 3 s)`);
    await overSignIns({ base, emails, connections: SIGNINS, duration: 3 });
    console.log(`measuring ${SIGNINS} sign-ins for ${SECONDS} s with other API calls meanwhile`);
    const other = {
      url: base, headers: { authorization: `Bearer ${token}` }, connections: 4, duration: SECONDS,
      paths: ['/api/auth/whoami', '/api/db/people?select=id,name,email&limit=20', '/api/about'],
    };
    const [signIns, during] = await Promise.all([overSignIns({ base, emails, connections: SIGNINS, duration: SECONDS }), overHttp(other)]);
    const signInLabel = signIns.via === 'flow' ? 'sign-in: flow + submit (/api/.ory)' : 'sign-in: POST /api/auth/login (no flow API)';
    rows.push([signInLabel, String(SIGNINS), summarise(signIns)]);
    rows.push(['other API meanwhile (whoami, /api/db/people, about)', String(other.connections), summarise(during)]);

    console.log('measuring the TOTP check, then whoami');
    const totp = await totpFigures(2_000);

    const me = (await app.db.query<{ id: string }>('SELECT id FROM people WHERE email = $1', [emails[0]])).rows[0].id;
    const session = await createSession(app.db, me, 24);
    const cookie = { cookie: `session=${session.token}` };
    const whoamiPath = (await fetch(`${base}/api/.ory/sessions/whoami`, { headers: cookie })).status === 200
      ? '/api/.ory/sessions/whoami' : '/api/auth/whoami';
    const whoami = { url: base, headers: cookie, paths: [whoamiPath], connections: 16, duration: SHORT };
    await overHttp({ ...whoami, duration: 2 });
    rows.push([`GET ${whoamiPath} (session cookie)`, String(whoami.connections), summarise(await overHttp(whoami))]);

    console.log(`seeding ${SESSIONS} sessions and ${EVENTS} auth_events`);
    const t0 = performance.now();
    await seedVolume(app.db, me);
    const seedSeconds = (performance.now() - t0) / 1000;
    const counts = (await app.db.query<{ sessions: string; events: string; mine: string }>(
      `SELECT (SELECT count(*) FROM sessions) AS sessions, (SELECT count(*) FROM auth_events) AS events,
              (SELECT count(*) FROM auth_events WHERE person_id = $1) AS mine`, [me])).rows[0];
    const lists = [
      ['GET /api/.ory/sessions (own, ~20)', '/api/.ory/sessions'],
      // the profile's sign-in activity call (web/src/features/profile/api.ts useSignInActivity)
      ['GET /api/db/auth_events own, latest 50', `/api/db/auth_events?select=id,person_id,session_id,type,method,aal,success,ip,user_agent,created_at&person_id=eq.${me}&order=created_at.desc&limit=50`],
    ] as const;
    for (const [name, path] of lists) {
      const probe = await fetch(`${base}${path}`, { headers: cookie });
      const note = probe.ok ? '' : ` [answers ${probe.status}]`;
      await probe.arrayBuffer();
      const spec = { url: base, headers: cookie, paths: [path], connections: 4, duration: SHORT };
      await overHttp({ ...spec, duration: 2 });
      rows.push([name + note, String(spec.connections), summarise(await overHttp(spec))]);
    }

    console.log(`\nsign-in benchmark: PostgreSQL ${version}, Node ${process.version}, ${cpus().length} CPUs, loopback; sign-ins ${SECONDS} s, others ${SHORT} s`);
    console.log(`sign-in answers: ${JSON.stringify(signIns.statuses)}`);
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
