import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
 * Playbook CRs end to end with kubectl on the API test server: a valid one becomes a playbooks row (source
 * KubernetesCRD, title/category/description/icon from the spec) with a Ready True condition; an invalid one keeps its
 * last valid row and gets Ready False with the problems by path and observedGeneration; a console edit patches the CR
 * (409 when stale); a GitOps-owned one is read-only (403); a webhook path another playbook uses is reported, not stored.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const PLAYBOOK = kindByKind('Playbook')!;
const fixture = (name: string) => readFileSync(join(root, 'tests/fixtures/playbooks', name), 'utf8');

let kube: KubeApi;
let t: TestContext;
let dir: string;
let kubeconfig: string;
let editor: Record<string, string>;

interface Condition { type: string; status: string; reason?: string; message?: string; observedGeneration?: number }
interface PlaybookStatus { observedGeneration?: number; status?: string; persistedID?: string; conditions?: Condition[]; errorMessage?: string }
const cr = (name: string) => kube.get(PLAYBOOK.group, PLAYBOOK.version, PLAYBOOK.plural, 'default', name);
const statusOf = (name: string) => cr(name)?.status as PlaybookStatus | undefined;
const ready = (name: string) => statusOf(name)?.conditions?.find((c) => c.type === 'Ready');
const row = async (name: string) =>
  (await t.db.query(`SELECT * FROM playbooks WHERE name = $1 AND source = 'KubernetesCRD' AND deleted_at IS NULL`, [name])).rows[0];
const patch = (id: string, payload: unknown) =>
  t.app.inject({ method: 'PATCH', url: `/api/db/playbooks?id=eq.${id}`, headers: editor, payload: payload as never });
const apply = async (yaml: string) => {
  const r = await kubectl(kubeconfig, ['apply', '-f', '-'], { input: yaml });
  expect(r.code, r.stderr).toBe(0);
};

beforeAll(async () => {
  kube = await startKubeApi({ crdsDir: join(root, 'crds') });
  dir = mkdtempSync(join(tmpdir(), 'playbook-crs-'));
  kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
  t = await createTestApp({ KUBECONFIG: kubeconfig, POD_NAME: 'console-playbook-crs', POD_NAMESPACE: 'default' });
  editor = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['editor'] })).id);
  grantConsoleWriters(kube, PLAYBOOK.group);
}, 60_000);

