import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkContext } from '../../../tests/fixtures/servers/check-context.js';
import { sendHugeJson, startHttpServer, type HttpServer } from '../../../tests/fixtures/servers/http.js';
import { startFakeSearch } from '../../../tests/fixtures/servers/search.js';
import { closedPort, startHangingServer } from '../../../tests/fixtures/servers/tcp.js';
import { elasticsearchCheck } from './elasticsearch.js';

const run = (spec: Parameters<typeof elasticsearchCheck.run>[0], timeoutMs?: number) =>
  elasticsearchCheck.run(elasticsearchCheck.schema.parse(spec), checkContext(timeoutMs));

const logs = [
  { level: 'error', message: 'disk full on node-1', code: 507 },
  { level: 'error', message: 'timeout talking to db', code: 504 },
  { level: 'info', message: 'started', code: 200 },
];
const errors = JSON.stringify({ query: { term: { level: 'error' } } });

describe('elasticsearch check against a fake _search API', () => {
  let es: HttpServer;
  let secured: HttpServer;
  beforeAll(async () => {
    es = await startFakeSearch('elasticsearch', { 'logs-2024.01': logs, 'logs-2024.02': logs.slice(2), big: Array.from({ length: 12_000 }, (_, i) => ({ i })) });
    secured = await startFakeSearch('elasticsearch', { logs }, { auth: { user: 'elastic', password: 'es-Secret' } });
  });
  afterAll(async () => {
    await Promise.all([es?.close(), secured?.close()]);
  });

  it('passes when hits.total equals results and exposes the response', async () => {
    const r = await run({ url: es.url, index: 'logs-2024.01', query: errors, results: 2 });
    expect(r.error).toBeUndefined();
    expect(r.pass).toBe(true);
    expect(r.data).toMatchObject({ count: 2, hits: { total: { value: 2, relation: 'eq' } } });
    expect((r.data.hits as { hits: Array<{ _source: { message: string } }> }).hits.map((h) => h._source.message)).toEqual([
      'disk full on node-1',
      'timeout talking to db',
    ]);
    const sent = es.requests.at(-1)!;
    expect(sent).toMatchObject({ method: 'POST', body: errors });
    expect(sent.url.pathname).toBe('/logs-2024.01/_search');
  });

  it('fails on any other count, as the reference compares for equality', async () => {
    expect(await run({ url: es.url, index: 'logs-2024.01', query: errors, results: 1 })).toMatchObject({
      pass: false,
      error: 'Query returned 2 hits, expected 1',
      data: { count: 2 },
    });
    expect((await run({ url: es.url, index: 'logs-2024.01', query: errors })).error).toBe('Query returned 2 hits, expected 0');
  });

  it('searches index patterns, all indices without an index, and match_all without a query', async () => {
    expect((await run({ url: es.url, index: 'logs-*', query: errors, results: 2 })).pass).toBe(true);
    expect((await run({ url: es.url, index: 'logs-2024.01,logs-2024.02', results: 4 })).pass).toBe(true);
    expect((await run({ url: es.url, query: JSON.stringify({ query: { range: { code: { gte: 500 } } } }), results: 2 })).pass).toBe(true);
  });

  it('reports the 10,000 cap of hits.total with its relation', async () => {
    const r = await run({ url: es.url, index: 'big', results: 10_000 });
    expect(r).toMatchObject({ pass: true, detail: { relation: 'gte' } });
  });

  it('fails with the server error type and reason', async () => {
    const missing = await run({ url: es.url, index: 'nope', results: 0 });
    expect(missing).toMatchObject({ pass: false, error: '[status=404]: index_not_found_exception: no such index [nope]' });
    const bad = await run({ url: es.url, index: 'logs-*', query: JSON.stringify({ query: { fuzzy_wuzzy: {} } }) });
    expect(bad.pass).toBe(false);
    expect(bad.error).toMatch(/parsing_exception: unknown query \[fuzzy_wuzzy\]/);
  });

  it('authenticates with username/password or url credentials and never shows the password', async () => {
    expect((await run({ url: secured.url, username: 'elastic', password: { value: 'es-Secret' }, index: 'logs', results: 3 })).pass).toBe(true);
    const viaUrl = await run({ url: `http://elastic:es-Secret@127.0.0.1:${secured.port}`, index: 'logs', results: 3 });
    expect(viaUrl.pass).toBe(true);
    expect(JSON.stringify(viaUrl)).not.toContain('es-Secret');
    const denied = await run({ url: secured.url, username: 'elastic', password: 'Wrong-pw-1', index: 'logs', results: 3 });
    expect(denied).toMatchObject({ pass: false, error: expect.stringMatching(/status=401.*security_exception/) });
    expect(JSON.stringify(denied)).not.toContain('Wrong-pw-1');
  });
});

describe('elasticsearch check target failures and bad specs', () => {
  it('fails when nothing listens', async () => {
    const r = await run({ url: `http://127.0.0.1:${await closedPort()}`, index: 'x' });
    expect(r).toMatchObject({ pass: false });
    expect(r.invalid).toBeFalsy();
    expect(r.error).toMatch(/ECONNREFUSED/);
  });

  it('gives up on a server that never answers', async () => {
    const hang = await startHangingServer();
    try {
      expect(await run({ url: hang.url, index: 'x' }, 500)).toMatchObject({ pass: false, error: 'timed out after 500 ms' });
    } finally {
      await hang.close();
    }
  });

  it('stops reading a response larger than the limit', async () => {
    const huge = await startHttpServer((_req, res) => sendHugeJson(res, 64 * 1024 * 1024));
    try {
      expect((await run({ url: huge.url, index: 'x' })).error).toMatch(/response too large/);
    } finally {
      await huge.close();
    }
  });

  it.each([[{ index: 'x' }], [{ url: 'http://h', query: '{not json' }], [{ url: 'es:9200', index: 'x' }]])('reports %j as invalid', async (spec) => {
    expect(await run(spec)).toMatchObject({ pass: false, invalid: true });
  });
});
