import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { celToText, evalCel } from '../../server/lib/cel.js';
import { executeCheck } from '../../server/modules/health/runner.js';
import { KeyRefReadError, ValueFromResolver } from '../../server/lib/value-from.js';
import { nextRun, parseSchedule } from '../../server/modules/health/schedule.js';
import { validateCanarySpec } from '../../server/modules/health/spec.js';
import { CanarySpec } from '../../server/modules/kubernetes/kinds.js';
import { stopProcess, waitUntil } from '../fixtures/servers/proc.js';
import { redisMissing, redisServer } from '../fixtures/servers/redis.js';
import { closedPort, freePort } from '../fixtures/servers/tcp.js';

// Manifests written the way reference (canary-checker) users write them: what the console must accept and run alike.

const run = (type: string, spec: Record<string, unknown>) =>
  executeCheck({ id: 'c', canaryId: 'k', type, name: String(spec.name ?? 'x'), spec });

describe('CEL helpers of the reference', () => {
  const cel = (expr: string) => celToText(evalCel(expr, {}));

  it('Duration() reads Go units plus days and weeks, and compares with CEL durations', () => {
    expect(cel("Duration('7d') == duration('168h')")).toBe('true');
    expect(cel("Duration('1w') == Duration('7d')")).toBe('true');
    expect(cel("Duration('1d12h30m') == duration('36h30m')")).toBe('true');
    expect(cel("Duration('1.5h') == duration('90m')")).toBe('true');
    expect(cel("Duration('-2d') < duration('0s')")).toBe('true');
    expect(cel("Duration('3d') > duration('71h')")).toBe('true');
    expect(() => cel("Duration('7 days')")).toThrow(/invalid duration "7 days"/);
    expect(() => cel("Duration('')")).toThrow(/invalid duration/);
  });

  it('map.keys() and sprint(), as reference manifests use them', () => {
    const vars = { headers: { Authorization: 'Bearer x', Accept: '*/*' }, code: 500 };
    expect(celToText(evalCel("! ('Authorization' in headers.keys())", vars))).toBe('false');
    expect(celToText(evalCel('headers.keys().size()', vars))).toBe('2');
    expect(celToText(evalCel('sprint(code) + " should be 500"', vars))).toBe('500 should be 500');
    expect(cel("sprint(2.0) + '|' + sprint(1.5) + '|' + sprint(true) + '|' + sprint('x') + '|' + sprint(3u)")).toBe('2|1.5|true|x|3');
    expect(() => cel('sprint([1])')).toThrow(/sprint: only strings, numbers and booleans/);
  });

  it('Age() is the time since an RFC 3339 timestamp', () => {
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    expect(cel(`Age('${hourAgo}') > duration('59m') && Age('${hourAgo}') < duration('61m')`)).toBe('true');
    expect(cel("Age('2020-01-01T00:00:00Z') > Duration('3d')")).toBe('true');
    expect(() => cel("Age('yesterday')")).toThrow(/invalid timestamp/);
  });
});

describe('http sslAge as a duration', () => {
  const servers: https.Server[] = [];
  afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));
  async function serveWithCert(days: number): Promise<number> {
    const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
      notBeforeDate: new Date(Date.now() - 86_400_000), notAfterDate: new Date(Date.now() + days * 86_400_000), keySize: 2048,
    } as never);
    const server = https.createServer({ key: pems.private, cert: pems.cert }, (_req, res) => res.end('ok'));
    servers.push(server);
    return new Promise((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));
  }

  it("`sslAge > Duration('7d')` passes with 30 days left and fails with 3, as in the reference's fixtures", async () => {
    const [later, soon] = await Promise.all([serveWithCert(30), serveWithCert(3)]);
    const check = (port: number) => run('http', {
      name: 'tls', url: `https://127.0.0.1:${port}/`, tlsConfig: { insecureSkipVerify: true },
      test: { expr: "code in [200,201,301] && sslAge > Duration('7d')" },
      display: { expr: "string(sslAge > duration('600h'))" },
    });
    expect(await check(later)).toMatchObject({ pass: true, message: 'true' });
    expect(await check(soon)).toMatchObject({ pass: false, invalid: false, error: expect.stringContaining('test failed') });
    // a template prints it as Go prints a duration
    const shown = await run('http', { name: 't', url: `https://127.0.0.1:${later}/`, tlsConfig: { insecureSkipVerify: true }, display: { template: 'age={{.sslAge}}' } });
    expect(shown.message).toMatch(/^age=7(19|20)h\d+m[\d.]+s$/);
  });
});

