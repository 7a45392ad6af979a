import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpAction } from './http.js';
import { createTestDb, insertConnection, testContext, type TestDb } from './test-context.js';

let db: TestDb;
let server: Server;
let base: string;
const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];

beforeAll(async () => {
  db = await createTestDb();
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      if (req.url === '/json') {
        res.writeHead(200, { 'content-type': 'application/json', 'x-trace': 'abc' });
        res.end(JSON.stringify({ ok: true, items: [1, 2] }));
      } else if (req.url === '/missing') {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('no such thing');
      } else if (req.url === '/redirect') {
        res.writeHead(302, { location: '/json' });
        res.end();
      } else if (req.url === '/hang') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('first part');
        // never ends: the action must give up on abort
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`echo ${req.method} ${body}`);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await db.close();
});

describe('http action', () => {
  it('GETs a URL: code, headers, content parsed as JSON when the response is JSON', async () => {
    const ctx = testContext(db.pool);
    const result = await httpAction.run({ url: `${base}/json` }, ctx);
    expect(result.code).toBe(200);
    expect(result.content).toEqual({ ok: true, items: [1, 2] });
    expect((result.headers as Record<string, string>)['X-Trace']).toBe('abc');
    expect((result.headers as Record<string, string>)['Content-Type']).toBe('application/json');
  });

  it('POSTs a body with headers, bearer and basic credentials handed to the masker', async () => {
    const ctx = testContext(db.pool);
    const result = await httpAction.run({
      url: `${base}/echo`, method: 'post', body: '{"a":1}',
      headers: [{ name: 'X-Api-Key', value: 'k-123' }, { name: 'X-Plain', value: 'p' }],
      bearer: 'tok-SECRET',
    }, ctx);
    expect(result).toMatchObject({ code: 200, content: 'echo POST {"a":1}' });
    const req = seen.at(-1)!;
    expect(req.headers.authorization).toBe('Bearer tok-SECRET');
    expect(req.headers['x-api-key']).toBe('k-123');
    expect(req.headers['content-type']).toBe('application/json');
    expect(ctx.secrets).toContain('tok-SECRET');
    expect(ctx.secrets).toContain('k-123');
    expect(ctx.secrets).not.toContain('p');

    const basic = testContext(db.pool);
    await httpAction.run({ url: `${base}/echo`, username: 'bob', password: { value: 'b0b-pass' } }, basic);
    expect(seen.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from('bob:b0b-pass').toString('base64')}`);
    expect(basic.secrets).toContain('b0b-pass');
  });

  it('a non-2xx status is a result, not a failure (as the reference)', async () => {
    const result = await httpAction.run({ url: `${base}/missing` }, testContext(db.pool));
    expect(result).toMatchObject({ code: 404, content: 'no such thing' });
  });

  it('follows redirects', async () => {
    const result = await httpAction.run({ url: `${base}/redirect` }, testContext(db.pool));
    expect(result).toMatchObject({ code: 200, content: { ok: true } });
  });

  it('uses a connection by connection://ns/name, by name and by id, with its credentials masked', async () => {
    const id = await insertConnection(db.pool, { name: 'api', namespace: 'ops', type: 'http', url: base, username: 'svc', password: 'conn-pa55' });
    for (const ref of ['connection://ops/api', 'api', id]) {
      const ctx = testContext(db.pool);
      const result = await httpAction.run({ connection: ref, url: '/json' }, ctx);
      expect(result.code).toBe(200);
      expect(seen.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from('svc:conn-pa55').toString('base64')}`);
      expect(ctx.secrets).toContain('conn-pa55');
    }
    await expect(httpAction.run({ connection: 'connection://ops/nope' }, testContext(db.pool))).rejects.toThrow('connection connection://ops/nope not found');
  });

  it('fails when the peer refuses the connection', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    await expect(httpAction.run({ url: `http://127.0.0.1:${port}/` }, testContext(db.pool))).rejects.toThrow(/ECONNREFUSED/);
  });

  it('stops a hanging request on cancel and on the deadline', async () => {
    const ctx = testContext(db.pool);
    const p = httpAction.run({ url: `${base}/hang` }, ctx);
    setTimeout(() => ctx.controller.abort(new Error('cancelled by alice')), 300);
    await expect(p).rejects.toThrow('cancelled by alice');

    const short = testContext(db.pool, { timeoutMs: 500 });
    await expect(httpAction.run({ url: `${base}/hang` }, short)).rejects.toThrow(/timed out/);
  });
});
