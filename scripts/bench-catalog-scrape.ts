/**
 * The kubernetes scraper over 10,000 objects (issue 12, "Performance"): the first scrape, an unchanged re-scrape, the
 * scraper's RSS, and the time from a watch event to its row in config_items (the live watch). Targets: < 30 s, < 10 s,
 * < 600 MB, < 2 s. Chained into `npm run bench:catalog`; alone:
 *
 *   npx tsx scripts/bench-catalog-scrape.ts      (DATABASE_URL to use an existing server; BENCH_KUBE_OBJECTS=10000)
 *
 * The Kubernetes API test server runs in a child process (this script forked with `--kube-api`), so the RSS measured
 * here is the console's side only: discovery, paged lists, the extractor, the save, the informers' caches. 50
 * namespaces, each with 10 Deployments, 10 ReplicaSets, 140 Pods, 10 Services, 20 ConfigMaps and 10 PVCs, 20 Nodes,
 * and 1,000 Events.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import pg from 'pg';
import { startEmbeddedPostgres } from '../server/db/embedded.js';
import { migrate } from '../server/db/migrate.js';
import { saveResult } from '../server/modules/catalog/engine/save.js';
import { KubernetesLive } from '../server/modules/catalog/kubernetes/live.js';
import { scrapeKubernetes } from '../server/modules/catalog/kubernetes/scrape.js';
import { fmt, percentile } from './lib/load.js';

const OBJECTS = Number(process.env.BENCH_KUBE_OBJECTS ?? 10_000);
const NAMESPACES = Math.max(1, Math.round(OBJECTS / 200));
const WATCH_SAMPLES = 20;
const quiet = { info() {}, warn() {}, debug() {}, error() {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type ToChild = { type: 'mutate'; n: number };
type FromChild = { type: 'ready'; kubeconfig: string; objects: number } | { type: 'mutated'; n: number };

/** Child: the API test server with the seeded cluster; applies one pod label change per `mutate` message. */
async function kubeApiChild(): Promise<void> {
  const { startKubeApi } = await import('../tests/support/kube-api/index.js');
  const api = await startKubeApi({ historySize: 50_000 });
  const dir = await mkdtemp(join(tmpdir(), 'bench-kube-'));
  let n = 0;
  const add = (o: Record<string, unknown>) => {
    api.apply(o as never);
    n++;
  };
  for (let i = 0; i < 20; i++) add({ apiVersion: 'v1', kind: 'Node', metadata: { name: `node-${i}` }, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
  const container = (i: number) => [{ name: 'app', image: `app:${i % 7}`, resources: { limits: { cpu: '1', memory: '1Gi' } } }];
  for (let s = 0; s < NAMESPACES; s++) {
    const ns = `ns-${s}`;
    add({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    for (let d = 0; d < 10; d++) {
      const app = `app-${d}`;
      const deploy = api.apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: app, namespace: ns, labels: { app } },
        spec: { replicas: 14, selector: { matchLabels: { app } }, template: { metadata: { labels: { app } }, spec: { containers: container(d) } } } } as never);
      const rs = api.apply({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: `${app}-7f9c`, namespace: ns, labels: { app },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: app, uid: deploy.metadata!.uid, controller: true }] },
        spec: { replicas: 14, selector: { matchLabels: { app } } } } as never);
      n += 2;
      for (let p = 0; p < 14; p++) {
        add({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `${app}-7f9c-${p}`, namespace: ns, labels: { app },
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${app}-7f9c`, uid: rs.metadata!.uid, controller: true }] },
          spec: { nodeName: `node-${(s + p) % 20}`, containers: container(d), volumes: [{ name: 'cfg', configMap: { name: `${app}-config` } }] } });
      }
      add({ apiVersion: 'v1', kind: 'Service', metadata: { name: app, namespace: ns }, spec: { selector: { app }, ports: [{ port: 80 }] } });
      add({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${app}-config`, namespace: ns }, data: { mode: 'fast' } });
      add({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${app}-extra`, namespace: ns }, data: { n: String(d) } });
      add({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: `${app}-data`, namespace: ns }, spec: { resources: { requests: { storage: '1Gi' } } } });
    }
    for (let e = 0; e < Math.round(1_000 / NAMESPACES); e++) {
      api.apply({ apiVersion: 'v1', kind: 'Event', metadata: { name: `ev-${e}`, namespace: ns }, reason: e % 2 ? 'BackOff' : 'Pulled',
        message: `event ${e}`, type: e % 2 ? 'Warning' : 'Normal', count: 1 + (e % 3),
        involvedObject: { apiVersion: 'v1', kind: 'Pod', name: `app-${e % 10}-7f9c-${e % 14}`, namespace: ns } } as never);
    }
  }
  process.on('message', (m: ToChild) => {
    if (m.type !== 'mutate') return;
    const pod = api.get('', 'v1', 'pods', 'ns-0', 'app-0-7f9c-0')!;
    api.apply({ ...pod, metadata: { ...pod.metadata, labels: { ...pod.metadata!.labels, bench: String(m.n) } } });
    process.send!({ type: 'mutated', n: m.n } satisfies FromChild);
  });
  process.on('disconnect', () => void api.stop().then(() => rm(dir, { recursive: true, force: true })).finally(() => process.exit(0)));
  process.send!({ type: 'ready', kubeconfig: api.writeKubeconfig(join(dir, 'kubeconfig')), objects: n } satisfies FromChild);
}

async function main(): Promise<void> {
  let dir: string | undefined;
  let stopDb = async () => {};
  let url = process.env.DATABASE_URL;
  if (!url) {
    dir = await mkdtemp(join(tmpdir(), 'bench-scrape-'));
    const embedded = await startEmbeddedPostgres(dir, 0, quiet);
    url = embedded.url;
    stopDb = () => embedded.stop();
  }
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--kube-api'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const messages: FromChild[] = [];
  const waiters: Array<() => void> = [];
  child.on('message', (m: FromChild) => {
    messages.push(m);
    for (const w of waiters.splice(0)) w();
  });
  const next = async <T extends FromChild['type']>(type: T): Promise<Extract<FromChild, { type: T }>> => {
    for (;;) {
      const i = messages.findIndex((m) => m.type === type);
      if (i >= 0) return messages.splice(i, 1)[0] as Extract<FromChild, { type: T }>;
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  const db = new pg.Pool({ connectionString: url, max: 4 });
  let rss = 0;
  const sampler = setInterval(() => {
    rss = Math.max(rss, process.memoryUsage().rss);
  }, 50);
  let live: KubernetesLive | undefined;
  try {
    await migrate(db);
    const ready = await next('ready');
    console.log(`cluster: ${ready.objects} objects in ${NAMESPACES} namespaces, plus Events`);
    const kc = new KubeConfig();
    kc.loadFromFile(ready.kubeconfig);
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO config_scrapers (name, namespace, spec, source) VALUES ('bench-cluster', 'default', $1, 'UI') RETURNING id`,
      [{ schedule: '@never', kubernetes: [{ clusterName: 'bench' }] }]);
    const scraperId = rows[0].id;
    // the scraper logs 'kubernetes: listed' between the lists and the extractor: the split of the two
    let listed = 0;
    const log = { ...quiet, debug(_o: unknown, msg?: string) {
      if (msg === 'kubernetes: listed') listed = performance.now();
    } };
    const ctx = { db, scraperId, namespace: 'default', signal: new AbortController().signal, kube: kc, log };
    const block = { clusterName: 'bench' };

    const scrape = async (label: string) => {
      const t0 = performance.now();
      const result = await scrapeKubernetes(ctx, block);
      const t1 = performance.now();
      const summary = await saveResult(db, scraperId, result);
      const t2 = performance.now();
      const totals = Object.values(summary.config_types).reduce((a, c) => ({
        added: a.added + c.added, updated: a.updated + c.updated, unchanged: a.unchanged + c.unchanged, changes: a.changes + c.changes,
      }), { added: 0, updated: 0, unchanged: 0, changes: 0 });
      console.log(`${label}: ${fmt((t2 - t0) / 1000)} s (list ${fmt((listed - t0) / 1000)} s, extract ${fmt((t1 - listed) / 1000)} s, `
        + `save ${fmt((t2 - t1) / 1000)} s); `
        + `${result.items.length} items, ${result.relationships.length} relationships, ${result.changes.length} event changes, `
        + `${result.analysis.length} insights, errors ${result.errors.length}; ${JSON.stringify(totals)}`);
      return (t2 - t0) / 1000;
    };
    const first = await scrape('first scrape');
    const again = await scrape('unchanged re-scrape');

    live = new KubernetesLive({ db, kube: kc, log: quiet, isLeader: () => true, save: (id, r) => saveResult(db, id, r), pollMs: 1_000 });
    live.start();
    const t0 = Date.now();
    while (!(live.watching().includes(scraperId) && live.synced())) {
      if (Date.now() - t0 > 120_000) throw new Error('the watches did not sync in 2 minutes');
      await sleep(50);
    }
    console.log(`watches synced in ${fmt((Date.now() - t0) / 1000)} s`);
    const latencies: number[] = [];
    for (let n = 1; n <= WATCH_SAMPLES; n++) {
      const sent = performance.now();
      child.send({ type: 'mutate', n } satisfies ToChild);
      await next('mutated');
      for (;;) {
        const { rows: hit } = await db.query(
          `SELECT 1 FROM config_items WHERE scraper_id = $1 AND name = 'app-0-7f9c-0' AND config->'metadata'->'labels'->>'bench' = $2`,
          [scraperId, String(n)]);
        if (hit.length) break;
        if (performance.now() - sent > 30_000) throw new Error(`watch event ${n} not visible after 30 s`);
        await sleep(10);
      }
      latencies.push(performance.now() - sent);
      await sleep(300);
    }
    latencies.sort((a, b) => a - b);
    const mb = rss / 1024 / 1024;
    console.log(`watch event → visible in config_items: p50 ${fmt(percentile(latencies, 0.5), 0)} ms, p95 ${fmt(percentile(latencies, 0.95), 0)} ms, `
      + `max ${fmt(latencies[latencies.length - 1], 0)} ms (${WATCH_SAMPLES} events; target < 2,000 ms)`);
    console.log(`first scrape ${fmt(first)} s (target < 30), unchanged ${fmt(again)} s (target < 10), peak RSS ${fmt(mb, 0)} MB (target < 600)`);
  } finally {
    clearInterval(sampler);
    await live?.stop();
    await db.end();
    child.disconnect();
    await stopDb();
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--kube-api')) {
  await kubeApiChild();
} else {
  await main();
}