describe('checks without a name', () => {
  it('are named after their description, else their endpoint, as the reference names results', () => {
    const v = validateCanarySpec({
      interval: 30,
      exec: [{ description: 'says hello', script: 'echo hello' }],
      tcp: [{ endpoint: 'db.internal:5432' }],
      http: [{ url: 'https://status.example.org/health' }, { name: 'named', description: 'kept as description', url: 'https://a.example.org' }],
    });
    expect(v.checks.map((c) => [c.type, c.name, c.description])).toEqual([
      ['exec', 'says hello', 'says hello'],
      ['tcp', 'db.internal:5432', null],
      ['http', 'https://status.example.org/health', null],
      ['http', 'named', 'kept as description'],
    ]);
  });

  it('two nameless checks on one endpoint collide, and the message says which name', () => {
    expect(() => validateCanarySpec({ http: [{ url: 'https://a.example.org', responseCodes: [401] }, { url: 'https://a.example.org' }] }))
      .toThrow('spec.http.1.name: duplicate http check name "https://a.example.org"');
  });

  it('run from their stored spec as written (no name in it)', async () => {
    const out = await executeCheck({ id: 'c', canaryId: 'k', type: 'exec', name: 'says hello', spec: { description: 'says hello', script: 'printf hello' } });
    expect(out).toMatchObject({ pass: true, message: 'hello' });
  });
});

describe('`results`: a result\'s details, as the reference binds them', () => {
  it('exec: results.stdout in test, display and templates', async () => {
    const spec = {
      name: 'env', script: 'echo -n ${GREETING} ${TARGET}', env: [{ name: 'GREETING', value: 'hello' }, { name: 'TARGET', value: 'world' }],
      test: { expr: 'results.stdout == "hello world" && results.exitCode == 0' },
      display: { template: 'said {{.results.stdout}}' },
    };
    expect(await run('exec', spec)).toMatchObject({ pass: true, message: 'said hello world' });
    expect(await run('exec', { ...spec, script: 'echo -n goodbye' })).toMatchObject({ pass: false, invalid: false, error: expect.stringContaining('test failed') });
  });
});

/** A server certificate for 127.0.0.1 that also signed a client certificate (so it is the CA for both sides). */
async function mtlsPems() {
  return generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048, algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', keyCertSign: true, digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
    clientCertificate: { cn: 'checker' },
  } as never);
}

describe('tlsConfig as the reference writes it (ca, cert, key; EnvVar values)', () => {
  let port: number;
  let pems: Awaited<ReturnType<typeof mtlsPems>>;
  let server: https.Server;
  const seen: string[] = [];
  afterAll(() => new Promise((r) => server.close(r)));

  it('http: verifies the server with tlsConfig.ca and presents tlsConfig.cert/key (mTLS)', async () => {
    pems = await mtlsPems();
    server = https.createServer({ key: pems.private, cert: pems.cert, ca: pems.cert, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      seen.push(String((req.socket as import('node:tls').TLSSocket).getPeerCertificate().subject?.CN ?? ''));
      res.end('ok');
    });
    port = await new Promise((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));
    const url = `https://127.0.0.1:${port}/`;
    const ok = await run('http', { name: 'mtls', url, tlsConfig: { ca: { value: pems.cert }, cert: { value: pems.clientcert }, key: pems.clientprivate } });
    expect(ok).toMatchObject({ pass: true, message: '200' });
    expect(seen).toEqual(['checker']);
    // without the client certificate the server refuses the handshake
    const noCert = await run('http', { name: 'mtls', url, tlsConfig: { ca: pems.cert } });
    expect(noCert.pass).toBe(false);
    // without the CA the server's certificate is not trusted
    const noCa = await run('http', { name: 'mtls', url, tlsConfig: { cert: pems.clientcert, key: pems.clientprivate } });
    expect(noCa).toMatchObject({ pass: false, error: expect.stringMatching(/self[- ]signed|unable to verify|issuer/i) });
    // a certificate without its key is a spec error, and the key never shows
    const half = await run('http', { name: 'mtls', url, tlsConfig: { ca: pems.cert, cert: pems.clientcert } });
    expect(half).toMatchObject({ pass: false, invalid: true, error: 'tlsConfig.key is required with tlsConfig.cert (a client certificate needs its key)' });
  });

  it('the spec accepts valueFrom for ca, cert and key (resolved from Secrets before a run)', () => {
    const ref = (key: string) => ({ valueFrom: { secretKeyRef: { name: 'tls', key } } });
    expect(() => validateCanarySpec({ http: [{ name: 'x', url: 'https://a.example.org', tlsConfig: { ca: ref('ca.crt'), cert: ref('tls.crt'), key: ref('tls.key') } }] })).not.toThrow();
  });
});

