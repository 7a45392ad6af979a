/**
 * What the HTTP benches share: a load generator in a child process (so it does not share the server's event loop):
 * autocannon flat out, an evenly paced open-loop sender for a given rate; latency percentiles, and an admin access
 * token to call the API with.
 *
 * A bench script forks itself with `--load`; its entry must then call `loadGenerator()` instead of `main()`.
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import autocannon from 'autocannon';
import type pg from 'pg';

export interface LoadSpec {
  url: string;
  headers: Record<string, string>;
  paths: string[];
  connections: number;
  duration: number;
  /** Requests per second, evenly spaced, on at most `connections` connections; absent: as fast as answers come. */
  rate?: number;
  /** With `rate`: seconds sent at the rate before `duration` starts, not counted (default 0). */
  warmUp?: number;
}

export interface Figures {
  requests: number;
  failures: number;
  seconds: number;
  latencies: number[];
}

/**
 * Child process: GETs of the given paths (picked at random), every latency reported: flat out with autocannon, or at
 * `rate` with `paced()`.
 */
export async function loadGenerator() {
  const spec = await new Promise<LoadSpec>((ok) => process.once('message', (m) => ok(m as LoadSpec)));
  const pick = () => spec.paths[Math.floor(Math.random() * spec.paths.length)];
  if (spec.rate) {
    const figures = await paced(spec, pick);
    process.send!(figures, () => process.exit(0));
    return;
  }
  const latencies: number[] = [];
  const instance = autocannon({
    url: spec.url, connections: spec.connections, duration: spec.duration, headers: spec.headers,
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: pick() }) }],
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => latencies.push(ms));
  const r = await instance;
  const figures: Figures = { requests: r.requests.total, failures: r.errors + r.timeouts + r.non2xx, seconds: r.duration, latencies };
  process.send!(figures, () => process.exit(0));
}

/**
 * An open-loop load at `spec.rate` requests a second, evenly spaced (request i is due at start + i / rate), over a
 * keep-alive pool of at most `spec.connections` sockets; each latency counts from the request's due time, so waiting
 * for a free socket or a late timer counts against the server (no coordinated omission). Why not autocannon's rate
 * options: they reset a per-connection quota every second, so each connection sends its whole second's quota back to
 * back at the start of the second and then idles, a burst every second rather than the steady rate.
 */
async function paced(spec: LoadSpec, pick: () => string): Promise<Figures> {
  const url = new URL(spec.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: spec.connections });
  const latencies: number[] = [];
  const interval = 1000 / spec.rate!;
  let sent = 0;
  let done = 0;
  let failures = 0;
  const start = performance.now();
  const measureFrom = start + (spec.warmUp ?? 0) * 1000;
  const end = measureFrom + spec.duration * 1000;
  let counted = 0;
  await new Promise<void>((finished) => {
    let stopped = false;
    const settle = (due: number, ok: boolean) => {
      done++;
      if (due >= measureFrom) {
        counted++;
        if (ok) latencies.push(performance.now() - due);
        else failures++;
      }
      if (stopped && done === sent) finished();
    };
    const tick = () => {
      const now = Math.min(performance.now(), end);
      for (let due = start + sent * interval; due <= now; due = start + sent * interval) {
        sent++;
        const req = http.request({ agent, host: url.hostname, port: url.port, path: pick(), headers: spec.headers }, (res) => {
          res.resume();
          res.once('end', () => settle(due, res.statusCode! >= 200 && res.statusCode! < 300));
        });
        req.once('error', () => settle(due, false));
        req.end();
      }
      if (performance.now() < end) setTimeout(tick, Math.max(0, start + sent * interval - performance.now()));
      else {
        stopped = true;
        if (done === sent) finished();
      }
    };
    tick();
  });
  agent.destroy();
  return { requests: counted, failures, seconds: spec.duration, latencies };
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
  // imported here, not at the top: the forked load generators import this file and need none of the server's modules
  const { insertAccessToken } = await import('../../server/modules/auth/tokens.js');
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
