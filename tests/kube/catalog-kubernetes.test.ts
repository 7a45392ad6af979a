import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrapeKubernetes } from '../../server/modules/catalog/kubernetes/scrape.js';
import type { ScrapeContext, ScrapeResult, ScrapedItem } from '../../server/modules/catalog/types.js';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { kubectl } from '../support/kube-tools.js';

/**
 * The kubernetes scraper against the Kubernetes API test server, with objects applied by the real kubectl: discovery,
 * paged lists, items, parents, relationships of each kind, Events as changes, exclusions, Secrets.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
let kube: KubeApi;
let dir: string;
let kubeconfig: string;

const silent = { info() {}, warn() {}, debug() {} };
function ctxFor(path = kubeconfig): ScrapeContext {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  // the extractor never touches the database; the engine does
  return { db: null as unknown as pg.Pool, scraperId: 'test', namespace: 'default', signal: new AbortController().signal, kube: kc, log: silent };
}

async function apply(yaml: string): Promise<void> {
  const r = await kubectl(kubeconfig, ['apply', '-f', '-'], { input: yaml });
  expect(r.code, r.stderr).toBe(0);
}

const uidOf = (plural: string, group: string, namespace: string | undefined, name: string) =>
  kube.get(group, group ? 'v1' : 'v1', plural, namespace, name)!.metadata!.uid as string;

function item(r: ScrapeResult, type: string, name: string): ScrapedItem {
  const found = r.items.find((i) => i.type === `Kubernetes::${type}` && i.name === name);
  if (!found) throw new Error(`no ${type} ${name} among ${r.items.map((i) => `${i.type}/${i.name}`).join(', ')}`);
  return found;
}

const BASE = `
apiVersion: v1
kind: Namespace
metadata: { name: shop }
---
apiVersion: v1
kind: Node
metadata: { name: node-1, labels: { zone: a } }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: shop, labels: { app: web } }
spec:
  replicas: 1
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec: { containers: [{ name: web, image: nginx:1.27 }] }
---
apiVersion: v1
kind: ConfigMap
metadata: { name: web-config, namespace: shop }
data: { mode: fast }
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: web-data, namespace: shop }
spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } } }
---
apiVersion: v1
kind: Service
metadata: { name: web, namespace: shop }
spec: { selector: { app: web }, ports: [{ port: 80 }] }
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: { name: web, namespace: shop }
spec:
  rules:
    - host: shop.example.com
      http: { paths: [{ path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } }] }
---
apiVersion: v1
kind: Secret
metadata: { name: web-creds, namespace: shop }
stringData: { password: hunter2-very-secret }
---
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: db, namespace: shop }
spec:
  serviceName: db
  selector: { matchLabels: { app: db } }
  template: { metadata: { labels: { app: db } }, spec: { containers: [{ name: pg, image: postgres:16 }] } }
---
apiVersion: apps/v1
kind: DaemonSet
metadata: { name: agent, namespace: shop }
spec:
  selector: { matchLabels: { app: agent } }
  template: { metadata: { labels: { app: agent } }, spec: { containers: [{ name: a, image: agent:1 }] } }
---
apiVersion: batch/v1
kind: CronJob
metadata: { name: nightly, namespace: shop }
spec:
  schedule: "0 1 * * *"
  jobTemplate: { spec: { template: { spec: { restartPolicy: Never, containers: [{ name: j, image: busybox:1 }] } } } }
---
apiVersion: v1
kind: Namespace
metadata: { name: scratch }
---
apiVersion: v1
kind: ConfigMap
metadata: { name: tmp, namespace: scratch }
`;

function owned(kind: string, name: string, uid: string, apiVersion: string) {
  return `ownerReferences: [{ apiVersion: ${apiVersion}, kind: ${kind}, name: ${name}, uid: ${uid}, controller: true }]`;
}

beforeAll(async () => {
  kube = await startKubeApi({ crdsDir: join(root, 'crds') });
  dir = mkdtempSync(join(tmpdir(), 'catalog-kube-'));
  kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
  await apply(BASE);
  const deploy = uidOf('deployments', 'apps', 'shop', 'web');
  const cron = uidOf('cronjobs', 'batch', 'shop', 'nightly');
  await apply(`
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-5d9f
  namespace: shop
  labels: { app: web, pod-template-hash: 5d9f }
  ${owned('Deployment', 'web', deploy, 'apps/v1')}
spec: { selector: { matchLabels: { app: web } } }
---
apiVersion: batch/v1
kind: Job
metadata:
  name: nightly-1
  namespace: shop
  ${owned('CronJob', 'nightly', cron, 'batch/v1')}
spec: { template: { spec: { restartPolicy: Never, containers: [{ name: j, image: busybox:1 }] } } }
`);
  const rs = uidOf('replicasets', 'apps', 'shop', 'web-5d9f');
  await apply(`
apiVersion: v1
kind: Pod
metadata:
  name: web-5d9f-abcde
  namespace: shop
  labels: { app: web, pod-template-hash: 5d9f }
  ${owned('ReplicaSet', 'web-5d9f', rs, 'apps/v1')}
spec:
  nodeName: node-1
  containers:
    - name: web
      image: nginx:1.27
      envFrom: [{ configMapRef: { name: web-config } }]
  volumes:
    - { name: data, persistentVolumeClaim: { claimName: web-data } }
---
apiVersion: v1
kind: Pod
metadata: { name: lonely, namespace: shop, labels: { app: other } }
spec: { containers: [{ name: c, image: busybox:1 }] }
`);
  const pod = uidOf('pods', '', 'shop', 'web-5d9f-abcde');
  await apply(`
apiVersion: v1
kind: Event
metadata: { name: web-5d9f-abcde.backoff, namespace: shop }
involvedObject: { apiVersion: v1, kind: Pod, name: web-5d9f-abcde, namespace: shop, uid: ${pod} }
reason: BackOff
message: Back-off restarting failed container web
type: Warning
count: 3
source: { component: kubelet, host: node-1 }
firstTimestamp: "2026-11-26T10:00:00Z"
lastTimestamp: "2026-11-26T10:05:00Z"
---
apiVersion: v1
kind: Event
metadata: { name: web-5d9f-abcde.scheduled, namespace: shop }
involvedObject: { apiVersion: v1, kind: Pod, name: web-5d9f-abcde, namespace: shop, uid: ${pod} }
reason: Scheduled
message: Successfully assigned shop/web-5d9f-abcde to node-1
type: Normal
source: { component: default-scheduler }
---
apiVersion: v1
kind: Event
metadata: { name: web.scaled, namespace: shop }
involvedObject: { apiVersion: apps/v1, kind: Deployment, name: web, namespace: shop }
reason: ScalingReplicaSet
message: Scaled up replica set web-5d9f to 1
type: Normal
source: { component: deployment-controller }
`);
}, 120_000);

afterAll(async () => {
  await kube?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a full scrape', () => {
  let r: ScrapeResult;
  beforeAll(async () => {
    r = await scrapeKubernetes(ctxFor(), { clusterName: 'test-cluster' });
  });

  it('is complete and has one item per object, with the uid, the alias, tags and labels', () => {
    expect(r.errors).toEqual([]);
    expect(r.complete).toBe(true);
    const pod = item(r, 'Pod', 'web-5d9f-abcde');
    expect(pod.externalId).toBe(uidOf('pods', '', 'shop', 'web-5d9f-abcde'));
    expect(pod.aliases).toEqual(['Kubernetes/Pod/shop/web-5d9f-abcde']);
    expect(pod.configClass).toBe('Pod');
    expect(pod.tags).toEqual({ cluster: 'test-cluster', namespace: 'shop' });
    // the `-hash` labels change per rollout and are left out, as the reference does
    expect(pod.labels).toEqual({ app: 'web' });
    for (const [type, name] of [['Node', 'node-1'], ['Namespace', 'shop'], ['Deployment', 'web'], ['ReplicaSet', 'web-5d9f'],
      ['StatefulSet', 'db'], ['DaemonSet', 'agent'], ['CronJob', 'nightly'], ['Job', 'nightly-1'], ['Service', 'web'],
      ['Ingress', 'web'], ['ConfigMap', 'web-config'], ['PersistentVolumeClaim', 'web-data']]) {
      expect(item(r, type, name).config).toBeTruthy();
    }
    expect(item(r, 'Node', 'node-1').tags).toEqual({ cluster: 'test-cluster' });
    const cluster = item(r, 'Cluster', 'test-cluster');
    expect(cluster.externalId).toBe('Kubernetes/Cluster//test-cluster');
    expect(cluster.config).toMatchObject({ name: 'test-cluster', version: 'v1.35.0-kube-api-test' });
  });

  it('judges health per kind: a running pod is healthy', () => {
    const pod = item(r, 'Pod', 'web-5d9f-abcde');
    expect(pod.health).toBe('healthy');
    expect(pod.status).toBe('Running');
    expect(pod.ready).toBe(true);
  });

  it('drops the volatile fields before diffing', () => {
    const dep = item(r, 'Deployment', 'web').config as { metadata: Record<string, unknown> };
    expect(dep.metadata.resourceVersion).toBeUndefined();
    expect(dep.metadata.generation).toBeUndefined();
    expect(dep.metadata.managedFields).toBeUndefined();
    expect(dep.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration' as never]).toBeUndefined();
    const pod = item(r, 'Pod', 'web-5d9f-abcde').config as { status: { conditions?: Array<Record<string, unknown>> } };
    for (const c of pod.status.conditions ?? []) {
      expect(c.lastTransitionTime).toBeUndefined();
      expect(c.lastProbeTime).toBeUndefined();
    }
  });

  it('hangs each item under its owner, else its namespace, else the cluster', () => {
    const ref = (type: string, name: string) => ({ type: `Kubernetes::${type}`, externalId: item(r, type, name).externalId });
    expect(item(r, 'Pod', 'web-5d9f-abcde').parent).toEqual(ref('ReplicaSet', 'web-5d9f'));
    expect(item(r, 'ReplicaSet', 'web-5d9f').parent).toEqual(ref('Deployment', 'web'));
    expect(item(r, 'Job', 'nightly-1').parent).toEqual(ref('CronJob', 'nightly'));
    expect(item(r, 'Deployment', 'web').parent).toEqual(ref('Namespace', 'shop'));
    expect(item(r, 'Namespace', 'shop').parent).toEqual(ref('Cluster', 'test-cluster'));
    expect(item(r, 'Node', 'node-1').parent).toEqual(ref('Cluster', 'test-cluster'));
  });

  it('links owners hard, and Node→Pod, Service→Pod, Ingress→Service, Pod→PVC and Pod→ConfigMap soft', () => {
    const name = (ref: { externalId: string }) => r.items.find((i) => i.externalId === ref.externalId)?.name;
    const links = r.relationships.map((l) => `${l.from.type.slice(12)}/${name(l.from)} -${l.relation}-> ${l.to.type.slice(12)}/${name(l.to)}`).sort();
    expect(links).toEqual([
      'CronJob/nightly -hard-> Job/nightly-1',
      'Deployment/web -hard-> ReplicaSet/web-5d9f',
      'Ingress/web -IngressService-> Service/web',
      'Node/node-1 -NodePod-> Pod/web-5d9f-abcde',
      'Pod/web-5d9f-abcde -PodConfigMap-> ConfigMap/web-config',
      'Pod/web-5d9f-abcde -PodPersistentVolumeClaim-> PersistentVolumeClaim/web-data',
      'ReplicaSet/web-5d9f -hard-> Pod/web-5d9f-abcde',
      'Service/web -ServicePod-> Pod/web-5d9f-abcde',
    ]);
  });

  it('turns Events into changes of their object: reason, message, source, uid, count, times', () => {
    const pod = item(r, 'Pod', 'web-5d9f-abcde');
    const backoff = r.changes.find((c) => c.changeType === 'BackOff')!;
    expect(backoff.item).toEqual({ type: 'Kubernetes::Pod', externalId: pod.externalId });
    expect(backoff.summary).toBe('Back-off restarting failed container web');
    expect(backoff.source).toBe('kubernetes/component=kubelet,host=node-1');
    expect(backoff.externalChangeId).toBe(kube.get('', 'v1', 'events', 'shop', 'web-5d9f-abcde.backoff')!.metadata!.uid);
    expect(backoff.count).toBe(3);
    expect(backoff.firstObserved?.toISOString()).toBe('2026-11-26T10:00:00.000Z');
    expect(backoff.createdAt?.toISOString()).toBe('2026-11-26T10:05:00.000Z');
    // no keywords given: a Warning is low, anything else info
    expect(backoff.severity).toBe('low');
    expect(r.changes.find((c) => c.changeType === 'Scheduled')!.severity).toBe('info');
    // an Event without the object's uid still finds it (by kind, namespace and name)
    const scaled = r.changes.find((c) => c.changeType === 'ScalingReplicaSet')!;
    expect(scaled.item.externalId).toBe(item(r, 'Deployment', 'web').externalId);
    // Events are changes, never items
    expect(r.items.some((i) => i.type === 'Kubernetes::Event')).toBe(false);
  });

  it('leaves Secrets and Leases out unless the block names them', async () => {
    expect(r.items.some((i) => i.type === 'Kubernetes::Secret')).toBe(false);
    kube.apply({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'elector', namespace: 'shop' }, spec: { holderIdentity: 'a' } });
    expect((await scrapeKubernetes(ctxFor(), {})).items.some((i) => i.type === 'Kubernetes::Lease')).toBe(false);
    expect(item(await scrapeKubernetes(ctxFor(), { exclusions: { kind: ['!Lease'] } }), 'Lease', 'elector')).toBeTruthy();
  });
});

describe('block options', () => {
  it('exclusions by kind, name, namespace and label, with globs and ! vetoes', async () => {
    const r = await scrapeKubernetes(ctxFor(), {
      exclusions: { kind: ['ReplicaSet', 'Stateful*'], name: ['*-config', '!web'], namespace: ['scratch'], labels: { app: 'oth*' } },
    });
    const names = r.items.map((i) => `${i.configClass}/${i.name}`);
    expect(names).not.toContain('ReplicaSet/web-5d9f');
    expect(names).not.toContain('StatefulSet/db');
    expect(names).not.toContain('ConfigMap/web-config');
    expect(names).not.toContain('ConfigMap/tmp');
    expect(names).not.toContain('Pod/lonely');
    expect(names).toContain('Deployment/web');
    expect(names).toContain('DaemonSet/agent');
    // with its ReplicaSet left out, a pod hangs under the Deployment (as the reference does)
    expect(item(r, 'Pod', 'web-5d9f-abcde').parent).toEqual({ type: 'Kubernetes::Deployment', externalId: item(r, 'Deployment', 'web').externalId });
    expect(r.relationships.some((l) => l.relation === 'PodConfigMap')).toBe(false);
  });

  it('Secrets when named with !Secret, their values masked everywhere', async () => {
    const r = await scrapeKubernetes(ctxFor(), { exclusions: { kind: ['!Secret'] } });
    const secret = item(r, 'Secret', 'web-creds');
    expect((secret.config as { data: Record<string, string> }).data).toEqual({ password: '***' });
    expect(JSON.stringify(r)).not.toContain('hunter2');
    expect(JSON.stringify(r)).not.toContain(Buffer.from('hunter2-very-secret').toString('base64'));
  });

  it('event exclusions and severity keywords', async () => {
    const r = await scrapeKubernetes(ctxFor(), {
      event: { exclusions: { reason: ['Scheduled'] }, severityKeywords: { error: ['backoff', 'failed*'], warn: ['scaling*'] } },
    });
    expect(r.changes.map((c) => c.changeType).sort()).toEqual(['BackOff', 'ScalingReplicaSet']);
    expect(r.changes.find((c) => c.changeType === 'BackOff')!.severity).toBe('high');
    expect(r.changes.find((c) => c.changeType === 'ScalingReplicaSet')!.severity).toBe('medium');
  });

  it('relationship templates: value, label and CEL expr lookups', async () => {
    const r = await scrapeKubernetes(ctxFor(), {
      relationships: [{ kind: { value: 'ConfigMap' }, name: { expr: "metadata.name + '-config'" }, namespace: { expr: 'metadata.namespace' } }],
    });
    const link = r.relationships.find((l) => l.relation === 'ConfigMapDeployment');
    expect(link).toEqual({
      from: { type: 'Kubernetes::ConfigMap', externalId: item(r, 'ConfigMap', 'web-config').externalId },
      to: { type: 'Kubernetes::Deployment', externalId: item(r, 'Deployment', 'web').externalId },
      relation: 'ConfigMapDeployment',
    });
    const bad = await scrapeKubernetes(ctxFor(), { relationships: [{ name: { expr: 'metadata.name +' } }] });
    expect(bad.errors.some((e) => e.startsWith('relationships:'))).toBe(true);
    expect(bad.items.length).toBeGreaterThan(10); // the rest is still scraped
  });

  it('the common transforms: a field excluded for one type, a value masked', async () => {
    const r = await scrapeKubernetes(ctxFor(), {
      transform: {
        exclude: [{ jsonpath: '$.spec.template', types: ['Kubernetes::Deployment'] }],
        mask: [{ selector: "config_class == 'ConfigMap'", jsonpath: '$.data.mode', value: 'hidden' }],
      },
    });
    expect(r.errors).toEqual([]);
    expect((item(r, 'Deployment', 'web').config as { spec: Record<string, unknown> }).spec.template).toBeUndefined();
    expect((item(r, 'StatefulSet', 'db').config as { spec: Record<string, unknown> }).spec.template).toBeDefined();
    expect((item(r, 'ConfigMap', 'web-config').config as { data: Record<string, string> }).data.mode).toBe('hidden');
  });

  it('a kind the identity may not list makes the run partial and names it', async () => {
    kube.addToken('pods-only', { user: 'pods-reader', groups: ['catalog-readers'] });
    await apply(`
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: catalog-pods }
rules: [{ apiGroups: [""], resources: [pods, namespaces, nodes], verbs: [get, list, watch] }]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: catalog-pods }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: catalog-pods }
subjects: [{ apiGroup: rbac.authorization.k8s.io, kind: Group, name: catalog-readers }]
`);
    const limited = kube.writeKubeconfig(join(dir, 'limited'), { token: 'pods-only' });
    const r = await scrapeKubernetes(ctxFor(limited), {});
    expect(r.complete).toBe(false);
    expect(r.errors.some((e) => e.startsWith('list deployments.apps:') && e.includes('403'))).toBe(true);
    expect(r.items.some((i) => i.name === 'web-5d9f-abcde')).toBe(true);
  });

  it('another cluster through the kubeconfig EnvVar', async () => {
    const { readFileSync } = await import('node:fs');
    const ctx = { ...ctxFor(), kube: undefined };
    const r = await scrapeKubernetes(ctx, { kubeconfig: { value: readFileSync(kubeconfig, 'utf8') }, clusterName: 'other' });
    expect(r.complete).toBe(true);
    expect(item(r, 'Cluster', 'other')).toBeTruthy();
    const byPath = await scrapeKubernetes(ctx, { kubeconfig: { value: kubeconfig } });
    expect(byPath.items.length).toBe(r.items.length);
  });
});
