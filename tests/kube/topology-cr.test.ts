import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kindByKind } from '../../server/modules/kubernetes/kinds.js';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { grantConsoleWriters, kubectl } from '../support/kube-tools.js';
import { retryOnConflict, until } from '../support/poll.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from '../server/helpers.js';

/**
 * Topology CRs end to end: applied with kubectl, the CR becomes a topologies row the scheduler runs at once (its
 * components saved, one TopologyRun job), the run written back on the CR's status (root health, persistentID,
 * observedGeneration, lastRuntime); a console edit with a stale resourceVersion is 409; a GitOps-owned CR is
 * read-only (403 "Linked to …"); a spec the console refuses is Invalid on the status, naming the path.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const TOPOLOGY = kindByKind('Topology')!;

let kube: KubeApi;
let t: TestContext;
let dir: string;
let kubeconfig: string;
let editor: Record<string, string>;

interface TopologyStatus { status?: string; persistentID?: string; observedGeneration?: number; lastRuntime?: string; errorMessage?: string; message?: string }
const cr = (name: string) => kube.get(TOPOLOGY.group, TOPOLOGY.version, TOPOLOGY.plural, 'default', name);
const statusOf = (name: string) => cr(name)?.status as TopologyStatus | undefined;
const row = async (name: string) =>
  (await t.db.query(`SELECT * FROM topologies WHERE name = $1 AND source = 'KubernetesCRD' AND deleted_at IS NULL`, [name])).rows[0];
const patch = (id: string, payload: unknown) =>
  t.app.inject({ method: 'PATCH', url: `/api/db/topologies?id=eq.${id}`, headers: editor, payload: payload as never });

beforeAll(async () => {
  kube = await startKubeApi({ crdsDir: join(root, 'crds') });
  dir = mkdtempSync(join(tmpdir(), 'topology-crs-'));
  kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
  t = await createTestApp({ KUBECONFIG: kubeconfig, POD_NAME: 'console-topology-crs', POD_NAMESPACE: 'default' });
  editor = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['editor'] })).id);
  grantConsoleWriters(kube, TOPOLOGY.group);
}, 60_000);

afterAll(async () => {
  await t?.close();
  await kube?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('a Topology applied with kubectl runs at once; its components are saved and the run is on its status', async () => {
  const r = await kubectl(kubeconfig, ['apply', '-f', '-'], {
    input: `
apiVersion: canaries.flanksource.com/v1
kind: Topology
metadata: { name: shop, namespace: default }
spec:
  type: App
  schedule: "@every 1h"
  components:
    - name: api
      type: Service
      health: healthy
      components:
        - name: db
          type: Database
          health: healthy
`,
  });
  expect(r.code, r.stderr).toBe(0);
  const topology = await until(() => row('shop'), 'the CR reconciled into topologies');
  const job = await until(async () => (await t.db.query(
    `SELECT status, details FROM job_history WHERE resource_type = 'topology' AND resource_id = $1 AND status <> 'RUNNING'`,
    [topology.id])).rows[0], 'the topology run', 60_000);
  expect(job.status, JSON.stringify(job.details)).toBe('SUCCESS');
  const { rows } = await t.db.query(`SELECT name, type FROM components WHERE topology_id = $1 AND deleted_at IS NULL ORDER BY name`, [topology.id]);
  expect(rows).toEqual([{ name: 'api', type: 'Service' }, { name: 'db', type: 'Database' }, { name: 'shop', type: 'App' }]);
  const status = await until(async () => (statusOf('shop')?.lastRuntime ? statusOf('shop') : undefined), 'the run on the CR status');
  expect(status).toMatchObject({ status: 'healthy', persistentID: topology.id, observedGeneration: 1 });
  expect(status.errorMessage ?? null).toBeNull();
}, 90_000);

it('a console edit with a stale resourceVersion is 409; a current one patches the CR and runs again', async () => {
  const topology = await row('shop');
  await until(async () => statusOf('shop')?.lastRuntime, 'the run written on the CR status');
  const stale = await patch(topology.id, { spec: { schedule: '@every 2h', components: [{ name: 'api' }] }, resource_version: '1' });
  expect(stale.statusCode, stale.body).toBe(409);
  const spec = { type: 'App', schedule: '@every 2h', components: [{ name: 'api', type: 'Service', health: 'unhealthy' }] };
  const res = await retryOnConflict(() => patch(topology.id, { spec, resource_version: cr('shop')!.metadata!.resourceVersion }));
  expect(res.statusCode, res.body).toBeLessThan(300);
  expect(cr('shop')!.spec).toMatchObject(spec);
  // the changed spec runs at once: db is gone, the root is unhealthy, generation 2 on the status
  await until(async () => (statusOf('shop')?.observedGeneration === 2 && statusOf('shop')?.status === 'unhealthy') || undefined, 'the new run on the status', 60_000);
  const db = await t.db.query(`SELECT deleted_at FROM components WHERE topology_id = $1 AND name = 'db'`, [topology.id]);
  expect(db.rows[0].deleted_at).not.toBeNull();
}, 90_000);

it('a GitOps-owned Topology is read-only in the console: 403 naming its source', async () => {
  const flux = kube.apply({
    apiVersion: `${TOPOLOGY.group}/${TOPOLOGY.version}`, kind: 'Topology',
    metadata: {
      name: 'from-git', namespace: 'default',
      labels: { 'kustomize.toolkit.fluxcd.io/name': 'apps', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' },
    },
    spec: { schedule: '@never', components: [{ name: 'a' }] },
  });
  const topology = await until(() => row('from-git'), 'the flux Topology reconciled');
  await until(async () => (await t.db.query('SELECT managed_by FROM kubernetes_objects WHERE uid = $1', [flux.metadata!.uid])).rows[0]?.managed_by, 'its GitOps owner');
  // the leader writes the CR's status once it is reconciled: take the version after that, so only a console write
  // could move it
  await until(async () => Object.keys((cr('from-git')?.status as object | undefined) ?? {}).length || undefined, 'its status');
  const version = cr('from-git')!.metadata!.resourceVersion;
  const res = await patch(topology.id, { spec: { schedule: '@every 5m', components: [{ name: 'a' }] } });
  expect(res.statusCode).toBe(403);
  expect(res.json().message).toMatch(/^Linked to Flux kustomization flux-system\/apps/);
  expect(cr('from-git')!.metadata!.resourceVersion).toBe(version);
});

it('a spec the console refuses is Invalid on the status, naming the path', async () => {
  kube.apply({
    apiVersion: `${TOPOLOGY.group}/${TOPOLOGY.version}`, kind: 'Topology', metadata: { name: 'broken', namespace: 'default' },
    spec: { schedule: '@never', components: [{ name: 'a', healthExpr: 'summary.healthy >' }] },
  });
  const status = await until(async () => (statusOf('broken')?.status === 'Invalid' ? statusOf('broken') : undefined), 'Invalid on the status');
  expect(status.errorMessage).toContain('spec.components.0.healthExpr: invalid CEL');
});
