/**
 * npm run bench:agents (issue 16 "Performance"): agents pushing to a console, on loopback, in a temp dir.
 *
 * (1) 10 simulated agents, each generated through POST /api/agent/generate, each pushing 5,000 check results a
 *     minute for 5 minutes to a console built in this process, the way the agent runtime's pusher sends them: its
 *     canary and checks first, then every 5 s the statuses of the last 5 s (~417 rows a batch, under the 1,000-row
 *     limit) to POST /api/upstream/push with Basic `token:<token>`. Reports push latency p50/p95/p99 (target p99 <
 *     200 ms) and that every result was stored once.
 * (2) One real agent: the server compiled as the image runs it (scripts/build-server.mjs; BENCH_AGENT_TSX=1 runs
 *     `node --import tsx server/main.ts` instead) in MODE=agent as a child process (its own database on the same PostgreSQL,
 *     the default 5 s push interval), 5,000 results a minute written into its outbox (check_statuses with
 *     is_pushed = false, as its scheduler writes them), across a 30 s upstream restart (the console closed, then
 *     built again on the same port). Reports statuses lost or duplicated (the agent's rows vs the upstream's), the
 *     backlog drain time (from the upstream's return until every result made before it has arrived; target 60 s)
 *     and the agent's peak RSS (target < 300 MB).
 *
 *   npx tsx scripts/bench-agents.ts    (BENCH_SCALE=1 is the issue's size, 0.1 a quick run: minutes and the restart
 *   shortened, not the rate; DATABASE_URL to use an existing server; BENCH_SKIP_SIMULATED=1 skips (1), BENCH_SKIP_AGENT=1 (2))
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../server/app.js';
import { loadConfig } from '../server/config.js';
import { startEmbeddedPostgres } from '../server/db/embedded.js';
import { migrate } from '../server/db/migrate.js';
import { ensureAdmin } from '../server/modules/auth/bootstrap.js';
import { createSession } from '../server/modules/auth/sessions.js';

const quiet = { info() {}, warn() {}, debug() {} };
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const AGENTS = 10;
const PER_MINUTE = 5000;
const CHECKS = 100;
const BATCH_MS = 5000;
const MINUTES = Number(process.env.BENCH_MINUTES ?? 5 * Math.min(1, SCALE));
const RESTART_MS = Math.round(30_000 * Math.min(1, Math.max(SCALE, 1 / 3)));
const ADMIN = { email: 'bench@example.test', password: 'bench-agents-password' };
const ROOT = new URL('..', import.meta.url).pathname;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);
const ms = (n: number) => `${n.toFixed(1)} ms`;
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;

interface Console { app: FastifyInstance; base: string; port: number }

async function startConsole(url: string, dir: string, port = 0): Promise<Console> {
  const config = loadConfig({
    DATABASE_URL: url, DATA_DIR: join(dir, 'data'), DEMO_DATA: 'false', LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: String(port),
    ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, KUBERNETES: 'off', PLAYBOOK_ENGINE: 'off',
  });
  const app = await buildApp(config, { logger: false });
  await ensureAdmin(app.db, config, () => {});
  await app.listen({ port, host: '127.0.0.1' });
  const p = (app.server.address() as AddressInfo).port;
  return { app, base: `http://127.0.0.1:${p}`, port: p };
}

async function generate(c: Console, db: pg.Pool, name: string): Promise<{ agentId: string; token: string }> {
  const admin = (await db.query<{ id: string }>('SELECT id FROM people WHERE email = $1', [ADMIN.email])).rows[0].id;
  const s = await createSession(db, admin, 1);
  const res = await fetch(`${c.base}/api/agent/generate`, {
    method: 'POST', body: JSON.stringify({ name, properties: { bench: 'agents' } }),
    headers: { 'content-type': 'application/json', cookie: `session=${s.token}`, 'x-csrf-token': s.csrfToken },
  });
  if (res.status !== 201) throw new Error(`generate ${name}: ${res.status} ${await res.text()}`);
  const body = await res.json() as { agent_id: string; access_token: string };
  return { agentId: body.agent_id, token: body.access_token };
}

const basic = (token: string) => `Basic ${Buffer.from(`token:${token}`).toString('base64')}`;

async function push(base: string, token: string, name: string, body: unknown): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${base}/api/upstream/push?agent_name=${encodeURIComponent(name)}`, {
    method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', authorization: basic(token) },
  });
  const text = await res.text();
  const took = performance.now() - t0;
  if (!res.ok) throw new Error(`push ${name}: ${res.status} ${text.slice(0, 300)}`);
  return took;
}

/** (1) simulated agents */
async function simulated(c: Console, db: pg.Pool) {
  const agents = [];
  for (let i = 0; i < AGENTS; i++) {
    const name = `bench-agent-${i + 1}`;
    const made = await generate(c, db, name);
    const canary = { id: randomUUID(), name: 'bench', namespace: 'bench', labels: { bench: 'agents' }, spec: { schedule: '@every 1m' }, source: 'CRD' };
    const checks = Array.from({ length: CHECKS }, (_, k) => ({ id: randomUUID(), canary_id: canary.id, type: 'http', name: `check-${k}`, namespace: 'bench' }));
    await push(c.base, made.token, name, { canaries: [canary], checks });
    agents.push({ name, ...made, checks });
  }
  const latencies: number[] = [];
  let sent = 0;
  let failures = 0;
  const perBatch = Math.round((PER_MINUTE * BATCH_MS) / 60_000);
  const started = Date.now();
  const end = started + MINUTES * 60_000;
  const rss = { max: process.memoryUsage().rss };
  const memTimer = setInterval(() => { rss.max = Math.max(rss.max, process.memoryUsage().rss); }, 1000);
  await Promise.all(agents.map(async (a, ai) => {
    // staggered as real agents are: each on its own 5 s cycle
    let due = started + (ai * BATCH_MS) / AGENTS;
    let n = 0;
    while (due < end) {
      if (due > Date.now()) await sleep(due - Date.now());
      const t = due - BATCH_MS;
      const statuses = Array.from({ length: perBatch }, (_, k) => {
        const i = n + k;
        return {
          check_id: a.checks[i % CHECKS].id, time: new Date(t + (k * BATCH_MS) / perBatch).toISOString(),
          duration: 20 + (i % 50), status: i % 97 !== 0, message: 'HTTP 200', error: null, invalid: false,
        };
      });
      n += perBatch;
      try {
        latencies.push(await push(c.base, a.token, a.name, { check_statuses: statuses }));
        sent += statuses.length;
      } catch (err) {
        failures++;
        console.warn(String(err));
      }
      due += BATCH_MS;
    }
  }));
  clearInterval(memTimer);
  const seconds = (Date.now() - started) / 1000;
  const stored = (await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM check_statuses s JOIN checks c ON c.id = s.check_id JOIN agents a ON a.id = c.agent_id
      WHERE a.name LIKE 'bench-agent-%'`)).rows[0].n;
  const sorted = [...latencies].sort((x, y) => x - y);
  console.log(`\n(1) ${AGENTS} simulated agents x ${PER_MINUTE} results/min for ${(seconds / 60).toFixed(1)} min, batches of ${perBatch} every ${BATCH_MS / 1000} s`);
  console.log(`    pushes ${latencies.length} (${failures} failed), results sent ${sent}, stored ${stored}${stored === sent ? ' (all, once)' : ' (MISMATCH)'}`);
  console.log(`    push latency p50 ${ms(pct(sorted, 50))}  p95 ${ms(pct(sorted, 95))}  p99 ${ms(pct(sorted, 99))}  max ${ms(sorted.at(-1) ?? NaN)}  (target p99 < 200 ms)`);
  console.log(`    console process peak RSS ${mb(rss.max)} (the load generator included)`);
}

function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * How the agent child runs: compiled JavaScript as the image runs it (scripts/build-server.mjs into a directory of
 * this bench's own), or `node --import tsx server/main.ts` with BENCH_AGENT_TSX=1 (to compare).
 */
function agentCommand(): string[] {
  if (process.env.BENCH_AGENT_TSX === '1') return ['--import', 'tsx', 'server/main.ts'];
  const out = join(ROOT, '.tmp', 'bench-agents-node');
  execFileSync(process.execPath, [join(ROOT, 'scripts/build-server.mjs'), out], { cwd: ROOT, stdio: 'inherit' });
  return [join(out, 'server/main.js')];
}

function startAgentProcess(env: Record<string, string>): Promise<{ child: ChildProcess; lines: string[] }> {
  const command = agentCommand();
  console.log(`    agent runs: node ${command.map((a) => a.replace(ROOT, '')).join(' ')}`);
  const child = spawn(process.execPath, command, {
    cwd: ROOT,
    env: {
      ...process.env, MODE: 'agent', PORT: '0', HOST: '127.0.0.1', DEMO_DATA: 'false', LOG_LEVEL: 'warn', KUBERNETES: 'off',
      ADMIN_PASSWORD: 'bench-agent-admin', ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      for (const line of d.toString('utf8').split('\n')) {
        if (!line) continue;
        lines.push(line);
        if (lines.length > 200) lines.shift();
        if (/ready at http/.test(line)) resolve({ child, lines });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`agent exited (${code}):\n${lines.slice(-20).join('\n')}`)));
  });
}

/** (2) one real agent across an upstream restart */
async function realAgent(c: Console, db: pg.Pool, adminUrl: string, dir: string): Promise<Console> {
  if (!readFileSync(join(ROOT, 'server/modules/agent-runtime/index.ts'), 'utf8').includes('Pusher')) {
    console.log('\n(2) skipped: the agent runtime (server/modules/agent-runtime) does not push yet');
    return c;
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query('CREATE DATABASE bench_agent');
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = '/bench_agent';
  const agentDb = new pg.Pool({ connectionString: u.toString(), max: 2 });
  await migrate(agentDb);
  const made = await generate(c, db, 'bench-real-agent');
  const { child, lines } = await startAgentProcess({
    DATABASE_URL: u.toString(), DATA_DIR: join(dir, 'agent'), UPSTREAM_URL: c.base, AGENT_TOKEN: made.token, AGENT_NAME: 'bench-real-agent',
  });
  let current = c;
  let stopping = false;
  child.on('exit', (code) => { if (!stopping) console.error(`    the agent exited (${code}):\n${lines.slice(-15).join('\n')}`); });
  try {
    const canary = (await agentDb.query<{ id: string }>(
      // its scheduler may run them (a daily schedule, a refused port): their few results are counted like the rest
      `INSERT INTO canaries (name, namespace, spec, source) VALUES ('bench-real', 'bench', '{"schedule":"@every 24h"}', 'CRD') RETURNING id`)).rows[0].id;
    const checkIds = (await agentDb.query<{ id: string }>(
      `INSERT INTO checks (canary_id, type, name, namespace, spec)
       SELECT $1, 'http', 'real-' || i, 'bench', jsonb_build_object('name', 'real-' || i, 'url', 'http://127.0.0.1:1/')
       FROM generate_series(1, $2) i RETURNING id`,
      [canary, CHECKS])).rows.map((r) => r.id);
    let peak = rssOf(child.pid!);
    const memTimer = setInterval(() => { peak = Math.max(peak, rssOf(child.pid!)); }, 500);
    // the results: 5,000 a minute, written each second as a scheduler would
    let written = 0;
    let writing = true;
    const writer = (async () => {
      const t0 = Date.now();
      while (writing) {
        const due = Math.floor(((Date.now() - t0) / 60_000) * PER_MINUTE);
        if (due > written) {
          const n = due - written;
          await agentDb.query(
            `INSERT INTO check_statuses (check_id, time, duration, status, message)
             SELECT ($1::uuid[])[1 + (($2 + i) % $4)], now() + (i || ' microseconds')::interval, 25, true, 'HTTP 200'
             FROM generate_series(0, $3 - 1) i`,
            [checkIds, written, n, CHECKS]);
          written += n;
        }
        await sleep(1000);
      }
    })();
    const unpushedBefore = async (t: Date) => (await agentDb.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM check_statuses WHERE NOT is_pushed AND time < $1', [t])).rows[0].n;
    const steadyMs = Math.max(20_000, Math.round(60_000 * Math.min(1, SCALE)));
    await sleep(steadyMs);
    console.log(`\n(2) one real agent (MODE=agent child, 5 s pushes) at ${PER_MINUTE} results/min; upstream down for ${RESTART_MS / 1000} s`);
    const port = current.port;
    await current.app.close();
    const downAt = Date.now();
    await sleep(RESTART_MS);
    current = await startConsole(process.env.BENCH_DB_URL!, dir, port);
    const upAt = new Date();
    const backlog = await unpushedBefore(upAt);
    let drainMs = NaN;
    for (let i = 0; i < 600; i++) {
      if (await unpushedBefore(upAt) === 0) { drainMs = Date.now() - upAt.getTime(); break; }
      await sleep(250);
    }
    await sleep(10_000);
    writing = false;
    await writer;
    // everything pushed
    for (let i = 0; i < 600; i++) {
      if (await unpushedBefore(new Date(Date.now() + 60_000)) === 0) break;
      await sleep(500);
    }
    clearInterval(memTimer);
    const local = (await agentDb.query<{ n: number }>('SELECT count(*)::int AS n FROM check_statuses')).rows[0].n;
    const up = (await db.query<{ n: number; distinct: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT (s.check_id, s.time))::int AS distinct FROM check_statuses s
         JOIN checks c ON c.id = s.check_id WHERE c.agent_id = $1`, [made.agentId])).rows[0];
    console.log(`    down ${((upAt.getTime() - downAt) / 1000).toFixed(1)} s; backlog at return ${backlog} results`);
    console.log(`    results written ${local}, upstream has ${up.n} (${up.n - up.distinct} duplicated, ${Math.max(0, local - up.n)} lost)`);
    console.log(`    backlog drained in ${Number.isNaN(drainMs) ? 'NOT drained' : `${(drainMs / 1000).toFixed(1)} s`} (target 60 s)`);
    console.log(`    agent peak RSS ${mb(peak)} (target < 300 MB)`);
  } catch (err) {
    console.error(`(2) failed: ${String(err)}\n${lines.slice(-10).join('\n')}`);
  } finally {
    stopping = true;
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await agentDb.end();
  }
  return current;
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'bench-agents-'));
  let url = process.env.DATABASE_URL;
  let stopDb = async () => {};
  if (!url) {
    const embedded = await startEmbeddedPostgres(await mkdtemp(join(tmpdir(), 'bench-agents-pg-')), 0, quiet);
    url = embedded.url;
    stopDb = () => embedded.stop();
  }
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS bench_agents_upstream WITH (FORCE)');
  await admin.query('DROP DATABASE IF EXISTS bench_agent WITH (FORCE)');
  await admin.query('CREATE DATABASE bench_agents_upstream');
  await admin.end();
  const u = new URL(url);
  u.pathname = '/bench_agents_upstream';
  process.env.BENCH_DB_URL = u.toString();
  const db = new pg.Pool({ connectionString: u.toString(), max: 4 });
  let c: Console | undefined;
  try {
    await migrate(db);
    c = await startConsole(u.toString(), dir);
    console.log(`bench:agents — Node ${process.version}, ${cpus().length} CPUs (load average ${loadavg()[0].toFixed(1)} at start: other work on the machine inflates every figure), BENCH_SCALE=${SCALE}`);
    if (process.env.BENCH_SKIP_SIMULATED !== '1') await simulated(c, db);
    if (process.env.BENCH_SKIP_AGENT !== '1') c = await realAgent(c, db, url, dir);
  } finally {
    await c?.app.close();
    await db.end();
    const a = new pg.Client({ connectionString: url });
    await a.connect();
    await a.query('DROP DATABASE IF EXISTS bench_agent WITH (FORCE)');
    await a.query('DROP DATABASE IF EXISTS bench_agents_upstream WITH (FORCE)');
    await a.end();
    await stopDb();
    await rm(dir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
