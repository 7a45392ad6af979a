import dgram from 'node:dgram';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import packet from 'dns-packet';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeCheck, type RunnableCheck } from '../../server/modules/health/runner.js';

// Every target is a server this file starts on 127.0.0.1.

const makeCheck = (type: string, spec: Record<string, unknown>): RunnableCheck =>
  ({ id: '00000000-0000-0000-0000-000000000001', canaryId: '00000000-0000-0000-0000-000000000002', type, name: String(spec.name ?? type), spec: { name: type, ...spec } });

const listen = (server: net.Server | http.Server) =>
  new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));

let httpPort: number;
let hangPort: number;
let closedPort: number;
const servers: Array<net.Server> = [];
const sockets = new Set<net.Socket>();

beforeAll(async () => {
  const app = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/ok') return res.end('all good here');
    if (url.pathname === '/json') {
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify({ status: 'ok', items: [{ n: 2 }], version: '1.2.3' }));
    }
    if (url.pathname === '/slow') return setTimeout(() => res.end('late'), 300);
    if (url.pathname === '/500') {
      res.statusCode = 500;
      return res.end('boom');
    }
    if (url.pathname === '/huge') {
      // 8 MiB, streamed: the check must stop reading at its limit
      let sent = 0;
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = () => {
        while (sent < 8 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return res.once('drain', pump);
        }
        res.end();
      };
      return pump();
    }
    if (url.pathname === '/echo') {
      let body = '';
      req.on('data', (c) => (body += c));
      return req.on('end', () => res.end(JSON.stringify({ method: req.method, body, auth: req.headers.authorization ?? null })));
    }
    res.statusCode = 404;
    res.end();
  });
  httpPort = await listen(app);
  servers.push(app);
  // accepts connections and never answers
  const hang = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
  });
  hangPort = await listen(hang);
  servers.push(hang);
  const probe = net.createServer();
  closedPort = await listen(probe);
  await new Promise((r) => probe.close(r));
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

