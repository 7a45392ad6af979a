import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from '../server/helpers.js';
import { until } from '../support/poll.js';

/** The check-runner mode watches Canary CRs only, and runs them through its health runner. */
const root = fileURLToPath(new URL('../..', import.meta.url));

let kube: KubeApi;
let t: TestContext;
let dir: string;

beforeAll(async () => {
  kube = await startKubeApi({ crdsDir: join(root, 'crds') });
  dir = mkdtempSync(join(tmpdir(), 'kube-modes-'));
  const kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
  t = await createTestApp({ KUBECONFIG: kubeconfig, POD_NAME: 'check-runner', MODE: 'check-runner' });
});

afterAll(async () => {
  await t?.close();
  await kube?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('check-runner: Canary CRs are reconciled and run; other kinds are not watched', async () => {
  const playbook = kube.apply({
    apiVersion: 'mission-control.flanksource.com/v1', kind: 'Playbook', metadata: { name: 'ignored', namespace: 'default' },
    spec: { title: 'ignored', actions: [{ name: 'noop', exec: { script: 'true' } }] },
  });
  const canary = kube.apply({
    apiVersion: 'canaries.flanksource.com/v1', kind: 'Canary', metadata: { name: 'runner', namespace: 'default' },
    spec: { schedule: '@every 1s', tcp: [{ name: 'closed', endpoint: '127.0.0.1:1' }] },
  });
  await until(async () => (await t.db.query('SELECT 1 FROM canaries WHERE id = $1', [canary.metadata.uid])).rowCount, 'the canary row');
  await until(async () =>
    (await t.db.query('SELECT 1 FROM job_history WHERE resource_id = $1', [canary.metadata.uid])).rowCount, 'a run of the CR canary');
  const { rows } = await t.db.query('SELECT kind FROM kubernetes_objects ORDER BY kind');
  expect(rows).toEqual([{ kind: 'Canary' }]);
  expect((await t.db.query('SELECT 1 FROM playbooks WHERE id = $1', [playbook.metadata.uid])).rowCount).toBe(0);
  // the Kubernetes status endpoint belongs to the console's settings, absent here like every non-health route
  const admin = await makePerson(t.db, { roles: ['admin'] });
  const res = await t.app.inject({ method: 'GET', url: '/api/kubernetes/status', headers: await sessionHeaders(t.db, admin.id) });
  expect(res.statusCode).toBe(404);
});
