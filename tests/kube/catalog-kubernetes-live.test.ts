import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { saveResult } from '../../server/modules/catalog/engine/save.js';
import { KubernetesLive } from '../../server/modules/catalog/kubernetes/live.js';
import { scrapeKubernetes } from '../../server/modules/catalog/kubernetes/scrape.js';
import type { ScrapeContext } from '../../server/modules/catalog/types.js';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { kubectl } from '../support/kube-tools.js';
import { createTestApp, type TestContext } from '../server/helpers.js';

/**
 * Live kubernetes scraping against the Kubernetes API test server and a real database: a ScrapeConfig CR applied with
 * kubectl becomes the scraper, a full scrape saves the cluster, then the watches carry each kubectl change (create,
 * edit, delete, Events) into config_items and config_changes without another scrape, and 2,000 pod mutations under
 * dropped watches, 410 Gone and 30 s of downtime converge.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const silent = { info() {}, warn() {}, debug() {}, error() {} };
const BLOCK = { clusterName: 'live-test', exclusions: { namespace: ['kube-*'] } };

let kube: KubeApi;
let t: TestContext;
let dir: string;
let kubeconfig: string;
let kc: KubeConfig;
let scraperId: string;
let live: KubernetesLive;

async function apply(yaml: string): Promise<void> {
  const r = await kubectl(kubeconfig, ['apply', '-f', '-'], { input: yaml });
  expect(r.code, r.stderr).toBe(0);
}

/** Polls `fn` until it returns something truthy (or gives up after `ms` and returns the last value). */
async function until<T>(fn: () => Promise<T>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  let v = await fn();
  while (!v && Date.now() < end) {
    await sleep(100);
    v = await fn();
  }
  return v;
}

async function itemRow(type: string, namespace: string, name: string) {
  const { rows } = await t.db.query(
    `SELECT id, parent_id, labels, config, deleted_at FROM config_items
     WHERE scraper_id = $1 AND type = $2 AND name = $3 AND tags->>'namespace' = $4 ORDER BY created_at DESC LIMIT 1`,
    [scraperId, `Kubernetes::${type}`, name, namespace]);
  return rows[0];
}

beforeAll(async () => {
  kube = await startKubeApi({ crdsDir: join(root, 'crds') });
  dir = mkdtempSync(join(tmpdir(), 'catalog-live-'));
  kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
  t = await createTestApp({ KUBECONFIG: kubeconfig, POD_NAME: 'console-live', POD_NAMESPACE: 'default' });
  kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  await apply(`
apiVersion: v1
kind: Namespace
metadata: { name: live }
---
apiVersion: configs.flanksource.com/v1
kind: ScrapeConfig
metadata: { name: cluster, namespace: default }
spec:
  schedule: "@never"
  kubernetes:
    - clusterName: live-test
      exclusions: { namespace: ["kube-*"] }
`);
  // the console's CR sync makes it a config_scrapers row (id = the CR's uid)
  const row = await until(async () => (await t.db.query(
    `SELECT id, spec FROM config_scrapers WHERE name = 'cluster' AND source = 'KubernetesCRD' AND deleted_at IS NULL`)).rows[0]);
  expect(row?.spec.kubernetes).toEqual([BLOCK]);
  scraperId = row.id;
  const ctx: ScrapeContext = { db: t.db, scraperId, namespace: 'default', signal: new AbortController().signal, kube: kc, log: silent };
  const result = await scrapeKubernetes(ctx, row.spec.kubernetes[0]);
  expect(result.errors).toEqual([]);
  await saveResult(t.db, scraperId, result);
  live = new KubernetesLive({
    db: t.db, kube: kc, log: silent, isLeader: () => true, save: (id, r) => saveResult(t.db, id, r), pollMs: 500,
    watcher: { backoffMs: 100, maxBackoffMs: 2_000, minGapMs: 200 },
  });
  live.start();
  expect(await until(async () => live.watching().includes(scraperId) && live.synced())).toBe(true);
}, 120_000);

