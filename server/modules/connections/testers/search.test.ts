import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startHttpServer, type HttpServer } from '../../../../tests/fixtures/servers/http.js';
import { startFakeSearch } from '../../../../tests/fixtures/servers/search.js';
import { searchTester } from './search.js';
import type { HydratedConnection } from './types.js';

const conn = (over: Partial<HydratedConnection>): HydratedConnection => ({
  name: 's', namespace: 'default', type: 'elasticsearch', url: '', username: '', password: '', certificate: '', insecure_tls: false,
  properties: {}, secrets: [], ...over,
});
const ctx = { signal: new AbortController().signal, timeoutMs: 10_000 };
let es: HttpServer;
let os: HttpServer;
beforeAll(async () => {
  es = await startFakeSearch('elasticsearch', {}, { auth: { user: 'u', password: 'pw' } });
  os = await startFakeSearch('opensearch', {});
});
afterAll(async () => Promise.all([es?.close(), os?.close()]));

describe('elasticsearch / opensearch tester (GET /)', () => {
  it('passes with cluster name and version', async () => {
    expect(await searchTester('Elasticsearch')(conn({ url: es.url, username: 'u', password: 'pw' }), ctx)).toEqual({ cluster_name: 'fake-elasticsearch', version: '8.17.0' });
    expect(await searchTester('OpenSearch')(conn({ url: `${os.url}/` }), ctx)).toEqual({ cluster_name: 'fake-opensearch', version: '2.19.1', distribution: 'opensearch' });
  });

  it('fails: wrong password, a server that is not a search cluster', async () => {
    await expect(searchTester('Elasticsearch')(conn({ url: es.url, username: 'u', password: 'x' }), ctx)).rejects.toThrow(/^authentication failed: Elasticsearch .* 401/);
    const other = await startHttpServer((_req, res) => sendJson(res, 200, { hello: 'world' }));
    try {
      await expect(searchTester('OpenSearch')(conn({ url: other.url }), ctx)).rejects.toThrow(/did not answer with OpenSearch cluster info/);
    } finally {
      await other.close();
    }
  });
});
