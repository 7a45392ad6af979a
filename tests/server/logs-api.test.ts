import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogLine, LogsResponse } from '../../server/contracts/logs.js';
import { setLogsTimings } from '../../server/modules/logs/index.js';
import { consoleLogStream } from '../../server/modules/logs/ring-buffer.js';
import { startLokiServer, type LokiServer } from '../support/loki-server.js';
import { startOpenSearchServer, type OpenSearchServer } from '../support/opensearch-server.js';
import { until } from '../support/poll.js';
import { bearerHeaders, createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

// POST /api/logs end to end: a real app on PostgreSQL, the Loki and OpenSearch test servers on loopback, the
// process's own log ring (console backend); JSON and NDJSON answers, refusals, gates, aborts.

let t: TestContext;
let loki: LokiServer;
let os: OpenSearchServer;
let base: string;
let admin: Record<string, string>;
const ids: Record<string, string> = {};

async function component(name: string, externalId: string, selectors: unknown[]): Promise<string> {
  const { rows } = await t.db.query<{ id: string }>(
    'INSERT INTO components (name, external_id, type, log_selectors) VALUES ($1, $2, $3, $4) RETURNING id', [name, externalId, 'Service', JSON.stringify(selectors)]);
  return rows[0].id;
}

async function backend(name: string, spec: unknown): Promise<void> {
  await t.db.query('INSERT INTO logging_backends (name, namespace, spec) VALUES ($1, $2, $3)', [name, 'default', JSON.stringify(spec)]);
}

const post = (body: unknown, headers: Record<string, string> = admin) =>
  t.app.inject({ method: 'POST', url: '/api/logs', headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(body) });

/** Reads an NDJSON answer line by line (real HTTP, so lines arrive as streamed). */
async function* ndjson(res: Response): AsyncGenerator<Record<string, unknown>> {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let rest = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    rest += dec.decode(value, { stream: true });
    const parts = rest.split('\n');
    rest = parts.pop()!;
    for (const p of parts) if (p) yield JSON.parse(p) as Record<string, unknown>;
  }
  if (rest.trim()) yield JSON.parse(rest) as Record<string, unknown>;
}

const streamPost = (body: unknown, signal?: AbortSignal) => fetch(`${base}/api/logs`, {
  method: 'POST', signal, headers: { ...admin, 'content-type': 'application/json', accept: 'application/x-ndjson' }, body: JSON.stringify(body),
});

