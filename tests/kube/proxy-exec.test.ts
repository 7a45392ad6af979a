import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { Exec, KubeConfig, type V1Status } from '@kubernetes/client-node';
import { WebSocket } from 'ws';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOG_REDACT, LOG_SERIALIZERS } from '../../server/app.js';
import { buildKubeconfig } from '../../server/modules/kubernetes/kubeconfig.js';
import { insertAccessToken } from '../../server/modules/auth/tokens.js';
import { type KubeApi } from '../support/kube-api/index.js';
import { startChartCluster } from '../support/chart-cluster.js';
import { kubectlPath } from '../support/kube-tools.js';
import { startTlsFront, type TlsFront } from '../support/tls-front.js';
import { until } from '../support/poll.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from '../server/helpers.js';

/**
 * `kubectl exec` and `attach` (v1.35: WebSocket with v5.channel.k8s.io first, SPDY/3.1 as the fallback) through the
 * console's /kubeproxy to the Kubernetes API test server, whose pods run a stand-in container
 * (tests/support/kube-api/exec.ts). Set up as proxy-kubectl.test.ts: the chart's RBAC from `helm template`, a TLS
 * front for the console, a kubeconfig downloaded by an admin and one built for a viewer. The chart does not let the
 * writer identity exec (a shell in any pod is a choice for the operator), so this cluster grants it as README says.
 */
const NS = 'ops';
const SA_TOKEN = 'console-service-account-token-exec-0123456789';
const EXEC_PATH = '/api/v1/namespaces/default/pods/web/exec';

let kube: KubeApi;
let t: TestContext;
let kubectl: string;
let dir: string;
let front: TlsFront;
let publicUrl: string;
let consoleUrl: string;
let ca: string;
let saUser: string;
let adminKubeconfig: string;
let adminToken: string;
let viewerKubeconfig: string;
let adminSession: Record<string, string>;
/** The console's log lines (JSON), as production writes them: redaction and serializers included. */
const logLines: string[] = [];

interface Run { code: number; stdout: string; stderr: string }

