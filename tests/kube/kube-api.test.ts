/**
 * The Kubernetes API test server, driven by the real clients: the kubectl binary from the npm layer package and
 * @kubernetes/client-node 1.4.0 (informers included), plus raw HTTPS where the wire format itself is the point.
 */
import { request } from 'node:https';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { jsonPatch, mergePatch, strategicMergePatch, type JsonObject } from '../support/kube-api/patch.js';
import { evalPath, humanDuration } from '../support/kube-api/table.js';
import { helm, kubectl } from '../support/kube-tools.js';

const FIXTURES = join(import.meta.dirname, '../support/kube-api/fixtures');
const W = { group: 'example.com', version: 'v1', plural: 'widgets' };

let api: KubeApi;
let dir: string;
let kubeconfig: string;
let kc: KubeConfig;
let custom: CustomObjectsApi;

beforeAll(async () => {
  api = await startKubeApi({ crdsDir: join(FIXTURES, 'crds'), bookmarkIntervalMs: 200 });
  dir = await mkdtemp(join(tmpdir(), 'kube-api-test-'));
  kubeconfig = api.writeKubeconfig(join(dir, 'kubeconfig.yaml'));
  kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  custom = kc.makeApiClient(CustomObjectsApi);
});

afterAll(async () => {
  await api?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function widget(name: string, spec: Record<string, unknown>, labels?: Record<string, string>) {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'default', labels }, spec };
}

/** The Status object of a failed client-node call. */
async function statusOf(p: Promise<unknown>): Promise<{ code: number; reason: string; message: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { code?: number; body?: unknown };
    const body = typeof e.body === 'string' ? JSON.parse(e.body) : e.body;
    return { code: e.code ?? body.code, reason: body.reason, message: body.message };
  }
  throw new Error('expected the call to fail');
}

