import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../server/db/embedded.js';

// The real server as a child process, its data in a temp DATA_DIR, through restarts, kills and orphaned databases.
// Skipped in CI's second pass (DATABASE_URL set): it is about the embedded database, which that pass does not use.

const ADMIN_PASSWORD = `admin-${Math.random().toString(36).slice(2)}-pw`;
const SECRETS = { bearer: 'bearer-secret-4f1d2c', cookie: 'cookie-secret-9a8b7c', password: 'body-secret-3e2d1f' };

interface Server {
  child: ChildProcess;
  exit: Promise<number | null>;
}

let dataDir: string;
let pgdata: string;
let port: number;
let output = '';
/** Servers in the order the steps use them; `spawned` holds every child, for cleanup. */
const servers: Server[] = [];
const spawned: Server[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}\n--- server output ---\n${output.slice(-3000)}`);
}

function startServer(httpPort = port): Server {
  const env: NodeJS.ProcessEnv = {
    ...process.env, PORT: String(httpPort), HOST: '127.0.0.1', DATA_DIR: dataDir, DEMO_DATA: 'false',
    ADMIN_PASSWORD, LOG_LEVEL: 'info', MODE: 'console', // vitest sets MODE=test
  };
  delete env.DATABASE_URL;
  delete env.EMBEDDED_PG_PORT;
  // Own process group, so "kill the whole group" means what it does for an operator.
  const child = spawn('node_modules/.bin/tsx', ['server/main.ts'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (b) => (output += b));
  child.stderr!.on('data', (b) => (output += b));
  const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const s = { child, exit };
  servers.push(s);
  spawned.push(s);
  return s;
}

async function ready() {
  const s = servers.at(-1)!;
  return until('/readyz', 25_000, async () => {
    if (s.child.exitCode !== null) throw new Error(`server exited with ${s.child.exitCode}:\n${output.slice(-3000)}`);
    const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null);
    return res?.status === 200 ? true : undefined;
  });
}

/** Every live process whose command is postgres and whose working directory is our cluster. */
function postgresOfDataDir(): number[] {
  const dir = realpathSync(pgdata);
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres' && readlinkSync(`/proc/${entry}/cwd`) === dir) {
        pids.push(Number(entry));
      }
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

function postmasterPid(): number {
  return Number(readFileSync(join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

function alive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function withDb<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const password = (await readFile(join(dataDir, 'pg-password'), 'utf8')).trim();
  const pgPort = Number((await readFile(join(dataDir, 'pg-port'), 'utf8')).trim());
  const c = new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'postgres', password, database: 'console' });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const rows = () => withDb(async (c) => (await c.query('SELECT n FROM lifecycle_probe ORDER BY n')).rows.map((r) => r.n));
const insert = (n: number) => withDb((c) => c.query('INSERT INTO lifecycle_probe (n) VALUES ($1)', [n]));

async function sigterm(s: Server) {
  process.kill(s.child.pid!, 'SIGTERM');
  return Promise.race([s.exit, sleep(20_000).then(() => 'timeout')]);
}

describe.skipIf(!!process.env.DATABASE_URL)('embedded PostgreSQL lifecycle (real server process)', () => {
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'console-lifecycle-'));
    pgdata = join(dataDir, 'pg');
    port = await freePort();
  });

  afterAll(async () => {
    for (const s of spawned) {
      if (s.child.exitCode === null && s.child.signalCode === null) {
        try { process.kill(-s.child.pid!, 'SIGKILL'); } catch { /* gone */ }
      }
    }
    if (pgdata && existsSync(pgdata)) for (const pid of postgresOfDataDir()) process.kill(pid, 'SIGKILL');
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('first start initialises the cluster and serves /readyz', async () => {
    startServer();
    await ready();
    await withDb((c) => c.query('CREATE TABLE lifecycle_probe (n int PRIMARY KEY)'));
    await insert(1);
    // Requests carrying secrets, for the log check at the end.
    await fetch(`http://127.0.0.1:${port}/api/about`, {
      headers: { authorization: `Bearer ${SECRETS.bearer}`, cookie: `session=${SECRETS.cookie}` },
    });
    await fetch(`http://127.0.0.1:${port}/api/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin@localhost', password: SECRETS.password }),
    });
    expect(await rows()).toEqual([1]);
  });

  it('refuses a second server on the same DATA_DIR and leaves the running one alone', async () => {
    const second = startServer(await freePort());
    servers.pop(); // later steps act on the first server
    expect(await Promise.race([second.exit, sleep(20_000).then(() => 'timeout')])).toBe(1);
    expect(output).toMatch(/is in use by a running server/);
    await ready();
    expect(await rows()).toEqual([1]);
  });

  it('SIGTERM exits 0, stops the database it started, and a restart keeps the data and the port', async () => {
    const pgPortBefore = readFileSync(join(dataDir, 'pg-port'), 'utf8');
    expect(await sigterm(servers[0])).toBe(0);
    expect(postgresOfDataDir()).toEqual([]);
    expect(existsSync(join(pgdata, 'postmaster.pid'))).toBe(false);

    startServer();
    await ready();
    expect(readFileSync(join(dataDir, 'pg-port'), 'utf8')).toBe(pgPortBefore);
    expect(await rows()).toEqual([1]);
    await insert(2);
  });

  it('recovers after kill -9 of the server and its database', async () => {
    const s = servers.at(-1)!;
    const pm = postmasterPid();
    process.kill(-s.child.pid!, 'SIGKILL');
    process.kill(pm, 'SIGKILL');
    await s.exit;
    await until('the killed postmaster and its backends to exit', 10_000, () => postgresOfDataDir().length === 0);
    expect(existsSync(join(pgdata, 'postmaster.pid'))).toBe(true); // left behind, as after a power cut

    startServer();
    await ready();
    expect(await rows()).toEqual([1, 2]);
    expect(readFileSync(join(dataDir, 'postgres.log'), 'utf8')).toMatch(/not properly shut down; automatic recovery/);
    await insert(3);
  });

  it('takes care of a database left running when the server process alone was killed', async () => {
    const s = servers.at(-1)!;
    const pm = postmasterPid();
    const server = Number(readFileSync(`/proc/${pm}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
    process.kill(server, 'SIGKILL'); // the node process running main.ts, not its tsx wrapper
    await Promise.race([s.exit, sleep(10_000)]);
    expect(alive(pm)).toBe(true); // the orphan really survives its server

    startServer();
    await ready();
    expect(alive(pm)).toBe(false);
    expect(postgresOfDataDir()).toContain(postmasterPid());
    expect(await rows()).toEqual([1, 2, 3]);
    expect(output).toMatch(/outlived its server; stopping it cleanly/);
  });

  it('a final SIGTERM leaves no PostgreSQL of the data directory running', async () => {
    expect(await sigterm(servers.at(-1)!)).toBe(0);
    expect(postgresOfDataDir()).toEqual([]);
  });

  it('never wrote a secret to its output', async () => {
    const pgPassword = (await readFile(join(dataDir, 'pg-password'), 'utf8')).trim();
    expect(output).toMatch(/Console ready at http:\/\/localhost:\d+/);
    expect(output).toMatch(/"reqId"/);
    for (const secret of [ADMIN_PASSWORD, pgPassword, ...Object.values(SECRETS)]) expect(output).not.toContain(secret);
  });
});