/** kubectl with its own HOME (discovery cache) and no ambient KUBECONFIG. */
async function kc(args: string[], kubeconfig: string, input?: string, extraEnv: Record<string, string> = {}): Promise<Run> {
  const env = { PATH: process.env.PATH ?? '', HOME: dir, ...extraEnv };
  return new Promise((resolve) => {
    const child = execFile(kubectl, ['--kubeconfig', kubeconfig, ...args], { env, timeout: 60_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin!.end(input ?? '');
  });
}

async function trustCa(file: string): Promise<void> {
  const name = (parse(readFileSync(file, 'utf8')) as { clusters: { name: string }[] }).clusters[0].name;
  const r = await kc(['config', 'set-cluster', name, `--certificate-authority=${join(dir, 'ca.pem')}`, '--embed-certs=true'], file);
  expect(r.code, r.stderr).toBe(0);
}

/** A raw upgrade request through the TLS front; resolves with what came back before any WebSocket framing. */
function rawUpgrade(path: string, headers: Record<string, string>): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${publicUrl}${path}`, {
      ca,
      agent: false, // a connection of its own, as an upgrade takes over its connection
      headers: {
        connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13',
        'sec-websocket-key': Buffer.from('0123456789abcdef').toString('base64'), 'sec-websocket-protocol': 'v5.channel.k8s.io',
        ...headers,
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode!, body: '', headers: res.headers });
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * A WebSocket exec as a browser or a non-Go client would open it: collects stdout/stderr and the error-channel
 * Status until the server closes.
 */
function wsExec(
  query: string, headers: Record<string, string>, protocol = 'v5.channel.k8s.io',
): Promise<{ stdout: string; status: Record<string, unknown> | null; close: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${publicUrl.replace('https', 'wss')}/kubeproxy${EXEC_PATH}?${query}`, [protocol], { ca, headers });
    let stdout = '';
    let status: Record<string, unknown> | null = null;
    ws.on('message', (data: Buffer) => {
      if (data[0] === 1) stdout += data.subarray(1).toString();
      if (data[0] === 3) status = JSON.parse(data.subarray(1).toString());
    });
    ws.on('close', (code) => resolve({ stdout, status, close: code }));
    ws.on('unexpected-response', (_req, res) => reject(new Error(`unexpected response ${res.statusCode}`)));
    ws.on('error', reject);
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kubeproxy-exec-'));
  kubectl = await kubectlPath();
  ({ kube, saUser } = await startChartCluster(NS, SA_TOKEN));
  // what the README tells an operator to apply so that console admins and editors may exec and attach
  kube.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'ops-console-exec' },
    rules: [{ apiGroups: [''], resources: ['pods/exec', 'pods/attach', 'pods/portforward'], verbs: ['create'] }],
  });
  kube.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'ops-console-exec' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'ops-console-exec' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'ops-console:writers' }],
  });
  kube.apply({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' },
    spec: {
      containers: [{
        name: 'app', image: 'nginx', command: ['cat'], env: [{ name: 'GREETING', value: 'hello from web' }], ports: [{ containerPort: 8080 }],
      }],
    },
  });
  const consoleKubeconfig = kube.writeKubeconfig(join(dir, 'console-kubeconfig.yaml'), { token: SA_TOKEN });

  let consolePort = 0;
  // the ingress: TLS terminated, bytes passed on (upgrades included, as nginx does with its upgrade headers)
  front = await startTlsFront(dir, () => consolePort, 'ops-console exec test ingress');
  ca = front.ca;
  publicUrl = front.url;

  const logStream = new Writable({
    write(chunk, _enc, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  t = await createTestApp({ KUBECONFIG: consoleKubeconfig, PUBLIC_URL: publicUrl }, {
    logger: { level: 'info', stream: logStream, redact: { paths: LOG_REDACT, censor: '[redacted]' }, serializers: LOG_SERIALIZERS },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  consolePort = (t.app.server.address() as AddressInfo).port;
  consoleUrl = `http://127.0.0.1:${consolePort}`;

  const admin = await makePerson(t.db, { roles: ['admin'] });
  adminSession = await sessionHeaders(t.db, admin.id);
  const download = await new Promise<{ status: number; body: string; disposition: string }>((resolve, reject) => {
    https.get(`${publicUrl}/api/kubeconfig`, { ca, headers: { ...adminSession, 'sec-fetch-site': 'same-origin' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body, disposition: String(res.headers['content-disposition']) }));
    }).on('error', reject);
  });
  expect(download.status).toBe(200);
  adminKubeconfig = join(dir, /filename="([^"]+)"/.exec(download.disposition)![1]);
  writeFileSync(adminKubeconfig, download.body, { mode: 0o600 });
  adminToken = (parse(download.body) as { users: { user: { password: string } }[] }).users[0].user.password;
  await trustCa(adminKubeconfig);

  const viewer = await makePerson(t.db, { roles: ['viewer'] });
  const viewerToken = await insertAccessToken(t.db, { personId: viewer.id, name: 'kubectl', createdBy: viewer.id, expiresAt: null, autoRenew: false });
  viewerKubeconfig = join(dir, 'viewer-kubeconfig.yaml');
  writeFileSync(viewerKubeconfig, buildKubeconfig({ publicUrl, token: viewerToken.token }), { mode: 0o600 });
  await trustCa(viewerKubeconfig);
}, 120_000);

