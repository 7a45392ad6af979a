import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkContext } from '../../../tests/fixtures/servers/check-context.js';
import { startHttpServer, type HttpServer } from '../../../tests/fixtures/servers/http.js';
import { alertmanagerCheck } from './alertmanager.js';
import { elasticsearchCheck } from './elasticsearch.js';
import { httpCheck } from './http.js';
import { opensearchCheck } from './opensearch.js';
import { prometheusCheck } from './prometheus.js';
import type { CheckType } from './types.js';

// One local server answers every API these checks call; what matters here is the User-Agent each one sends.
let server: HttpServer;
beforeAll(async () => {
  server = await startHttpServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url.pathname === '/api/v1/query') return void res.end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [] } }));
    if (req.url.pathname === '/api/v2/alerts') return void res.end('[]');
    if (req.url.pathname.endsWith('/_search')) return void res.end(JSON.stringify({ took: 1, hits: { total: { value: 0, relation: 'eq' } } }));
    res.end('{}');
  });
});
afterAll(() => server?.close());

/** Runs a check against the local server and returns the User-Agent of the last request it made. */
async function agentOf<S>(check: CheckType<S>, spec: Record<string, unknown>): Promise<string | undefined> {
  const r = await check.run(check.schema.parse({ url: server.url, ...spec }), checkContext());
  expect(r.error).toBeUndefined();
  return server.requests.at(-1)?.headers['user-agent'];
}

describe('the User-Agent each HTTP-based check sends, as the reference client for that type does', () => {
  it('http: canary-checker/<version>, as checks/http.go sets it', async () => {
    expect(await agentOf(httpCheck, {})).toMatch(/^canary-checker\/\d+\.\d+\.\d+ \(ops-console\)$/);
  });

  it("http: the check's own User-Agent header wins, in any case, and is sent alone", async () => {
    expect(await agentOf(httpCheck, { headers: [{ name: 'user-agent', value: 'probe/1' }] })).toBe('probe/1');
    expect(await agentOf(httpCheck, { headers: { 'User-Agent': 'probe/2' } })).toBe('probe/2');
  });

  it("prometheus: Go's default (client_golang sets none)", async () => {
    expect(await agentOf(prometheusCheck, { query: 'up' })).toMatch(/^Go-http-client\/1\.1 \(ops-console\/\d+\.\d+\.\d+\)$/);
  });

  it("alertmanager: flanksource/commons' default", async () => {
    expect(await agentOf(alertmanagerCheck, {})).toMatch(/^flanksource-commons\/0 \(ops-console\//);
  });

  it('elasticsearch and opensearch: their Go clients, at the versions the reference pins', async () => {
    expect(await agentOf(elasticsearchCheck, { index: 'logs' })).toMatch(/^go-elasticsearch\/8\.19\.4 \(\w+ \w+; ops-console\//);
    expect(await agentOf(opensearchCheck, { index: 'logs' })).toMatch(/^opensearch-go\/2\.3\.0 \(\w+ \w+; ops-console\//);
  });
});
