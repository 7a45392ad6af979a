import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileScraper } from '../../server/modules/catalog/scrapers/file.js';
import { httpScraper } from '../../server/modules/catalog/scrapers/http.js';
import { ScrapeConfigSpec, scrapeSpecProblems, specPathText } from '../../server/modules/catalog/spec.js';
import type { ScrapeContext } from '../../server/modules/catalog/types.js';
import { basicAuth, sendJson, startHttpServer, type HttpServer, type RecordedRequest } from '../fixtures/servers/http.js';

/**
 * The file scraper's `url` and the http scraper's `pagination` against loopback HTTP servers, called directly: what
 * each returns as items, errors and `complete`, and what each server was asked. Neither reads the database.
 */
let api: HttpServer;
let other: HttpServer;
const PASSWORD = 'rf-S3cret!pw';
let throttled = 0;

const ctx = (signal: AbortSignal = new AbortController().signal): ScrapeContext => ({
  db: null as unknown as pg.Pool, scraperId: randomUUID(), namespace: 'default', signal, log: { info() {}, warn() {}, debug() {} },
});

const TODOS = Array.from({ length: 7 }, (_, i) => ({ id: `t${i + 1}`, title: `todo ${i + 1}` }));

function route(req: RecordedRequest, res: ServerResponse): unknown {
  const p = req.url.pathname;
  if (p === '/files/services.yaml') {
    res.writeHead(200, { 'content-type': 'application/yaml' });
    return res.end('id: api\nport: 8080\n---\nid: web\nport: 80\n');
  }
  if (p === '/files/flags.json') return sendJson(res, 200, { id: 'flags', beta: true });
  if (p === '/files/private.json') {
    const auth = basicAuth(req);
    return auth?.user === 'reader' && auth.password === PASSWORD ? sendJson(res, 200, { id: 'private' }) : sendJson(res, 401, {});
  }
  if (p === '/files/page.html') {
    res.writeHead(200, { 'content-type': 'text/html' });
    return res.end('<html>not config</html>');
  }
  // three pages of todos, 3 + 3 + 1, each naming the next by its path
  if (p === '/todos') {
    const page = Number(req.url.searchParams.get('page') ?? 1);
    const items = TODOS.slice((page - 1) * 3, page * 3);
    return sendJson(res, 200, { items, next: page < 3 ? `/todos?page=${page + 1}` : null });
  }
  // the same pages as bare lists, the next one in a Link header (GitHub's style)
  if (p === '/linked') {
    const page = Number(req.url.searchParams.get('page') ?? 1);
    if (page < 3) res.setHeader('link', `<${api.url}/linked?page=${page + 1}>; rel="next"`);
    return sendJson(res, 200, TODOS.slice((page - 1) * 3, page * 3));
  }
  if (p === '/endless') {
    const page = Number(req.url.searchParams.get('page') ?? 1);
    return sendJson(res, 200, { items: [{ id: `e${page}` }], next: `/endless?page=${page + 1}` });
  }
  // page 2 lives on another origin
  if (p === '/away') return sendJson(res, 200, { items: [{ id: 'a1' }], next: `${other.url}/away2` });
  if (p === '/away2') return sendJson(res, 200, { items: [{ id: 'a2' }], next: null });
  // page 2 is throttled twice (429 with Retry-After: 0) before it answers
  if (p === '/throttled') {
    if (req.url.searchParams.get('page') !== '2') return sendJson(res, 200, { items: [{ id: 'r1' }], next: '/throttled?page=2' });
    throttled++;
    if (throttled <= 2) {
      res.setHeader('retry-after', '0');
      return sendJson(res, 429, { error: 'slow down' });
    }
    return sendJson(res, 200, { items: [{ id: 'r2' }], next: null });
  }
  if (p === '/broken-second') return sendJson(res, 200, { items: [{ id: 'b1' }], next: '/missing' });
  return sendJson(res, 404, {});
}

beforeAll(async () => {
  api = await startHttpServer((req, res) => void route(req, res));
  other = await startHttpServer((req, res) => void route(req, res));
});

afterAll(async () => {
  await api?.close();
  await other?.close();
});

