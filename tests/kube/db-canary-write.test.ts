import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kindByKind } from '../../server/modules/kubernetes/kinds.js';
import { startKubeApi, type KubeApi, type KubeObject } from '../support/kube-api/index.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from '../server/helpers.js';
import { until } from '../support/poll.js';

/**
 * /api/db/canaries on canaries that come from Canary custom resources: the same edits as /api/canary (one code path
 * in the health service). A PATCH patches the CR as the caller's cluster identity, a stale resourceVersion is a 409, a
 * GitOps-managed CR is a 403 naming its source, and PATCH {deleted_at} deletes the CR (the row follows).
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const CANARY = kindByKind('Canary')!;

let kube: KubeApi;
let t: TestContext;
let dir: string;
let editor: Record<string, string>;

const cr = (ns: string, name: string) => kube.get(CANARY.group, CANARY.version, CANARY.plural, ns, name);
const rowOf = async (id: string) => (await t.db.query('SELECT * FROM canaries WHERE id = $1', [id])).rows[0];
const db = (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, extra: Record<string, string> = {}) =>
  t.app.inject({ method, url: `/api/db/${url}`, headers: { ...editor, ...extra }, payload: payload as never });

function applyCanary(name: string, namespace: string, spec: Record<string, unknown>, labels?: Record<string, string>): KubeObject {
  return kube.apply({ apiVersion: `${CANARY.group}/${CANARY.version}`, kind: 'Canary', metadata: { name, namespace, labels }, spec });
}

beforeAll(async () => {
  kube = await startKubeApi({ crdsDir: join(root, 'crds') });
  dir = mkdtempSync(join(tmpdir(), 'kube-db-canary-'));
  const kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
  t = await createTestApp({ KUBECONFIG: kubeconfig, POD_NAME: 'console-db-canary-test', POD_NAMESPACE: 'default' });
  editor = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['editor'] })).id);
  // console edits act as the caller's cluster identity (the writer for an editor), bound as the chart binds it
  kube.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'ops-console-writer' },
    rules: [{ apiGroups: [CANARY.group], resources: ['*'], verbs: ['*'] }],
  });
  kube.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'ops-console-writer' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'ops-console-writer' },
    subjects: [{ kind: 'Group', name: 'ops-console:writers', apiGroup: 'rbac.authorization.k8s.io' }],
  });
  kube.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
});

afterAll(async () => {
  await t?.close();
  await kube?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('/api/db/canaries on CR-sourced canaries', () => {
  it('PATCH ?id=eq. patches the CR as the caller; a stale resource_version is a 409', async () => {
    const made = applyCanary('db-edit', 'default', { schedule: '@every 10m', tcp: [{ name: 'port', endpoint: '127.0.0.1:1' }] });
    const id = made.metadata.uid!;
    await until(async () => (await rowOf(id))?.source === 'KubernetesCRD', 'the CR reconciled into its row');
    const seen = made.metadata.resourceVersion!;

    const spec = { schedule: '@every 10m', owner: 'sre', tcp: [{ name: 'port', endpoint: '127.0.0.1:1' }] };
    const res = await db('PATCH', `canaries?id=eq.${id}&select=id,source`, { spec, resource_version: seen }, { prefer: 'return=representation' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([{ id, source: 'KubernetesCRD' }]);
    expect(cr('default', 'db-edit')!.spec).toMatchObject({ owner: 'sre' });
    expect(kube.impersonations.filter((r) => r.method === 'PATCH' && r.path.endsWith('/canaries/db-edit')))
      .toEqual([expect.objectContaining({ user: 'ops-console-writer', groups: ['ops-console:writers'], status: 200 })]);
    await until(async () => (await rowOf(id))?.spec.owner === 'sre', 'the row updated by the informer');

    const stale = await db('PATCH', `canaries?id=eq.${id}`, { spec: { ...spec, owner: 'someone-else' }, resource_version: seen });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().message).toMatch(/changed in the cluster after you loaded it/);
    expect(cr('default', 'db-edit')!.spec).toMatchObject({ owner: 'sre' });

    const invalid = await db('PATCH', `canaries?id=eq.${id}`, { spec: { schedule: 'nope', tcp: [] } });
    expect(invalid.statusCode).toBe(400);
  });

  it('a status write between load and save is no conflict; a spec or label change made meanwhile in the cluster is', async () => {
    const made = applyCanary('db-status', 'default', { schedule: '@every 10m', tcp: [{ name: 'port', endpoint: '127.0.0.1:1' }] }, { team: 'a' });
    const id = made.metadata.uid!;
    await until(async () => (await rowOf(id))?.source === 'KubernetesCRD', 'the CR reconciled into its row');
    // at that version or later: the console's own status writes may follow any of these
    const ledgerAt = async (rv: string) =>
      Number((await t.db.query('SELECT resource_version FROM kubernetes_objects WHERE uid = $1', [id])).rows[0]?.resource_version) >= Number(rv);
    // a status write (as the console's leader makes them) moves resourceVersion, and the console has seen it
    const statusWrite = async (message: string) => {
      const rv = kube.apply({ ...cr('default', 'db-status')!, status: { message } }).metadata.resourceVersion!;
      await until(() => ledgerAt(rv), `the status write ${message} seen by the informer`);
      return rv;
    };

    const seen = cr('default', 'db-status')!.metadata.resourceVersion!;
    expect(await statusWrite('one')).not.toBe(seen);
    const spec = { schedule: '@every 10m', owner: 'sre', tcp: [{ name: 'port', endpoint: '127.0.0.1:1' }] };
    const res = await db('PATCH', `canaries?id=eq.${id}`, { spec, resource_version: seen });
    expect(res.statusCode, res.body).toBe(204);
    expect(cr('default', 'db-status')!.spec).toMatchObject({ owner: 'sre' });

    // loaded, then the spec changes in the cluster (followed by a status write): a conflict, the cluster's spec stays
    const loaded = cr('default', 'db-status')!;
    const kubectl = kube.apply({ ...loaded, spec: { ...(loaded.spec as object), schedule: '@every 3m' } }).metadata.resourceVersion!;
    await until(() => ledgerAt(kubectl), 'the spec change seen by the informer');
    await statusWrite('two');
    const specConflict = await db('PATCH', `canaries?id=eq.${id}`, { spec: { ...spec, owner: 'me' }, resource_version: loaded.metadata.resourceVersion });
    expect(specConflict.statusCode, specConflict.body).toBe(409);
    expect(cr('default', 'db-status')!.spec).toMatchObject({ owner: 'sre', schedule: '@every 3m' });

    // loaded, then a label changes in the cluster: a conflict too (an edit sets labels)
    const before = cr('default', 'db-status')!;
    const relabelled = kube.apply({ ...before, metadata: { ...before.metadata, labels: { team: 'b' } } }).metadata.resourceVersion!;
    await until(() => ledgerAt(relabelled), 'the label change seen by the informer');
    const labelConflict = await db('PATCH', `canaries?id=eq.${id}`, { labels: { team: 'c' }, resource_version: before.metadata.resourceVersion });
    expect(labelConflict.statusCode, labelConflict.body).toBe(409);
    expect(cr('default', 'db-status')!.metadata.labels).toEqual({ team: 'b' });
  });

  it('a GitOps-managed CR: 403 naming its source, and the CR is untouched', async () => {
    const manifest = parse(readFileSync(join(root, 'tests/fixtures/k8s/canary-flux.yaml'), 'utf8')) as KubeObject;
    const flux = kube.apply(manifest);
    const id = flux.metadata.uid!;
    await until(async () => (await rowOf(id))?.source === 'KubernetesCRD', 'the flux canary reconciled');
    await until(async () => (await t.db.query('SELECT managed_by FROM kubernetes_objects WHERE uid = $1', [id])).rows[0]?.managed_by, 'its GitOps owner');

    const patch = await db('PATCH', `canaries?id=eq.${id}`, { labels: { tier: 'gold' } });
    expect(patch.statusCode).toBe(403);
    expect(patch.json().message).toMatch(/^Linked to Flux kustomization flux-system\/apps/);
    const del = await db('PATCH', `canaries?id=eq.${id}`, { deleted_at: new Date().toISOString() });
    expect(del.statusCode).toBe(403);
    expect((await db('DELETE', `canaries?id=eq.${id}`)).statusCode).toBe(403);
    // untouched by the console's write path: no edit or delete was sent as anyone (the leader's own status writes
    // may still move its resourceVersion), and the labels are the manifest's
    expect(kube.impersonations.filter((r) => ['PATCH', 'PUT', 'DELETE'].includes(r.method) && r.path.endsWith('/canaries/gitops-flux'))).toEqual([]);
    expect(cr('apps', 'gitops-flux')!.metadata.labels?.tier).toBe(flux.metadata.labels?.tier);
    expect(cr('apps', 'gitops-flux')!.metadata.deletionTimestamp).toBeUndefined();
    expect((await rowOf(id)).deleted_at).toBeNull();
  });

  it('PATCH {deleted_at} deletes the CR as the caller, and the row is soft-deleted', async () => {
    const made = applyCanary('db-delete', 'default', { tcp: [{ name: 'port', endpoint: '127.0.0.1:1' }] });
    const id = made.metadata.uid!;
    await until(async () => (await rowOf(id))?.source === 'KubernetesCRD', 'the CR reconciled into its row');
    const res = await db('PATCH', `canaries?id=eq.${id}`, { deleted_at: new Date().toISOString() });
    expect(res.statusCode, res.body).toBe(204);
    expect(cr('default', 'db-delete')).toBeUndefined();
    expect(kube.impersonations.filter((r) => r.method === 'DELETE' && r.path.endsWith('/canaries/db-delete')))
      .toEqual([expect.objectContaining({ user: 'ops-console-writer', status: 200 })]);
    await until(async () => (await rowOf(id))?.deleted_at, 'the row soft-deleted');
  });

  it('POST makes a UI canary even with a cluster connected (the cluster is not written)', async () => {
    const before = kube.impersonations.length;
    const res = await db('POST', 'canaries?select=source', { name: 'ui-made', spec: { tcp: [{ name: 'p', endpoint: '127.0.0.1:1' }] } },
      { prefer: 'return=representation' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual([{ source: 'UI' }]);
    expect(cr('default', 'ui-made')).toBeUndefined();
    expect(kube.impersonations.length).toBe(before);
  });
});

describe('/api/db on other CR-sourced settings (Topology: the kinds registry writer)', () => {
  const TOPOLOGY = kindByKind('Topology')!;
  const topo = (name: string) => kube.get(TOPOLOGY.group, TOPOLOGY.version, TOPOLOGY.plural, 'default', name);

  it('PATCH patches the Topology CR as the caller (stale: 409, bad spec: 400); {deleted_at} deletes the CR', async () => {
    const made = kube.apply({
      apiVersion: `${TOPOLOGY.group}/${TOPOLOGY.version}`, kind: 'Topology', metadata: { name: 'db-topo', namespace: 'default' },
      spec: { schedule: '@every 10m', components: [{ name: 'api', type: 'service' }] },
    });
    const id = made.metadata.uid!;
    const rowOfTopo = async () => (await t.db.query('SELECT * FROM topologies WHERE id = $1', [id])).rows[0];
    await until(async () => (await rowOfTopo())?.source === 'KubernetesCRD', 'the Topology reconciled into its row');
    // the run after the apply writes the CR's status (a new resourceVersion): edit once the row has seen that write,
    // or the edit is (rightly) a 409 for a version the caller never loaded
    await until(async () => {
      const cr = topo('db-topo') as { metadata: { resourceVersion?: string }; status?: { lastRuntime?: string } } | undefined;
      const seen = (await t.db.query('SELECT resource_version FROM kubernetes_objects WHERE uid = $1', [id])).rows[0]?.resource_version;
      return !!cr?.status?.lastRuntime && seen === cr.metadata.resourceVersion;
    }, 'the first run\'s status written and seen by the informer');

    const res = await db('PATCH', `topologies?id=eq.${id}`, { schedule: '@every 1h', labels: { tier: 'gold' } });
    expect(res.statusCode, res.body).toBe(204);
    expect(topo('db-topo')).toMatchObject({ metadata: { labels: { tier: 'gold' } }, spec: { schedule: '@every 1h' } });
    expect(kube.impersonations.filter((r) => r.method === 'PATCH' && r.path.endsWith('/topologies/db-topo')))
      .toEqual([expect.objectContaining({ user: 'ops-console-writer', status: 200 })]);
    await until(async () => (await rowOfTopo())?.schedule === '@every 1h', 'the row updated by the informer');

    const stale = await db('PATCH', `topologies?id=eq.${id}`, { schedule: '@every 2h', resource_version: made.metadata.resourceVersion });
    expect(stale.statusCode).toBe(409);
    const bad = await db('PATCH', `topologies?id=eq.${id}`, { spec: { components: 'nope' } });
    expect(bad.statusCode).toBe(400);
    expect(topo('db-topo')!.spec).toMatchObject({ schedule: '@every 1h' });

    const del = await db('PATCH', `topologies?id=eq.${id}`, { deleted_at: new Date().toISOString() });
    expect(del.statusCode, del.body).toBe(204);
    expect(topo('db-topo')).toBeUndefined();
    await until(async () => (await rowOfTopo())?.deleted_at, 'the row soft-deleted');
  });
});