/** A raw HTTPS request to the server (certificate checked against its CA). */
function raw(
  method: string,
  path: string,
  opts: { headers?: Record<string, string | string[]>; body?: unknown; token?: string | null } = {},
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[]> = { Accept: 'application/json', ...opts.headers };
    if (opts.token !== null) headers.Authorization = `Bearer ${opts.token ?? api.token}`;
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    if (payload) headers['Content-Type'] ??= 'application/json';
    const req = request(`${api.url}${path}`, { method, headers, ca: api.ca }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Open a watch and collect its events until `until` says enough (or the server ends the stream). */
function watchEvents(path: string, until: (events: any[]) => boolean): Promise<any[]> {
  return new Promise((resolve, reject) => {
    const events: any[] = [];
    const req = request(`${api.url}${path}`, { headers: { Authorization: `Bearer ${api.token}` }, ca: api.ca }, (res) => {
      let buf = '';
      res.on('data', (d) => {
        buf += d;
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          events.push(JSON.parse(buf.slice(0, i)));
          buf = buf.slice(i + 1);
          if (until(events)) {
            req.destroy();
            resolve(events);
            return;
          }
        }
      });
      res.on('end', () => resolve(events));
    });
    req.on('error', (err) => (events.length ? resolve(events) : reject(err)));
    req.end();
  });
}

/** Wait for a condition driven by events (no fixed sleeps deciding the outcome; the deadline only bounds a hang). */
async function eventually(check: () => boolean, what: string, timeoutMs = 20_000) {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('kube tools from the npm layer package', () => {
  it('runs the real kubectl and helm binaries', async () => {
    const k = await kubectl(kubeconfig, ['version', '--client']);
    expect(k.code).toBe(0);
    expect(k.stdout).toMatch(/Client Version: v1\.35\./);
    const h = await helm(['version', '--short']);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/^v4\./);
  });
});

describe('kubectl against the server', () => {
  it('applies, reads (YAML and table), re-applies with a change, and deletes a custom resource', async () => {
    const file = join(FIXTURES, 'widget-red.yaml');
    const created = await kubectl(kubeconfig, ['apply', '-f', file]);
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('widget.example.com/red-one created');

    const yaml = await kubectl(kubeconfig, ['get', 'widget', 'red-one', '-o', 'yaml']);
    const obj = parseYaml(yaml.stdout);
    expect(obj).toMatchObject({ apiVersion: 'example.com/v1', kind: 'Widget', spec: { color: 'red', size: 3 } });
    expect(obj.metadata).toMatchObject({ name: 'red-one', namespace: 'default', generation: 1 });
    expect(obj.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(obj.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toContain('"size":3');

    const table = await kubectl(kubeconfig, ['get', 'widgets', '-A']);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0].split(/\s+/)).toEqual(['NAMESPACE', 'NAME', 'COLOR', 'SIZE', 'PHASE', 'AGE']);
    expect(lines[1]).toMatch(/^default\s+red-one\s+red\s+3\s+\d+s$/);

    const changed = (await readFile(file, 'utf8')).replace('size: 3', 'size: 4');
    const again = await kubectl(kubeconfig, ['apply', '-f', '-'], { input: changed });
    expect(again.stdout.trim()).toBe('widget.example.com/red-one configured');
    expect(api.get(W.group, W.version, W.plural, 'default', 'red-one')).toMatchObject({ spec: { size: 4 }, metadata: { generation: 2 } });
    const unchanged = await kubectl(kubeconfig, ['apply', '-f', '-'], { input: changed });
    expect(unchanged.stdout.trim()).toBe('widget.example.com/red-one unchanged');

    const del = await kubectl(kubeconfig, ['delete', '-f', file]);
    expect(del.stdout.trim()).toMatch(/^widget.example.com "red-one" deleted/);
    expect(api.get(W.group, W.version, W.plural, 'default', 'red-one')).toBeUndefined();
  });

  it('registers a CRD applied with kubectl: discovery, OpenAPI validation and storage follow', async () => {
    const crd = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.org}
spec:
  group: example.org
  scope: Cluster
  names: {kind: Gadget, plural: gadgets, singular: gadget, listKind: GadgetList}
  versions:
    - name: v1alpha1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                level: {type: integer, maximum: 10}
    - name: v1beta1
      served: true
      storage: false
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                level: {type: integer}
`;
    expect((await kubectl(kubeconfig, ['apply', '-f', '-'], { input: crd })).stdout.trim()).toBe(
      'customresourcedefinition.apiextensions.k8s.io/gadgets.example.org created',
    );
    const gadget = (level: unknown) => `{"apiVersion":"example.org/v1alpha1","kind":"Gadget","metadata":{"name":"g1"},"spec":{"level":${JSON.stringify(level)}}}`;
    expect((await kubectl(kubeconfig, ['apply', '-f', '-'], { input: gadget(3) })).stdout.trim()).toBe('gadget.example.org/g1 created');
    const tooHigh = await kubectl(kubeconfig, ['apply', '-f', '-'], { input: gadget(11) });
    expect(tooHigh.code).not.toBe(0);
    expect(tooHigh.stderr).toContain('spec.level');
    const got = await kubectl(kubeconfig, ['get', 'gadgets', '-o', 'jsonpath={.items[*].spec.level}']);
    expect(got.stdout).toBe('3');
    // every served version reads the same stored object (no conversion: only apiVersion differs)
    expect((await raw('GET', '/apis/example.org/v1beta1/gadgets/g1')).body).toMatchObject({ apiVersion: 'example.org/v1beta1', spec: { level: 3 } });
    expect((await raw('GET', '/apis')).body.groups.find((g: { name: string }) => g.name === 'example.org').preferredVersion.version).toBe('v1alpha1');
    // deleting the CRD takes its resources and its discovery entry along
    await kubectl(kubeconfig, ['delete', 'crd', 'gadgets.example.org']);
    expect((await raw('GET', '/apis/example.org/v1alpha1/gadgets')).status).toBe(404);
    expect((await raw('GET', '/apis')).body.groups.map((g: { name: string }) => g.name)).not.toContain('example.org');
  });

  it('rejects schema violations (422) and unknown fields under strict validation', async () => {
    const bad = await kubectl(kubeconfig, ['apply', '-f', '-'], {
      input: JSON.stringify(widget('bad', { color: 'purple', size: 'big' })),
    });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('The Widget "bad" is invalid');
    expect(bad.stderr).toContain('spec.color: Unsupported value: "purple"');
    expect(bad.stderr).toContain('spec.size: Invalid value: "big"');
    const unknown = await kubectl(kubeconfig, ['apply', '-f', '-'], { input: JSON.stringify(widget('odd', { color: 'red', bogus: 1 })) });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('strict decoding error: unknown field "spec.bogus"');
    expect(api.get(W.group, W.version, W.plural, 'default', 'bad')).toBeUndefined();
    expect(api.get(W.group, W.version, W.plural, 'default', 'odd')).toBeUndefined();
  });

  it('applies built-in kinds; a strategic merge patch updates one container by name', async () => {
    const manifest = (image: string) => `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - {name: app, image: "${image}", ports: [{containerPort: 8080, name: http}]}
        - {name: sidecar, image: "proxy:1"}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: http}]
---
apiVersion: v1
kind: Secret
metadata: {name: web-admin}
stringData: {password: s3cret}
`;
    const first = await kubectl(kubeconfig, ['apply', '-f', '-'], { input: manifest('web:1') });
    expect(first.stdout.trim().split('\n')).toEqual(['deployment.apps/web created', 'service/web created', 'secret/web-admin created']);
    const second = await kubectl(kubeconfig, ['apply', '-f', '-'], { input: manifest('web:2') });
    expect(second.stderr).toBe('');
    expect(second.stdout).toContain('deployment.apps/web configured');
    const deploy = api.get('apps', 'v1', 'deployments', 'default', 'web') as any;
    expect(deploy.spec.template.spec.containers.map((c: { image: string }) => c.image)).toEqual(['web:2', 'proxy:1']);
    expect(deploy.spec.template.spec.containers[0].ports).toEqual([{ containerPort: 8080, name: 'http' }]);
    expect(deploy.metadata.generation).toBe(2);
    const secret = api.get('', 'v1', 'secrets', 'default', 'web-admin') as any;
    expect(Buffer.from(secret.data.password, 'base64').toString()).toBe('s3cret');
    expect(secret.stringData).toBeUndefined();
    expect((api.get('', 'v1', 'services', 'default', 'web') as any).spec.clusterIP).toMatch(/^10\.96\./);
  });

  it('accepts the protobuf bodies of imperative kubectl create commands', async () => {
    expect((await kubectl(kubeconfig, ['create', 'namespace', 'imperative'])).stdout.trim()).toBe('namespace/imperative created');
    await kubectl(kubeconfig, ['create', 'configmap', 'cm', '-n', 'imperative', '--from-literal=a=1', '--from-literal=b=2']);
    await kubectl(kubeconfig, ['create', 'secret', 'generic', 'sec', '-n', 'imperative', '--from-literal=password=pw']);
    await kubectl(kubeconfig, ['create', 'rolebinding', 'rb', '-n', 'imperative', '--clusterrole=view', '--group=viewers', '--serviceaccount=imperative:bot']);
    expect(api.get('', 'v1', 'configmaps', 'imperative', 'cm')).toMatchObject({ data: { a: '1', b: '2' }, metadata: { namespace: 'imperative' } });
    expect(api.get('', 'v1', 'secrets', 'imperative', 'sec')).toMatchObject({ data: { password: Buffer.from('pw').toString('base64') } });
    expect(api.get('rbac.authorization.k8s.io', 'v1', 'rolebindings', 'imperative', 'rb')).toMatchObject({
      roleRef: { kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'Group', name: 'viewers' }, { kind: 'ServiceAccount', name: 'bot', namespace: 'imperative' }],
    });
    // kinds we cannot decode get a clear 415
    const deploy = await kubectl(kubeconfig, ['create', 'deployment', 'd', '-n', 'imperative', '--image=x']);
    expect(deploy.code).not.toBe(0);
    expect(deploy.stderr).toContain('protobuf is not supported for Deployment');
  });

  it('kubectl wait follows a streaming list (sendInitialEvents + initial-events-end bookmark) to a status change', async () => {
    api.apply(widget('waited', { color: 'red' }) as any);
    const watchesBefore = api.openWatches();
    const waiting = kubectl(kubeconfig, ['wait', '--for=jsonpath={.status.phase}=Ready', 'widget/waited', '--timeout=20s']);
    await eventually(() => api.openWatches() > watchesBefore, 'kubectl wait watching');
    api.apply({ ...widget('waited', { color: 'red' }), status: { phase: 'Ready' } } as any);
    const done = await waiting;
    expect(done.stderr).toBe('');
    expect(done.stdout.trim()).toBe('widget.example.com/waited condition met');
  });

  it('supports kubectl apply --server-side', async () => {
    const w = (size: number) => JSON.stringify(widget('ssa', { color: 'green', size }));
    expect((await kubectl(kubeconfig, ['apply', '--server-side', '-f', '-'], { input: w(2) })).stdout.trim()).toBe('widget.example.com/ssa serverside-applied');
    await kubectl(kubeconfig, ['apply', '--server-side', '-f', '-'], { input: w(6) });
    expect(api.get(W.group, W.version, W.plural, 'default', 'ssa')).toMatchObject({ spec: { size: 6 } });
  });
});

describe('client-node against the server', () => {
  it('creates, reads, conflicts on a stale resourceVersion and reports 404/409', async () => {
    const body = widget('cn-1', { color: 'blue' });
    const created = (await custom.createNamespacedCustomObject({ ...W, namespace: 'default', body })) as any;
    expect(created.spec.size).toBe(1); // schema default applied
    expect(created.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(await statusOf(custom.createNamespacedCustomObject({ ...W, namespace: 'default', body }))).toMatchObject({ code: 409, reason: 'AlreadyExists' });
    expect(await statusOf(custom.getNamespacedCustomObject({ ...W, namespace: 'default', name: 'nope' }))).toMatchObject({
      code: 404,
      reason: 'NotFound',
      message: 'widgets.example.com "nope" not found',
    });

    const stale = structuredClone(created);
    const updated = (await custom.replaceNamespacedCustomObject({ ...W, namespace: 'default', name: 'cn-1', body: { ...created, spec: { color: 'blue', size: 2 } } })) as any;
    expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
    expect(updated.metadata.generation).toBe(2);
    const conflict = await statusOf(custom.replaceNamespacedCustomObject({ ...W, namespace: 'default', name: 'cn-1', body: { ...stale, spec: { color: 'red' } } }));
    expect(conflict).toMatchObject({ code: 409, reason: 'Conflict' });
    expect(conflict.message).toContain('the object has been modified');
    // a merge patch that carries the stale resourceVersion conflicts too; with the current one it applies
    const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    const stalePatch = { metadata: { resourceVersion: created.metadata.resourceVersion }, spec: { size: 9 } };
    expect(await statusOf(custom.patchNamespacedCustomObject({ ...W, namespace: 'default', name: 'cn-1', body: stalePatch }, merge))).toMatchObject({ code: 409 });
    const freshPatch = { metadata: { resourceVersion: updated.metadata.resourceVersion }, spec: { size: 9 } };
    expect(((await custom.patchNamespacedCustomObject({ ...W, namespace: 'default', name: 'cn-1', body: freshPatch }, merge)) as any).spec.size).toBe(9);
    // an update without a resourceVersion is refused for custom resources
    expect(await statusOf(custom.replaceNamespacedCustomObject({ ...W, namespace: 'default', name: 'cn-1', body: widget('cn-1', { color: 'red' }) }))).toMatchObject({ code: 422 });
    // JSON patch, with a failing test op
    const jp = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
    const patched = (await custom.patchNamespacedCustomObject({ ...W, namespace: 'default', name: 'cn-1', body: [{ op: 'replace', path: '/spec/color', value: 'green' }] }, jp)) as any;
    expect(patched.spec.color).toBe('green');
    expect(await statusOf(custom.patchNamespacedCustomObject({ ...W, namespace: 'default', name: 'cn-1', body: [{ op: 'test', path: '/spec/color', value: 'red' }] }, jp))).toMatchObject({ code: 422 });
    // strategic merge patch is not accepted for custom resources (as on a real cluster)
    expect(await statusOf(custom.patchNamespacedCustomObject({ ...W, namespace: 'default', name: 'cn-1', body: { spec: { size: 2 } } }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch)))).toMatchObject({ code: 415 });
    // 422 when the schema is violated; nothing changes
    const before = api.get(W.group, W.version, W.plural, 'default', 'cn-1');
    const invalid = await statusOf(custom.patchNamespacedCustomObject({ ...W, namespace: 'default', name: 'cn-1', body: { spec: { size: 0 } } }, merge));
    expect(invalid).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(invalid.message).toContain('spec.size');
    expect(api.get(W.group, W.version, W.plural, 'default', 'cn-1')).toEqual(before);
  });

  it('keeps status behind the status subresource and bumps generation on spec changes only', async () => {
    const created = (await custom.createNamespacedCustomObject({ ...W, namespace: 'default', body: { ...widget('st-1', { color: 'red' }), status: { phase: 'Ignored' } } })) as any;
    expect(created.status).toBeUndefined();
    const withStatus = (await custom.replaceNamespacedCustomObjectStatus({ ...W, namespace: 'default', name: 'st-1', body: { ...created, spec: { color: 'green' }, status: { phase: 'Ready' } } })) as any;
    expect(withStatus.status).toEqual({ phase: 'Ready' });
    expect(withStatus.spec.color).toBe('red'); // a status write does not touch spec
    expect(withStatus.metadata.generation).toBe(1);
    const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    const mainWrite = (await custom.patchNamespacedCustomObject({ ...W, namespace: 'default', name: 'st-1', body: { spec: { size: 5 }, status: { phase: 'Hacked' } } }, merge)) as any;
    expect(mainWrite.status).toEqual({ phase: 'Ready' }); // a main-resource write does not touch status
    expect(mainWrite.metadata.generation).toBe(2);
    const statusPatch = (await custom.patchNamespacedCustomObjectStatus({ ...W, namespace: 'default', name: 'st-1', body: { status: { message: 'ok' } } }, merge)) as any;
    expect(statusPatch.status).toEqual({ phase: 'Ready', message: 'ok' });
    expect(statusPatch.metadata.generation).toBe(2);
    // string formats are checked (date-time here), like the apiextensions validator does
    const badTime = await statusOf(custom.patchNamespacedCustomObjectStatus({ ...W, namespace: 'default', name: 'st-1', body: { status: { lastCheck: 'yesterday' } } }, merge));
    expect(badTime).toMatchObject({ code: 422 });
    expect(badTime.message).toContain('status.lastCheck: Invalid value: "yesterday": status.lastCheck in body must be of type date-time');
    await custom.patchNamespacedCustomObjectStatus({ ...W, namespace: 'default', name: 'st-1', body: { status: { lastCheck: '2026-01-02T03:04:05.123456Z' } } }, merge);
    // label syntax is checked on every kind
    const badLabel = await statusOf(custom.patchNamespacedCustomObject({ ...W, namespace: 'default', name: 'st-1', body: { metadata: { labels: { ok: 'not ok!' } } } }, merge));
    expect(badLabel).toMatchObject({ code: 422, reason: 'Invalid' });
    // the table shows the status column
    const table = await kubectl(kubeconfig, ['get', 'widget', 'st-1', '--no-headers']);
    expect(table.stdout).toMatch(/^st-1\s+red\s+5\s+Ready\s+\d+s/);
  });

  it('holds a deletion until the last finalizer is removed; generateName; deletecollection', async () => {
    const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    await custom.createNamespacedCustomObject({ ...W, namespace: 'default', body: { ...widget('fin-1', { color: 'red' }), metadata: { name: 'fin-1', finalizers: ['example.com/keep'] } } });
    await custom.deleteNamespacedCustomObject({ ...W, namespace: 'default', name: 'fin-1' });
    const pending = api.get(W.group, W.version, W.plural, 'default', 'fin-1');
    expect(pending?.metadata.deletionTimestamp).toMatch(/^\d{4}-/);
    await custom.patchNamespacedCustomObject({ ...W, namespace: 'default', name: 'fin-1', body: { metadata: { finalizers: null } } }, merge);
    expect(api.get(W.group, W.version, W.plural, 'default', 'fin-1')).toBeUndefined();

    const generated = (await custom.createNamespacedCustomObject({ ...W, namespace: 'default', body: { ...widget('', { color: 'red' }), metadata: { generateName: 'gen-', labels: { batch: 'x' } } } })) as any;
    expect(generated.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
    await custom.createNamespacedCustomObject({ ...W, namespace: 'default', body: { ...widget('', { color: 'red' }), metadata: { generateName: 'gen-', labels: { batch: 'x' } } } });
    expect(api.list(W.group, W.version, W.plural, 'default', 'batch=x')).toHaveLength(2);
    await raw('DELETE', '/apis/example.com/v1/namespaces/default/widgets?labelSelector=batch%3Dx');
    expect(api.list(W.group, W.version, W.plural, 'default', 'batch=x')).toHaveLength(0);
  });

  it('filters lists with label and field selectors', async () => {
    const ns = 'selectors';
    await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: ns } } });
    const mk = (name: string, labels: Record<string, string>) =>
      custom.createNamespacedCustomObject({ ...W, namespace: ns, body: { ...widget(name, { color: 'red' }, labels), metadata: { name, namespace: ns, labels } } });
    await mk('a', { env: 'prod', tier: 'web' });
    await mk('b', { env: 'dev', tier: 'web' });
    await mk('c', { env: 'qa' });
    const names = async (labelSelector?: string, fieldSelector?: string) =>
      ((await custom.listNamespacedCustomObject({ ...W, namespace: ns, labelSelector, fieldSelector })) as any).items.map((i: KubernetesObject) => i.metadata!.name);
    expect(await names('env=prod')).toEqual(['a']);
    expect(await names('env==dev')).toEqual(['b']);
    expect(await names('env!=prod')).toEqual(['b', 'c']);
    expect(await names('env in (prod, qa)')).toEqual(['a', 'c']);
    expect(await names('env notin (prod)')).toEqual(['b', 'c']);
    expect(await names('tier')).toEqual(['a', 'b']);
    expect(await names('!tier')).toEqual(['c']);
    expect(await names('tier=web,env!=dev')).toEqual(['a']);
    expect(await names(undefined, 'metadata.name=b')).toEqual(['b']);
    expect(await names(undefined, 'metadata.name!=b')).toEqual(['a', 'c']);
    expect(await statusOf(custom.listNamespacedCustomObject({ ...W, namespace: ns, labelSelector: 'env in (a' }))).toMatchObject({ code: 400 });
    // across all namespaces
    const all = (await custom.listClusterCustomObject({ ...W, labelSelector: 'env' })) as any;
    expect(all.items.map((i: KubernetesObject) => `${i.metadata!.namespace}/${i.metadata!.name}`)).toEqual(['selectors/a', 'selectors/b', 'selectors/c']);
    // paging
    const page1 = (await raw('GET', `/apis/example.com/v1/namespaces/${ns}/widgets?limit=2`)).body;
    expect(page1.items).toHaveLength(2);
    const page2 = (await raw('GET', `/apis/example.com/v1/namespaces/${ns}/widgets?limit=2&continue=${page1.metadata.continue}`)).body;
    expect(page2.items.map((i: KubernetesObject) => i.metadata!.name)).toEqual(['c']);
    // deleting the namespace takes its objects along
    await kc.makeApiClient(CoreV1Api).deleteNamespace({ name: ns });
    expect(api.list(W.group, W.version, W.plural, ns)).toEqual([]);
  });
});

describe('watch', () => {
  it('streams events after a resourceVersion, translates selector transitions, sends bookmarks', async () => {
    const rv = api.resourceVersion();
    api.apply(widget('w-1', { color: 'red' }, { watched: 'yes' }) as any);
    api.apply(widget('w-1', { color: 'blue' }, { watched: 'no' }) as any);
    api.remove(W.group, W.version, W.plural, 'default', 'w-1');
    const all = await watchEvents(`/apis/example.com/v1/namespaces/default/widgets?watch=true&resourceVersion=${rv}`, (e) => e.length === 3);
    expect(all.map((e) => `${e.type}:${e.object.spec.color}`)).toEqual(['ADDED:red', 'MODIFIED:blue', 'DELETED:blue']);
    // through a label selector the update that leaves the selection is a DELETED
    const selected = await watchEvents(`/apis/example.com/v1/widgets?watch=true&resourceVersion=${rv}&labelSelector=watched%3Dyes`, (e) => e.length === 2);
    expect(selected.map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
    const bookmarks = await watchEvents(`/apis/example.com/v1/widgets?watch=true&resourceVersion=${api.resourceVersion()}&allowWatchBookmarks=true`, (e) => e.length === 1);
    expect(bookmarks[0]).toMatchObject({ type: 'BOOKMARK', object: { kind: 'Widget', metadata: { resourceVersion: api.resourceVersion() } } });
    // a too-old version gets an ERROR event carrying 410 Gone, then the stream ends
    api.expireHistory();
    const gone = await watchEvents(`/apis/example.com/v1/widgets?watch=true&resourceVersion=${rv}`, () => false);
    expect(gone).toEqual([{ type: 'ERROR', object: expect.objectContaining({ kind: 'Status', code: 410, reason: 'Expired' }) }]);
    // timeoutSeconds ends the stream
    const timedOut = await watchEvents(`/apis/example.com/v1/widgets?watch=true&resourceVersion=${api.resourceVersion()}&timeoutSeconds=1`, () => false);
    expect(timedOut).toEqual([]);
  });

  it('a client-node informer sees add/update/delete and survives dropped watches, 410 Gone and downtime', async () => {
    const ns = 'informer';
    api.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    let lists = 0;
    const listFn = () => {
      lists += 1;
      return custom.listNamespacedCustomObject({ ...W, namespace: ns }) as any;
    };
    const informer = makeInformer<KubernetesObject & { spec: { size: number } }>(kc, `/apis/example.com/v1/namespaces/${ns}/widgets`, listFn);
    const seen: string[] = [];
    const errors: unknown[] = [];
    informer.on('add', (o) => seen.push(`add:${o.metadata!.name}`));
    informer.on('update', (o) => seen.push(`update:${o.metadata!.name}:${o.spec.size}`));
    informer.on('delete', (o) => seen.push(`delete:${o.metadata!.name}`));
    // client-node stops on a connection error; restarting is the caller's job (as the console does)
    let stopped = false;
    informer.on('error', (err) => {
      errors.push(err);
      if (!stopped) setTimeout(() => void informer.start().catch(() => {}), 200);
    });
    const size = (name: string) => informer.get(name, ns)?.spec.size;
    const put = (name: string, s: number) => api.apply({ ...widget(name, { color: 'red', size: s }), metadata: { name, namespace: ns } } as any);
    try {
      put('i-1', 1);
      await informer.start();
      await eventually(() => seen.includes('add:i-1'), 'initial list');

      put('i-2', 1);
      put('i-1', 2);
      api.remove(W.group, W.version, W.plural, ns, 'i-2');
      await eventually(() => seen.includes('delete:i-2') && size('i-1') === 2, 'add/update/delete');
      expect(seen).toEqual(['add:i-1', 'add:i-2', 'update:i-1:2', 'delete:i-2']);

      // dropped watch: resumes from its resourceVersion without relisting
      const listsBefore = lists;
      api.dropWatches();
      await eventually(() => api.openWatches() === 1, 'watch re-opened');
      put('i-1', 3);
      await eventually(() => size('i-1') === 3, 'update after drop');
      expect(lists).toBe(listsBefore);

      // 410 Gone: the informer relists by itself and still converges
      api.expireHistory();
      put('i-3', 1);
      await eventually(() => lists === listsBefore + 1 && informer.get('i-3', ns) !== undefined, 'relist after 410');
      put('i-3', 2);
      await eventually(() => size('i-3') === 2, 'watching again after the relist');

      // downtime: changes made meanwhile arrive once the server is back
      const back = api.goDown(3);
      await eventually(() => errors.length > 0, 'a connection error while down');
      put('i-1', 4);
      api.remove(W.group, W.version, W.plural, ns, 'i-3');
      await back;
      await eventually(() => size('i-1') === 4 && informer.get('i-3', ns) === undefined, 'convergence after downtime');
      expect(seen).toContain('delete:i-3');
    } finally {
      stopped = true;
      await informer.stop();
    }
  });
});

describe('authentication and impersonation', () => {
  it('answers 401 without a known token, and lets /version through', async () => {
    expect((await raw('GET', '/api/v1/namespaces', { token: null })).status).toBe(401);
    expect((await raw('GET', '/api/v1/namespaces', { token: 'wrong' })).body).toMatchObject({ kind: 'Status', code: 401, reason: 'Unauthorized' });
    expect((await raw('GET', '/version', { token: null })).body.gitVersion).toMatch(/^v1\.35/);
  });

  it('authorises impersonated users with the stored RBAC and records every impersonated request', async () => {
    api.impersonations.length = 0;
    const asViewer = ['--as', 'alice', '--as-group', 'console:viewers'];
    api.apply(widget('rbac-1', { color: 'red' }) as any);
    const denied = await kubectl(kubeconfig, ['get', 'widgets', ...asViewer]);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain('User "alice" cannot list resource "widgets" in API group "example.com" in the namespace "default"');

    const rbac = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: widget-reader}
rules:
  - apiGroups: [example.com]
    resources: [widgets, widgets/status]
    verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: viewers-read-widgets}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: widget-reader}
subjects:
  - {apiGroup: rbac.authorization.k8s.io, kind: Group, name: "console:viewers"}
`;
    expect((await kubectl(kubeconfig, ['apply', '-f', '-'], { input: rbac })).code).toBe(0);
    const read = await kubectl(kubeconfig, ['get', 'widgets', 'rbac-1', '--no-headers', ...asViewer]);
    expect(read.stdout).toMatch(/^rbac-1\s+red/);
    const write = await kubectl(kubeconfig, ['label', 'widget', 'rbac-1', 'touched=yes', ...asViewer]);
    expect(write.code).not.toBe(0);
    expect(write.stderr).toContain('cannot patch resource "widgets"');
    expect(api.get(W.group, W.version, W.plural, 'default', 'rbac-1')?.metadata.labels).toBeUndefined();

    const patches = api.impersonations.filter((r) => r.method === 'PATCH');
    expect(patches).toEqual([
      { method: 'PATCH', path: '/apis/example.com/v1/namespaces/default/widgets/rbac-1', query: '?fieldManager=kubectl-label', user: 'alice', groups: ['console:viewers'], authenticatedAs: api.adminUser, status: 403 },
    ]);
    expect(api.impersonations.some((r) => r.method === 'GET' && r.path === '/apis/example.com/v1/namespaces/default/widgets/rbac-1' && r.status === 200)).toBe(true);

    // a Role in one namespace grants writes there only
    const role = await raw('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
      body: { metadata: { name: 'widget-editor' }, rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['patch'], resourceNames: ['rbac-1'] }] },
    });
    expect(role.status).toBe(201);
    await raw('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      body: { metadata: { name: 'alice-edits' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'widget-editor' }, subjects: [{ kind: 'User', name: 'alice' }] },
    });
    const allowed = await kubectl(kubeconfig, ['label', 'widget', 'rbac-1', 'touched=yes', ...asViewer]);
    expect(allowed.stdout.trim()).toBe('widget.example.com/rbac-1 labeled');
  });

  it('refuses impersonation to a token that may not impersonate', async () => {
    api.addToken('plain-token', { user: 'system:serviceaccount:default:plain', groups: ['system:serviceaccounts'] });
    const res = await raw('GET', '/apis/example.com/v1/widgets', { token: 'plain-token', headers: { 'Impersonate-User': 'root' } });
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('cannot impersonate resource "users"');
    // and without impersonation it is just another RBAC subject
    expect((await raw('GET', '/apis/example.com/v1/widgets', { token: 'plain-token' })).status).toBe(403);
  });
});

