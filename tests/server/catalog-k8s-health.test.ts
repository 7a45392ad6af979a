import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../server/modules/kubernetes/objects.js';
import { analyzeKubernetes, ANALYZERS, usesLatest } from '../../server/modules/catalog/kubernetes/analyzers.js';
import { kubernetesHealth } from '../../server/modules/catalog/kubernetes/health.js';

/**
 * Kubernetes health per kind, against flanksource/is-healthy's own fixtures (tests/fixtures/is-healthy, Apache-2.0):
 * each fixture carries is-healthy's expectations as `expected-*` annotations, or names its health in its file name.
 * Then the insights analyzers: failing pods, unavailable replicas and Trivy's misconfiguration checks.
 */
const DIR = join(import.meta.dirname, '../fixtures/is-healthy');
const NOW = new Date();

/** is-healthy's test placeholders: `@now`, `@now-5m`, `@now+1h`, … as RFC 3339 times relative to the test clock. */
function withTimes(text: string): string {
  return text.replace(/@now(?:([+-])(\d+)([mhd]))?/g, (_m, sign?: string, n?: string, unit?: string) => {
    const ms = sign ? (sign === '-' ? -1 : 1) * Number(n) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[unit as 'm' | 'h' | 'd'] : 0;
    return new Date(NOW.getTime() + ms).toISOString().replace(/\.\d+Z$/, 'Z');
  });
}

function loadFixture(path: string): KubeObject & { metadata: { annotations?: Record<string, string> } } {
  const [doc] = parseAllDocuments(withTimes(readFileSync(join(DIR, path), 'utf8')));
  return doc.toJS() as KubeObject & { metadata: { annotations?: Record<string, string> } };
}

