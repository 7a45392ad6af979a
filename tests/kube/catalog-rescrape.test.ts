import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveResult } from '../../server/modules/catalog/engine/save.js';
import { scrapeKubernetes } from '../../server/modules/catalog/kubernetes/scrape.js';
import type { ScrapeSummary } from '../../server/modules/catalog/types.js';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { createTestApp, type TestContext } from '../server/helpers.js';

/**
 * An unchanged re-scrape of a cluster writes nothing but each item's last_scraped_time: no config_items row, change,
 * relationship or Event change is rewritten (xmin and updated_at stay, row counts stay); a changed Pod rewrites its
 * own row and adds one diff change, nothing else.
 */
const silent = { info() {}, warn() {}, debug() {}, error() {} };
const BLOCK = { clusterName: 'rescrape' };

let kube: KubeApi;
let t: TestContext;
let dir: string;
let kc: KubeConfig;
let scraperId: string;

/** Every row this scraper owns, as `table key → xmin@updated_at` (a rewrite of any row changes its xmin). */
async function snapshot(): Promise<Map<string, string>> {
  const { rows } = await t.db.query<{ k: string; v: string }>(
    `SELECT 'item ' || id AS k, xmin::text || '@' || coalesce(updated_at::text, '') AS v FROM config_items WHERE scraper_id = $1
     UNION ALL
     SELECT 'change ' || cc.id, cc.xmin::text || '@' || cc.count || '@' || cc.created_at FROM config_changes cc
       JOIN config_items ci ON ci.id = cc.config_id WHERE ci.scraper_id = $1
     UNION ALL
     SELECT 'link ' || config_id || ' ' || related_id || ' ' || relation, xmin::text || '@' || updated_at || '@' || coalesce(deleted_at::text, '')
       FROM config_relationships WHERE scraper_id = $1
     UNION ALL
     SELECT 'insight ' || config_id || ' ' || analyzer, status FROM config_analysis WHERE scraper_id = $1`, [scraperId]);
  return new Map(rows.map((r) => [r.k, r.v]));
}

async function scrapeAndSave(): Promise<ScrapeSummary> {
  const ctx = { db: t.db, scraperId, namespace: 'default', signal: new AbortController().signal, kube: kc, log: silent };
  const result = await scrapeKubernetes(ctx, BLOCK);
  expect(result.errors).toEqual([]);
  return saveResult(t.db, scraperId, result);
}

const totals = (s: ScrapeSummary) => Object.values(s.config_types).reduce((a, c) => ({
  added: a.added + c.added, updated: a.updated + c.updated, unchanged: a.unchanged + c.unchanged, changes: a.changes + c.changes,
}), { added: 0, updated: 0, unchanged: 0, changes: 0 });

beforeAll(async () => {
  kube = await startKubeApi();
  dir = mkdtempSync(join(tmpdir(), 'catalog-rescrape-'));
  kc = new KubeConfig();
  kc.loadFromFile(kube.writeKubeconfig(join(dir, 'kubeconfig')));
  t = await createTestApp();
  const { rows } = await t.db.query<{ id: string }>(
    `INSERT INTO config_scrapers (name, namespace, spec, source) VALUES ('rescrape', 'default', $1, 'UI') RETURNING id`,
    [{ schedule: '@never', kubernetes: [BLOCK] }]);
  scraperId = rows[0].id;

  kube.apply({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
  kube.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
  const deploy = kube.apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' } },
    spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'web:latest' }] } } } });
  const rs = kube.apply({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web-1', namespace: 'shop', labels: { app: 'web' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: deploy.metadata!.uid as string, controller: true }] },
  spec: { replicas: 3, selector: { matchLabels: { app: 'web' } } } });
  for (let i = 0; i < 3; i++) {
    // image :latest and no limits: each Pod has insights too
    kube.apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `web-1-${i}`, namespace: 'shop', labels: { app: 'web' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: rs.metadata!.uid as string, controller: true }] },
    spec: { nodeName: 'node-1', containers: [{ name: 'app', image: 'web:latest' }], volumes: [{ name: 'cfg', configMap: { name: 'web-config' } }] } });
  }
  kube.apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } });
  kube.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config', namespace: 'shop' }, data: { mode: 'fast' } });
  for (let e = 0; e < 2; e++) {
    kube.apply({ apiVersion: 'v1', kind: 'Event', metadata: { name: `ev-${e}`, namespace: 'shop' }, reason: e ? 'BackOff' : 'Pulled',
      message: `event ${e}`, type: e ? 'Warning' : 'Normal', count: 2 + e,
      involvedObject: { apiVersion: 'v1', kind: 'Pod', name: `web-1-${e}`, namespace: 'shop' } });
  }
});

afterAll(async () => {
  await t?.close();
  await kube?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('kubernetes re-scrape', () => {
  it('writes no item, change, relationship or insight row when nothing changed, and only the changed Pod when one did', async () => {
    const first = totals(await scrapeAndSave());
    expect(first.added).toBeGreaterThanOrEqual(10);
    expect(first.changes).toBe(2);
    const before = await snapshot();
    expect([...before.keys()].filter((k) => k.startsWith('link ')).length).toBeGreaterThan(5);
    expect([...before.keys()].filter((k) => k.startsWith('insight ')).length).toBeGreaterThan(0);
    const lastScraped = () => t.db.query<{ min: Date; max: Date }>(
      `SELECT min(l.last_scraped_time) AS min, max(l.last_scraped_time) AS max FROM config_items_last_scraped_time l
       JOIN config_items ci ON ci.id = l.config_id WHERE ci.scraper_id = $1`, [scraperId]).then((r) => r.rows[0]);
    const scrapedAt = await lastScraped();

    const again = totals(await scrapeAndSave());
    expect(again).toEqual({ added: 0, updated: 0, unchanged: first.added, changes: 0 });
    expect(await snapshot()).toEqual(before);
    // the one write an unchanged item gets: its last_scraped_time (what stale deletion reads)
    expect((await lastScraped()).min.getTime()).toBeGreaterThan(scrapedAt.max.getTime());

    const pod = kube.get('', 'v1', 'pods', 'shop', 'web-1-2')!;
    kube.apply({ ...pod, metadata: { ...pod.metadata, labels: { ...pod.metadata!.labels, tier: 'front' } } });
    const third = totals(await scrapeAndSave());
    expect(third).toEqual({ added: 0, updated: 1, unchanged: first.added - 1, changes: 1 });
    const changed = await snapshot();
    const { rows: [row] } = await t.db.query<{ id: string }>(
      `SELECT id FROM config_items WHERE scraper_id = $1 AND type = 'Kubernetes::Pod' AND name = 'web-1-2'`, [scraperId]);
    const differs = [...new Set([...before.keys(), ...changed.keys()])].filter((k) => before.get(k) !== changed.get(k));
    expect(differs).toHaveLength(2);
    expect(differs).toContain(`item ${row.id}`);
    const { rows: diffs } = await t.db.query(`SELECT change_type, summary FROM config_changes WHERE config_id = $1 AND change_type = 'diff'`, [row.id]);
    expect(diffs).toEqual([{ change_type: 'diff', summary: 'metadata.labels.tier' }]);
  });
});