describe('http check', () => {
  it('passes on 2xx and exposes code, content and json to CEL', async () => {
    const r = await executeCheck(makeCheck('http', {
      url: `http://127.0.0.1:${httpPort}/json`,
      test: { expr: "code == 200 && json.status == 'ok' && json.items[0].n > 1" },
      display: { expr: "'v' + json.version" },
    }));
    expect(r).toMatchObject({ pass: true, invalid: false, message: 'v1.2.3' });
    expect(r.data).toMatchObject({ code: 200, json: { status: 'ok' } });
  });

  it('fails on a code outside responseCodes, and passes when it is listed', async () => {
    const bad = await executeCheck(makeCheck('http', { url: `http://127.0.0.1:${httpPort}/500` }));
    expect(bad).toMatchObject({ pass: false, error: 'response code 500 not in 200-299' });
    const ok = await executeCheck(makeCheck('http', { url: `http://127.0.0.1:${httpPort}/500`, responseCodes: [500] }));
    expect(ok.pass).toBe(true);
  });

  it('checks responseContent and responseJSONContent', async () => {
    const url = `http://127.0.0.1:${httpPort}`;
    expect((await executeCheck(makeCheck('http', { url: `${url}/ok`, responseContent: 'good' }))).pass).toBe(true);
    const missing = await executeCheck(makeCheck('http', { url: `${url}/ok`, responseContent: 'bad news' }));
    expect(missing).toMatchObject({ pass: false, error: expect.stringContaining('does not contain "bad news"') });
    const json = await executeCheck(makeCheck('http', { url: `${url}/json`, responseJSONContent: { path: '$.items[0].n', value: '2' } }));
    expect(json.pass).toBe(true);
    const wrong = await executeCheck(makeCheck('http', { url: `${url}/json`, responseJSONContent: { path: '$.status', value: 'down' } }));
    expect(wrong).toMatchObject({ pass: false, error: '$.status is "ok", expected "down"' });
  });

  it('sends method, headers and body', async () => {
    const r = await executeCheck(makeCheck('http', {
      url: `http://127.0.0.1:${httpPort}/echo`, method: 'POST', body: 'hello',
      headers: [{ name: 'Authorization', value: 'Bearer abc' }],
    }));
    expect(r.data.json).toEqual({ method: 'POST', body: 'hello', auth: 'Bearer abc' });
  });

  it('gives up the request at thresholdMillis, as the reference client Timeout', async () => {
    const r = await executeCheck(makeCheck('http', { url: `http://127.0.0.1:${httpPort}/slow`, thresholdMillis: 100 }));
    expect(r).toMatchObject({ pass: false, error: 'timed out after 100 ms (thresholdMillis)' });
    expect((await executeCheck(makeCheck('http', { url: `http://127.0.0.1:${httpPort}/slow`, thresholdMillis: 5000 }))).pass).toBe(true);
    // a server that never answers: thresholdMillis, not the 30 s default timeout, ends the check
    const hung = await executeCheck(makeCheck('http', { url: `http://127.0.0.1:${hangPort}/`, thresholdMillis: 300 }));
    expect(hung).toMatchObject({ pass: false, invalid: false, error: 'timed out after 300 ms (thresholdMillis)' });
    // a shorter check timeout still wins, with its own message
    const sooner = await executeCheck(makeCheck('http', { url: `http://127.0.0.1:${hangPort}/`, thresholdMillis: 5000, timeout: '200ms' }));
    expect(sooner).toMatchObject({ pass: false, error: 'timed out after 200 ms' });
  });

  it('gives the reference result fields their types when the body is not JSON over plain http', async () => {
    const r = await executeCheck(makeCheck('http', {
      url: `http://127.0.0.1:${httpPort}/ok`, test: { expr: "size(json) == 0 && sslAge == duration('0s') && code == 200" },
    }));
    expect(r.pass, r.error).toBe(true);
    expect(r.data).toMatchObject({ json: {}, sslAge: 0, content: 'all good here' });
  });

  it('reports a refused connection and a hanging server as clear errors', async () => {
    const refused = await executeCheck(makeCheck('http', { url: `http://127.0.0.1:${closedPort}/` }));
    expect(refused).toMatchObject({ pass: false, invalid: false, error: expect.stringContaining('ECONNREFUSED') });
    const t0 = Date.now();
    const hung = await executeCheck(makeCheck('http', { url: `http://127.0.0.1:${hangPort}/`, timeout: 0.5 }));
    expect(hung).toMatchObject({ pass: false, error: 'timed out after 500 ms' });
    expect(Date.now() - t0).toBeLessThan(2_000);
  });

  it('stops reading a huge body at 1 MiB and says so', async () => {
    const r = await executeCheck(makeCheck('http', { url: `http://127.0.0.1:${httpPort}/huge`, responseContent: 'aaa' }));
    expect(r.pass).toBe(true);
    expect(r.message).toContain('truncated');
    expect((r.data.content as string).length).toBe(1024 * 1024);
    const json = await executeCheck(makeCheck('http', { url: `http://127.0.0.1:${httpPort}/huge`, responseJSONContent: { path: '$.a', value: '1' } }));
    expect(json).toMatchObject({ pass: false, error: expect.stringContaining('JSON not parsed') });
  });

  it('refuses an invalid url as invalid, not as a failure of the target', async () => {
    const r = await executeCheck(makeCheck('http', { url: 'ftp://127.0.0.1/x' }));
    expect(r).toMatchObject({ pass: false, invalid: true, error: expect.stringContaining('unsupported protocol') });
  });

  describe('TLS certificate expiry', () => {
    const tls: https.Server[] = [];
    afterAll(() => Promise.all(tls.map((s) => new Promise((r) => s.close(r)))));
    async function serveWithCert(days: number) {
      const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
        notBeforeDate: new Date(Date.now() - 86_400_000), notAfterDate: new Date(Date.now() + days * 86_400_000), keySize: 2048,
      } as never);
      const server = https.createServer({ key: pems.private, cert: pems.cert }, (_req, res) => res.end('tls ok'));
      tls.push(server);
      return listen(server);
    }

    it('passes with enough days left and fails below maxSSLExpiry', async () => {
      const [soon, later] = await Promise.all([serveWithCert(5), serveWithCert(90)]);
      const spec = { tlsConfig: { insecureSkipVerify: true }, maxSSLExpiry: 30 };
      const ok = await executeCheck(makeCheck('http', { ...spec, url: `https://127.0.0.1:${later}/` }));
      expect(ok.pass).toBe(true);
      expect(ok.data.sslAge).toBeGreaterThanOrEqual(88 * 86_400_000); // ms left on the certificate
      const expiring = await executeCheck(makeCheck('http', { ...spec, url: `https://127.0.0.1:${soon}/` }));
      expect(expiring).toMatchObject({ pass: false, error: expect.stringMatching(/^SSL certificate expires in [45] days/) });
      // without insecureSkipVerify a self-signed certificate is refused
      const strict = await executeCheck(makeCheck('http', { url: `https://127.0.0.1:${later}/` }));
      expect(strict.pass).toBe(false);
      expect(strict.error).toMatch(/self[- ]signed/i);
    });
  });
});