describe('patch formats and printer paths', () => {
  it('merge patch: objects merge, null deletes, arrays replace', () => {
    expect(mergePatch({ a: { b: 1, c: 2 }, l: [1, 2] }, { a: { b: null, d: 3 }, l: [3] })).toEqual({ a: { c: 2, d: 3 }, l: [3] });
  });

  it('json patch: add/remove/replace/move/copy/test, errors for missing paths', () => {
    const doc = { spec: { list: ['a', 'b'], x: 1 } };
    expect(
      jsonPatch(doc, [
        { op: 'add', path: '/spec/list/-', value: 'c' },
        { op: 'remove', path: '/spec/list/0' },
        { op: 'replace', path: '/spec/x', value: 2 },
        { op: 'copy', from: '/spec/x', path: '/spec/y' },
        { op: 'move', from: '/spec/y', path: '/spec/z' },
        { op: 'test', path: '/spec/z', value: 2 },
        { op: 'add', path: '/spec/a~1b', value: true },
      ]),
    ).toEqual({ spec: { list: ['b', 'c'], x: 2, z: 2, 'a/b': true } });
    expect(doc.spec.list).toEqual(['a', 'b']); // the input is not modified
    expect(() => jsonPatch(doc, [{ op: 'remove', path: '/spec/nope' }])).toThrow(/missing path/);
    expect(() => jsonPatch(doc, [{ op: 'replace', path: '/nope/x', value: 1 }])).toThrow();
    expect(() => jsonPatch(doc, { op: 'add' })).toThrow(/array/);
  });

  it('strategic merge patch: merge keys, $patch, $setElementOrder, $retainKeys, $deleteFromPrimitiveList', () => {
    const live: JsonObject = {
      metadata: { finalizers: ['a'] },
      spec: {
        containers: [
          { name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] },
          { name: 'side', image: 'side:1' },
        ],
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } },
        tolerations: [{ key: 'x' }],
      },
    };
    const out = strategicMergePatch(live, {
      metadata: { finalizers: ['b'] },
      spec: {
        '$setElementOrder/containers': [{ name: 'side' }, { name: 'app' }],
        containers: [{ name: 'app', image: 'app:2', env: [{ name: 'B', $patch: 'delete' }] }, { name: 'new', image: 'n:1' }],
        strategy: { $retainKeys: ['type'], type: 'Recreate' },
        tolerations: [{ key: 'y' }],
      },
    } as never) as any;
    expect(out.metadata.finalizers).toEqual(['a', 'b']);
    expect(out.spec.containers.map((c: { name: string }) => c.name)).toEqual(['side', 'app', 'new']);
    expect(out.spec.containers[1]).toEqual({ name: 'app', image: 'app:2', env: [{ name: 'A', value: '1' }] });
    expect(out.spec.strategy).toEqual({ type: 'Recreate' });
    expect(out.spec.tolerations).toEqual([{ key: 'y' }]); // no merge key: atomic
    expect((strategicMergePatch(live, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }) as any).metadata.finalizers).toEqual([]);
    expect((strategicMergePatch(live, { spec: { strategy: { $patch: 'replace', type: 'X' } } }) as any).spec.strategy).toEqual({ type: 'X' });
  });

  it('evaluates the JSONPath subset of printer columns and renders ages', () => {
    const obj = { status: { conditions: [{ type: 'Ready', status: 'True' }], 'a.b': 1, list: [5, 6] } };
    expect(evalPath(obj, '.status.conditions[?(@.type=="Ready")].status')).toBe('True');
    expect(evalPath(obj, ".status['a.b']")).toBe(1);
    expect(evalPath(obj, '.status.list[1]')).toBe(6);
    expect(evalPath(obj, '.status.missing.x')).toBeUndefined();
    expect([45_000, 330_000, 3 * 3_600_000, 50 * 3_600_000, 800 * 86_400_000].map(humanDuration)).toEqual(['45s', '5m30s', '3h', '2d2h', '2y']);
  });
});
