import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, sendJson, startHttpServer, type HttpServer } from '../../../../tests/fixtures/servers/http.js';
import { closedPort, startHangingServer } from '../../../../tests/fixtures/servers/tcp.js';
import { startKubeApi, type KubeApi } from '../../../../tests/support/kube-api/index.js';
import { httpTester } from './http.js';
import type { HydratedConnection } from './types.js';

const conn = (over: Partial<HydratedConnection>): HydratedConnection => ({
  name: 'h', namespace: 'default', type: 'http', url: '', username: '', password: '', certificate: '', insecure_tls: false,
  properties: {}, secrets: [], ...over,
});
const ctx = (ms = 10_000) => ({ signal: AbortSignal.timeout(ms), timeoutMs: ms });
let web: HttpServer;
let tls: KubeApi;

beforeAll(async () => {
  web = await startHttpServer((req, res) => {
    if (req.url.pathname === '/moved') {
      res.writeHead(302, { location: '/elsewhere' });
      return void res.end();
    }
    const a = basicAuth(req);
    if (req.url.pathname === '/private' && (a?.user !== 'u' || a.password !== 'pw')) return sendJson(res, 401, {});
    if (req.url.pathname === '/broken') return sendJson(res, 503, {});
    sendJson(res, 200, { ok: true });
  });
  tls = await startKubeApi(); // a self-signed https server answering GET /version
});
afterAll(async () => {
  await Promise.all([web?.close(), tls?.stop()]);
});

describe('http tester', () => {
  it('passes on 2xx and 3xx (redirects are not followed)', async () => {
    expect(await httpTester(conn({ url: `${web.url}/` }), ctx())).toMatchObject({ status: 200 });
    expect(await httpTester(conn({ url: `${web.url}/moved` }), ctx())).toMatchObject({ status: 302 });
  });

  it('sends basic auth from username and password, or from the url', async () => {
    expect(await httpTester(conn({ url: `${web.url}/private`, username: 'u', password: 'pw' }), ctx())).toMatchObject({ status: 200 });
    const fromUrl = await httpTester(conn({ url: `http://u:pw@127.0.0.1:${web.port}/private` }), ctx());
    expect(fromUrl).toMatchObject({ status: 200, url: `http://u:***@127.0.0.1:${web.port}/private` });
    await expect(httpTester(conn({ url: `${web.url}/private`, username: 'u', password: 'bad' }), ctx())).rejects.toThrow(/^authentication failed: GET .* 401/);
  });

  it('fails on a 5xx, a closed port, an unknown host', async () => {
    await expect(httpTester(conn({ url: `${web.url}/broken` }), ctx())).rejects.toThrow(/answered 503/);
    await expect(httpTester(conn({ url: `http://127.0.0.1:${await closedPort()}/` }), ctx())).rejects.toThrow(/^connection refused/);
    await expect(httpTester(conn({ url: 'http://nothing.invalid/' }), ctx())).rejects.toThrow(/^host not found: nothing\.invalid/);
  });

  it('TLS: a self-signed certificate fails unless insecure_tls', async () => {
    await expect(httpTester(conn({ url: `${tls.url}/version` }), ctx())).rejects.toThrow(/^TLS: the certificate of 127\.0\.0\.1:\d+ is not trusted/);
    expect(await httpTester(conn({ url: `${tls.url}/version`, insecure_tls: true }), ctx())).toMatchObject({ status: 200 });
  });

  it('a hanging server ends when the signal aborts', async () => {
    const hang = await startHangingServer();
    try {
      await expect(httpTester(conn({ url: hang.url }), ctx(200))).rejects.toThrow(/aborted/);
    } finally {
      await hang.close();
    }
  });

  it('refuses a url that is not http(s)', async () => {
    await expect(httpTester(conn({ url: 'ftp://x/' }), ctx())).rejects.toThrow(/http:\/\/ or https:\/\//);
    await expect(httpTester(conn({ url: '' }), ctx())).rejects.toThrow(/url is required/);
  });
});