describe('tcp check', () => {
  it('passes on connect and fails on a closed port', async () => {
    expect(await executeCheck(makeCheck('tcp', { endpoint: `127.0.0.1:${httpPort}` }))).toMatchObject({ pass: true });
    const closed = await executeCheck(makeCheck('tcp', { endpoint: `127.0.0.1:${closedPort}` }));
    expect(closed).toMatchObject({ pass: false, error: expect.stringContaining('ECONNREFUSED') });
  });

  it('refuses a malformed endpoint as invalid', async () => {
    expect(await executeCheck(makeCheck('tcp', { endpoint: 'no-port-here' }))).toMatchObject({ pass: false, invalid: true });
  });
});

describe('dns check', () => {
  let dnsPort: number;
  const sock = dgram.createSocket('udp4');
  const zone: Record<string, packet.Answer[]> = {
    'A app.test': [{ type: 'A', name: 'app.test', data: '10.0.0.1' }, { type: 'A', name: 'app.test', data: '10.0.0.2' }],
    'AAAA app.test': [{ type: 'AAAA', name: 'app.test', data: 'fd00::1' }],
    'CNAME www.test': [{ type: 'CNAME', name: 'www.test', data: 'app.test' }],
    'MX mail.test': [{ type: 'MX', name: 'mail.test', data: { preference: 10, exchange: 'mx1.mail.test' } }],
    'TXT txt.test': [{ type: 'TXT', name: 'txt.test', data: ['v=spf1 -all'] }],
    'SRV _http._tcp.test': [{ type: 'SRV', name: '_http._tcp.test', data: { priority: 1, weight: 5, port: 8080, target: 'app.test' } }],
  };
  beforeAll(async () => {
    sock.on('message', (msg, rinfo) => {
      const q = packet.decode(msg);
      const question = q.questions![0];
      if (question.name === 'slow.test') return; // never answers
      const answers = zone[`${question.type} ${question.name}`] ?? [];
      const res = packet.encode({
        type: 'response', id: q.id, flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE | (answers.length ? 0 : 3),
        questions: q.questions, answers: answers.map((a) => ({ ...a, ttl: 60 })),
      } as packet.Packet);
      sock.send(res, rinfo.port, rinfo.address);
    });
    await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()));
    dnsPort = sock.address().port;
  });
  afterAll(() => new Promise<void>((r) => sock.close(() => r())));
  const dns = (spec: Record<string, unknown>) => executeCheck(makeCheck('dns', { server: '127.0.0.1', port: dnsPort, ...spec }));

  it('answers A, AAAA, CNAME, MX, TXT and SRV with expected replies', async () => {
    expect(await dns({ query: 'app.test', querytype: 'A', exactreply: ['10.0.0.2', '10.0.0.1'] })).toMatchObject({ pass: true });
    expect(await dns({ query: 'app.test', querytype: 'AAAA', exactreply: ['fd00::1'] })).toMatchObject({ pass: true });
    expect(await dns({ query: 'www.test', querytype: 'CNAME', exactreply: ['app.test.'] })).toMatchObject({ pass: true });
    expect(await dns({ query: 'mail.test', querytype: 'MX', exactreply: ['mx1.mail.test 10'] })).toMatchObject({ pass: true });
    expect(await dns({ query: 'txt.test', querytype: 'TXT', exactreply: ['v=spf1 -all'] })).toMatchObject({ pass: true });
    expect(await dns({ query: '_http._tcp.test', querytype: 'SRV', exactreply: ['app.test 8080 1 5'] })).toMatchObject({ pass: true });
  });

  it('fails on a different answer, too few records, or no such name', async () => {
    expect(await dns({ query: 'app.test', exactreply: ['10.0.0.1'] })).toMatchObject({
      pass: false, error: expect.stringContaining('expected [10.0.0.1]'),
    });
    expect(await dns({ query: 'app.test', minrecords: 3 })).toMatchObject({ pass: false, error: 'got 2 records, expected at least 3' });
    expect(await dns({ query: 'nope.test' })).toMatchObject({ pass: false, error: 'no A records for nope.test' });
  });

  it('times out on a server that never answers', async () => {
    const r = await dns({ query: 'slow.test', timeout: 0.4 });
    expect(r.pass).toBe(false);
    expect(r.duration).toBeLessThan(3_000);
  });

  it('uses the system resolver (hosts file) for localhost without a server', async () => {
    const r = await executeCheck(makeCheck('dns', { query: 'localhost', querytype: 'A', minrecords: 1 }));
    expect(r.pass).toBe(true);
    expect(r.data.records).toContain('127.0.0.1');
  });
});