afterAll(async () => {
  await t?.close();
  await front?.close();
  await kube?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const execCalls = () => kube.impersonations.filter((r) => r.path === EXEC_PATH);

describe('kubectl exec through /kubeproxy', () => {
  it('runs a command as the impersonated writer over WebSocket (v5.channel.k8s.io)', async () => {
    kube.impersonations.length = 0;
    const before = kube.execs.length;
    const r = await kc(['exec', 'web', '-n', 'default', '--', 'echo', 'hi'], adminKubeconfig);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('hi\n');

    const session = kube.execs[before];
    expect(session).toMatchObject({
      kind: 'exec', pod: 'web', container: 'app', command: ['echo', 'hi'], protocol: 'v5.channel.k8s.io',
      user: 'ops-console-writer', exitCode: 0,
    });
    expect(session.groups).toContain('ops-console:writers');
    // the upgrade reached the API server as the console's service account impersonating the writer, and was switched
    expect(execCalls()).toEqual([
      expect.objectContaining({ method: 'GET', user: 'ops-console-writer', groups: ['ops-console:writers'], authenticatedAs: saUser, status: 101 }),
    ]);
    expect(execCalls()[0].query).toMatch(/command=echo&command=hi/);
  });

  it('keeps stdout and stderr apart and passes the container environment through', async () => {
    const r = await kc(['exec', 'web', '-n', 'default', '--', 'sh', '-c', 'echo to-out; echo to-err >&2'], adminKubeconfig);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('to-out\n');
    expect(r.stderr).toBe('to-err\n');
    const env = await kc(['exec', 'web', '-n', 'default', '-c', 'app', '--', 'env'], adminKubeconfig);
    expect(env.stdout).toMatch(/^GREETING=hello from web$/m);
    expect(env.stdout).toMatch(/^HOSTNAME=web$/m);
  });

  it('round-trips stdin with -i (a few KB, then 2 MB, through cat; the v5 CLOSE signal ends it)', async () => {
    const input = Array.from({ length: 400 }, (_, i) => `line ${i} ${'x'.repeat(i % 37)}`).join('\n') + '\n';
    expect(input.length).toBeGreaterThan(8_000);
    const r = await kc(['exec', '-i', 'web', '-n', 'default', '--', 'cat'], adminKubeconfig, input);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(input);
    expect(kube.execs.at(-1)).toMatchObject({ command: ['cat'], stdin: true, exitCode: 0 });

    // a few MB: both pipes of the tunnel and the stand-in's stdin run into backpressure, and every byte arrives in order
    const big = Array.from({ length: 100_000 }, (_, i) => `${String(i).padStart(6, '0')} ${'abcdefghijklmnopqrstuvwxyz'.slice(i % 26)}`).join('\n');
    expect(big.length).toBeGreaterThan(2_000_000);
    const r2 = await kc(['exec', '-i', 'web', '-n', 'default', '--', 'cat'], adminKubeconfig, big);
    expect(r2.code, r2.stderr).toBe(0);
    expect(r2.stdout.length).toBe(big.length);
    expect(r2.stdout === big).toBe(true);
  });

  it("passes the command's exit code to kubectl", async () => {
    const r = await kc(['exec', 'web', '-n', 'default', '--', 'exit', '3'], adminKubeconfig);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/command terminated with exit code 3/);
    const missing = await kc(['exec', 'web', '-n', 'default', '--', 'no-such-binary'], adminKubeconfig);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/executable file not found/);
  });

  it('attaches to the container (its command, cat here) with -i', async () => {
    const r = await kc(['attach', '-i', 'web', '-n', 'default'], adminKubeconfig, 'attached input\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('attached input\n');
    expect(kube.execs.at(-1)).toMatchObject({ kind: 'attach', command: ['cat'], user: 'ops-console-writer' });
  });

  it("refuses a viewer's kubeconfig: the reader may not create pods/exec (Forbidden from the API server)", async () => {
    kube.impersonations.length = 0;
    const before = kube.execs.length;
    const r = await kc(['exec', 'web', '-n', 'default', '--', 'echo', 'hi'], viewerKubeconfig);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Forbidden[^]*User "ops-console-reader" cannot create resource "pods\/exec"/);
    expect(r.stdout).toBe('');
    expect(kube.execs.length).toBe(before);
    // kubectl tried WebSocket (GET) and then fell back to SPDY (POST): both refused, as HTTP answers the proxy relayed
    const calls = execCalls();
    expect(calls.map((c) => c.method)).toEqual(['GET', 'POST']);
    for (const c of calls) expect(c).toMatchObject({ user: 'ops-console-reader', status: 403 });

    const pf = await kc(['port-forward', '-n', 'default', 'pod/web', ':8080'], viewerKubeconfig);
    expect(pf.code).not.toBe(0);
    expect(pf.stderr).toMatch(/User "ops-console-reader" cannot create resource "pods\/portforward"/);
    expect(kube.execs.length).toBe(before);
  });

  it('answers a wrong token with 401 before any upgrade, and nothing reaches the API server', async () => {
    kube.impersonations.length = 0;
    const bad = await rawUpgrade(`/kubeproxy${EXEC_PATH}?command=echo&stdout=true`, {
      authorization: `Basic ${Buffer.from('token:0123456789abcdef0123456789abcdef.made-up').toString('base64')}`,
    });
    expect(bad.status).toBe(401);
    expect(JSON.parse(bad.body)).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    const none = await rawUpgrade(`/kubeproxy${EXEC_PATH}?command=echo&stdout=true`, {});
    expect(none.status).toBe(401);

    const file = join(dir, 'bad-token.yaml');
    const content = parse(readFileSync(adminKubeconfig, 'utf8')) as { users: { user: Record<string, string> }[] };
    content.users[0].user = { username: 'token', password: '0123456789abcdef0123456789abcdef.revoked-or-made-up-secret' };
    writeFileSync(file, JSON.stringify(content));
    const r = await kc(['exec', 'web', '-n', 'default', '--', 'echo', 'hi'], file);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/You must be logged in to the server/);
    expect(kube.impersonations).toHaveLength(0);
  });

  it("strips the caller's Impersonate-* headers from the upgrade", async () => {
    kube.impersonations.length = 0;
    const r = await kc(['--as=system:admin', '--as-group=system:masters', 'exec', 'web', '-n', 'default', '--', 'echo', 'hi'], viewerKubeconfig);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/User "ops-console-reader" cannot create resource "pods\/exec"/);
    expect(new Set(kube.impersonations.map((c) => c.user))).toEqual(new Set(['ops-console-reader']));
  });

  it('relays an API server refusal of the upgrade as an HTTP response (unknown container: 400 Status)', async () => {
    const auth = { authorization: `Basic ${Buffer.from(`token:${adminToken}`).toString('base64')}` };
    const r = await rawUpgrade(`/kubeproxy${EXEC_PATH}?command=echo&container=nope&stdout=true`, auth);
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toMatchObject({ kind: 'Status', code: 400, message: 'container nope is not valid for pod web' });
    const ok = await rawUpgrade(`/kubeproxy${EXEC_PATH}?command=sleep&command=5&stdout=true`, auth);
    expect(ok.status).toBe(101);
    expect(ok.headers['sec-websocket-protocol']).toBe('v5.channel.k8s.io');
    expect(ok.headers['sec-websocket-accept']).toBeTruthy();
    await until(async () => kube.openExecs() === 0, 'the abandoned session to end');
  });

  it('a browser session may exec from the console origin only (no cross-site WebSocket)', async () => {
    const same = await wsExec('command=echo&command=from-browser&stdout=true', { ...adminSession, origin: publicUrl });
    expect(same.stdout).toBe('from-browser\n');
    expect(same.status).toEqual({ metadata: {}, status: 'Success' });
    expect(same.close).toBe(1000);

    kube.impersonations.length = 0;
    await expect(wsExec('command=echo&command=x&stdout=true', { ...adminSession, origin: 'https://evil.example' })).rejects.toThrow(/unexpected response 403/);
    const raw = await rawUpgrade(`/kubeproxy${EXEC_PATH}?command=echo&stdout=true`, { ...adminSession, origin: 'https://evil.example' });
    expect(raw.status).toBe(403);
    expect(JSON.parse(raw.body)).toMatchObject({ kind: 'Status', reason: 'Forbidden', message: 'cross-origin upgrade refused' });
    expect(kube.impersonations).toHaveLength(0);
  });

  it('serves older clients on v4.channel.k8s.io (the status on the error channel, stdin ends with the connection)', async () => {
    const auth = { authorization: `Bearer ${adminToken}` };
    const r = await wsExec('command=sh&command=-c&command=echo%20v4;%20exit%205&stdout=true', auth, 'v4.channel.k8s.io');
    expect(r.stdout).toBe('v4\n');
    expect(r.status).toMatchObject({ status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '5' }] } });
    expect(kube.execs.at(-1)).toMatchObject({ protocol: 'v4.channel.k8s.io', exitCode: 5 });
  });

  it('passes on what a client sends right behind its upgrade request, before the 101', async () => {
    // one write: the request and two WebSocket frames (stdin "early bytes\n", then the v5 CLOSE of stdin), so the
    // frames reach the console together with the headers (Node hands them to the upgrade as its `head`)
    const frame = (payload: Buffer) => {
      const mask = Buffer.from([1, 2, 3, 4]);
      return Buffer.concat([Buffer.from([0x82, 0x80 | payload.length]), mask, Buffer.from(payload.map((b, i) => b ^ mask[i % 4]))]);
    };
    const request = Buffer.from([
      `GET /kubeproxy/t/${encodeURIComponent(adminToken)}${EXEC_PATH}?command=cat&stdin=true&stdout=true HTTP/1.1`,
      `Host: 127.0.0.1`, 'Connection: Upgrade', 'Upgrade: websocket', 'Sec-WebSocket-Version: 13',
      'Sec-WebSocket-Key: MDEyMzQ1Njc4OWFiY2RlZg==', 'Sec-WebSocket-Protocol: v5.channel.k8s.io', '', '',
    ].join('\r\n'));
    const socket = net.connect(Number(new URL(consoleUrl).port), '127.0.0.1');
    let raw = Buffer.alloc(0);
    socket.on('data', (c: Buffer) => (raw = Buffer.concat([raw, c])));
    socket.write(Buffer.concat([request, frame(Buffer.from('\x00early bytes\n')), frame(Buffer.from([255, 0]))]));
    // the session ends with the status and the server's close frame (opcode 8): then this client just hangs up
    await until(async () => raw.includes(Buffer.from([0x88, 0x02, 0x03, 0xe8])), 'the end of the session', 20_000);
    socket.destroy();
    await until(async () => kube.openExecs() === 0, 'the session to close at the API server');

    const text = raw.toString('latin1');
    expect(text).toMatch(/^HTTP\/1\.1 101 /);
    // the server's frames after the 101: unmasked, short; stdout (channel 1) then the status (channel 3)
    let at = text.indexOf('\r\n\r\n') + 4;
    let stdout = '';
    while (at < raw.length) {
      const opcode = raw[at] & 0x0f;
      let len = raw[at + 1] & 0x7f;
      let start = at + 2;
      if (len === 126) {
        len = raw.readUInt16BE(at + 2);
        start = at + 4;
      }
      const payload = raw.subarray(start, start + len);
      if (opcode === 2 && payload[0] === 1) stdout += payload.subarray(1).toString();
      if (opcode === 2 && payload[0] === 3) expect(JSON.parse(payload.subarray(1).toString())).toEqual({ metadata: {}, status: 'Success' });
      at = start + len;
    }
    expect(stdout).toBe('early bytes\n');
  });

  it('answers an upgrade with 503 when the console has no cluster', async () => {
    const off = await createTestApp({ KUBERNETES: 'off' });
    try {
      await off.app.listen({ port: 0, host: '127.0.0.1' });
      const writer = await makePerson(off.db, { roles: ['admin'] });
      const token = await insertAccessToken(off.db, { personId: writer.id, name: 'k', createdBy: writer.id, expiresAt: null, autoRenew: false });
      const status = await new Promise<{ code: number; body: string }>((resolve, reject) => {
        const req = http.request(`http://127.0.0.1:${(off.app.server.address() as AddressInfo).port}/kubeproxy${EXEC_PATH}?command=ls&stdout=true`, {
          agent: false,
          headers: {
            authorization: `Bearer ${token.token}`, connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13',
            'sec-websocket-key': 'MDEyMzQ1Njc4OWFiY2RlZg==', 'sec-websocket-protocol': 'v5.channel.k8s.io',
          },
        });
        req.on('upgrade', (res, socket) => {
          socket.destroy();
          resolve({ code: res.statusCode!, body: '' });
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ code: res.statusCode!, body }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(status.code).toBe(503);
      expect(JSON.parse(status.body)).toMatchObject({ kind: 'Status', code: 503, message: expect.stringMatching(/not connected to a Kubernetes cluster/) });
    } finally {
      await off.close();
    }
  });

  it('works with the plain-http kubeconfig (token in the URL path)', async () => {
    kube.impersonations.length = 0;
    const httpFile = join(dir, 'plain-http.yaml');
    writeFileSync(httpFile, buildKubeconfig({ publicUrl: consoleUrl, token: adminToken }));
    const r = await kc(['exec', '-i', 'web', '-n', 'default', '--', 'cat'], httpFile, 'over plain http\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('over plain http\n');
    expect(execCalls().map((c) => [c.user, c.status])).toEqual([['ops-console-writer', 101]]);

    // the tunnel is logged, opened and closed, and the token in the URL never reaches the log
    const secret = adminToken.split('.').pop()!;
    expect(secret.length).toBeGreaterThan(10);
    expect(logLines.some((l) => l.includes(secret))).toBe(false);
    await until(async () => logLines.some((l) => l.includes('kubeproxy: tunnel closed')), 'the tunnel closed line');
    const opened = logLines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'kubeproxy: tunnel opened');
    expect(opened.at(-1)).toMatchObject({
      level: 30, path: EXEC_PATH, upgrade: 'websocket', identity: 'ops-console-writer', status: 101, protocol: 'v5.channel.k8s.io',
    });
    expect(logLines.some((l) => l.includes('/kubeproxy/t/[redacted]/api/v1/namespaces/default/pods/web/exec'))).toBe(true);
  });

  it('runs exec over a plain SPDY/3.1 upgrade too (kubectl with its WebSocket turned off: the fallback path)', async () => {
    kube.impersonations.length = 0;
    const spdyOnly = { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' };
    const r = await kc(['exec', 'web', '-n', 'default', '--', 'sh', '-c', 'echo over spdy; echo e >&2; exit 4'], adminKubeconfig, '', spdyOnly);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('over spdy\n');
    expect(r.stderr).toMatch(/^e\ncommand terminated with exit code 4/);
    const input = 'spdy stdin\n'.repeat(500);
    const cat = await kc(['exec', '-i', 'web', '-n', 'default', '--', 'cat'], adminKubeconfig, input, spdyOnly);
    expect(cat.code, cat.stderr).toBe(0);
    expect(cat.stdout).toBe(input);
    expect(kube.execs.at(-1)).toMatchObject({ protocol: 'v4.channel.k8s.io', user: 'ops-console-writer', exitCode: 0 });
    // the SPDY upgrade is a POST: it reached the API server as the writer and was switched
    expect(execCalls().map((c) => [c.method, c.user, c.status])).toEqual([
      ['POST', 'ops-console-writer', 101], ['POST', 'ops-console-writer', 101],
    ]);
  });

  for (const [how, extraEnv] of [
    ['SPDY/3.1 tunnelled in a WebSocket, kubectl 1.35', {}],
    ['a plain SPDY/3.1 upgrade, its WebSocket turned off', { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' }],
  ] as const) it(`forwards a port (${how}) as the writer`, async () => {
    kube.impersonations.length = 0;
    const child = spawn(kubectl, ['--kubeconfig', adminKubeconfig, 'port-forward', '-n', 'default', 'pod/web', ':8080'], {
      env: { PATH: process.env.PATH ?? '', HOME: dir, ...extraEnv },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const local = await until(async () => Number(/Forwarding from 127\.0\.0\.1:(\d+) -> 8080/.exec(out)?.[1]), 'kubectl to listen');
      // two connections through the one tunnel: the pod's stand-in server on 8080 echoes
      for (const text of ['hello through port-forward\n', `${'y'.repeat(20_000)}\n`]) {
        const echoed = await new Promise<string>((resolve, reject) => {
          const s = net.connect(local, '127.0.0.1', () => s.write(text));
          let got = '';
          s.on('data', (c: Buffer) => {
            got += c.toString();
            if (got.length >= text.length) {
              s.end();
              resolve(got);
            }
          });
          s.on('error', reject);
        });
        expect(echoed).toBe(text);
      }
      const websocket = !('KUBECTL_PORT_FORWARD_WEBSOCKETS' in extraEnv);
      expect(kube.execs.at(-1)).toMatchObject({
        kind: 'portforward', pod: 'web', protocol: websocket ? 'SPDY/3.1+portforward.k8s.io' : 'portforward.k8s.io',
        user: 'ops-console-writer', ports: [8080, 8080],
      });
      expect(kube.impersonations.filter((r) => r.path.endsWith('/portforward')).map((r) => [r.method, r.user, r.status]))
        .toEqual([[websocket ? 'GET' : 'POST', 'ops-console-writer', 101]]);
    } finally {
      child.kill('SIGTERM');
    }
    await exited;
    await until(async () => kube.openExecs() === 0, 'the port-forward session to close at the API server');
  });

  it('works for @kubernetes/client-node Exec too (the ws package, v5 offered first)', async () => {
    const config = new KubeConfig();
    config.loadFromFile(adminKubeconfig);
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (c: Buffer) => (out += c.toString()));
    const status = await new Promise<V1Status>((resolve, reject) => {
      new Exec(config).exec('default', 'web', 'app', ['sh', '-c', 'echo from client-node; exit 7'], stdout, null, null, false, resolve).catch(reject);
    });
    expect(out).toBe('from client-node\n');
    expect(status).toMatchObject({ status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '7' }] } });
  });

  it('carries a tty session with its resize channel (client-node Exec with a terminal-sized stdout)', async () => {
    const config = new KubeConfig();
    config.loadFromFile(adminKubeconfig);
    const stdout = Object.assign(new PassThrough(), { columns: 120, rows: 40 });
    const stdin = new PassThrough();
    let out = '';
    stdout.on('data', (c: Buffer) => (out += c.toString()));
    const status = new Promise<V1Status>((resolve, reject) => {
      new Exec(config).exec('default', 'web', 'app', ['cat'], stdout, null, stdin, true, resolve).catch(reject);
    });
    stdin.write('typed\n');
    await until(async () => out === 'typed\n', 'the echo of the tty session');
    const session = kube.execs.at(-1)!;
    expect(session).toMatchObject({ tty: true, command: ['cat'] });
    await until(async () => session.resizes.length > 0, 'the initial terminal size');
    expect(session.resizes[0]).toEqual({ width: 120, height: 40 });
    stdin.end();
    expect(await status).toMatchObject({ status: 'Success' });
  });

  it('kubectl going away closes the API server side of its session', async () => {
    const child = spawn(kubectl, ['--kubeconfig', adminKubeconfig, 'exec', '-i', 'web', '-n', 'default', '--', 'cat'], {
      env: { PATH: process.env.PATH ?? '', HOME: dir },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stdin.write('ping\n');
    await until(async () => out === 'ping\n', 'the echo through the open session');
    expect(kube.openExecs()).toBe(1);
    child.kill('SIGKILL');
    await until(async () => kube.openExecs() === 0, 'the session to close at the API server');
  });

  it('the API server going away ends kubectl; while it is down an upgrade gets 502 before any switch', async () => {
    const child = spawn(kubectl, ['--kubeconfig', adminKubeconfig, 'exec', '-i', 'web', '-n', 'default', '--', 'cat'], {
      env: { PATH: process.env.PATH ?? '', HOME: dir },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.stdin.write('ping\n');
    await until(async () => out === 'ping\n', 'the echo through the open session');

    const down = kube.goDown(2);
    expect(await exited).not.toBe(0);
    const auth = { authorization: `Basic ${Buffer.from(`token:${adminToken}`).toString('base64')}` };
    const r = await rawUpgrade(`/kubeproxy${EXEC_PATH}?command=echo&stdout=true`, auth);
    expect(r.status).toBe(502);
    expect(JSON.parse(r.body)).toMatchObject({ kind: 'Status', code: 502, message: expect.stringMatching(/cannot be reached/) });
    await down;
    const again = await kc(['exec', 'web', '-n', 'default', '--', 'echo', 'back'], adminKubeconfig);
    expect(again.stdout).toBe('back\n');
  });

  it('closing the console ends an open session on both sides (nothing leaks)', async () => {
    // last in this file: it closes the console
    const child = spawn(kubectl, ['--kubeconfig', adminKubeconfig, 'exec', '-i', 'web', '-n', 'default', '--', 'cat'], {
      env: { PATH: process.env.PATH ?? '', HOME: dir },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.stdin.write('still here\n'); // stdin stays open: the session lasts until something ends it
    await until(async () => out === 'still here\n', 'the echo through the open session');
    expect(kube.openExecs()).toBe(1);

    await t.app.close();
    expect(await exited).not.toBe(0);
    await until(async () => kube.openExecs() === 0, 'the API server side of the session to close');
  });
});
