import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startHttpServer, type HttpServer } from '../../../../tests/fixtures/servers/http.js';
import { startFakePrometheus, vector } from '../../../../tests/fixtures/servers/prometheus.js';
import { prometheusTester } from './prometheus.js';
import type { HydratedConnection } from './types.js';

const conn = (over: Partial<HydratedConnection>): HydratedConnection => ({
  name: 'p', namespace: 'default', type: 'prometheus', url: '', username: '', password: '', certificate: '', insecure_tls: false,
  properties: {}, secrets: [], ...over,
});
const ctx = { signal: new AbortController().signal, timeoutMs: 10_000 };
let prom: HttpServer;
let real: HttpServer;

beforeAll(async () => {
  prom = await startFakePrometheus({ up: vector([{ job: 'a' }, 1], [{ job: 'b' }, 0]) }, { auth: { user: 'u', password: 'pw' } });
  // a server with the buildinfo endpoint, as Prometheus itself has
  real = await startHttpServer((req, res) =>
    req.url.pathname === '/api/v1/status/buildinfo'
      ? sendJson(res, 200, { status: 'success', data: { version: '3.5.0', revision: 'abc' } })
      : sendJson(res, 404, {}),
  );
});
afterAll(async () => Promise.all([prom?.close(), real?.close()]));

describe('prometheus tester', () => {
  it('reads the version from buildinfo', async () => {
    expect(await prometheusTester(conn({ url: real.url }), ctx)).toEqual({ version: '3.5.0', revision: 'abc' });
  });

  it('falls back to query=up where buildinfo is missing', async () => {
    expect(await prometheusTester(conn({ url: `${prom.url}/`, username: 'u', password: 'pw' }), ctx)).toEqual({ query: 'up', series: 2 });
  });

  it('fails: wrong password, no Prometheus there', async () => {
    await expect(prometheusTester(conn({ url: prom.url, username: 'u', password: 'x' }), ctx)).rejects.toThrow(/^authentication failed/);
    const other = await startHttpServer((_req, res) => void res.writeHead(404).end('nope'));
    try {
      await expect(prometheusTester(conn({ url: other.url }), ctx)).rejects.toThrow(/answered 404/);
    } finally {
      await other.close();
    }
  });
});