afterAll(async () => {
  await live?.stop();
  await t?.close();
  await kube?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('a kubectl create, edit and delete show in config_items without a re-scrape', async () => {
  await apply(`
apiVersion: apps/v1
kind: Deployment
metadata: { name: api, namespace: live, labels: { tier: backend } }
spec:
  selector: { matchLabels: { app: api } }
  template: { metadata: { labels: { app: api } }, spec: { containers: [{ name: api, image: api:1 }] } }
`);
  const created = await until(() => itemRow('Deployment', 'live', 'api'));
  expect(created).toBeTruthy();
  expect(created.labels).toEqual({ tier: 'backend' });
  const { rows: nsRows } = await t.db.query(`SELECT id FROM config_items WHERE scraper_id = $1 AND type = 'Kubernetes::Namespace' AND name = 'live'`, [scraperId]);
  expect(created.parent_id).toBe(nsRows[0].id);

  await apply(`
apiVersion: apps/v1
kind: Deployment
metadata: { name: api, namespace: live, labels: { tier: frontend } }
spec:
  selector: { matchLabels: { app: api } }
  template: { metadata: { labels: { app: api } }, spec: { containers: [{ name: api, image: api:2 }] } }
`);
  const edited = await until(async () => {
    const r = await itemRow('Deployment', 'live', 'api');
    return r?.labels?.tier === 'frontend' ? r : null;
  });
  expect(edited.config.spec.template.spec.containers[0].image).toBe('api:2');
  const { rows: diffs } = await t.db.query(`SELECT summary, diff FROM config_changes WHERE config_id = $1 AND change_type = 'diff'`, [edited.id]);
  expect(diffs.length).toBe(1);
  expect(diffs[0].diff).toContain('api:2');

  const del = await kubectl(kubeconfig, ['delete', 'deployment', 'api', '-n', 'live']);
  expect(del.code, del.stderr).toBe(0);
  const gone = await until(async () => {
    const { rows } = await t.db.query('SELECT deleted_at FROM config_items WHERE id = $1', [edited.id]);
    return rows[0].deleted_at;
  });
  expect(gone).toBeInstanceOf(Date);
});

it('an Event arrives as a change, and its repeat raises the count of the same row', async () => {
  await apply(`
apiVersion: v1
kind: Pod
metadata: { name: flaky, namespace: live }
spec: { containers: [{ name: c, image: busybox:1 }] }
`);
  const pod = await until(() => itemRow('Pod', 'live', 'flaky'));
  const event = (count: number) => `
apiVersion: v1
kind: Event
metadata: { name: flaky.backoff, namespace: live }
involvedObject: { apiVersion: v1, kind: Pod, name: flaky, namespace: live }
reason: BackOff
message: Back-off restarting failed container c
type: Warning
count: ${count}
source: { component: kubelet, host: node-1 }
`;
  await apply(event(1));
  const first = await until(async () => (await t.db.query(`SELECT id, count FROM config_changes WHERE config_id = $1 AND change_type = 'BackOff'`, [pod.id])).rows[0]);
  expect(first.count).toBe(1);
  await apply(event(4));
  const repeated = await until(async () => {
    const { rows } = await t.db.query(`SELECT id, count FROM config_changes WHERE config_id = $1 AND change_type = 'BackOff'`, [pod.id]);
    return rows.length === 1 && rows[0].count === 4 ? rows : null;
  });
  expect(repeated).toEqual([{ id: first.id, count: 4 }]);
});

/** Pods of the API server and the live pod items of the database that disagree. */
async function differences(namespace: string): Promise<string[]> {
  const pods = kube.list('', 'v1', 'pods', namespace);
  const { rows } = await t.db.query(
    `SELECT external_id[1] AS uid, name, config->'metadata'->'labels'->>'gen' AS gen FROM config_items
     WHERE scraper_id = $1 AND type = 'Kubernetes::Pod' AND tags->>'namespace' = $2 AND deleted_at IS NULL`, [scraperId, namespace]);
  const byUid = new Map(rows.map((r) => [r.uid, r]));
  const problems: string[] = [];
  for (const p of pods) {
    const r = byUid.get(p.metadata.uid);
    if (!r) problems.push(`no item for ${p.metadata.name}`);
    else if (r.gen !== p.metadata.labels?.gen) problems.push(`${p.metadata.name} at gen ${r.gen}, pod at ${p.metadata.labels?.gen}`);
    byUid.delete(p.metadata.uid);
  }
  for (const r of byUid.values()) problems.push(`live item of a deleted pod ${r.name}`);
  return problems;
}

it('2,000 pod mutations under dropped watches, 410 Gone and 30 s of downtime converge', async () => {
  kube.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'churn' } });
  let seed = 20261126;
  const random = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const counts = { create: 0, update: 0, delete: 0 };
  kube.dropWatchesEvery(2_000);
  let down: Promise<void> | null = null;
  for (let i = 0; i < 2_000; i++) {
    if (i === 300 || i === 1_200) kube.expireHistory();
    if (i === 600) down = kube.goDown(30); // mutations go on while the console cannot see the cluster
    const name = `pod-${Math.floor(random() * 150)}`;
    const exists = kube.get('', 'v1', 'pods', 'churn', name);
    if (!exists) {
      counts.create++;
      kube.apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'churn', labels: { gen: String(i) } }, spec: { containers: [{ name: 'c', image: 'busybox:1' }] } });
    } else if (random() < 0.7) {
      counts.update++;
      kube.apply({ ...exists, metadata: { ...exists.metadata, labels: { gen: String(i) } } });
    } else {
      counts.delete++;
      kube.remove('', 'v1', 'pods', 'churn', name);
    }
    await sleep(20);
  }
  await down;
  kube.dropWatchesEvery(null);
  console.log(`pod mutations: ${JSON.stringify(counts)}`);
  expect(counts.delete).toBeGreaterThan(100);
  const t0 = Date.now();
  let diff = await differences('churn');
  while (diff.length && Date.now() - t0 < 90_000) {
    await sleep(500);
    diff = await differences('churn');
  }
  console.log(`live pods converged ${((Date.now() - t0) / 1000).toFixed(1)} s after the last mutation and the server's return`);
  expect(diff).toEqual([]);
}, 240_000);