describe('file url', () => {
  it('a YAML file over http: each document is an item, its source the URL', async () => {
    const r = await fileScraper.scrape(ctx(), { type: 'Service', id: '$.id', name: '$.id', url: `${api.url}/files/services.yaml` });
    expect(r.errors).toEqual([]);
    expect(r.complete).toBe(true);
    expect(r.items.map((i) => [i.externalId, i.config])).toEqual([['api', { id: 'api', port: 8080 }], ['web', { id: 'web', port: 80 }]]);
  });

  it('a JSON file, and userinfo as basic auth that no error shows', async () => {
    const r = await fileScraper.scrape(ctx(), { type: 'Flags', id: '$.id', url: `${api.url}/files/flags.json` });
    expect(r.errors).toEqual([]);
    expect(r.items[0].config).toEqual({ id: 'flags', beta: true });
    const ok = await fileScraper.scrape(ctx(), { type: 'Private', id: '$.id', url: `http://reader:${encodeURIComponent(PASSWORD)}@127.0.0.1:${api.port}/files/private.json` });
    expect(ok.errors).toEqual([]);
    expect(ok.items.map((i) => i.externalId)).toEqual(['private']);
    const wrong = await fileScraper.scrape(ctx(), { type: 'Private', id: '$.id', url: `http://reader:nope-${PASSWORD}@127.0.0.1:${api.port}/files/private.json?token=${PASSWORD}` });
    expect(wrong.complete).toBe(false);
    expect(wrong.errors).toEqual([`url http://127.0.0.1:${api.port}/files/private.json: HTTP 401 Unauthorized`]);
  });

  it('a 404, a page of HTML and a run that times out are errors of a partial run; local paths are not read', async () => {
    const missing = await fileScraper.scrape(ctx(), { type: 'X', id: '$.id', url: `${api.url}/files/gone.json`, paths: ['package.json'] });
    expect(missing.complete).toBe(false);
    expect(missing.items).toEqual([]);
    expect(missing.errors).toEqual([`url ${api.url}/files/gone.json: HTTP 404 Not Found`]);
    const html = await fileScraper.scrape(ctx(), { type: 'X', id: '$.id', url: `${api.url}/files/page.html` });
    expect(html.errors).toEqual([`url ${api.url}/files/page.html: the response is not a JSON or YAML object or list`]);
    const stop = new AbortController();
    stop.abort();
    const timedOut = await fileScraper.scrape(ctx(stop.signal), { type: 'X', id: '$.id', url: `${api.url}/files/flags.json` });
    expect(timedOut.errors).toEqual([`url ${api.url}/files/flags.json: timed out`]);
  });
});

