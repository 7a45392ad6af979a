import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeApi, type KubeApi } from '../../../../tests/support/kube-api/index.js';
import { POD_LABEL_PREFIX, podAction } from './pod.js';
import { createTestDb, testContext, type TestDb } from './test-context.js';
import { ActionFailedError } from './types.js';

let db: TestDb;
let api: KubeApi;
let kube: KubeConfig;
let dir: string;

beforeAll(async () => {
  db = await createTestDb();
  api = await startKubeApi({ podLifecycle: true });
  dir = await mkdtemp(join(tmpdir(), 'pod-action-'));
  kube = new KubeConfig();
  kube.loadFromFile(api.writeKubeconfig(join(dir, 'kubeconfig'), { namespace: 'default' }));
});

afterAll(async () => {
  await api.stop();
  await rm(dir, { recursive: true, force: true });
  await db.close();
});

/** A kubeconfig whose API server refuses connections. */
function brokenKube(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

const pods = () => api.list('', 'v1', 'pods', 'default');
const container = (command: string[]) => ({ spec: { containers: [{ name: 'main', image: 'busybox', command }] } });

describe('pod action', () => {
  it('runs a pod to completion, streams its log, returns {logs} and deletes the pod', async () => {
    const ctx = testContext(db.pool, { kube });
    const result = await podAction.run({ name: 'hello', ...container(['sh', '-c', 'echo hello; echo world']) }, ctx);
    expect(result).toEqual({ logs: 'hello\nworld\n' });
    expect(ctx.lines.filter((l) => l.stream === 'stdout').map((l) => l.text).join('')).toBe('hello\nworld\n');
    expect(ctx.output()).toMatch(/pod default\/hello-[a-z0-9-]+ deleted/);
    expect(pods()).toEqual([]);
  });

  it('keeps the last maxLength characters', async () => {
    const result = await podAction.run({ maxLength: 6, ...container(['sh', '-c', 'echo first; echo second']) }, testContext(db.pool, { kube }));
    expect(result).toEqual({ logs: 'econd\n'.slice(-6) });
  });

  it('labels the pod with the run and forces restartPolicy Never', async () => {
    const ctx = testContext(db.pool, { kube });
    const p = podAction.run({ name: 'labelled', ...container(['sleep', '30']) }, ctx);
    let pod;
    for (let i = 0; i < 100 && !(pod = pods()[0]); i++) await new Promise((r) => setTimeout(r, 100));
    expect(pod!.metadata.labels).toMatchObject({ [`${POD_LABEL_PREFIX}/playbookRunID`]: ctx.runId, [`${POD_LABEL_PREFIX}/pod-action`]: 'true' });
    expect((pod!.spec as { restartPolicy: string }).restartPolicy).toBe('Never');
    ctx.controller.abort(new Error('cancelled'));
    await expect(p).rejects.toThrow('cancelled');
  });

  it('fails when the pod fails, with its exit code, the logs kept in the result', async () => {
    const err = await podAction.run(container(['sh', '-c', 'echo about to fail; exit 3']), testContext(db.pool, { kube })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ActionFailedError);
    expect((err as Error).message).toMatch(/failed: container main exited with code 3 \(Error\)/);
    expect((err as ActionFailedError).result).toEqual({ logs: 'about to fail\n' });
    expect(pods()).toEqual([]);
  });

  it('deletes the pod at once on cancel (the engine aborts the same signal on timeout)', async () => {
    const ctx = testContext(db.pool, { kube });
    const p = podAction.run(container(['sh', '-c', 'echo started; sleep 60']), ctx);
    for (let i = 0; i < 100 && !ctx.output().includes('started'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(ctx.output()).toContain('started');
    ctx.controller.abort(new Error('cancelled by alice'));
    await expect(p).rejects.toThrow('cancelled by alice');
    expect(pods()).toEqual([]);
  });

  it('fails at once when a container cannot start (image pull error), deleting the pod', async () => {
    const ctx = testContext(db.pool, { kube });
    const p = podAction.run({ name: 'stuck', ...container([]) }, ctx);
    let pod;
    for (let i = 0; i < 100 && !(pod = pods()[0]); i++) await new Promise((r) => setTimeout(r, 20));
    // what a kubelet reports for an image it cannot pull, before the stand-in one starts the pod
    api.apply({ ...pod!, status: { phase: 'Pending', containerStatuses: [{ name: 'main', state: { waiting: { reason: 'ErrImagePull', message: 'not found' } } }] } });
    await expect(p).rejects.toThrow(/cannot start: container main ErrImagePull: not found/);
    expect(pods()).toEqual([]);
  });

  it('fails without a cluster, on a name the contract refuses, and when the API server cannot be reached', async () => {
    await expect(podAction.run(container(['true']), testContext(db.pool))).rejects.toThrow('no Kubernetes cluster connection');
    await expect(podAction.run({ name: 'Bad_Name', spec: { containers: [{ name: 'x', image: 'y', command: ['true'] }] } }, testContext(db.pool, { kube })))
      .rejects.toThrow(/DNS-1123/);
    // the API server's own refusal (a container without a name gets past no real API server)
    await expect(podAction.run({ spec: { containers: [{ name: 'x', image: 'y' }], volumes: 'not-a-list' } }, testContext(db.pool, { kube: brokenKube() })))
      .rejects.toThrow(/pod: could not create/);
  });
});