afterAll(async () => {
  await t?.close();
  await kube?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('a valid Playbook applied with kubectl becomes a row, and its status says Ready', async () => {
  await apply(fixture('restart-deployment.yaml'));
  const pb = await until(() => row('restart-deployment'), 'the CR reconciled into playbooks');
  expect(pb).toMatchObject({ namespace: 'default', title: 'Restart deployment', category: 'Kubernetes', source: 'KubernetesCRD' });
  expect(pb.spec.actions.map((a: { name: string }) => a.name)).toEqual(['restart', 'report']);
  const cond = await until(async () => (ready('restart-deployment')?.status === 'True' ? ready('restart-deployment') : undefined), 'Ready True');
  expect(cond).toMatchObject({ reason: 'Reconciled', observedGeneration: 1 });
  expect(statusOf('restart-deployment')).toMatchObject({ observedGeneration: 1, status: 'Ready', persistedID: pb.id });
}, 60_000);

it('an invalid edit keeps the last valid row and reports Ready False with the problems by path', async () => {
  const before = await row('restart-deployment');
  await apply(fixture('restart-deployment.yaml')
    .replace('name: report', 'name: report\n      gitops:\n        repo: { url: "https://example.test/x.git" }')
    .replace('{{ .config.name }}', '{{ shout .config.name }}'));
  const cond = await until(async () => (ready('restart-deployment')?.status === 'False' ? ready('restart-deployment') : undefined), 'Ready False');
  expect(cond.reason).toBe('InvalidSpec');
  expect(cond.message).toContain('spec.actions[1].gitops: action type gitops is not supported by this console');
  expect(cond.message).toContain('spec.actions[0].exec.script');
  expect(cond.message).toMatch(/"shout" not defined/);
  expect(statusOf('restart-deployment')).toMatchObject({ observedGeneration: 2, status: 'Invalid' });
  const after = await row('restart-deployment');
  expect(after.spec).toEqual(before.spec);
  // fixed again: Ready True at generation 3
  await apply(fixture('restart-deployment.yaml').replace('Restart deployment', 'Restart a deployment'));
  await until(async () => (ready('restart-deployment')?.status === 'True' && statusOf('restart-deployment')?.observedGeneration === 3) || undefined, 'Ready again');
  expect((await row('restart-deployment')).title).toBe('Restart a deployment');
}, 60_000);

it('a console edit patches the CR; a stale resourceVersion is 409', async () => {
  const pb = await row('restart-deployment');
  const stale = await patch(pb.id, { title: 'Stale', resource_version: '1' });
  expect(stale.statusCode, stale.body).toBe(409);
  // the reference UI's PATCH body (id, source, title, spec, category, description, icon), with the CR's version
  const spec = { ...pb.spec, description: 'edited in the console' };
  const res = await retryOnConflict(() => patch(pb.id, {
    id: pb.id, source: 'KubernetesCRD', title: 'Edited', spec, category: 'Ops', description: 'edited in the console', icon: 'k8s',
    resource_version: cr('restart-deployment')!.metadata!.resourceVersion,
  }));
  expect(res.statusCode, res.body).toBeLessThan(300);
  expect(cr('restart-deployment')!.spec).toMatchObject({ title: 'Edited', category: 'Ops', description: 'edited in the console', icon: 'k8s' });
  await until(async () => ((await row('restart-deployment'))?.title === 'Edited') || undefined, 'the edit back in the row');
  // a bad spec through the console's CR path is refused by path and the CR is left alone
  const version = cr('restart-deployment')!.metadata!.resourceVersion;
  const bad = await patch(pb.id, { spec: { actions: [{ name: 'x', ai: {} }] }, resource_version: version });
  expect(bad.statusCode).toBe(400);
  expect(bad.json().details).toHaveProperty(['spec.actions[0].ai']);
  expect(cr('restart-deployment')!.metadata!.resourceVersion).toBe(version);
}, 60_000);

it('a GitOps-owned Playbook is read-only in the console: 403 naming its source', async () => {
  const flux = kube.apply({
    apiVersion: `${PLAYBOOK.group}/${PLAYBOOK.version}`, kind: 'Playbook',
    metadata: {
      name: 'from-git', namespace: 'default',
      labels: { 'kustomize.toolkit.fluxcd.io/name': 'apps', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' },
    },
    spec: { title: 'From git', actions: [{ name: 'hi', exec: { script: 'echo hi' } }] },
  });
  const pb = await until(() => row('from-git'), 'the flux Playbook reconciled');
  await until(async () => (await t.db.query('SELECT managed_by FROM kubernetes_objects WHERE uid = $1', [flux.metadata!.uid])).rows[0]?.managed_by, 'its GitOps owner');
  // the leader writes the CR's Ready status once: take the version after it, so only a console write could move it
  await until(async () => (cr('from-git')?.status as { conditions?: unknown[] } | undefined)?.conditions?.length || undefined, 'its Ready status');
  const version = cr('from-git')!.metadata!.resourceVersion;
  const res = await patch(pb.id, { title: 'Mine' });
  expect(res.statusCode).toBe(403);
  expect(res.json().message).toMatch(/^Linked to Flux kustomization flux-system\/apps/);
  expect(cr('from-git')!.metadata!.resourceVersion).toBe(version);
});

it('a webhook path another playbook holds is reported on the CR, and no row is made until it is free', async () => {
  const made = await t.app.inject({
    method: 'POST', url: '/api/db/playbooks', headers: editor,
    payload: { name: 'hook', title: 'hook', spec: { actions: [{ name: 'a', exec: { script: 'true' } }], on: { webhook: { path: 'shared-hook' } } } },
  });
  expect(made.statusCode, made.body).toBe(201);
  await apply(fixture('webhook.yaml'));
  const cond = await until(async () => (ready('webhook-deploy')?.status === 'False' ? ready('webhook-deploy') : undefined), 'Ready False');
  expect(cond.message).toMatch(/spec\.on\.webhook\.path: the webhook path shared-hook is already used by another playbook/);
  expect(await row('webhook-deploy')).toBeUndefined();
  // once the console's playbook is gone the CR takes the path; kubectl read `on:` as YAML 1.1's true, stored as `on`
  await t.app.inject({ method: 'DELETE', url: `/api/db/playbooks?id=eq.${(await t.db.query("SELECT id FROM playbooks WHERE name = 'hook'")).rows[0].id}`, headers: editor });
  await apply(fixture('webhook.yaml').replace('title: Deploy on push', 'title: Deploy on every push'));
  const pb = await until(() => row('webhook-deploy'), 'the CR reconciled once the path is free');
  expect(pb.spec.on).toEqual({ webhook: { path: 'shared-hook', authentication: { basic: { username: 'ci', password: 'not-a-real-secret' } } } });
  expect(pb.spec).not.toHaveProperty('true');
  await until(async () => (ready('webhook-deploy')?.status === 'True') || undefined, 'Ready True');
}, 90_000);