describe('older credential spellings', () => {
  it('http authentication: {username, password} is sent as Basic, as username/password are', async () => {
    const got: Array<string | undefined> = [];
    const server = http.createServer((req, res) => {
      got.push(req.headers.authorization);
      res.statusCode = req.headers.authorization === `Basic ${Buffer.from('hello:world').toString('base64')}` ? 200 : 401;
      res.end();
    });
    const port = await new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));
    try {
      const url = `http://127.0.0.1:${port}/basic-auth`;
      expect(await run('http', { name: 'a', url, responseCodes: [200], authentication: { username: { value: 'hello' }, password: { value: 'world' } } }))
        .toMatchObject({ pass: true });
      // the top-level fields win
      expect(await run('http', { name: 'a', url, responseCodes: [200], username: 'hello', password: 'wrong', authentication: { username: 'hello', password: 'world' } }))
        .toMatchObject({ pass: false, error: expect.stringContaining('401') });
      expect(got).toHaveLength(2);
    } finally {
      server.close();
    }
  });

  it('elasticsearch auth: {username, password} is used for the search', async () => {
    const server = http.createServer((req, res) => {
      const ok = req.headers.authorization === `Basic ${Buffer.from('admin:s3cret').toString('base64')}`;
      res.statusCode = ok ? 200 : 401;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(ok ? { took: 1, hits: { total: { value: 1, relation: 'eq' } } } : { error: 'unauthorized' }));
    });
    const port = await new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));
    try {
      const spec = { name: 'es', url: `http://127.0.0.1:${port}`, index: 'logs', results: 1 };
      expect(await run('elasticsearch', { ...spec, auth: { username: { value: 'admin' }, password: { value: 's3cret' } } })).toMatchObject({ pass: true });
      const denied = await run('elasticsearch', { ...spec, auth: { username: 'admin', password: 'nope' } });
      expect(denied.pass).toBe(false);
    } finally {
      server.close();
    }
  });
});

/** The save-time verdict on a spec: 'accepted', or the refusal's message. */
function refused(spec: Record<string, unknown>): string {
  try {
    validateCanarySpec(spec);
  } catch (err) {
    return (err as Error).message;
  }
  return 'accepted';
}

