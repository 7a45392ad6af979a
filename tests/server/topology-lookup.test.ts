import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLookupRunner } from '../../server/modules/topology/runner/lookup/index.js';
import { LookupError, type LookupContext, type LookupRunner } from '../../server/modules/topology/runner/types.js';
import { sendJson, startHttpServer, type HttpServer } from '../fixtures/servers/http.js';
import { startFakePrometheus, vector } from '../fixtures/servers/prometheus.js';
import { startHangingServer } from '../fixtures/servers/tcp.js';
import { createTestApp, type TestContext } from './helpers.js';

/**
 * The topology's lookups (issue 13 "Runs"), unit-level against real servers: a loopback HTTP server, the test
 * PostgreSQL, bash, a Prometheus speaking the query API. Each failure is a LookupError whose text names the entry.
 */

let t: TestContext;
let http: HttpServer;
let prom: HttpServer;
let run: LookupRunner;
const pods = [{ name: 'api', type: 'Service' }, { name: 'web', type: 'Service' }, { name: 'db', type: 'Database' }];

beforeAll(async () => {
  t = await createTestApp();
  http = await startHttpServer((req, res) => {
    if (req.url.pathname === '/components') return sendJson(res, 200, pods);
    if (req.url.pathname === '/one') return sendJson(res, 200, { name: 'solo', properties: [{ name: 'version', text: '1.2' }] });
    if (req.url.pathname === '/tenk') return sendJson(res, 200, Array.from({ length: 10_000 }, (_, i) => ({ name: `c${i}` })));
    if (req.url.pathname === '/many') return sendJson(res, 200, Array.from({ length: 10_001 }, (_, i) => ({ name: `c${i}` })));
    if (req.url.pathname === '/nameless') return sendJson(res, 200, [{ name: 'a' }, { name: 'b' }, { name: 'c' }, { type: 'x' }]);
    if (req.url.pathname === '/text') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return void res.end('not json at all');
    }
    return sendJson(res, 404, {});
  });
  prom = await startFakePrometheus({ up: vector([{ job: 'api', name: 'api' }, 1], [{ job: 'web', name: 'web' }, 0]) });
  run = createLookupRunner({ db: t.db });
});

afterAll(async () => {
  await http?.close();
  await prom?.close();
  await t?.close();
});

function ctx(extra: Partial<LookupContext> = {}): LookupContext {
  return {
    signal: new AbortController().signal, timeoutMs: 5_000, namespace: 'default', topologyId: '00000000-0000-0000-0000-000000000001',
    db: t.db, log: t.app.log, ...extra,
  };
}

async function failure(p: Promise<unknown>): Promise<string> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(LookupError);
  return (err as Error).message;
}

