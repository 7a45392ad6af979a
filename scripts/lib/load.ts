/**
 * What the HTTP benches share: an autocannon load generator in a child process (so it does not share the server's
 * event loop), latency percentiles, and an admin access token to call the API with.
 *
 * A bench script forks itself with `--load`; its entry must then call `loadGenerator()` instead of `main()`.
 */
import { fork } from 'node:child_process';
import autocannon from 'autocannon';
import type pg from 'pg';
import { insertAccessToken } from '../../server/modules/auth/tokens.js';

export interface LoadSpec {
  url: string;
  headers: Record<string, string>;
  paths: string[];
  connections: number;
  duration: number;
  /** Requests per second over all connections (autocannon's overallRate); absent: as fast as answers come. */
  rate?: number;
}

export interface Figures {
  requests: number;
  failures: number;
  seconds: number;
  latencies: number[];
}

/** Child process: runs autocannon over the given paths (picked at random) and reports every latency. */
export async function loadGenerator() {
  const spec = await new Promise<LoadSpec>((ok) => process.once('message', (m) => ok(m as LoadSpec)));
  const latencies: number[] = [];
  const pick = () => spec.paths[Math.floor(Math.random() * spec.paths.length)];
  const instance = autocannon({
    url: spec.url, connections: spec.connections, duration: spec.duration, headers: spec.headers,
    ...(spec.rate && { overallRate: spec.rate }),
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: pick() }) }],
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => latencies.push(ms));
  const r = await instance;
  const figures: Figures = { requests: r.requests.total, failures: r.errors + r.timeouts + r.non2xx, seconds: r.duration, latencies };
  process.send!(figures, () => process.exit(0));
}

/** Runs one load in a forked copy of the calling script (started with `--load`). */
export function overHttp(spec: LoadSpec): Promise<Figures> {
  const child = fork(process.argv[1], ['--load'], { stdio: 'inherit' });
  const result = new Promise<Figures>((ok, fail) => {
    child.once('message', (m) => ok(m as Figures));
    child.once('exit', (code) => fail(new Error(`load generator exited with ${code}`)));
  });
  child.send(spec);
  return result;
}

export function percentile(sorted: number[], p: number) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] : NaN;
}

export function summarise(f: Figures) {
  const s = [...f.latencies].sort((a, b) => a - b);
  return { n: f.requests, rps: f.requests / f.seconds, p50: percentile(s, 0.5), p95: percentile(s, 0.95), p99: percentile(s, 0.99), failures: f.failures };
}

export const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

/** An admin identity and an access token for it (the benches call the API as admin). */
export async function adminToken(db: pg.Pool): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO identities (traits) VALUES ($1) RETURNING id', [{ email: 'bench-admin@example.test', name: { first: 'Bench', last: 'Admin' } }],
  );
  await db.query("INSERT INTO person_roles (person_id, role) VALUES ($1, 'admin')", [rows[0].id]);
  return (await insertAccessToken(db, { personId: rows[0].id, name: 'bench', createdBy: rows[0].id, expiresAt: null, autoRenew: false })).token;
}

/**
 * The database a bench runs on: DATABASE_URL when given (an existing server, left as it is), else a fresh embedded
 * PostgreSQL in a temporary directory that `close()` stops and removes.
 */
export async function benchDatabase(prefix: string): Promise<{ url: string; close(): Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, close: async () => {} };
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { startEmbeddedPostgres } = await import('../../server/db/embedded.js');
  const dir = await mkdtemp(join(tmpdir(), `${prefix}-`));
  const embedded = await startEmbeddedPostgres(dir, 0, { info() {}, warn() {}, debug() {} });
  return {
    url: embedded.url,
    async close() {
      await embedded.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