describe('exec check', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'health-exec-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('passes on exit 0 with stdout as the message and for CEL', async () => {
    const r = await executeCheck(makeCheck('exec', { script: 'echo ok; echo warn >&2', test: { expr: "stdout.contains('ok') && exitCode == 0" } }));
    expect(r).toMatchObject({ pass: true, message: 'ok', data: { stdout: 'ok', stderr: 'warn', exitCode: 0 } });
  });

  it("trims stdout and stderr as the reference does: fixtures/minimal/exec_pass.yaml passes", async () => {
    // the fixture's script and test, verbatim
    const r = await executeCheck(makeCheck('exec', { script: 'echo "hello"\n', test: { expr: 'results.stdout == "hello"' } }));
    expect(r).toMatchObject({ pass: true, data: { stdout: 'hello', stderr: '', exitCode: 0 } });
    expect(r.data.path).toMatch(/\/bash$/);
    expect(r.data.args).toEqual([r.data.path, '-c', 'echo "hello"\n']);
    const both = await executeCheck(makeCheck('exec', {
      script: 'printf "  out\\n\\n"; printf "\\terr \\n" >&2', test: { expr: 'stdout == "out" && results.stderr == "err"' },
    }));
    expect(both.pass, both.error).toBe(true);
  });

  it('fails with the exit code and stderr', async () => {
    const r = await executeCheck(makeCheck('exec', { script: 'echo broken >&2; exit 3' }));
    expect(r).toMatchObject({ pass: false, error: 'exit code 3: broken' });
  });

  it('kills a script at its timeout, children included', async () => {
    const marker = join(dir, 'survivor');
    const t0 = Date.now();
    const r = await executeCheck(makeCheck('exec', { script: `(sleep 1.5; touch ${marker}) & sleep 30`, timeout: '400ms' }));
    expect(r).toMatchObject({ pass: false, error: 'timed out after 400 ms' });
    expect(Date.now() - t0).toBeLessThan(2_000);
    await new Promise((res) => setTimeout(res, 1_700));
    await expect(import('node:fs/promises').then((fs) => fs.access(marker))).rejects.toThrow();
  });

  it('runs with the env it is given and not the server secrets', async () => {
    process.env.HEALTH_TEST_SECRET = 'do-not-leak';
    const script = join(dir, 'env.sh');
    await writeFile(script, 'echo "${GREETING:-none} ${HEALTH_TEST_SECRET:-hidden}"');
    const r = await executeCheck(makeCheck('exec', { script: `bash ${script}`, env: [{ name: 'GREETING', value: 'hi' }] }));
    expect(r.message).toBe('hi hidden');
  });
});