beforeAll(async () => {
  setLogsTimings({ timeoutMs: 1_500, pollMs: 100, firstBatch: 10, batch: 100 });
  loki = await startLokiServer();
  os = await startOpenSearchServer({ indices: ['app-logs'] });
  t = await createTestApp({}, { logger: { level: 'info', stream: consoleLogStream(null) } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  const p = await makePerson(t.db, { roles: ['admin'] });
  admin = await bearerHeaders(t.db, p.id);

  await backend('loki', { backends: [{ loki: { url: loki.url, routes: [{ type: 'loki' }] } }] });
  await backend('search', { backends: [{ opensearch: { url: os.url, index: 'app-logs', fields: { severity: 'level' }, routes: [{ type: 'opensearch', idPrefix: 'svc-' }] } }] });
  await backend('own', { backends: [{ console: { routes: [{ type: 'console' }] } }] });
  await backend('unreachable', { backends: [{ loki: { url: 'http://127.0.0.1:9', routes: [{ type: 'dead' }] } }] });
  ids.loki = await component('checkout', 'checkout', [{ name: 'app', type: 'loki', labels: { app: 'checkout' } }, { name: 'other', type: 'loki', labels: { app: 'payments' } }]);
  ids.os = await component('search-svc', 'svc-search', [{ name: 'es', type: 'opensearch', labels: { app: 'search' } }]);
  ids.console = await component('ops-console', 'ops-console', [{ name: 'console', type: 'console' }]);
  ids.dead = await component('dead', 'dead', [{ name: 'dead', type: 'dead', labels: { app: 'x' } }]);
  ids.unrouted = await component('lonely', 'lonely', [{ name: 'nothing', type: 'nowhere' }]);
  ids.none = await component('quiet', 'quiet', []);
});

afterAll(async () => {
  setLogsTimings();
  // the backends first (their sockets destroyed: a backend request still held fails at once and its stream ends),
  // then any client connection left open by a stream, then the app
  await loki?.close();
  await os?.close();
  t?.app.server.closeAllConnections();
  await t?.close();
}, 120_000);

describe('refusals', () => {
  it('no id is 400 "component ID is required"; unknown component 404; unknown selector 404 listing the names', async () => {
    const a = await post({});
    expect(a.statusCode).toBe(400);
    expect(a.json().error).toBe('component ID is required');
    expect((await post({ id: '00000000-0000-4000-8000-000000000001' })).statusCode).toBe(404);
    expect((await post({ id: 'not-a-uuid' })).statusCode).toBe(404);
    const c = await post({ id: ids.loki, name: 'nope' });
    expect(c.statusCode).toBe(404);
    expect(c.json().error).toContain('app, other');
    expect((await post({ id: ids.none })).statusCode).toBe(404);
    const d = await post({ id: ids.unrouted });
    expect(d.statusCode).toBe(404);
    expect(d.json().error).toContain('no logging backend');
  });

  it('bad start, end, regex and limit are 400 naming the field', async () => {
    const a = await post({ id: ids.loki, start: 'yesterday' });
    expect(a.statusCode).toBe(400);
    expect(a.json().error).toMatch(/^start:/);
    expect((await post({ id: ids.loki, end: '2026-13-45' })).json().error).toMatch(/^end:/);
    const r = await post({ id: ids.loki, query: '/a(b/' });
    expect(r.statusCode).toBe(400);
    expect(r.json().error).toMatch(/^query: invalid regular expression/);
    expect((await post({ id: ids.loki, limit: 5001 })).statusCode).toBe(400);
    expect((await post({ id: ids.loki, follow: true })).statusCode).toBe(400);
  });

  it('a backend that refuses is 502 naming it, one that does not answer 504; the next search still works', async () => {
    const dead = await post({ id: ids.dead });
    expect(dead.statusCode).toBe(502);
    expect(dead.json().error).toMatch(/^loki backend:/);
    loki.failWith(500, 'boom');
    const failed = await post({ id: ids.loki });
    expect(failed.statusCode).toBe(502);
    expect(failed.json().error).toContain('loki backend: HTTP 500: boom');
    loki.failWith(0, '');
    const release = loki.hold();
    const slow = await post({ id: ids.loki });
    release();
    expect(slow.statusCode).toBe(504);
    expect(slow.json().error).toMatch(/^loki backend: no answer within/);
    expect((await post({ id: ids.loki })).statusCode).toBe(200);
  });
});

describe('gates', () => {
  it('every role reads logs; no session 401; logs.disable 403', async () => {
    for (const role of ['viewer', 'responder', 'commander', 'editor'] as const) {
      const p = await makePerson(t.db, { roles: [role] });
      expect((await post({ id: ids.console }, await sessionHeaders(t.db, p.id))).statusCode).toBe(200);
    }
    expect((await t.app.inject({ method: 'POST', url: '/api/logs', payload: { id: ids.console } })).statusCode).toBe(401);
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('logs.disable', 'true')`);
    try {
      await until(async () => (await post({ id: ids.console })).statusCode === 403, 'logs.disable to apply', 10_000);
    } finally {
      await t.db.query(`DELETE FROM properties WHERE name = 'logs.disable'`);
    }
  });
});

describe('loki', () => {
  it('labels as the stream selector, text as |= and |~, newest first, paged by end', async () => {
    const now = Date.now();
    loki.corpus.clear();
    for (let i = 0; i < 30; i++) {
      loki.corpus.add({ ms: now - 60_000 + i * 1000, text: `line ${i} ${i % 3 === 0 ? 'ERROR failed' : 'info ok'}`, labels: { app: 'checkout', pod: 'c-1' } });
      loki.corpus.add({ ms: now - 60_000 + i * 1000, text: `other ${i}`, labels: { app: 'payments' } });
    }
    loki.requests.length = 0;
    const a = await post({ id: ids.loki, limit: 25, start: '5m' });
    expect(a.statusCode).toBe(200);
    const body = a.json() as LogsResponse;
    expect(body.results).toHaveLength(25);
    expect(body.results[0].message).toBe('line 29 info ok');
    expect(body.results[0].labels).toEqual({ app: 'checkout', pod: 'c-1' });
    expect(body.results.every((l) => l.message.startsWith('line'))).toBe(true);
    expect(body.results.find((l) => l.message.includes('ERROR'))?.severity).toBe('error');
    expect(loki.requests[0].get('query')).toBe('{app="checkout"}');
    expect(loki.requests[0].get('direction')).toBe('backward');
    expect(loki.requests[0].get('limit')).toBe('10');
    expect(body.nextPage).toBeTruthy();
    const b = (await post({ id: ids.loki, limit: 25, start: '5m', page: body.nextPage })).json() as LogsResponse;
    expect(b.results.map((l) => l.message)).toEqual(['line 4 info ok', 'line 3 ERROR failed', 'line 2 info ok', 'line 1 info ok', 'line 0 ERROR failed']);
    expect(b.nextPage).toBeUndefined();

    loki.requests.length = 0;
    const text = (await post({ id: ids.loki, name: 'app', query: 'ERROR', start: '5m' })).json() as LogsResponse;
    expect(text.results).toHaveLength(10);
    expect(loki.requests[0].get('query')).toBe('{app="checkout"} |= "ERROR"');
    const re = (await post({ id: ids.loki, query: '/line 1[0-9] /', start: '5m' })).json() as LogsResponse;
    expect(re.results).toHaveLength(10);
    expect(loki.requests.at(-1)!.get('query')).toBe('{app="checkout"} |~ "line 1[0-9] "');
    const other = (await post({ id: ids.loki, name: 'other', start: '5m', limit: 3 })).json() as LogsResponse;
    expect(other.results.map((l) => l.message)).toEqual(['other 29', 'other 28', 'other 27']);
  });

  it('NDJSON: the first lines arrive before the backend has finished, then the done line', async () => {
    loki.corpus.clear();
    loki.corpus.synthetic({ count: 1000, labels: { app: 'checkout' } });
    loki.requests.length = 0;
    const release = loki.hold(1); // the first request answers, the second waits
    const res = await streamPost({ id: ids.loki, limit: 500, start: '1h' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    const lines: Record<string, unknown>[] = [];
    const it = ndjson(res);
    for (let i = 0; i < 10; i++) lines.push((await it.next()).value as Record<string, unknown>);
    expect(lines.every((l) => typeof l.message === 'string')).toBe(true);
    await until(async () => loki.requests.length === 2, 'the second request to wait', 5_000);
    release();
    for await (const l of it) lines.push(l);
    const done = lines.at(-1)!;
    expect(done).toMatchObject({ done: true, total: 500 });
    expect(typeof done.nextPage).toBe('string');
    expect(lines).toHaveLength(501);
    expect((lines[0] as LogLine).message).toContain('request 999 handled');
  });

  it('a client that goes away aborts the backend request; an error after streaming began is an error line', async () => {
    loki.aborted = 0;
    loki.requests.length = 0;
    const release = loki.hold();
    try {
      const ac = new AbortController();
      const pending = streamPost({ id: ids.loki, start: '1h' }, ac.signal).catch(() => null);
      await until(async () => loki.requests.length === 1, 'the request to reach loki', 5_000);
      ac.abort();
      await pending;
      await until(async () => loki.aborted >= 1, 'the backend request to be cancelled', 5_000);
    } finally {
      release();
    }
    expect(loki.requests.length).toBe(1);

    loki.requests.length = 0;
    const again = loki.hold(1);
    const res = await streamPost({ id: ids.loki, limit: 500, start: '1h' });
    const it = ndjson(res);
    await it.next();
    await until(async () => loki.requests.length === 2, 'the second request', 5_000);
    loki.failWith(503, 'overloaded');
    again();
    const rest: Record<string, unknown>[] = [];
    for await (const l of it) rest.push(l);
    loki.failWith(0, '');
    expect(rest.at(-1)).toEqual({ error: 'loki backend: HTTP 503: overloaded' });
    expect((await post({ id: ids.loki, limit: 5 })).statusCode).toBe(200);
  });

  it('follow: history, the live marker, then new lines as they arrive until the client leaves', async () => {
    loki.corpus.clear();
    loki.corpus.add({ ms: Date.now() - 1000, text: 'old line', labels: { app: 'checkout' } });
    const ac = new AbortController();
    const res = await streamPost({ id: ids.loki, start: '5m', follow: true }, ac.signal);
    const it = ndjson(res);
    expect(((await it.next()).value as LogLine).message).toBe('old line');
    expect((await it.next()).value).toEqual({ live: true });
    loki.corpus.add({ text: 'new line 1', labels: { app: 'checkout' } }, { ms: Date.now() + 1, text: 'new line 2', labels: { app: 'checkout' } });
    const a = (await it.next()).value as LogLine;
    const b = a.message === 'new line 1' ? ((await it.next()).value as LogLine) : null;
    expect([a.message, b?.message]).toEqual(['new line 1', 'new line 2']);
    loki.aborted = 0;
    const polls = loki.requests.length;
    ac.abort();
    await until(async () => { const n = loki.requests.length; await new Promise((r) => setTimeout(r, 300)); return loki.requests.length === n; }, 'polling to stop', 5_000);
    expect(loki.requests.length).toBeGreaterThanOrEqual(polls);
  });
});

describe('opensearch', () => {
  it('_search with the time range, labels and text, sorted newest first, paged with search_after; severity from the mapped field', async () => {
    const now = Date.now();
    for (let i = 0; i < 40; i++) {
      os.corpus.add({ ms: now - 100_000 + i * 1000, text: `search request ${i} ${i % 4 === 0 ? 'timeout reached' : 'served'}`, labels: { app: i % 2 ? 'search' : 'indexer', level: i % 4 === 0 ? 'WARNING' : 'info' } });
    }
    os.requests.length = 0;
    const a = (await post({ id: ids.os, limit: 15, start: '10m' })).json() as LogsResponse;
    expect(a.total).toBe(20);
    expect(a.results).toHaveLength(15);
    expect(a.results[0].message).toBe('search request 39 served');
    expect(a.results[0].labels).toEqual({ app: 'search' });
    expect(os.requests[0].index).toBe('app-logs');
    expect(os.requests[0].body.sort).toEqual([{ '@timestamp': { order: 'desc' } }, { _id: { order: 'desc' } }]);
    expect(os.requests[0].body.track_total_hits).toBe(true);
    expect((os.requests[1].body.search_after as unknown[])[0]).toEqual(Date.parse(a.results[9].timestamp));
    expect(os.requests[1].body.track_total_hits).toBe(false);
    const b = (await post({ id: ids.os, limit: 15, start: '10m', page: a.nextPage })).json() as LogsResponse;
    expect(b.results.map((l) => l.message)).toEqual(['search request 9 served', 'search request 7 served', 'search request 5 served', 'search request 3 served', 'search request 1 served']);
    expect(b.nextPage).toBeUndefined();

    const t1 = (await post({ id: ids.os, query: 'timeout reached', start: '10m' })).json() as LogsResponse;
    expect(t1.results).toHaveLength(0); // the timeouts are all of the indexer (even i)
    const all = (await post({ id: ids.os, query: 'served', start: '10m', labels: { app: 'indexer' } })).json() as LogsResponse;
    expect(all.results.map((l) => l.message)).toContain('search request 38 served');
    const warn = (await post({ id: ids.os, query: 'timeout', start: '10m', labels: { app: 'indexer' } })).json() as LogsResponse;
    expect(warn.results.length).toBe(10);
    expect(warn.results.every((l) => l.severity === 'warn')).toBe(true);
    const re = (await post({ id: ids.os, query: '/time.*/', start: '10m', labels: { app: 'indexer' } })).json() as LogsResponse;
    expect(re.results.length).toBe(10);
    const query = (os.requests.at(-1)!.body.query as { bool: { must: unknown[] } }).bool.must;
    expect(query).toEqual([{ query_string: { query: '/time.*/', default_field: 'message' } }]);
  });

  it('lines sharing a millisecond are neither skipped nor repeated across pages (sorted on the timestamp, then _id)', async () => {
    os.corpus.clear();
    const ms = Date.now() - 30_000;
    // 23 lines in one millisecond, between lines of other times
    os.corpus.add({ ms: ms - 5, text: 'before', labels: { app: 'search' } }, { ms: ms + 5, text: 'after', labels: { app: 'search' } });
    for (let i = 0; i < 23; i++) os.corpus.add({ ms, text: `same ms ${i}`, labels: { app: 'search' } });
    const got: string[] = [];
    let page: string | undefined;
    let pages = 0;
    do {
      const r = (await post({ id: ids.os, limit: 4, start: '5m', ...(page ? { page } : {}) })).json() as LogsResponse;
      expect(r.results.length).toBeGreaterThan(0);
      got.push(...r.results.map((l) => l.message));
      page = r.nextPage;
      pages++;
    } while (page && pages < 20);
    expect(got).toHaveLength(25);
    expect(new Set(got).size).toBe(25);
    expect(got[0]).toBe('after');
    expect(got.at(-1)).toBe('before');
    // a page boundary fell inside the millisecond: search_after carried the tiebreaker
    const boundaries = os.requests.map((r) => r.body.search_after as unknown[] | undefined).filter((a) => a?.[0] === ms);
    expect(boundaries.length).toBeGreaterThan(1);
    expect(boundaries.every((a) => a!.length === 2)).toBe(true);

    // sorting on the timestamp alone (tiebreaker none) is what skipped lines: the same walk loses some
    await t.db.query(`UPDATE logging_backends SET spec = jsonb_set(spec, '{backends,0,opensearch,fields,tiebreaker}', '"none"') WHERE name = 'search'`);
    try {
      const lost: string[] = [];
      page = undefined;
      pages = 0;
      do {
        const r = (await post({ id: ids.os, limit: 4, start: '5m', ...(page ? { page } : {}) })).json() as LogsResponse;
        lost.push(...r.results.map((l) => l.message));
        page = r.nextPage;
        pages++;
      } while (page && pages < 20);
      expect(new Set(lost).size).toBeLessThan(25);
    } finally {
      await t.db.query(`UPDATE logging_backends SET spec = spec #- '{backends,0,opensearch,fields,tiebreaker}' WHERE name = 'search'`);
    }
  });

  it('an OpenSearch error is 502 with its reason; NDJSON streams the synthetic corpus', async () => {
    os.failWith(400, 'search_phase_execution_exception', 'all shards failed');
    const e = await post({ id: ids.os });
    os.failWith(0);
    expect(e.statusCode).toBe(502);
    expect(e.json().error).toBe('opensearch backend: HTTP 400: all shards failed');

    os.corpus.clear();
    os.corpus.synthetic({ count: 20_000, labels: { app: 'search' } });
    setLogsTimings({ timeoutMs: 10_000, pollMs: 100, firstBatch: 10, batch: 100 });
    const res = await streamPost({ id: ids.os, limit: 250, start: '1h' });
    const lines: Record<string, unknown>[] = [];
    for await (const l of ndjson(res)) lines.push(l);
    setLogsTimings({ timeoutMs: 1_500, pollMs: 100, firstBatch: 10, batch: 100 });
    expect(lines[0]).not.toHaveProperty('error');
    expect(lines).toHaveLength(251);
    expect(lines.at(-1)).toMatchObject({ done: true, total: 20_000 });
    const times = lines.slice(0, -1).map((l) => Date.parse(l.timestamp as string));
    expect(times.every((x, i) => i === 0 || x <= times[i - 1])).toBe(true);
  });
});

describe('credentials', () => {
  it("a backend url of connection://… takes the connection's url and credentials (Basic auth to Loki)", async () => {
    await t.db.query(`INSERT INTO connections (name, namespace, type, url, username, password) VALUES ('loki-conn', 'default', 'http', $1, 'reader', 's3cret')`, [loki.url]);
    await backend('loki-auth', { backends: [{ loki: { url: 'connection://default/loki-conn', tenant: 'team-a', routes: [{ type: 'loki-auth' }] } }] });
    const cid = await component('secured', 'secured', [{ name: 'x', type: 'loki-auth', labels: { app: 'checkout' } }]);
    loki.auth = { username: 'reader', password: 's3cret' };
    try {
      loki.tenants.length = 0;
      expect((await post({ id: cid })).statusCode).toBe(200);
      expect(loki.tenants).toEqual(['team-a']);
      const plain = await post({ id: ids.loki });
      expect(plain.statusCode).toBe(502);
      expect(plain.json().error).toContain('HTTP 401');
    } finally {
      loki.auth = null;
    }
  });
});

describe('console', () => {
  it("searches the process's own log lines, newest first, with severity from the level", async () => {
    t.app.log.warn({ module: 'logs-test' }, 'console marker alpha');
    t.app.log.info('console marker beta');
    const a = (await post({ id: ids.console, query: 'console marker' })).json() as LogsResponse;
    expect(a.results.map((l) => l.message)).toEqual(['console marker beta', 'console marker alpha module=logs-test'.replace(' module=logs-test', '')]);
    expect(a.results[1]).toMatchObject({ severity: 'warn', labels: { module: 'logs-test' } });
    expect(a.results[0].severity).toBe('info');
  });

  it('follow streams new lines as they are logged', async () => {
    const ac = new AbortController();
    const res = await streamPost({ id: ids.console, query: 'tail marker', follow: true }, ac.signal);
    const it = ndjson(res);
    expect((await it.next()).value).toEqual({ live: true });
    t.app.log.error('tail marker one');
    expect(((await it.next()).value as LogLine)).toMatchObject({ message: 'tail marker one', severity: 'error' });
    ac.abort();
  });
});

describe('logging_backends spec validation', () => {
  it('a bad backend spec written through /api/db is 400 naming its path', async () => {
    const res = await t.app.inject({
      method: 'POST', url: '/api/db/logging_backends', headers: { ...admin, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'bad', namespace: 'default', spec: { backends: [{ loki: { url: 'ftp://x', routes: [{ type: 1 }] } }] } }),
    });
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json())).toMatch(/spec\.backends\.0\.loki\.(url|routes)/);
  });
});
