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
 * ScrapeConfig CRs with a kubernetes block, end to end in the console: applied with kubectl, the CR becomes a
 * config_scrapers row that the scheduler runs (one job_history row, the cluster's items saved); a console edit through
 * /api/db/config_scrapers patches the CR as the caller; a GitOps-owned CR is read-only (403 naming its source).
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const SCRAPE = kindByKind('ScrapeConfig')!;

let kube: KubeApi;
let t: TestContext;
let dir: string;
let kubeconfig: string;
let editor: Record<string, string>;

const cr = (ns: string, name: string) => kube.get(SCRAPE.group, SCRAPE.version, SCRAPE.plural, ns, name);
const scraperRow = async (name: string) =>
  (await t.db.query(`SELECT * FROM config_scrapers WHERE name = $1 AND source = 'KubernetesCRD' AND deleted_at IS NULL`, [name])).rows[0];
const patch = (id: string, payload: unknown) =>
  t.app.inject({ method: 'PATCH', url: `/api/db/config_scrapers?id=eq.${id}`, headers: editor, payload: payload as never });

beforeAll(async () => {
  kube = await startKubeApi({ crdsDir: join(root, 'crds') });
  dir = mkdtempSync(join(tmpdir(), 'catalog-crs-'));
  kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
  t = await createTestApp({ KUBECONFIG: kubeconfig, POD_NAME: 'console-catalog-crs', POD_NAMESPACE: 'default' });
  editor = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['editor'] })).id);
  // console edits act as the caller's cluster identity (the writer for an editor), bound as the chart binds it
  grantConsoleWriters(kube, SCRAPE.group);
}, 60_000);

afterAll(async () => {
  await t?.close();
  await kube?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('a ScrapeConfig applied with kubectl becomes a scraper that runs and saves the cluster', async () => {
  const r = await kubectl(kubeconfig, ['apply', '-f', '-'], {
    input: `
apiVersion: configs.flanksource.com/v1
kind: ScrapeConfig
metadata: { name: cluster, namespace: default }
spec:
  schedule: "@every 1h"
  kubernetes:
    - clusterName: cr-test
`,
  });
  expect(r.code, r.stderr).toBe(0);
  const row = await until(() => scraperRow('cluster'), 'the CR reconciled into config_scrapers');
  expect(row.id).toBe(cr('default', 'cluster')!.metadata!.uid);
  // the scheduler runs a scraper as soon as it is loaded: one job_history row, the items saved
  const job = await until(async () => (await t.db.query(
    `SELECT status, details FROM job_history WHERE resource_type = 'config_scraper' AND resource_id = $1 AND status <> 'RUNNING'`,
    [row.id])).rows[0], 'the scraper run', 60_000);
  expect(job.status, JSON.stringify(job.details)).toBe('SUCCESS');
  expect(Object.keys(job.details.scrape_summary.config_types)).toEqual(expect.arrayContaining(['Kubernetes::Cluster', 'Kubernetes::Namespace']));
  const { rows: items } = await t.db.query(`SELECT type, name FROM config_items WHERE scraper_id = $1 AND deleted_at IS NULL`, [row.id]);
  expect(items).toEqual(expect.arrayContaining([
    { type: 'Kubernetes::Cluster', name: 'cr-test' },
    { type: 'Kubernetes::Namespace', name: 'default' },
    { type: 'Kubernetes::ScrapeConfig', name: 'cluster' },
  ]));
}, 90_000);

it('a console edit through /api/db/config_scrapers patches the CR as the caller', async () => {
  const row = await scraperRow('cluster');
  // the run above writes its status on the CR after its job row: a resourceVersion read before that is stale (409)
  await until(async () => (cr('default', 'cluster')?.status as { lastRun?: unknown } | undefined)?.lastRun, 'the run written on the CR status');
  const spec = { schedule: '@every 2h', kubernetes: [{ clusterName: 'cr-test', exclusions: { namespace: ['kube-*'] } }] };
  // the leader may still write status after that (a rightful 409): reload and apply again, as a user would
  const res = await retryOnConflict(() => patch(row.id, { spec, resource_version: cr('default', 'cluster')!.metadata!.resourceVersion }));
  expect(res.statusCode, res.body).toBeLessThan(300);
  expect(cr('default', 'cluster')!.spec).toMatchObject(spec);
  const patches = kube.impersonations.filter((i) => i.method === 'PATCH' && i.path.endsWith('/scrapeconfigs/cluster'));
  expect(patches.filter((i) => i.status === 200)).toEqual([expect.objectContaining({ user: 'ops-console-writer' })]);
  expect(patches.every((i) => i.user === 'ops-console-writer')).toBe(true);
  await until(async () => (await scraperRow('cluster'))?.spec.schedule === '@every 2h', 'the row follows the CR');
});

it('a GitOps-owned ScrapeConfig is read-only in the console: 403 naming its source, the CR untouched', async () => {
  const flux = kube.apply({
    apiVersion: `${SCRAPE.group}/${SCRAPE.version}`, kind: 'ScrapeConfig',
    metadata: {
      name: 'from-git', namespace: 'default',
      labels: { 'kustomize.toolkit.fluxcd.io/name': 'apps', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' },
    },
    spec: { schedule: '@never', kubernetes: [{ clusterName: 'git' }] },
  });
  const row = await until(() => scraperRow('from-git'), 'the flux ScrapeConfig reconciled');
  await until(async () => (await t.db.query('SELECT managed_by FROM kubernetes_objects WHERE uid = $1', [flux.metadata!.uid])).rows[0]?.managed_by, 'its GitOps owner');
  // the leader writes the CR's status once it is reconciled: take the version after that, so only a console write
  // could move it
  await until(async () => Object.keys((cr('default', 'from-git')?.status as object | undefined) ?? {}).length || undefined, 'its status');
  const version = cr('default', 'from-git')!.metadata!.resourceVersion;
  const res = await patch(row.id, { spec: { schedule: '@every 5m', kubernetes: [{ clusterName: 'git' }] } });
  expect(res.statusCode).toBe(403);
  expect(res.json().message).toMatch(/^Linked to Flux kustomization flux-system\/apps/);
  expect(cr('default', 'from-git')!.metadata!.resourceVersion).toBe(version);
  expect((await scraperRow('from-git')).spec.schedule).toBe('@never');
});