const HEALTHS = ['healthy', 'unhealthy', 'warning', 'unknown'];
const annotated = readdirSync(DIR, { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== 'misc')
  .flatMap((d) => readdirSync(join(DIR, d.name)).filter((f) => f.endsWith('.yaml')).map((f) => `${d.name}/${f}`))
  // the ones stating an expectation (a few of is-healthy's fixtures are only read by its other tests)
  .filter((p) => HEALTHS.includes(p.split('/')[1].replace(/\.yaml$/, '')) || /expected-/.test(readFileSync(join(DIR, p), 'utf8')));

describe('kubernetesHealth against is-healthy fixtures', () => {
  it('covers every kind the brief names', () => {
    const kinds = new Set(annotated.map((p) => p.split('/')[0]));
    for (const k of ['Pod', 'Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'Node', 'Namespace', 'Service']) expect(kinds).toContain(k);
  });

  it.each(annotated)('%s', (path) => {
    const obj = loadFixture(path);
    const a = obj.metadata.annotations ?? {};
    const got = kubernetesHealth(obj, NOW);
    const base = path.split('/').pop()!.replace(/\.yaml$/, '');
    const want: Record<string, unknown> = {};
    const have: Record<string, unknown> = {};
    if (HEALTHS.includes(base)) { want.health = base; have.health = got.health; }
    if (a['expected-health']) { want.health = a['expected-health']; have.health = got.health; }
    if (a['expected-status'] !== undefined) { want.status = a['expected-status']; have.status = got.status; }
    if (a['expected-message'] !== undefined) { want.message = a['expected-message']; have.message = got.message ?? ''; }
    if (a['expected-ready'] !== undefined) { want.ready = a['expected-ready'] === 'true'; have.ready = got.ready; }
    expect(Object.keys(want).length, 'the fixture states an expectation').toBeGreaterThan(0);
    expect(have).toEqual(want);
  });

  // is-healthy's health_test.go asserts these files by name (status, health, ready[, message])
  it.each([
    ['misc/namespace.yaml', 'Healthy', 'unknown', true],
    ['misc/namespace-terminating.yaml', 'Terminating', 'unknown', false],
    ['misc/daemonset-ondelete.yaml', 'Running', 'healthy', true],
    ['misc/pvc-bound.yaml', 'Healthy', 'healthy', true],
    ['misc/pvc-pending.yaml', 'Progressing', 'healthy', false],
    ['misc/ingress.yaml', 'Healthy', 'healthy', true],
    ['misc/ingress-unassigned.yaml', 'Pending', 'healthy', false],
    ['misc/ingress-nonemptylist.yaml', 'Healthy', 'healthy', true],
    ['Pod/pod-crashed-once.yaml', 'CrashedOnce', 'unhealthy', false, 'restarted 1 time'],
  ] as const)('%s is %s (%s)', (path, status, health, ready, message?: string) => {
    const got = kubernetesHealth(loadFixture(path), NOW);
    expect({ status: got.status, health: got.health, ready: got.ready }).toEqual({ status, health, ready });
    if (message) expect(got.message).toBe(message);
  });
});

const obj = (o: Record<string, unknown>) => o as unknown as KubeObject;

describe('kubernetesHealth beyond the fixtures', () => {
  const at = (mins: number) => new Date(NOW.getTime() - mins * 60_000).toISOString();

  it('reads Ready, else Available, conditions of custom resources and leaves event-less kinds unknown', () => {
    const cr = (conditions: unknown[]) => obj({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, status: { conditions } });
    expect(kubernetesHealth(cr([{ type: 'Ready', status: 'True', reason: 'Reconciled' }]), NOW)).toEqual({ health: 'healthy', status: 'Reconciled', ready: true });
    expect(kubernetesHealth(cr([{ type: 'Ready', status: 'False', reason: 'InstallFailed' }]), NOW)).toMatchObject({ health: 'unhealthy', status: 'InstallFailed', ready: false });
    expect(kubernetesHealth(cr([{ type: 'Available', status: 'False', reason: 'NoEndpoints' }]), NOW)).toMatchObject({ health: 'unhealthy', status: 'NoEndpoints' });
    for (const kind of ['ConfigMap', 'Secret']) {
      expect(kubernetesHealth(obj({ apiVersion: 'v1', kind, metadata: { name: 'x' }, data: { a: 'b' } }), NOW)).toEqual({ health: 'unknown', status: '', ready: false });
    }
  });

  it('marks an object being deleted Terminating, and a warning after an hour', () => {
    const ns = (deletionTimestamp: string) => obj({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', deletionTimestamp } });
    expect(kubernetesHealth(ns(at(5)), NOW)).toMatchObject({ status: 'Terminating', ready: false });
    expect(kubernetesHealth(ns(at(185)), NOW)).toEqual({ health: 'warning', status: 'TerminatingStalled', message: 'terminating for 3h', ready: false });
  });

  it('judges a cordoned node, a lost PVC and cron jobs', () => {
    const node = obj({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, spec: { unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
    expect(kubernetesHealth(node, NOW)).toMatchObject({ health: 'warning', status: 'Unschedulable', ready: true });
    expect(kubernetesHealth(obj({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: {}, status: { phase: 'Lost' } }), NOW)).toMatchObject({ health: 'unhealthy', status: 'Degraded' });
    const cron = (status: Record<string, unknown>) => kubernetesHealth(obj({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: {}, status }), NOW);
    expect(cron({})).toMatchObject({ health: 'unknown', message: 'Not scheduled yet' });
    expect(cron({ lastScheduleTime: '2026-01-02T03:00:00Z', lastSuccessfulTime: '2026-01-02T03:01:05Z' }))
      .toEqual({ health: 'healthy', status: 'Completed', ready: true, message: 'Last run at 2026-01-02 03:00:00 +0000 for 1m5s' });
    expect(cron({ lastScheduleTime: '2026-01-02T03:00:00Z', lastSuccessfulTime: '2026-01-01T03:00:00Z' })).toMatchObject({ health: 'unhealthy', status: 'Error' });
  });
});

const safe = { resources: { limits: { cpu: '500m', memory: '256Mi' } }, securityContext: { runAsNonRoot: true } };
const deployment = (containers: unknown[], extra: Record<string, unknown> = {}) => obj({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop', uid: 'd-1' },
  spec: { replicas: 3, template: { spec: { containers } } }, status: { replicas: 3, availableReplicas: 3, readyReplicas: 3 }, ...extra,
});
const analyzers = (objs: KubeObject[]) => analyzeKubernetes(objs).map((a) => `${a.item.type}/${a.item.externalId} ${a.analyzer} ${a.analysisType} ${a.severity}`).sort();

describe('analyzeKubernetes', () => {
  it('finds nothing wrong with a well-configured, available deployment', () => {
    expect(analyzeKubernetes([deployment([{ name: 'api', image: 'shop/api:1.4.2', ...safe }])])).toEqual([]);
  });

  it("reports Trivy's misconfigurations once per workload, with Trivy's titles, ids and container messages", () => {
    const found = analyzeKubernetes([deployment([{ name: 'api', image: 'shop/api' }, { name: 'proxy', image: 'envoy:latest', ...safe }])]);
    expect(found.map((a) => `${a.analyzer} ${a.analysisType} ${a.severity}`).sort()).toEqual([
      'CPU not limited reliability low', 'Image tag ":latest" used reliability medium', 'Memory not limited reliability low',
      'Runs as root user security medium',
    ]);
    const latest = found.find((a) => a.analyzer === ANALYZERS.latest)!;
    expect(latest.item).toEqual({ type: 'Kubernetes::Deployment', externalId: 'd-1' });
    expect(latest.message).toBe("Container 'api' of Deployment 'web' should specify an image tag\nContainer 'proxy' of Deployment 'web' should specify an image tag");
    expect(latest.analysis).toMatchObject({ id: 'KSV013' });
    expect(found.find((a) => a.analyzer === ANALYZERS.cpu)!.message).toBe("Container 'api' of Deployment 'web' should set 'resources.limits.cpu'");
  });

  it('leaves owned objects (ReplicaSets, Pods of a Deployment) to their owner, and reads a pod-level runAsNonRoot', () => {
    const pod = obj({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', uid: 'p-1', ownerReferences: [{ kind: 'ReplicaSet', name: 'web-x' }] },
      spec: { containers: [{ name: 'api', image: 'api:latest' }] }, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    });
    expect(analyzeKubernetes([pod])).toEqual([]);
    const job = obj({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'backup', uid: 'c-1' }, spec: { jobTemplate: { spec: { template: { spec: {
      securityContext: { runAsNonRoot: true }, containers: [{ name: 'b', image: 'backup:2.0', resources: { limits: { cpu: 1, memory: '1Gi' } } }],
    } } } } } });
    expect(analyzeKubernetes([job])).toEqual([]);
  });

  it('reports failing pods: CrashLoopBackOff, ImagePullBackOff, running but not ready (is-healthy fixtures)', () => {
    const owned = (path: string, uid: string) => {
      const o = loadFixture(path);
      // owned, so only the failing-pod analyzers speak
      return obj({ ...o, metadata: { ...o.metadata, uid, ownerReferences: [{ kind: 'ReplicaSet', name: 'x' }] } });
    };
    expect(analyzers([owned('Pod/crashloopbackoff.yaml', 'p-crash'), owned('Pod/pod-imagepullbackoff.yaml', 'p-pull'),
      owned('Pod/pod-never-ready.yaml', 'p-unready'), owned('Pod/healthy.yaml', 'p-ok')])).toEqual([
      'Kubernetes::Pod/p-crash CrashLoopBackOff availability high',
      'Kubernetes::Pod/p-pull ImagePullBackOff availability high',
      'Kubernetes::Pod/p-unready Pod not ready availability medium',
    ]);
    const crash = analyzeKubernetes([owned('Pod/crashloopbackoff.yaml', 'p-crash')])[0];
    expect(crash.message).toMatch(/^main: Back-off/);
  });

  it('reports unavailable replicas: high when none is available, medium when some are', () => {
    const d = (available: number) => deployment([{ name: 'api', image: 'api:1', ...safe }], { status: { replicas: 3, availableReplicas: available } });
    const none = analyzeKubernetes([d(0)]);
    expect(none).toMatchObject([{ analyzer: 'Unavailable replicas', severity: 'high', message: '0 of 3 replicas available' }]);
    expect(analyzeKubernetes([d(2)])).toMatchObject([{ severity: 'medium', summary: "Deployment 'web' has 1 unavailable replica" }]);
    const ds = obj({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent', uid: 'ds-1', ownerReferences: [{}] },
      status: { desiredNumberScheduled: 4, numberAvailable: 3 } });
    expect(analyzers([ds])).toEqual(['Kubernetes::DaemonSet/ds-1 Unavailable replicas availability medium']);
  });

  it("reads image tags as Trivy does (a digest is pinned; a registry port is not a tag)", () => {
    expect(['nginx', 'nginx:latest', 'registry:5000/team/app', 'ghcr.io/a/b:latest'].every(usesLatest)).toBe(true);
    expect(['nginx:1.27', 'registry:5000/team/app:2.1', 'nginx@sha256:abc'].some(usesLatest)).toBe(false);
  });
});