describe('reference fields this console does not run are refused by path, not ignored', () => {

  it('transform and dependsOn are run (tests/server/health-transform.test.ts, tests/server/health-depends-on.test.ts)', () => {
    expect(refused({ folder: [{ name: 'f', path: '/tmp', transform: { expr: '[].toJSON()' } }] })).toBe('accepted');
    expect(refused({ http: [{ name: 'a', url: 'https://a.example.org' }, { name: 'b', url: 'https://b.example.org', dependsOn: ['a'] }] }))
      .toBe('accepted');
  });

  it('http templateBody that does not parse, crawl, awsSigV4', () => {
    const http0 = { name: 'a', url: 'https://a.example.org', method: 'POST' };
    // a body template sees canary, check and env entries (check-templates.ts, tests/server/health-templates.test.ts)
    expect(refused({ http: [{ ...http0, templateBody: true, body: '{"canary": "{{.canary.name}}", "db": "{{.db}}"}', envVar: [{ name: 'db', value: 'x' }] }] }))
      .toBe('accepted');
    expect(refused({ http: [{ ...http0, templateBody: true, body: '{{. | toJSONPretty " " }}' }] })).toBe('accepted');
    expect(refused({ http: [{ ...http0, templateBody: true, body: '{{ .size | humanizeBytes }}', env: [{ name: 'size', value: '1' }] }] }))
      .toBe('spec.http.0.templateBody: template: 1:12: function "humanizeBytes" not defined');
    expect(refused({ http: [{ ...http0, templateBody: true, body: '{{ .db | strings.ToUpper }}', env: [{ name: 'db', value: 'x' }] }] })).toBe('accepted');
    expect(refused({ http: [{ ...http0, templateBody: true, body: '{"plain": true}' }] })).toBe('accepted');
    expect(refused({ http: [{ ...http0, templateBody: false, body: '{{ literal }}' }] })).toBe('accepted');
    expect(refused({ http: [{ ...http0, crawl: { depth: 2 } }] })).toMatch(/^spec\.http\.0\.crawl: crawl is not supported/);
    expect(refused({ http: [{ ...http0, awsSigV4: { region: 'eu-west-1' } }] })).toMatch(/^spec\.http\.0\.awsSigV4: awsSigV4 is not supported/);
  });

  it('exec checkout and connections; artifacts are accepted (they add output, not a verdict)', () => {
    expect(refused({ exec: [{ name: 'e', script: 'cat go.mod', checkout: { url: 'github.com/example/repo' } }] }))
      .toBe('spec.exec.0.checkout: checkout is not supported: the script would run without the git checkout');
    expect(refused({ exec: [{ name: 'e', script: 'aws s3 ls', connections: { aws: { region: 'eu-west-1' } } }] }))
      .toMatch(/^spec\.exec\.0\.connections: connections are not supported/);
    expect(refused({ exec: [{ name: 'e', script: 'true', artifacts: [{ path: '/tmp/out/*' }] }] })).toBe('accepted');
  });

  it('webhook as one object (the reference\'s shape) or a list; other types must be lists, and the message says so', () => {
    const v = validateCanarySpec({ webhook: { name: 'gh', token: 't', test: { expr: 'json.ok == true' } } });
    expect(v.checks).toMatchObject([{ type: 'webhook', name: 'gh', spec: { name: 'gh', token: 't' } }]);
    expect(validateCanarySpec({ webhook: [{ name: 'a' }, { name: 'b' }] }).checks.map((c) => c.name)).toEqual(['a', 'b']);
    // problems in the object form carry its path without an index
    expect(refused({ webhook: { name: 'gh', transform: { jsonPath: '$.alerts' } } }))
      .toBe('spec.webhook.transform.jsonPath: transform.jsonPath is not supported; use transform.expr (CEL)');
    expect(refused({ http: { name: 'h', url: 'https://a.example.org' } }))
      .toBe('spec.http: expected a list of checks: write the http check as a list item (`http: [{...}]`)');
  });

  it('a Canary CR with a webhook object passes the CR schema too', () => {
    expect(CanarySpec.safeParse({ webhook: { name: 'gh', token: { value: 't' } } }).success).toBe(true);
    expect(CanarySpec.safeParse({ http: { name: 'h', url: 'https://a.example.org' } }).success).toBe(false);
  });
});

