import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { saveResult } from '../../server/modules/catalog/engine/save.js';
import { KubernetesLive } from '../../server/modules/catalog/kubernetes/live.js';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { until } from '../support/poll.js';
import { createTestApp, type TestContext } from '../server/helpers.js';

/**
 * Live watches of kubernetes blocks narrowed by `selector` and `fieldSelector`, against the Kubernetes API test server
 * (which filters watches like the real one) and a real database. No scheduled run happens (`@never`, and none is
 * started): everything in config_items here came through a watch.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const silent = { info() {}, warn() {}, debug() {}, error() {} };

let kube: KubeApi;
let t: TestContext;
let dir: string;
let live: KubernetesLive;
let byLabel: string;
let byField: string;

async function pods(scraperId: string): Promise<{ name: string; deleted: boolean }[]> {
  const { rows } = await t.db.query(
    `SELECT name, deleted_at IS NOT NULL AS deleted FROM config_items WHERE scraper_id = $1 AND type = 'Kubernetes::Pod' ORDER BY name`, [scraperId]);
  return rows;
}

/** Every event seen so far is in the database. */
const settled = () => until(async () => live.pending() === 0, 'every watch event saved');

const pod = (name: string, labels: Record<string, string>) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'sel', labels }, spec: { containers: [{ name: 'c', image: 'busybox:1' }] },
});

beforeAll(async () => {
  kube = await startKubeApi({ crdsDir: join(root, 'crds') });
  dir = mkdtempSync(join(tmpdir(), 'catalog-live-sel-'));
  const kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
  // the app runs without a cluster, so only the watcher below saves
  t = await createTestApp();
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  kube.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'sel' } });
  const insert = async (name: string, block: object) => (await t.db.query(
    `INSERT INTO config_scrapers (name, namespace, spec, source) VALUES ($1, 'default', $2, 'UI') RETURNING id`,
    [name, { schedule: '@never', kubernetes: [block] }])).rows[0].id as string;
  byLabel = await insert('web only', { clusterName: 'sel', namespace: 'sel', selector: 'app=web', exclusions: { name: ['web-skip*'] } });
  byField = await insert('db-0 only', { clusterName: 'sel', namespace: 'sel', fieldSelector: 'metadata.name=db-0' });
  live = new KubernetesLive({
    db: t.db, kube: kc, log: silent, isLeader: () => true, save: (id, r) => saveResult(t.db, id, r), pollMs: 500,
    watcher: { backoffMs: 100, maxBackoffMs: 2_000, minGapMs: 200 },
  });
  live.start();
  await until(async () => live.watching().includes(byLabel) && live.watching().includes(byField) && live.synced(), 'both scrapers watched and listed');
}, 120_000);

afterAll(async () => {
  await live?.stop();
  await t?.close();
  await kube?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('a block with a label selector watches live: a labelled pod appears, an unlabelled or excluded one does not', async () => {
  kube.apply(pod('plain', { app: 'batch' }));
  kube.apply(pod('web-skip-1', { app: 'web' }));
  kube.apply(pod('web-1', { app: 'web' }));
  await until(async () => (await pods(byLabel)).some((p) => p.name === 'web-1'), 'web-1 saved');
  await settled();
  expect(await pods(byLabel)).toEqual([{ name: 'web-1', deleted: false }]);
});

it('a label removed takes the pod out of the scraper, as a list would', async () => {
  const web1 = kube.get('', 'v1', 'pods', 'sel', 'web-1')!;
  kube.apply({ ...web1, metadata: { ...web1.metadata, labels: { app: 'retired' } } });
  await until(async () => (await pods(byLabel)).find((p) => p.name === 'web-1')?.deleted, 'web-1 deleted');
  // labelled again: the watch adds it back, and the item comes back to life
  kube.apply({ ...web1, metadata: { ...web1.metadata, labels: { app: 'web' } } });
  await until(async () => (await pods(byLabel)).find((p) => p.name === 'web-1')?.deleted === false, 'web-1 back');
});

it('a block with a field selector watches only what the selector names', async () => {
  kube.apply(pod('db-1', {}));
  kube.apply(pod('db-0', {}));
  await until(async () => (await pods(byField)).some((p) => p.name === 'db-0'), 'db-0 saved');
  await settled();
  expect(await pods(byField)).toEqual([{ name: 'db-0', deleted: false }]);
});