describe('http pagination', () => {
  it('three pages followed by nextPageExpr, their items merged into one list, the block\'s headers on each', async () => {
    const before = api.requests.length;
    const r = await httpScraper.scrape(ctx(), {
      type: 'Todo', id: '$.id', name: '$.title', url: `${api.url}/todos`, headers: [{ name: 'X-Api-Key', value: 'k-1' }],
      pagination: { nextPageExpr: 'response.body.next' },
    });
    expect(r.errors).toEqual([]);
    expect(r.complete).toBe(true);
    expect(r.items.map((i) => i.externalId)).toEqual(TODOS.map((t) => t.id));
    const asked = api.requests.slice(before);
    expect(asked.map((q) => `${q.url.pathname}${q.url.search}`)).toEqual(['/todos', '/todos?page=2', '/todos?page=3']);
    expect(asked.map((q) => q.headers['x-api-key'])).toEqual(['k-1', 'k-1', 'k-1']);
  });

  it('a Link header, reduceExpr, and perPage (each page a document)', async () => {
    const next = `"link" in response.headers ? response.headers["link"].split(";")[0].substring(1).replace(">", "") : null`;
    const linked = await httpScraper.scrape(ctx(), { type: 'Todo', id: '$.id', url: `${api.url}/linked`, pagination: { nextPageExpr: next } });
    expect(linked.errors).toEqual([]);
    expect(linked.items).toHaveLength(7);
    const reduced = await httpScraper.scrape(ctx(), {
      type: 'Todo', id: '$.id', url: `${api.url}/todos`,
      pagination: { nextPageExpr: 'response.body.next', reduceExpr: 'acc + page.items.filter(t, t.id != "t2")' },
    });
    expect(reduced.errors).toEqual([]);
    expect(reduced.items.map((i) => i.externalId)).toEqual(['t1', 't3', 't4', 't5', 't6', 't7']);
    const perPage = await httpScraper.scrape(ctx(), {
      type: 'TodoPage', id: '$.items[0].id', url: `${api.url}/todos`, pagination: { nextPageExpr: 'response.body.next', perPage: true },
    });
    expect(perPage.errors).toEqual([]);
    expect(perPage.items.map((i) => [i.externalId, (i.config as { items: unknown[] }).items.length])).toEqual([['t1', 3], ['t4', 3], ['t7', 1]]);
  });

  it('maxPages bounds an endless API: the pages read are items, and the run is partial (nothing deleted)', async () => {
    const r = await httpScraper.scrape(ctx(), { type: 'E', id: '$.id', url: `${api.url}/endless`, pagination: { nextPageExpr: 'response.body.next', maxPages: 4 } });
    expect(r.items.map((i) => i.externalId)).toEqual(['e1', 'e2', 'e3', 'e4']);
    expect(r.complete).toBe(false);
    expect(r.errors).toEqual(['pagination: stopped after maxPages (4 pages) with more to read; nothing is deleted on this run\'s account']);
  });

  it('a page answered 429 is asked again after its Retry-After', async () => {
    const r = await httpScraper.scrape(ctx(), { type: 'R', id: '$.id', url: `${api.url}/throttled`, pagination: { nextPageExpr: 'response.body.next' } });
    expect(r.errors).toEqual([]);
    expect(r.items.map((i) => i.externalId)).toEqual(['r1', 'r2']);
    expect(throttled).toBe(3);
  });

  it('a page on another origin gets no credentials; a failing page fails the run by its number', async () => {
    const before = other.requests.length;
    const r = await httpScraper.scrape(ctx(), {
      type: 'A', id: '$.id', url: `${api.url}/away`, username: { value: 'u' }, password: { value: PASSWORD }, headers: [{ name: 'X-Api-Key', value: 'k-2' }],
      pagination: { nextPageExpr: 'response.body.next' },
    });
    expect(r.errors).toEqual([]);
    expect(r.items.map((i) => i.externalId)).toEqual(['a1', 'a2']);
    const away = other.requests.slice(before);
    expect(away).toHaveLength(1);
    expect(away[0].headers.authorization).toBeUndefined();
    expect(away[0].headers['x-api-key']).toBeUndefined();
    const broken = await httpScraper.scrape(ctx(), { type: 'B', id: '$.id', url: `${api.url}/broken-second`, pagination: { nextPageExpr: 'response.body.next' } });
    expect(broken.complete).toBe(false);
    expect(broken.items).toEqual([]);
    expect(broken.errors).toEqual([`GET ${api.url}/broken-second: page 2: HTTP 404 Not Found`]);
  });
});

describe('at save', () => {
  it('a file url that is not http(s), a bad pagination expression or delay, and too many pages are refused by path', () => {
    const problems = scrapeSpecProblems({
      file: [{ type: 'F', id: '$.id', url: 'git::https://github.com/org/repo' }],
      http: [{ type: 'H', id: '$.id', url: 'http://x', pagination: { nextPageExpr: 'response.body.next +', reduceExpr: 'acc +', delay: 'soon' } }],
    });
    expect(problems.map((p) => `${specPathText(p.path)}: ${p.message.split(':')[0]}`).sort()).toEqual([
      'spec.file.0.url: only http and https URLs are fetched (one JSON or YAML file)',
      'spec.http.0.pagination.delay: invalid duration "soon" (expected e.g. 30s, 1m30s, 2h)',
      'spec.http.0.pagination.nextPageExpr: invalid CEL',
      'spec.http.0.pagination.reduceExpr: invalid CEL',
    ]);
    const tooMany = ScrapeConfigSpec.safeParse({ http: [{ type: 'H', id: '$.id', url: 'http://x', pagination: { nextPageExpr: 'null', maxPages: 5000 } }] });
    expect(tooMany.success).toBe(false);
    expect(tooMany.error?.issues.map((i) => `${specPathText(i.path)}: ${i.message}`)).toEqual(['spec.http.0.pagination.maxPages: at most 1000 pages']);
    expect(ScrapeConfigSpec.safeParse({ http: [{ type: 'H', id: '$.id', url: 'http://x', pagination: { nextPageExpr: 'response.body.next', maxPages: 10, delay: '500ms' } }],
      file: [{ type: 'F', id: '$.id', url: 'https://example.com/a.yaml' }] }).success).toBe(true);
  });
});
