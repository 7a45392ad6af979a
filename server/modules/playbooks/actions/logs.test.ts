import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { LogsAction } from '../../../contracts/playbook-actions/logs.js';
import { playbookSpecProblems } from '../spec.js';
import { renderTemplates, type TemplateEnv } from '../templates.js';
import { startKubeApi, type KubeApi } from '../../../../tests/support/kube-api/index.js';
import { logsAction, timeOf } from './logs.js';
import { createTestDb, testContext, type TestDb } from './test-context.js';

let db: TestDb;
let api: KubeApi;
let kube: KubeConfig;
let dir: string;
let hang: Server;

const pod = (name: string, labels: Record<string, string>, containers = ['app']) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'shop', labels },
  spec: { containers: containers.map((c) => ({ name: c, image: 'busybox' })) },
});

async function running(name: string) {
  for (let i = 0; i < 100; i++) {
    if ((api.get('', 'v1', 'pods', 'shop', name)?.status as { phase?: string } | undefined)?.phase === 'Running') return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${name} never ran`);
}

beforeAll(async () => {
  db = await createTestDb();
  api = await startKubeApi({ podLifecycle: true });
  dir = await mkdtemp(join(tmpdir(), 'logs-action-'));
  kube = new KubeConfig();
  kube.loadFromFile(api.writeKubeconfig(join(dir, 'kubeconfig'), { namespace: 'default' }));
  api.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
  api.apply({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' },
    spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'x' }] } } },
  });
  api.apply(pod('web-1', { app: 'web' }));
  api.apply(pod('web-2', { app: 'web' }, ['app', 'sidecar']));
  api.apply(pod('db-1', { app: 'db' }));
  for (const p of ['web-1', 'web-2', 'db-1']) await running(p);
  api.appendPodLog('shop', 'web-1', 'app', 'GET /a 200\nGET /b 500 ERROR\n');
  await new Promise((r) => setTimeout(r, 20));
  api.appendPodLog('shop', 'web-2', 'app', 'GET /c 200\nGET /c 200\n');
  api.appendPodLog('shop', 'web-2', 'sidecar', 'proxy ready\n');
  api.appendPodLog('shop', 'db-1', 'app', 'checkpoint\n');
  hang = createServer(() => {});
  await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
});

afterAll(async () => {
  hang.closeAllConnections();
  await new Promise((r) => hang.close(r));
  await api.stop();
  await rm(dir, { recursive: true, force: true });
  await db.close();
});

const run = (kubernetes: Record<string, unknown>, extra: Record<string, unknown> = {}, k = kube) =>
  logsAction.run({ kubernetes, ...extra }, testContext(db.pool, { kube: k })) as Promise<{ logs: Array<Record<string, unknown>> }>;

describe('logs action (kubernetes)', () => {
  it('reads a pod by name: timestamp, message, host, container, labels', async () => {
    const { logs } = await run({ kind: 'Pod', namespace: 'shop', name: 'web-1' });
    expect(logs.map((l) => l.message)).toEqual(['GET /a 200', 'GET /b 500 ERROR']);
    expect(logs[0]).toMatchObject({ host: 'web-1', container: 'app', namespace: 'shop', labels: { app: 'web' }, count: 1 });
    expect(Date.parse(logs[0].timestamp as string)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('reads the pods a Deployment selects, every container, oldest first', async () => {
    const { logs } = await run({ kind: 'Deployment', namespace: 'shop', name: 'web' });
    expect(logs.map((l) => `${l.host}/${l.container}: ${l.message}`)).toEqual([
      'web-1/app: GET /a 200', 'web-1/app: GET /b 500 ERROR', 'web-2/app: GET /c 200', 'web-2/app: GET /c 200', 'web-2/sidecar: proxy ready',
    ]);
  });

  it('selects pods by label and name glob, filters containers, limits, dedupes and matches', async () => {
    expect((await run({ namespace: 'shop', pods: [{ labelSelector: 'app in (web,db)', name: 'web-*' }], containers: ['side*'] })).logs.map((l) => l.message))
      .toEqual(['proxy ready']);
    expect((await run({ namespace: 'shop', name: 'web-1', limit: 1 })).logs.map((l) => l.message)).toEqual(['GET /b 500 ERROR']);
    expect((await run({ kind: 'Deployment', namespace: 'shop', name: 'web', containers: ['app'] }, { dedupe: { fields: ['message'] } })).logs).toHaveLength(3);
    expect((await run({ kind: 'Deployment', namespace: 'shop', name: 'web' }, { match: ['message.contains("ERROR")', 'container == "sidecar"'] })).logs.map((l) => l.message))
      .toEqual(['GET /b 500 ERROR', 'proxy ready']);
  });

  it('start and end bound the lines (now-1h, 1h, RFC 3339)', async () => {
    expect((await run({ namespace: 'shop', name: 'db-1', start: 'now-1h' })).logs).toHaveLength(1);
    expect((await run({ namespace: 'shop', name: 'db-1', end: 'now-1h' })).logs).toHaveLength(0);
    expect((await run({ namespace: 'shop', name: 'db-1', start: new Date(Date.now() + 60_000).toISOString() })).logs).toHaveLength(0);
    expect(timeOf('1h', 'start', 10_000_000)).toBe(10_000_000 - 3_600_000);
    expect(() => timeOf('yesterday', 'start')).toThrow('start must be like now-1h');
  });

  it('fails on a missing pod or deployment and without a cluster', async () => {
    await expect(run({ namespace: 'shop', name: 'nope' })).rejects.toThrow(/pods "nope" not found/);
    await expect(run({ kind: 'Deployment', namespace: 'shop', name: 'nope' })).rejects.toThrow(/not found/);
    await expect(logsAction.run({ kubernetes: { name: 'x' } }, testContext(db.pool))).rejects.toThrow('no Kubernetes cluster connection');
  });

  it('stops waiting on a hanging API server on cancel', async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${(hang.address() as AddressInfo).port}`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 't' }], contexts: [{ name: 'x', cluster: 'c', user: 'u' }], currentContext: 'x',
    });
    const ctx = testContext(db.pool, { kube: kc });
    const p = logsAction.run({ kubernetes: { namespace: 'shop', name: 'web-1' } }, ctx);
    setTimeout(() => ctx.controller.abort(new Error('cancelled')), 300);
    await expect(p).rejects.toThrow('cancelled');
  });
});