describe.skipIf(redisMissing)(`redis tlsConfig against a real redis-server with TLS${redisMissing ? ` (skipped: ${redisMissing})` : ''}`, () => {
  let port: number;
  let pems: Awaited<ReturnType<typeof mtlsPems>>;
  let stop: () => Promise<void> = async () => {};
  beforeAll(async () => {
    pems = await mtlsPems();
    const dir = await mkdtemp(join(tmpdir(), 'compat-redis-tls-'));
    await Promise.all([writeFile(join(dir, 'server.crt'), pems.cert), writeFile(join(dir, 'server.key'), pems.private)]);
    port = await freePort();
    // TLS only (plain port off), and clients must present a certificate signed by the server's
    const child = spawn(redisServer!, [
      '--port', '0', '--tls-port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir,
      '--tls-cert-file', join(dir, 'server.crt'), '--tls-key-file', join(dir, 'server.key'), '--tls-ca-cert-file', join(dir, 'server.crt'),
      '--tls-auth-clients', 'yes',
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output = (output + d).slice(-4000)));
    child.stderr.on('data', (d) => (output = (output + d).slice(-4000)));
    stop = async () => {
      await stopProcess(child);
      await rm(dir, { recursive: true, force: true });
    };
    await waitUntil('redis-server (tls)', () => new Promise<boolean>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port }, () => { s.destroy(); resolve(true); });
      s.on('error', () => resolve(false));
    }), { child, timeoutMs: 30_000, log: () => output });
  }, 60_000);
  afterAll(() => stop(), 60_000);

  it('speaks TLS with ca + client cert/key from tlsConfig (values or EnvVars), as the reference\'s redis mTLS manifests', async () => {
    const url = `127.0.0.1:${port}`;
    expect(await run('redis', { name: 'mtls', url, tlsConfig: { ca: { value: pems.cert }, cert: { value: pems.clientcert }, key: { value: pems.clientprivate } } }))
      .toMatchObject({ pass: true, message: 'PONG' });
    expect(await run('redis', { name: 'insecure', addr: url, tlsConfig: { insecureSkipVerify: true, cert: pems.clientcert, key: pems.clientprivate } }))
      .toMatchObject({ pass: true });
    // without tlsConfig the client speaks plain RESP to a TLS port and fails; without a client certificate the server refuses
    expect((await run('redis', { name: 'plain', url })).pass).toBe(false);
    expect((await run('redis', { name: 'no-cert', url, tlsConfig: { enable: true, ca: pems.cert } })).pass).toBe(false);
    // with no CA the self-signed server certificate is refused
    expect(await run('redis', { name: 'no-ca', url, tlsConfig: { enable: true, cert: pems.clientcert, key: pems.clientprivate } }))
      .toMatchObject({ pass: false, error: expect.stringMatching(/self[- ]signed|unable to verify|issuer/i) });
  });
});

describe('more reference fields, accepted or refused', () => {

  it('tls settings on the fetch-based types are refused; an empty or verifying one is harmless', () => {
    const ca = { valueFrom: { secretKeyRef: { name: 'prom', key: 'ca.crt' } } };
    expect(refused({ prometheus: [{ name: 'p', url: 'https://prom.example.org', query: 'up', tls: { ca } }] }))
      .toBe('spec.prometheus.0.tls: tls is not supported for this check type: the server would be verified against the system CAs, with no client certificate');
    expect(refused({ alertmanager: [{ name: 'a', url: 'https://am.example.org', tlsConfig: { insecureSkipVerify: true } }] }))
      .toMatch(/^spec\.alertmanager\.0\.tlsConfig: tlsConfig is not supported/);
    expect(refused({ elasticsearch: [{ name: 'e', url: 'https://es.example.org', tlsConfig: { insecureSkipVerify: false } }] })).toBe('accepted');
  });

  it('dns srvReply and a folder filter.since template that does not parse are refused', () => {
    expect(refused({ dns: [{ name: 'd', query: '_x._tcp.example.org', querytype: 'SRV', srvReply: { target: 'a', port: 1, priority: 0, weight: 0 } }] }))
      .toMatch(/^spec\.dns\.0\.srvReply: srvReply is not supported/);
    expect(refused({ folder: [{ name: 'f', path: '/tmp', filter: { since: '{{ if last_result.results.max }}{{ last_result.results.max }}{{ end }}' } }] }))
      .toBe('accepted');
    expect(refused({ folder: [{ name: 'f', path: '/tmp', filter: { since: '{{ if last_result.results.max }}' } }] }))
      .toMatch(/^spec\.folder\.0\.filter\.since: template: /);
    expect(refused({ folder: [{ name: 'f', path: '/tmp', filter: { since: 'now-1h' } }] })).toBe('accepted');
  });

  it('a templated SQL query is refused only when it does not parse; a plain one with braces in a string is taken', () => {
    expect(refused({ postgres: [{ name: 'p', url: 'postgres://db/x', query: "select 1 where now() > {{ if last_result.results.rows }}'x'{{ end }}" }] }))
      .toBe('accepted');
    expect(refused({ postgres: [{ name: 'p', url: 'postgres://db/x', query: 'select {{ nosuch }}' }] }))
      .toBe('spec.postgres.0.query: template: 1:11: function "nosuch" not defined');
    expect(refused({ mysql: [{ name: 'm', url: 'u:p@tcp(db:3306)/x', query: "select '{a}'" }] })).toBe('accepted');
  });

  it('http: $(.name) in the url is filled from env (and the older envVar), an unknown name makes the check invalid', async () => {
    const server = http.createServer((req, res) => {
      res.statusCode = req.headers.authorization === `Basic ${Buffer.from('hello:world').toString('base64')}` && req.url === '/basic-auth/hello' ? 200 : 401;
      res.end();
    });
    const port = await new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));
    try {
      const url = `http://$(.user):$(.pass)@127.0.0.1:${port}/basic-auth/$(.user)`;
      expect(await run('http', { name: 'env', url, env: [{ name: 'user', value: 'hello' }, { name: 'pass', value: 'world' }] })).toMatchObject({ pass: true });
      expect(await run('http', { name: 'env', url: '$(.target)', envVar: [{ name: 'target', value: `http://hello:world@127.0.0.1:${port}/basic-auth/hello` }] }))
        .toMatchObject({ pass: true });
      // $(name) without the dot, as other reference manifests write it, when env has that name
      expect(await run('http', { name: 'env', url: '$(target)', env: [{ name: 'target', value: `http://hello:world@127.0.0.1:${port}/basic-auth/hello` }] }))
        .toMatchObject({ pass: true });
      expect(await run('http', { name: 'env', url, env: [{ name: 'user', value: 'hello' }] }))
        .toMatchObject({ pass: false, invalid: true, error: 'invalid url: $(.pass) has no env entry named pass' });
    } finally {
      server.close();
    }
  });
});

