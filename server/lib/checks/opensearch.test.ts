import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkContext } from '../../../tests/fixtures/servers/check-context.js';
import type { HttpServer } from '../../../tests/fixtures/servers/http.js';
import { startFakeSearch } from '../../../tests/fixtures/servers/search.js';
import { startHangingServer } from '../../../tests/fixtures/servers/tcp.js';
import { opensearchCheck } from './opensearch.js';

const run = (spec: Parameters<typeof opensearchCheck.run>[0], timeoutMs?: number) =>
  opensearchCheck.run(opensearchCheck.schema.parse(spec), checkContext(timeoutMs));

describe('opensearch check against a fake OpenSearch _search API', () => {
  let os: HttpServer;
  beforeAll(async () => {
    os = await startFakeSearch(
      'opensearch',
      { audit: [{ user: 'alice', action: 'login' }, { user: 'bob', action: 'login' }, { user: 'alice', action: 'logout' }] },
      { auth: { user: 'admin', password: 'os-Secret' } },
    );
  });
  afterAll(async () => {
    await os?.close();
  });

  const base = () => ({ url: os.url, username: 'admin', password: 'os-Secret', index: 'audit' });

  it('passes when hits.total equals results', async () => {
    const query = JSON.stringify({ query: { bool: { must: [{ term: { user: 'alice' } }], must_not: [{ term: { action: 'logout' } }] } } });
    const r = await run({ ...base(), query, results: 1 });
    expect(r.error).toBeUndefined();
    expect(r).toMatchObject({ pass: true, data: { count: 1 } });
    expect((await run({ ...base(), query, results: 2 })).error).toBe('Query returned 1 hits, expected 2');
  });

  it('fails an empty result with markFailOnEmpty before comparing counts, as the reference does', async () => {
    const query = JSON.stringify({ query: { term: { user: 'carol' } } });
    expect((await run({ ...base(), query })).pass).toBe(true);
    expect(await run({ ...base(), query, markFailOnEmpty: true })).toMatchObject({ pass: false, error: 'Query has returned empty value' });
  });

  it('fails when credentials are missing', async () => {
    const r = await run({ url: os.url, index: 'audit', results: 3 });
    expect(r).toMatchObject({ pass: false, error: expect.stringMatching(/status=401/) });
  });

  it('gives up on a server that never answers', async () => {
    const hang = await startHangingServer();
    try {
      expect(await run({ url: hang.url, index: 'audit' }, 500)).toMatchObject({ pass: false, error: 'timed out after 500 ms' });
    } finally {
      await hang.close();
    }
  });

  it('reports a missing url as invalid', async () => {
    expect(await run({ index: 'audit' })).toMatchObject({ pass: false, invalid: true, error: 'url is required' });
  });
});
