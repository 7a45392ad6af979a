import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogLine, LogsResponse } from '../../server/contracts/logs.js';
import { setLogsTimings } from '../../server/modules/logs/index.js';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';

// The kubernetes log backend against the Kubernetes API test server: pods/{name}/log through client-node's Log.

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
let kube: KubeApi;
let t: TestContext;
let dir: string;
let base: string;
let headers: Record<string, string>;
let id: string;
let missing: string;

beforeAll(async () => {
  setLogsTimings({ timeoutMs: 3_000, pollMs: 100, firstBatch: 10, batch: 100 });
  kube = await startKubeApi({ crdsDir: join(root, 'crds') });
  dir = mkdtempSync(join(tmpdir(), 'logs-kube-'));
  const kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
  kube.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
  kube.apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', namespace: 'shop' }, spec: { containers: [{ name: 'web', image: 'web' }] } });
  kube.appendPodLog('shop', 'web-1', 'web', 'INFO started\nWARN slow request /cart\nERROR payment failed\nINFO served /cart\n');
  t = await createTestApp({ KUBECONFIG: kubeconfig, POD_NAME: 'console-logs-kube', POD_NAMESPACE: 'default' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  headers = await bearerHeaders(t.db, (await makePerson(t.db, { roles: ['viewer'] })).id);
  await t.db.query('INSERT INTO logging_backends (name, namespace, spec) VALUES ($1, $2, $3)',
    ['cluster', 'default', JSON.stringify({ backends: [{ kubernetes: { routes: [{ type: 'KubernetesPod' }] } }] })]);
  const sel = JSON.stringify([{ name: 'pod', type: 'KubernetesPod' }]);
  id = (await t.db.query<{ id: string }>(`INSERT INTO components (name, external_id, type, log_selectors) VALUES ('web-1', 'shop/web-1', 'Pod', $1) RETURNING id`, [sel])).rows[0].id;
  missing = (await t.db.query<{ id: string }>(`INSERT INTO components (name, external_id, type, log_selectors) VALUES ('gone', 'shop/gone', 'Pod', $1) RETURNING id`, [sel])).rows[0].id;
});

afterAll(async () => {
  setLogsTimings();
  await t?.close();
  await kube?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const post = (body: unknown) => t.app.inject({ method: 'POST', url: '/api/logs', headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(body) });

describe('kubernetes backend', () => {
  it("a pod's log, newest first, with pod labels and guessed severity; text search; a missing pod is 502 naming the backend", async () => {
    const res = await post({ id });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as LogsResponse;
    expect(body.results.map((l) => l.message)).toEqual(['INFO served /cart', 'ERROR payment failed', 'WARN slow request /cart', 'INFO started']);
    expect(body.results[1]).toMatchObject({ severity: 'error', labels: { namespace: 'shop', pod: 'web-1' } });
    expect(body.results[2].severity).toBe('warn');
    const cart = (await post({ id, query: '/cart' })).json() as LogsResponse;
    expect(cart.results).toHaveLength(2);
    expect((await post({ id, limit: 1 })).json().results).toHaveLength(1);
    const gone = await post({ id: missing });
    expect(gone.statusCode).toBe(502);
    expect(gone.json().error).toMatch(/^kubernetes backend: pod shop\/gone/);
  });

  it('follow streams lines the container writes until the client leaves', async () => {
    const ac = new AbortController();
    const res = await fetch(`${base}/api/logs`, {
      method: 'POST', signal: ac.signal, headers: { ...headers, 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: JSON.stringify({ id, follow: true, query: 'tick' }),
    });
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let text = '';
    const nextLine = async (): Promise<Record<string, unknown>> => {
      while (!text.includes('\n')) text += dec.decode((await reader.read()).value, { stream: true });
      const i = text.indexOf('\n');
      const line = text.slice(0, i);
      text = text.slice(i + 1);
      return JSON.parse(line) as Record<string, unknown>;
    };
    expect(await nextLine()).toEqual({ live: true });
    kube.appendPodLog('shop', 'web-1', 'web', 'INFO tick 1\n');
    expect(((await nextLine()) as LogLine).message).toBe('INFO tick 1');
    kube.appendPodLog('shop', 'web-1', 'web', 'noise\nERROR tick 2\n');
    expect((await nextLine())).toMatchObject({ message: 'ERROR tick 2', severity: 'error' });
    ac.abort();
  });
});