describe('schedules with a time zone (CRON_TZ= / TZ=), as the reference\'s cron parser reads them', () => {
  it('runs a zoned cron at that zone\'s wall-clock time, across a DST change', () => {
    const s = parseSchedule('CRON_TZ=Europe/London 30 9 * * *');
    expect(s).toMatchObject({ kind: 'cron', tz: 'Europe/London', expr: '30 9 * * *' });
    // winter (GMT): 09:30 London is 09:30 UTC; summer (BST): 08:30 UTC. The runs are spread up to 30 s after.
    const winter = nextRun(s, Date.parse('2026-01-15T00:00:00Z'), 'k')!;
    const summer = nextRun(s, Date.parse('2026-07-15T00:00:00Z'), 'k')!;
    expect(winter - Date.parse('2026-01-15T09:30:00Z')).toBeGreaterThanOrEqual(0);
    expect(winter - Date.parse('2026-01-15T09:30:00Z')).toBeLessThan(30_001);
    expect(summer - Date.parse('2026-07-15T08:30:00Z')).toBeGreaterThanOrEqual(0);
    expect(summer - Date.parse('2026-07-15T08:30:00Z')).toBeLessThan(30_001);
    expect(parseSchedule('TZ=America/New_York @daily')).toMatchObject({ kind: 'cron', tz: 'America/New_York', expr: '0 0 * * *' });
    // no prefix: UTC, as before
    expect(parseSchedule('30 9 * * *')).toMatchObject({ tz: 'UTC' });
  });

  it('refuses an unknown zone, and a zone on @every, with the reason', () => {
    expect(() => parseSchedule('CRON_TZ=Mars/Olympus 0 * * * *')).toThrow('invalid schedule "CRON_TZ=Mars/Olympus 0 * * * *": unknown time zone "Mars/Olympus"');
    expect(() => parseSchedule('TZ=UTC @every 5m')).toThrow(/a time zone applies to cron expressions and descriptors only/);
    expect(() => validateCanarySpec({ schedule: 'CRON_TZ=Nowhere 0 * * * *', tcp: [{ name: 't', endpoint: 'a:1' }] })).toThrow(/^spec\.schedule: invalid schedule/);
  });
});

