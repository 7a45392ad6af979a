/**
 * Support for the agent tests (agent-mode, agent-faults): a second database for an agent process, the agent as a real
 * child (`tsx server/main.ts`, MODE=agent), and a loopback HTTP proxy in front of the upstream that can stop
 * listening (upstream down) or cut the answer of a request it forwarded (a committed push whose answer is lost).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { inject } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A fresh database cloned from the migrated template (as createTestApp makes), with its drop. */
export async function createDatabase(): Promise<{ url: string; pool: pg.Pool; drop(): Promise<void> }> {
  const adminUrl = inject('adminUrl');
  const name = `a_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE console_test_template`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: u.toString(), max: 3 });
  pool.on('error', () => {});
  return {
    url: u.toString(), pool,
    async drop() {
      await pool.end();
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

export interface AgentProcess {
  child: ChildProcess;
  /** Every line the agent printed (stdout and stderr), pino JSON lines included. */
  lines: string[];
  /** `http://127.0.0.1:<port>` once it listens. */
  url: string;
  stop(): Promise<void>;
}

/** Starts `server/main.ts` in MODE=agent with `env` (DATABASE_URL, UPSTREAM_URL, AGENT_TOKEN …); resolves once it listens. */
export async function startAgent(env: Record<string, string>): Promise<AgentProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env, MODE: 'agent', PORT: '0', HOST: '127.0.0.1', DEMO_DATA: 'false', LOG_LEVEL: 'info', ADMIN_PASSWORD: 'agent-admin-password',
      AGENT_PUSH_INTERVAL_MS: '200', AGENT_PING_INTERVAL_MS: '500', AGENT_PULL_INTERVAL_MS: '500', AGENT_BACKOFF_MAX_MS: '1000',
      KUBERNETES: 'off', ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let url = '';
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      for (const line of d.toString('utf8').split('\n')) {
        if (!line) continue;
        lines.push(line);
        const m = /ready at http:\/\/[^:]+:(\d+)/.exec(line);
        if (m) {
          url = `http://127.0.0.1:${m[1]}`;
          resolve();
        }
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`agent exited (${code}) before listening:\n${lines.slice(-20).join('\n')}`)));
  });
  await ready;
  return {
    child, lines, get url() {
      return url;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export type ProxyMode = 'pass' | 'cut';

export interface UpstreamProxy {
  url: string;
  /** 'cut': forward the request, let the upstream answer, then destroy the agent's connection unanswered. */
  mode: ProxyMode;
  /** Push bodies forwarded (parsed), in order. */
  pushes: Array<Record<string, unknown[]>>;
  /** Requests cut after the upstream answered. */
  cuts: number;
  /** The bodies of the pushes whose answer was cut. */
  cutPushes: Array<Record<string, unknown[]>>;
  /** Stops listening (connections refused) until up(). */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

/** A loopback proxy to `target` on a fixed port, so it can stop and start listening again. */
export async function startProxy(target: string): Promise<UpstreamProxy> {
  const sockets = new Set<Socket>();
  const p: UpstreamProxy = {
    url: '', mode: 'pass', pushes: [], cuts: 0, cutPushes: [],
    down: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
    up: () => new Promise<void>((r) => server.listen(port, '127.0.0.1', r)),
    close: async () => {
      for (const s of sockets) s.destroy();
      if (server.listening) await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'POST' && req.url?.startsWith('/api/upstream/push')) {
        try {
          p.pushes.push(JSON.parse(body.toString('utf8')));
        } catch {
          // not JSON: the upstream says so
        }
      }
      const cut = p.mode === 'cut' && req.method === 'POST' && req.url?.startsWith('/api/upstream/push');
      try {
        const headers = { ...req.headers } as Record<string, string>;
        delete headers.host;
        delete headers['content-length'];
        const answer = await fetch(`${target}${req.url}`, { method: req.method, headers, body: body.length ? body : undefined });
        const text = Buffer.from(await answer.arrayBuffer());
        if (cut) {
          p.cuts++;
          p.cutPushes.push(p.pushes[p.pushes.length - 1]);
          req.socket.destroy();
          return;
        }
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(text);
      } catch {
        res.writeHead(502).end();
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  p.url = `http://127.0.0.1:${port}`;
  return p;
}
