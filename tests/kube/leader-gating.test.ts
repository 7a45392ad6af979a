import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from '../server/helpers.js';
import { until } from '../support/poll.js';

/**
 * What a follower does not do: while another replica holds the Lease, the console serves HTTP (a canary can be
 * created) but its health scheduler runs nothing and its informers write nothing; once the Lease is free it leads,
 * and both start.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const LEASE = 'ops-console-leader';

let kube: KubeApi;
let t: TestContext;
let dir: string;
let headers: Record<string, string>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  kube = await startKubeApi({ crdsDir: join(root, 'crds') });
  // another replica holds the Lease, renewed "now" for an hour
  const now = new Date().toISOString().replace('Z', '000Z');
  kube.apply({
    apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: LEASE, namespace: 'default' },
    spec: { holderIdentity: 'another-replica', leaseDurationSeconds: 3600, acquireTime: now, renewTime: now, leaseTransitions: 0 },
  });
  dir = mkdtempSync(join(tmpdir(), 'kube-gating-'));
  const kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
  t = await createTestApp({ KUBECONFIG: kubeconfig, POD_NAME: 'console-follower', POD_NAMESPACE: 'default', LEADER_LEASE_NAME: LEASE });
  const admin = await makePerson(t.db, { roles: ['admin'] });
  headers = await sessionHeaders(t.db, admin.id);
});

afterAll(async () => {
  await t?.close();
  await kube?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('a follower schedules no checks and writes no CRs; it starts both when it gains the Lease', async () => {
  const status = async () => (await t.app.inject({ method: 'GET', url: '/api/kubernetes/status', headers })).json();
  await until(async () => {
    const s = await status();
    return s.leader?.holder === 'another-replica' && s.kinds.every((k: { watching: boolean }) => k.watching);
  }, 'the informers watching as a follower');
  expect(t.app.leadership.isLeader()).toBe(false);

  // HTTP still works on a follower: a console canary is created (the API writes; only the schedule waits for the lead)
  const created = await t.app.inject({
    method: 'POST', url: '/api/canary', headers,
    payload: { name: 'every-second', spec: { schedule: '@every 1s', tcp: [{ name: 'closed', endpoint: '127.0.0.1:1' }] } },
  });
  expect(created.statusCode).toBe(201);
  const canaryId = created.json().id as string;
  const cr = kube.apply({
    apiVersion: 'canaries.flanksource.com/v1', kind: 'Canary', metadata: { name: 'from-cluster', namespace: 'default' },
    spec: { tcp: [{ name: 'port', endpoint: '127.0.0.1:1' }] },
  });
  const runs = async () => (await t.db.query('SELECT count(*)::int AS n FROM job_history WHERE resource_id = $1', [canaryId])).rows[0].n as number;
  const crRow = async () => (await t.db.query('SELECT id FROM canaries WHERE id = $1', [cr.metadata.uid])).rows[0];
  // several of the canary's periods and informer events go by: nothing runs, nothing is written
  await sleep(4_000);
  expect(await runs()).toBe(0);
  expect(await crRow()).toBeUndefined();

  // the other replica goes away without releasing; its Lease is removed, as an operator would: this one takes it
  kube.remove('coordination.k8s.io', 'v1', 'leases', 'default', LEASE);
  await until(async () => t.app.leadership.isLeader(), 'the lead');
  await until(async () => (await runs()) > 0, 'the canary to run on the leader');
  await until(crRow, 'the CR reconciled by the leader');
  expect((await status()).leader).toEqual({ identity: 'console-follower', isLeader: true, holder: 'console-follower' });
});
