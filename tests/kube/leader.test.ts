import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from '../server/helpers.js';

/**
 * Leader hand-over between two real console processes (`tsx server/main.ts`) sharing one database and one API server:
 * one holds the Lease and writes, the other serves HTTP and writes nothing; when the leader stops (SIGTERM: it releases
 * the Lease) or dies (SIGKILL: its Lease expires), the other takes over and writes from then on.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const LEASE = 'ops-console-leader';

interface Proc {
  name: string;
  port: number;
  child: ChildProcess;
  exit: Promise<unknown>;
  output: string;
}

let kube: KubeApi;
let t: TestContext;
let dir: string;
let kubeconfig: string;
let headers: Record<string, string>;
const procs: Proc[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, ms = 40_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) {
    const v = await probe();
    if (v) return v as T;
  }
  throw new Error(`timed out waiting for ${what}\n${procs.map((p) => `--- ${p.name} ---\n${p.output.slice(-2000)}`).join('\n')}`);
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function startConsole(name: string): Promise<Proc> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH, HOME: dir, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: t.config.DATABASE_URL,
    KUBECONFIG: kubeconfig, POD_NAME: name, POD_NAMESPACE: 'default', LEADER_LEASE_NAME: LEASE, DEMO_DATA: 'false',
    ADMIN_PASSWORD: 'leader-test-password', LOG_LEVEL: 'info', MODE: 'console',
  };
  // own process group, so cleanup can kill tsx and the node process under it together
  const child = spawn(join(root, 'node_modules/.bin/tsx'), ['server/main.ts'], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const p: Proc = { name, port, child, exit: new Promise((r) => child.once('exit', r)), output: '' };
  child.stdout!.on('data', (b) => (p.output += b));
  child.stderr!.on('data', (b) => (p.output += b));
  procs.push(p);
  await until(`${name} ready`, async () => {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${p.output.slice(-3000)}`);
    const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null);
    return res?.status === 200;
  });
  return p;
}

const holder = () => (kube.get('coordination.k8s.io', 'v1', 'leases', 'default', LEASE)?.spec as { holderIdentity?: string } | undefined)?.holderIdentity;

async function status(p: Proc) {
  const res = await fetch(`http://127.0.0.1:${p.port}/api/kubernetes/status`, { headers });
  expect(res.status).toBe(200);
  return res.json() as Promise<{ leader: { identity: string; isLeader: boolean; holder: string | null }; kinds: Array<{ watching: boolean }> }>;
}

/** Applies a Canary CR and returns who wrote its ledger row. */
async function writer(name: string, owner: string): Promise<string> {
  const cr = kube.apply({
    apiVersion: 'canaries.flanksource.com/v1', kind: 'Canary', metadata: { name, namespace: 'default' },
    spec: { owner, tcp: [{ name: 'port', endpoint: '127.0.0.1:1' }] },
  });
  // at this version or a later one: a new leader runs the canary at once and writes its status, which moves the CR
  // (and the row the leader records) past the applied version
  return until(`the ledger row of ${name} at ${cr.metadata.resourceVersion} or later`, async () => {
    const { rows } = await t.db.query('SELECT observed_by, resource_version FROM kubernetes_objects WHERE uid = $1', [cr.metadata.uid]);
    return rows[0] && Number(rows[0].resource_version) >= Number(cr.metadata.resourceVersion) ? rows[0].observed_by as string : undefined;
  });
}

beforeAll(async () => {
  kube = await startKubeApi({ crdsDir: join(root, 'crds') });
  dir = mkdtempSync(join(tmpdir(), 'kube-leader-'));
  kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
  // the shared database; this in-process app is inert (agent mode runs no scheduler, Kubernetes off)
  t = await createTestApp({ MODE: 'agent', KUBERNETES: 'off' });
  const admin = await makePerson(t.db, { roles: ['admin'] });
  headers = await sessionHeaders(t.db, admin.id);
}, 60_000);

afterAll(async () => {
  for (const p of procs) {
    if (p.child.exitCode === null && p.child.signalCode === null) {
      try {
        process.kill(-p.child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
      await Promise.race([p.exit, sleep(5_000)]);
    }
  }
  await t?.close();
  await kube?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('one of two console processes leads and writes; the other takes over when it stops or dies', async () => {
  const a = await startConsole('console-a');
  await until('console-a to hold the Lease', () => holder() === 'console-a');
  const b = await startConsole('console-b');
  // both serve HTTP; b follows (its informers run, it writes nothing)
  await until('console-b watching as a follower', async () => {
    const s = await status(b);
    return s.kinds.every((k) => k.watching) && s.leader.holder === 'console-a' ? s : undefined;
  });
  expect((await status(b)).leader).toEqual({ identity: 'console-b', isLeader: false, holder: 'console-a' });
  expect((await status(a)).leader).toEqual({ identity: 'console-a', isLeader: true, holder: 'console-a' });
  expect(await writer('leader-probe', 'v1')).toBe('console-a');
  expect(await writer('leader-probe', 'v2')).toBe('console-a');

  // a graceful stop releases the Lease: b leads at its next attempt
  let t0 = Date.now();
  process.kill(a.child.pid!, 'SIGTERM');
  await until('console-b to hold the Lease', () => holder() === 'console-b');
  console.log(`hand-over after SIGTERM: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await a.exit;
  expect(await writer('leader-probe', 'v3')).toBe('console-b');
  expect((await status(b)).leader.isLeader).toBe(true);

  // a crash leaves the Lease held until it expires (15 s after the last renewal): then a restarted a takes it
  const a2 = await startConsole('console-a');
  await until('console-a following again', async () => (await status(a2)).leader.holder === 'console-b');
  expect((await status(a2)).leader.isLeader).toBe(false);
  t0 = Date.now();
  process.kill(-b.child.pid!, 'SIGKILL');
  await until('console-a to take the expired Lease', () => holder() === 'console-a', 30_000);
  console.log(`hand-over after SIGKILL: ${((Date.now() - t0) / 1000).toFixed(1)} s (Lease 15 s, renewed every 5 s)`);
  expect(await writer('leader-probe', 'v4')).toBe('console-a');
}, 150_000);