describe('lookup yields components', () => {
  it('http: the JSON body, a list of components', async () => {
    expect(await run({ http: [{ url: `${http.url}/components` }] }, ctx())).toEqual(pods);
  });

  it('http: one object is one component', async () => {
    expect(await run({ http: [{ url: `${http.url}/one` }] }, ctx())).toEqual([{ name: 'solo', properties: [{ name: 'version', text: '1.2' }] }]);
  });

  it('display.expr builds components from the result (a list, or the reference\'s .toJSON() text)', async () => {
    const expr = "json.map(c, {'name': c.name + '-svc', 'type': c.type})";
    expect(await run({ http: [{ url: `${http.url}/components`, display: { expr } }] }, ctx())).toEqual(pods.map((p) => ({ name: `${p.name}-svc`, type: p.type })));
    expect(await run({ http: [{ url: `${http.url}/components`, display: { expr: `${expr}.toJSON()` } }] }, ctx())).toHaveLength(3);
  });

  it('display.expr over 10,000 results (CEL map nests its list 10,000 deep)', async () => {
    const got = await run({ http: [{ url: `${http.url}/tenk`, display: { expr: "json.map(c, {'name': c.name, 'type': 'Pod'})" } }] }, ctx({ timeoutMs: 30_000 }));
    expect(got).toHaveLength(10_000);
    expect(got[9_999]).toEqual({ name: 'c9999', type: 'Pod' });
  });

  it('display.javascript: its text parsed as JSON', async () => {
    const javascript = 'JSON.stringify(json.map(function (c) { return { name: c.name.toUpperCase() }; }))';
    expect(await run({ http: [{ url: `${http.url}/components`, display: { javascript } }] }, ctx())).toEqual([{ name: 'API' }, { name: 'WEB' }, { name: 'DB' }]);
  });

  it('exec: stdout JSON', async () => {
    const script = `echo '[{"name":"node-1","type":"Node"},{"name":"node-2","type":"Node"}]'`;
    expect(await run({ exec: [{ script }] }, ctx())).toEqual([{ name: 'node-1', type: 'Node' }, { name: 'node-2', type: 'Node' }]);
  });

  it('postgres: the rows, and display.expr over them', async () => {
    const query = "SELECT name, 'Table' AS type FROM (VALUES ('people'), ('teams')) AS t(name) ORDER BY name";
    expect(await run({ postgres: [{ url: t.config.DATABASE_URL, query }] }, ctx())).toEqual([{ name: 'people', type: 'Table' }, { name: 'teams', type: 'Table' }]);
    const expr = "results.rows.map(r, {'name': 'db/' + r.name})";
    expect(await run({ postgres: [{ url: t.config.DATABASE_URL, query, display: { expr } }] }, ctx())).toEqual([{ name: 'db/people' }, { name: 'db/teams' }]);
  });

  it('prometheus: the result vector (labels and value)', async () => {
    const got = await run({ prometheus: [{ url: prom.url, query: 'up' }] }, ctx());
    expect(got).toEqual([expect.objectContaining({ name: 'api', job: 'api', value: 1 }), expect.objectContaining({ name: 'web', value: 0 })]);
  });

  it('several entries and types concatenate in order', async () => {
    const got = await run({ http: [{ url: `${http.url}/one` }], exec: [{ script: `echo '{"name":"x"}'` }] }, ctx());
    expect(got.map((c) => (c as { name: string }).name)).toEqual(['solo', 'x']);
  });

  it('a property lookup may yield a bare value', async () => {
    expect(await run({ http: [{ url: `${http.url}/one`, display: { expr: '"value"' } }] }, ctx({ purpose: 'property' }))).toEqual(['value']);
    expect(await run({ exec: [{ script: 'echo 16.10' }] }, ctx({ purpose: 'property' }))).toEqual(['16.10']);
    expect(await run({ exec: [{ script: `echo '[{"name":"a","value":1}]'` }] }, ctx({ purpose: 'property' }))).toEqual([{ name: 'a', value: 1 }]);
  });
});

describe('lookup failures name the entry', () => {
  it('an error of the check', async () => {
    expect(await failure(run({ http: [{ url: `${http.url}/missing` }] }, ctx()))).toMatch(/^lookup\.http\.0: .*404/);
  });

  it('a hanging server times out', async () => {
    const hang = await startHangingServer();
    try {
      expect(await failure(run({ http: [{ url: `${http.url}/one` }, { url: hang.url }] }, ctx({ timeoutMs: 3_000 })))).toBe('lookup.http.1: timed out after 3 s');
    } finally {
      await hang.close();
    }
  });

  it('bad JSON', async () => {
    expect(await failure(run({ http: [{ url: `${http.url}/text` }] }, ctx()))).toMatch(/^lookup\.http\.0: the result is not JSON/);
    expect(await failure(run({ exec: [{ script: 'echo {oops' }] }, ctx()))).toMatch(/^lookup\.exec\.0: the result is not JSON/);
  });

  it('a component without a name', async () => {
    expect(await failure(run({ http: [{ url: `${http.url}/nameless` }] }, ctx()))).toBe('lookup.http.0: lookup result 3 has no name');
  });

  it('more than 10,000 results', async () => {
    expect(await failure(run({ http: [{ url: `${http.url}/many` }] }, ctx()))).toBe('lookup.http.0: 10,001 results, more than the 10,000 a lookup may yield');
  });

  it('a bad display expression, an unknown type, a type with nothing to yield', async () => {
    expect(await failure(run({ http: [{ url: `${http.url}/one`, display: { expr: 'nope(' } }] }, ctx()))).toMatch(/^lookup\.http\.0: display expression/);
    expect(await failure(run({ ftp: [{ url: 'x' }] }, ctx()))).toBe('lookup.ftp: unknown lookup type');
    expect(await failure(run({ tcp: [{ endpoint: `127.0.0.1:${http.port}` }] }, ctx()))).toMatch(/^lookup\.tcp\.0: a tcp lookup needs display\.expr/);
  });

  it('never shows a password: a failing query on a URL with credentials', async () => {
    const url = new URL(t.config.DATABASE_URL!);
    url.password = 'hunter2-secret';
    const msg = await failure(run({ postgres: [{ url: url.toString(), query: 'SELECT 1' }] }, ctx()));
    expect(msg).toMatch(/^lookup\.postgres\.0: /);
    expect(msg).not.toContain('hunter2-secret');
  });
});