describe('CEL functions the console does not have', () => {
  it('are refused at save by path, naming the function, instead of failing every run', () => {
    expect(() => validateCanarySpec({ exec: [{ name: 'e', script: 'true', test: { expr: 'dyn(results).all(x, k8s.isHealthy(x))' } }] }))
      .toThrow('spec.exec.0.test.expr: invalid CEL: unknown function k8s.isHealthy()');
    expect(() => validateCanarySpec({ http: [{ name: 'h', url: 'https://a.example.org', test: { expr: 'jmespath("a", json).size() > 0 && gcp.incidents.toCheckResult(json) != null' } }] }))
      .toThrow('spec.http.0.test.expr: invalid CEL: unknown functions jmespath(), gcp.incidents.toCheckResult()');
    // and a Go template function the console lacks, by name
    expect(() => validateCanarySpec({ exec: [{ name: 'e', script: 'true', display: { template: '{{ .size | humanizeBytes }}' } }] }))
      .toThrow('spec.exec.0.display.template: template: 1:12: function "humanizeBytes" not defined');
  });

  it('HumanSize, HumanDuration and SemverCompare are the reference\'s own, not refused (fixtures/minimal/cel.yaml)', () => {
    expect(() => validateCanarySpec({ exec: [{ name: 'e', script: 'true', display: { expr: "'size ' + HumanSize(1048576)" } }] })).not.toThrow();
    expect(() => validateCanarySpec({ http: [{ name: 'h', url: 'https://a.example.org', test: { expr: 'SemverCompare("1.0", "1.1") || HumanDuration(duration("1h")) != ""' } }] })).not.toThrow();
    expect(celToText(evalCel("'size ' + HumanSize(1048576) + ', ' + HumanDuration(duration('1h'))", {}))).toBe('size 1M, 1h');
    // operators, macros, standard and strings-extension functions and the reference helpers are all known
    expect(() => validateCanarySpec({ http: [{ name: 'h', url: 'https://a.example.org', test: {
      expr: "code in [200] && has(json.a) && json.items.all(i, i.ok) && [1].map(x, x + 1).size() == 1 && 'A'.lowerAscii() == 'a' && sslAge > Duration('7d') && !(Age('2020-01-01T00:00:00Z') < duration('1s')) && headers['x'].split(',')[0] != ''",
    } }] })).not.toThrow();
  });
});

describe('http headers keyed as Go writes them', () => {
  it("headers['Location'] and headers['Content-Type'] work, as in the reference's redirect manifests", async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(301, { location: '/get', 'content-type': 'text/plain', 'x-request-id': 'abc' });
      res.end();
    });
    const port = await new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));
    try {
      const out = await run('http', {
        name: 'redirect', url: `http://127.0.0.1:${port}/redirect`, maxRedirects: 0, responseCodes: [301],
        test: { expr: "headers['Location'] == '/get' && headers['Content-Type'] == 'text/plain' && headers['X-Request-Id'] == 'abc'" },
        display: { expr: "'status=' + string(code) + ', location=' + headers['Location']" },
      });
      expect(out).toMatchObject({ pass: true, message: 'status=301, location=/get' });
    } finally {
      server.close();
    }
  });
});

describe('field names matched without case, as Go\'s encoding/json does in the reference', () => {
  it('queryType, minRecords, ExactReply, ResponseCodes, ThresholdMillis are read as the declared fields', async () => {
    const v = validateCanarySpec({
      dns: [{ name: 'd', query: 'localhost', queryType: 'aaaa', minRecords: 1, ExactReply: ['::1'] }],
      http: [{ Name: 'h', URL: 'https://a.example.org', ResponseCodes: [204], ThresholdMillis: 10 }],
    });
    expect(v.checks.map((c) => c.name)).toEqual(['d', 'h']);
    // the renamed fields are the ones that run: a 200 is refused by ResponseCodes [204]
    const server = http.createServer((_req, res) => res.end('ok'));
    const port = await new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));
    try {
      const out = await run('http', { Name: 'h', Url: `http://127.0.0.1:${port}/`, ResponseCodes: [204] });
      expect(out).toMatchObject({ pass: false, error: 'response code 200 not in [204]' });
      expect(await run('http', { name: 'h', url: `http://127.0.0.1:${port}/`, responsecodes: [200] })).toMatchObject({ pass: true });
    } finally {
      server.close();
    }
  });

  it('the same field in two casings is refused by path', () => {
    expect(() => validateCanarySpec({ dns: [{ name: 'd', query: 'localhost', querytype: 'A', queryType: 'AAAA' }] }))
      .toThrow('spec.dns.0.queryType: queryType is querytype again in another casing (field names are matched without case, as the reference does)');
  });
});

