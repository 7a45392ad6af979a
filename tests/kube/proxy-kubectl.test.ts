import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildKubeconfig } from '../../server/modules/kubernetes/kubeconfig.js';
import { insertAccessToken } from '../../server/modules/auth/tokens.js';
import { type KubeApi, type KubeObject } from '../support/kube-api/index.js';
import { startChartCluster } from '../support/chart-cluster.js';
import { kubectlPath } from '../support/kube-tools.js';
import { startTlsFront, type TlsFront } from '../support/tls-front.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from '../server/helpers.js';

/**
 * The real kubectl (v1.35) through the console's /kubeproxy to the Kubernetes API test server, with a kubeconfig
 * downloaded from GET /api/kubeconfig.
 *
 * The console is reached over TLS, through a TLS-terminating front in this test (what an ingress does): kubectl
 * (client-go) never sends credentials to a plain-http server (kubernetes/kubectl#744), so kubectl through the console
 * needs an https public URL. The console itself talks to the API server as a service account holding only the
 * chart's ClusterRole (watch the kinds, impersonate the two identities), and the writer/reader ClusterRoles and
 * bindings come from `helm template` of the chart, so the chart's RBAC is what allows or denies kubectl here.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const NS = 'ops';
const SA_TOKEN = 'console-service-account-token-0123456789';

let kube: KubeApi;
let t: TestContext;
let kubectl: string;
let dir: string;
let front: TlsFront;
let publicUrl: string;
let ca: string;
let saUser: string;
let adminKubeconfig: string;
let viewerKubeconfig: string;
const children: ChildProcess[] = [];

/** kubectl with its own HOME (discovery cache) and no ambient KUBECONFIG; resolves with output and exit code. */
async function kc(args: string[], kubeconfig: string, input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', HOME: dir };
  return new Promise((resolve) => {
    const child = execFile(kubectl, ['--kubeconfig', kubeconfig, ...args], { env, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    // always end stdin: without credentials kubectl would otherwise wait for a username on it
    child.stdin!.end(input ?? '');
  });
}

/** GET over the TLS front, trusting the test CA. */
function httpsGet(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(`${publicUrl}${path}`, { ca, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
}

/** Polls until `check` holds (the watch and process tests wait on other processes); fails after `ms`. */
async function until(what: string, check: () => boolean, ms = 20_000, detail = () => ''): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what} ${detail()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Adds the test CA to a downloaded kubeconfig, as a user of a private CA would. */
async function trustCa(file: string): Promise<void> {
  const name = (parse(readFileSync(file, 'utf8')) as { clusters: { name: string }[] }).clusters[0].name;
  const r = await kc(['config', 'set-cluster', name, `--certificate-authority=${join(dir, 'ca.pem')}`, '--embed-certs=true'], file);
  expect(r.code, r.stderr).toBe(0);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kubeproxy-'));
  [kubectl] = await Promise.all([kubectlPath()]);
  // the chart's RBAC: the console's ClusterRole (bound to its service account) and the writer/reader ClusterRoles
  ({ kube, saUser } = await startChartCluster(NS, SA_TOKEN));
  const consoleKubeconfig = kube.writeKubeconfig(join(dir, 'console-kubeconfig.yaml'), { token: SA_TOKEN });

  // the ingress: TLS on a certificate for 127.0.0.1, passing the bytes to the console's HTTP port
  let consolePort = 0;
  front = await startTlsFront(dir, () => consolePort);
  ca = front.ca;
  publicUrl = front.url;

  t = await createTestApp({ KUBECONFIG: consoleKubeconfig, PUBLIC_URL: publicUrl });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  consolePort = (t.app.server.address() as AddressInfo).port;

  // an admin downloads a kubeconfig (the browser's request: session cookie, same origin)
  const admin = await makePerson(t.db, { roles: ['admin'] });
  const download = await httpsGet('/api/kubeconfig', { ...(await sessionHeaders(t.db, admin.id)), 'sec-fetch-site': 'same-origin' });
  expect(download.status).toBe(200);
  adminKubeconfig = join(dir, /filename="([^"]+)"/.exec(String(download.headers['content-disposition']))![1]);
  writeFileSync(adminKubeconfig, download.body, { mode: 0o600 });
  await trustCa(adminKubeconfig);

  // a viewer cannot download one; the same file is built around one of their access tokens
  const viewer = await makePerson(t.db, { roles: ['viewer'] });
  expect((await httpsGet('/api/kubeconfig', await sessionHeaders(t.db, viewer.id))).status).toBe(403);
  const viewerToken = await insertAccessToken(t.db, { personId: viewer.id, name: 'kubectl', createdBy: viewer.id, expiresAt: null, autoRenew: false });
  viewerKubeconfig = join(dir, 'viewer-kubeconfig.yaml');
  writeFileSync(viewerKubeconfig, buildKubeconfig({ publicUrl, token: viewerToken.token }), { mode: 0o600 });
  await trustCa(viewerKubeconfig);
}, 120_000);

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await t?.close();
  await front?.close();
  await kube?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const canaryFile = join(root, 'tests/fixtures/k8s/canary-http.yaml');
const canary = () => kube.get('canaries.flanksource.com', 'v1', 'canaries', 'default', 'http-local');

describe('kubectl through /kubeproxy', () => {
  it('an admin lists, applies, reads and deletes canaries as the impersonated writer', async () => {
    kube.impersonations.length = 0;
    const empty = await kc(['get', 'canaries', '-A'], adminKubeconfig);
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stderr).toMatch(/No resources found/);

    const applied = await kc(['apply', '-f', canaryFile], adminKubeconfig);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/canary.canaries.flanksource.com\/http-local created/);
    expect(canary()?.spec).toMatchObject({ schedule: '@every 1m', severity: 'high' });

    const listed = await kc(['get', 'canaries', '-A'], adminKubeconfig);
    expect(listed.stdout).toMatch(/^default\s+http-local\s/m);

    const yaml = await kc(['get', 'canary', 'http-local', '-n', 'default', '-o', 'yaml'], adminKubeconfig);
    expect(yaml.code, yaml.stderr).toBe(0);
    const obj = parse(yaml.stdout) as KubeObject;
    expect(obj.metadata.uid).toBe(canary()!.metadata.uid);
    expect((obj.spec as { http: { name: string }[] }).http.map((h) => h.name)).toEqual(['console-healthz', 'console-readyz']);

    // a second apply with a change is a merge patch (application/merge-patch+json, passed through raw)
    const changed = readFileSync(canaryFile, 'utf8').replace('"@every 1m"', '"@every 5m"');
    const patched = await kc(['apply', '-f', '-'], adminKubeconfig, changed);
    expect(patched.code, patched.stderr).toBe(0);
    expect(patched.stdout).toMatch(/http-local configured/);
    expect(canary()?.spec).toMatchObject({ schedule: '@every 5m' });

    // the other patch types pass through raw: JSON patch, merge patch, server-side apply (apply-patch+yaml)
    const json = await kc(['patch', 'canary', 'http-local', '-n', 'default', '--type=json', '-p', '[{"op":"replace","path":"/spec/severity","value":"low"}]'], adminKubeconfig);
    expect(json.code, json.stderr).toBe(0);
    const merge = await kc(['patch', 'canary', 'http-local', '-n', 'default', '--type=merge', '-p', '{"spec":{"owner":"sre"}}'], adminKubeconfig);
    expect(merge.code, merge.stderr).toBe(0);
    expect(canary()?.spec).toMatchObject({ severity: 'low', owner: 'sre' });
    const ssa = await kc(['apply', '--server-side', '--force-conflicts', '-f', '-'], adminKubeconfig,
      readFileSync(canaryFile, 'utf8').replace('severity: high', 'severity: medium'));
    expect(ssa.code, ssa.stderr).toBe(0);
    expect(ssa.stdout).toMatch(/serverside-applied/);
    expect(canary()?.spec).toMatchObject({ severity: 'medium' });
    const seen = new Set(kube.impersonations.map((r) => r.method));
    expect(seen.has('PATCH')).toBe(true);

    // an API server error reaches kubectl as its Status (409 AlreadyExists)
    const again = await kc(['create', '-f', canaryFile], adminKubeconfig);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/Error from server \(AlreadyExists\).*http-local.*already exists/);

    const deleted = await kc(['delete', '-f', canaryFile], adminKubeconfig);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toMatch(/http-local" deleted/);
    expect(canary()).toBeUndefined();

    // every request reached the API server as the console's service account impersonating the writer
    const resourceCalls = kube.impersonations.filter((r) => r.path.includes('/canaries'));
    expect(resourceCalls.map((r) => r.method)).toEqual(expect.arrayContaining(['GET', 'POST', 'PATCH', 'DELETE']));
    expect(kube.impersonations.length).toBeGreaterThan(5);
    for (const r of kube.impersonations) {
      expect(r).toMatchObject({ user: 'ops-console-writer', groups: ['ops-console:writers'], authenticatedAs: saUser });
    }
  });

  it('streams a watch: a change shows up in kubectl get -w, and ending kubectl ends the upstream watch', async () => {
    kube.apply(parse(readFileSync(canaryFile, 'utf8')) as KubeObject);
    const before = kube.openWatches();
    const child = spawn(kubectl, ['--kubeconfig', adminKubeconfig, 'get', 'canaries', '-n', 'default', '-w', '--output-watch-events', '-o', 'json'], {
      env: { PATH: process.env.PATH ?? '', HOME: dir },
    });
    children.push(child);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    // with --output-watch-events -o json, each event is printed as {"type": ..., "object": ...}
    const saw = (type: string) => new RegExp(`"type":\\s*"${type}"`).test(out);
    await until('the initial list', () => saw('ADDED'), 20_000, () => out);
    await until('the watch to open upstream', () => kube.openWatches() > before);

    const obj = canary()!;
    kube.apply({ ...obj, metadata: { ...obj.metadata, labels: { ...obj.metadata.labels, changed: 'yes' } } });
    await until('the MODIFIED event', () => saw('MODIFIED') && /"changed":\s*"yes"/.test(out), 20_000, () => out);
    kube.remove('canaries.flanksource.com', 'v1', 'canaries', 'default', 'http-local');
    await until('the DELETED event', () => saw('DELETED'), 20_000, () => out);

    const watchCalls = kube.impersonations.filter((r) => /[?&]watch=(true|1)/.test(`${r.path}${r.query ?? ''}`));
    expect(watchCalls.length).toBeGreaterThan(0);
    expect(watchCalls.every((r) => r.user === 'ops-console-writer')).toBe(true);

    // kubectl goes away: the console drops its upstream watch instead of streaming into a dead connection
    child.kill('SIGTERM');
    await until('the upstream watch to close', () => kube.openWatches() === before);
  });

  it("a viewer's kubeconfig reads but cannot write: the API server's RBAC denies the reader", async () => {
    kube.impersonations.length = 0;
    kube.apply(parse(readFileSync(canaryFile, 'utf8')) as KubeObject);
    const listed = await kc(['get', 'canaries', '-A'], viewerKubeconfig);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/http-local/);

    const changed = readFileSync(canaryFile, 'utf8').replace('"@every 1m"', '"@every 2m"');
    const apply = await kc(['apply', '-f', '-'], viewerKubeconfig, changed);
    expect(apply.code).not.toBe(0);
    expect(apply.stderr).toMatch(/Error from server \(Forbidden\)[^]*User "ops-console-reader" cannot patch resource "canaries"/);
    const del = await kc(['delete', 'canary', 'http-local', '-n', 'default'], viewerKubeconfig);
    expect(del.code).not.toBe(0);
    expect(del.stderr).toMatch(/Forbidden/);
    expect(canary()?.spec).toMatchObject({ schedule: '@every 1m' });

    expect(kube.impersonations.length).toBeGreaterThan(0);
    for (const r of kube.impersonations) expect(r).toMatchObject({ user: 'ops-console-reader', groups: ['ops-console:readers'] });
    kube.remove('canaries.flanksource.com', 'v1', 'canaries', 'default', 'http-local');
  });

  it('strips the Impersonate-* headers a caller sends: --as cannot escalate', async () => {
    kube.remove('canaries.flanksource.com', 'v1', 'canaries', 'default', 'http-local');
    kube.impersonations.length = 0;
    const asAdmin = await kc(['--as=system:admin', '--as-group=system:masters', 'get', 'canaries', '-A'], adminKubeconfig);
    expect(asAdmin.code, asAdmin.stderr).toBe(0);
    const asWriter = await kc(['--as=ops-console-writer', '--as-group=ops-console:writers', 'apply', '-f', canaryFile], viewerKubeconfig);
    expect(asWriter.code).not.toBe(0);
    expect(asWriter.stderr).toMatch(/User "ops-console-reader" cannot/);
    expect(canary()).toBeUndefined();
    const users = new Set(kube.impersonations.map((r) => `${r.user} ${r.groups.join(',')}`));
    expect([...users].sort()).toEqual(['ops-console-reader ops-console:readers', 'ops-console-writer ops-console:writers']);
  });

  it('refuses callers without a valid token (401) before anything reaches the API server', async () => {
    kube.impersonations.length = 0;
    // no credentials at all (kubectl itself would stop to ask for a username first)
    const anonymous = await httpsGet('/kubeproxy/apis/canaries.flanksource.com/v1/canaries');
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.body)).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });

    // a made-up (or revoked) token
    const file = join(dir, 'bad-token.yaml');
    const content = parse(readFileSync(adminKubeconfig, 'utf8')) as { users: { user: Record<string, string> }[] };
    content.users[0].user = { username: 'token', password: '0123456789abcdef0123456789abcdef.revoked-or-made-up-secret' };
    writeFileSync(file, JSON.stringify(content));
    const bad = await kc(['get', 'canaries', '-A'], file);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/You must be logged in to the server/);
    expect(kube.impersonations).toHaveLength(0);
  });

  it('the file for a plain-http console works with @kubernetes/client-node and with kubectl (token in the URL)', async () => {
    kube.apply(parse(readFileSync(canaryFile, 'utf8')) as KubeObject);
    kube.impersonations.length = 0;
    const password = (parse(readFileSync(adminKubeconfig, 'utf8')) as { users: { user: { password: string } }[] }).users[0].user.password;
    const client = new KubeConfig();
    client.loadFromString(buildKubeconfig({ publicUrl: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`, token: password }));
    const list = await client.makeApiClient(CustomObjectsApi).listClusterCustomObject({
      group: 'canaries.flanksource.com', version: 'v1', plural: 'canaries',
    }) as { items: KubeObject[] };
    expect(list.items.map((i) => i.metadata.name)).toEqual(['http-local']);
    expect(kube.impersonations.map((r) => r.user)).toEqual(['ops-console-writer']);

    // kubectl sends no kubeconfig credentials over plain http (kubernetes/kubectl#744), so the plain-http file
    // carries the token in the server URL (/kubeproxy/t/<token>, server/lib/kubeproxy-path.ts): reads and writes work
    const httpFile = join(dir, 'plain-http.yaml');
    writeFileSync(httpFile, buildKubeconfig({ publicUrl: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`, token: password }));
    kube.impersonations.length = 0;
    const r = await kc(['get', 'canaries', '-A'], httpFile);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^default\s+http-local\s/m);
    const del = await kc(['delete', 'canary', 'http-local', '-n', 'default'], httpFile);
    expect(del.code, del.stderr).toBe(0);
    expect(canary()).toBeUndefined();
    expect(new Set(kube.impersonations.map((r) => r.user))).toEqual(new Set(['ops-console-writer']));
    // a wrong token in the URL is refused like a wrong password
    const bad = join(dir, 'plain-http-bad.yaml');
    writeFileSync(bad, buildKubeconfig({ publicUrl: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`, token: `${password}x` }));
    const refused = await kc(['get', 'canaries', '-A'], bad);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/You must be logged in to the server/);
  });

  it('survives callers that hang up mid-request, and keeps answering', async () => {
    const password = (parse(readFileSync(adminKubeconfig, 'utf8')) as { users: { user: { password: string } }[] }).users[0].user.password;
    const auth = { authorization: `Basic ${Buffer.from(`token:${password}`).toString('base64')}` };
    const before = kube.openWatches();
    await Promise.all(Array.from({ length: 40 }, (_, i) => new Promise<void>((resolve) => {
      const path = i % 2 ? '/kubeproxy/apis/canaries.flanksource.com/v1/canaries' : '/kubeproxy/apis/canaries.flanksource.com/v1/canaries?watch=true';
      const req = https.get(`${publicUrl}${path}`, { ca, headers: auth });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      // some before any answer, some after the headers
      if (i % 4 < 2) setImmediate(() => req.destroy());
      else req.on('response', () => req.destroy());
    })));
    expect((await httpsGet('/kubeproxy/api', auth)).status).toBe(200);
    await until('the dropped watches to close upstream', () => kube.openWatches() <= before);
  });

  it('answers 502 with a Status while the API server is unreachable', async () => {
    const session = (parse(readFileSync(adminKubeconfig, 'utf8')) as { users: { user: { password: string } }[] }).users[0].user.password;
    const auth = { authorization: `Basic ${Buffer.from(`token:${session}`).toString('base64')}` };
    const down = kube.goDown(2);
    const res = await httpsGet('/kubeproxy/api/v1/namespaces', auth);
    expect(res.status).toBe(502);
    expect(JSON.parse(res.body)).toMatchObject({ kind: 'Status', code: 502, message: expect.stringMatching(/cannot be reached/) });
    await down;
    expect((await httpsGet('/kubeproxy/api', auth)).status).toBe(200);
  });

  it('passes a raw watch stream through chunk by chunk, and closing the console ends it cleanly', async () => {
    // last in this file: it closes the console
    const password = (parse(readFileSync(adminKubeconfig, 'utf8')) as { users: { user: { password: string } }[] }).users[0].user.password;
    const before = kube.openWatches();
    let body = '';
    let ended = false;
    const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      https.get(`${publicUrl}/kubeproxy/apis/canaries.flanksource.com/v1/namespaces/default/canaries?watch=true&resourceVersion=${kube.resourceVersion()}`, {
        ca, headers: { authorization: `Basic ${Buffer.from(`token:${password}`).toString('base64')}` },
      }, resolve).on('error', reject);
    });
    expect(res.statusCode).toBe(200);
    res.setEncoding('utf8');
    res.on('data', (c: string) => (body += c));
    res.on('end', () => (ended = true));
    await until('the upstream watch', () => kube.openWatches() > before);

    kube.apply(parse(readFileSync(canaryFile, 'utf8')) as KubeObject);
    await until('the ADDED event', () => /"type":"ADDED"/.test(body), 20_000, () => body);
    expect(ended).toBe(false);

    // a shutdown does not wait for the watch: the proxy ends it (the client sees a clean end of stream) and drops
    // the upstream one, so app.close() returns instead of hanging until the API server times the watch out
    await t.app.close();
    await until('the end of the stream', () => ended);
    // the console's informers are stopped too, so nothing of it may still watch
    await until('every upstream watch to close', () => kube.openWatches() === 0, 20_000, () => kube.openWatchKeys().join(', '));
  });

});