/** The reference's fixtures/playbooks/logs/k8s.yaml (flanksource/mission-control), its spec as written. */
const K8S_LOGS_FIXTURE = parse(`
title: Kubernetes Logs
icon: logs
category: Logs
description: Fetch logs from Kubernetes
configs:
  - types:
      - Kubernetes::Pod
      - Kubernetes::Deployment
      - Kubernetes::StatefulSet
      - Kubernetes::DaemonSet
parameters:
  - name: limit
    label: Limit
    description: The maximum number of logs to fetch
    required: false
    default: "100"
actions:
  - name: Fetch logs from Loki
    logs:
      kubernetes:
        kind: $(.config.config_class)
        apiVersion: $(.config.config.apiVersion)
        namespace: $(.config.tags.namespace)
        name: $(.config.name)
        limit: $(.params.limit)
        start: now-2h
`) as { actions: Array<{ logs: Record<string, unknown> }> };

describe('logs action: a templated kind', () => {
  const env = (config: Record<string, unknown>): TemplateEnv => ({ params: { limit: '100' }, config, run: {}, playbook: {}, env: {} });
  const rendered = (config: Record<string, unknown>) =>
    renderTemplates(K8S_LOGS_FIXTURE.actions[0].logs, env(config), () => undefined) as Record<string, unknown>;

  it('is accepted at save (the reference fixture has no problems); a literal kind is still checked there', () => {
    expect(playbookSpecProblems(K8S_LOGS_FIXTURE)).toEqual([]);
    expect(LogsAction.safeParse({ kubernetes: { kind: '{{ .config.config_class }}', name: 'x' } }).success).toBe(true);
    const literal = playbookSpecProblems({ actions: [{ name: 'l', logs: { kubernetes: { kind: 'CronJob', name: 'x' } } }] });
    expect(literal).toEqual([{ path: 'spec.actions[0].logs.kubernetes.kind', message: expect.stringMatching(/^must be one of Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet/) }]);
  });

  it('runs with what the config renders to (config_class Deployment)', async () => {
    const block = rendered({ name: 'web', config_class: 'Deployment', tags: { namespace: 'shop' }, config: { apiVersion: 'apps/v1' } });
    expect((block.kubernetes as Record<string, unknown>).kind).toBe('Deployment');
    const { logs } = await logsAction.run(block, testContext(db.pool, { kube })) as { logs: Array<{ host: string }> };
    expect(new Set(logs.map((l) => l.host))).toEqual(new Set(['web-1', 'web-2']));
  });

  it('fails the action when it renders to another kind, naming the field and the value', async () => {
    const block = rendered({ name: 'nightly', config_class: 'CronJob', tags: { namespace: 'shop' }, config: { apiVersion: 'batch/v1' } });
    await expect(logsAction.run(block, testContext(db.pool, { kube })))
      .rejects.toThrow('logs: kubernetes.kind: must be one of Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet (got "CronJob")');
    // what renders to something that looks like a template is a value too
    await expect(run({ kind: '{{ .x }}', namespace: 'shop', name: 'web' })).rejects.toThrow('logs: kubernetes.kind: must be one of Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet (got "{{ .x }}")');
    await expect(run({ kind: '', namespace: 'shop', name: 'web' })).rejects.toThrow('(got "")');
    // other rendered fields are checked with their value too
    await expect(run({ namespace: 'shop', name: 'web-1', limit: 'many' })).rejects.toThrow('logs: limit must be a whole number (got many)');
  });
});