describe('valueFrom in the reference\'s places (headers, authentication, env, tlsConfig)', () => {
  it('resolves each from the canary\'s namespace before the run, and the values never show in the result', async () => {
    const objects: Record<string, Record<string, string>> = {
      'secret/team-a/api': { token: 'hdr-S3cret', user: 'hello', pass: 'w0rld-S3cret' },
      'configmap/team-a/routes': { path: 'basic-auth/hello' },
    };
    const reads: string[] = [];
    const valueFrom = new ValueFromResolver({
      ttlMs: 0,
      reader: async (kind, ns, name) => {
        reads.push(`${kind}/${ns}/${name}`);
        const o = objects[`${kind}/${ns}/${name}`];
        if (!o) throw new KeyRefReadError(`${kind} ${ns}/${name} not found`, 404);
        return o;
      },
    });
    const seen: Array<{ url?: string; token?: string; auth?: string }> = [];
    const server = http.createServer((req, res) => {
      seen.push({ url: req.url, token: req.headers['x-token'] as string, auth: req.headers.authorization });
      res.end(`echo ${req.headers['x-token']}`);
    });
    const port = await new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));
    const secret = (key: string) => ({ valueFrom: { secretKeyRef: { name: 'api', key } } });
    try {
      const out = await executeCheck({
        id: 'c', canaryId: 'k', type: 'http', name: 'vf', namespace: 'team-a',
        spec: {
          name: 'vf', url: `http://127.0.0.1:${port}/$(.path)`,
          env: [{ name: 'path', valueFrom: { configMapKeyRef: { name: 'routes', key: 'path' } } }],
          headers: [{ name: 'X-Token', ...secret('token') }],
          authentication: { username: secret('user'), password: secret('pass') },
          display: { expr: 'content' },
        },
      }, { valueFrom });
      expect(out).toMatchObject({ pass: true });
      expect(seen).toEqual([{ url: '/basic-auth/hello', token: 'hdr-S3cret', auth: `Basic ${Buffer.from('hello:w0rld-S3cret').toString('base64')}` }]);
      // the server echoed the header: masked in what the check reports
      expect(out.message).toBe('echo ***');
      expect([...new Set(reads)].sort()).toEqual(['configmap/team-a/routes', 'secret/team-a/api']);
    } finally {
      server.close();
    }
  });
});

describe('http templateBody over env entries', () => {
  it('POSTs the body with {{.name}} and $(name) filled from env (values and Secrets), as written otherwise', async () => {
    const bodies: string[] = [];
    const server = http.createServer((req, res) => {
      let b = '';
      req.on('data', (c) => (b += c));
      req.on('end', () => {
        bodies.push(b);
        res.end('ok');
      });
    });
    const port = await new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));
    const valueFrom = new ValueFromResolver({ reader: async () => ({ username: 'db-User' }) });
    try {
      const spec = {
        name: 'tpl', url: `http://127.0.0.1:${port}/post`, method: 'POST', templateBody: true,
        body: '{"user": "{{.db}}", "team": "$(team)", "raw": "{literal}"}',
        envVar: [{ name: 'db', valueFrom: { secretKeyRef: { name: 'db-user-pass', key: 'username' } } }],
        env: [{ name: 'team', value: 'sre' }],
      };
      expect(validateCanarySpec({ http: [spec] }).checks).toHaveLength(1);
      const out = await executeCheck({ id: 'c', canaryId: 'k', type: 'http', name: 'tpl', namespace: 'ns', spec }, { valueFrom });
      expect(out).toMatchObject({ pass: true });
      // without templateBody the same body goes as written
      await run('http', { ...spec, templateBody: false, envVar: [{ name: 'db', value: 'x' }] });
      expect(bodies).toEqual(['{"user": "db-User", "team": "sre", "raw": "{literal}"}', spec.body]);
    } finally {
      server.close();
    }
  });
});
