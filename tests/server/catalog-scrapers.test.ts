import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { applyTransforms } from '../../server/modules/catalog/extract.js';
import { fileScraper } from '../../server/modules/catalog/scrapers/file.js';
import { httpScraper } from '../../server/modules/catalog/scrapers/http.js';
import { sqlScraper } from '../../server/modules/catalog/scrapers/sql.js';
import type { ScrapeContext, ScrapedItem } from '../../server/modules/catalog/types.js';
import { basicAuth, sendJson, startHttpServer, type HttpServer, type RecordedRequest } from '../fixtures/servers/http.js';
import { mariadbMissing, startMariaDb, type MariaDb } from '../fixtures/servers/mariadb.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * The file, http and sql extractors against real sources the test starts (a temp dir of files, a loopback HTTP
 * server, the test PostgreSQL and a MariaDB), called directly: what each returns as items, errors and `complete`.
 * config-db's own fixtures (tests/fixtures/config-db) check the transforms come out as config-db's expected items.
 */
let t: TestContext;
let dir: string;
let http: HttpServer;
let maria: MariaDb | undefined;
let closedPort: number;
const PASSWORD = 'sc-S3cret!pw';

const ctx = (signal: AbortSignal = new AbortController().signal): ScrapeContext => ({
  db: t.db, scraperId: randomUUID(), namespace: 'default', signal, log: { info() {}, warn() {}, debug() {} },
});
const FIXTURES = 'tests/fixtures/config-db';
/** A config-db fixture's first block of `key`, its paths read under tests/fixtures/config-db. */
async function fixtureBlock(file: string, key: string): Promise<Record<string, unknown>> {
  const doc = parse(await readFile(join(FIXTURES, file), 'utf8'));
  const block = doc.spec[key][0];
  if (block.paths) block.paths = block.paths.map((p: string) => p.replace(/^fixtures\//, `${FIXTURES}/`));
  return block;
}
const expected = async (name: string) => JSON.parse(await readFile(join(FIXTURES, 'expected', name), 'utf8'));
/** An item as config-db's expected/*.json writes it. */
const asConfigDb = (i: ScrapedItem) => ({ config_class: i.configClass, config_type: i.type, name: i.name, id: i.externalId, config: i.config });

beforeAll(async () => {
  t = await createTestApp();
  // inside the working directory (data/ is git-ignored): a file scraper reads nothing outside it
  await mkdir(join(process.cwd(), 'data'), { recursive: true });
  dir = await mkdtemp(join(process.cwd(), 'data', 'catalog-file-'));
  http = await startHttpServer((req, res) => void route(req, res));
  if (!mariadbMissing) maria = await startMariaDb({ password: PASSWORD });
  closedPort = await new Promise<number>((r) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => r(port));
    });
  });
}, 120_000);

function route(req: RecordedRequest, res: ServerResponse): unknown {
    const todos = Array.from({ length: 15 }, (_, i) => ({ id: i + 1, title: `todo ${i + 1}`, userId: (i % 3) + 1, completed: i % 2 === 0 }));
    if (req.url.pathname === '/todos') return sendJson(res, 200, todos);
    if (req.url.pathname === '/echo') return sendJson(res, 200, { id: 'echo', method: req.method, body: req.body, auth: req.headers['x-api-key'] ?? null });
    if (req.url.pathname === '/private') {
      const auth = basicAuth(req);
      return auth?.user === 'scraper' && auth.password === PASSWORD ? sendJson(res, 200, [{ id: 'p1' }]) : sendJson(res, 401, { error: 'no' });
    }
    if (req.url.pathname === '/broken') return sendJson(res, 500, { error: 'boom' });
    if (req.url.pathname === '/html') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<html><body>hello</body></html>');
    }
    if (req.url.pathname === '/slow') return setTimeout(() => sendJson(res, 200, []), 5_000);
    return sendJson(res, 404, {});
}
afterAll(async () => {
  await http?.close();
  await maria?.stop();
  await rm(dir, { recursive: true, force: true });
  await t?.close();
});

describe('file', () => {
  it("config-db's file-mask fixture: masks by CEL selector, md5sum and a fixed value, as config-db expects", async () => {
    const r = await fileScraper.scrape(ctx(), await fixtureBlock('file-mask.yaml', 'file'));
    expect(r.errors).toEqual([]);
    expect(r.complete).toBe(true);
    expect(r.items.map(asConfigDb)).toEqual((await expected('file-mask.json')).map(({ last_modified: _, ...rest }: Record<string, unknown>) => rest));
  });

  it("config-db's file-exclusion fixture (its javascript as CEL): fields dropped for all types and for one type", async () => {
    const block = await fixtureBlock('file-exclusion.yaml', 'file');
    const transform = block.transform as Record<string, unknown>;
    delete transform.javascript;
    transform.expr = 'dyn(config).map(c, {"id": string(c.id), "name": c.name, "password": c.password, "secret": c.secret}).toJSON()';
    const r = await fileScraper.scrape(ctx(), block);
    expect(r.errors).toEqual([]);
    expect(r.items.map(asConfigDb)).toEqual((await expected('file-exclusion.json')).map(({ last_modified: _, ...rest }: Record<string, unknown>) => rest));
  });

  it("config-db's creation-date fixture: type, id from JSONPath, createFields and deleteFields as times", async () => {
    const r = await fileScraper.scrape(ctx(), await fixtureBlock('file-local-creation-date.yaml', 'file'));
    expect(r.errors).toEqual([]);
    expect(r.items).toHaveLength(1);
    expect(r.items[0]).toMatchObject({ externalId: 'eu-west-1', type: 'eu-west-1', configClass: 'AWS', deleteReason: 'delete field' });
    expect(r.items[0].createdAt?.toISOString()).toBe('2017-03-06T21:04:11.000Z');
    expect(r.items[0].deletedAt?.toISOString()).toBe('2017-04-04T15:04:05.000Z');
    // the files matched are all there is: an item no longer in them was observed gone
    expect(r.deleteMissing).toBe(true);
  });

  it('timestampFormat: createFields read with a Go layout; a field not in it falls through to the next', async () => {
    await writeFile(join(dir, 'times.json'), JSON.stringify({ id: 't1', made: '16-03-2017 21:04:11', born: 'yesterday' }));
    const rel = relative(process.cwd(), dir);
    const r = await fileScraper.scrape(ctx(), { type: 'T', id: '$.id', paths: [`${rel}/times.json`], timestampFormat: '02-01-2006 15:04:05', createFields: ['$.born', '$.made'] });
    expect(r.errors).toEqual([]);
    expect(r.items[0].createdAt?.toISOString()).toBe('2017-03-16T21:04:11.000Z');
    await rm(join(dir, 'times.json'));
  });

  it('globs with ignore, multi-document YAML, items split, labels and tags from JSONPath; a bad file is an error and the run partial', async () => {
    await writeFile(join(dir, 'a.yaml'), 'kind: Team\nname: alpha\nregion: eu\nmembers: 3\n---\nkind: Team\nname: beta\nregion: us\n');
    await writeFile(join(dir, 'b.json'), JSON.stringify({ teams: [{ kind: 'Team', name: 'gamma', region: 'ap' }, { kind: 'Team', region: 'none' }] }));
    await writeFile(join(dir, 'skip.yaml'), 'kind: Team\nname: skipped\n');
    await writeFile(join(dir, 'broken.yaml'), 'kind: [unclosed\n');
    const rel = relative(process.cwd(), dir);
    const block = {
      type: 'Team', class: '$.kind', id: '$.name', paths: [`${rel}/*.yaml`, `${rel}/*.json`], ignore: [`${rel}/skip.yaml`],
      labels: { region: '$.region', owner: 'platform' }, tags: [{ name: 'zone', jsonpath: '$.region' }, { name: 'tier', value: 'gold' }],
    };
    const r = await fileScraper.scrape(ctx(), block);
    expect(r.items.map((i) => i.externalId).sort()).toEqual(['alpha', 'beta']);
    // b.json as a whole has no name: its id selects nothing
    expect(r.errors).toEqual([expect.stringMatching(/broken\.yaml: .+/), expect.stringMatching(/b\.json: id \$\.name selected nothing/)]);
    expect(r.complete).toBe(false);
    const alpha = r.items.find((i) => i.externalId === 'alpha')!;
    expect(alpha).toMatchObject({ name: 'alpha', type: 'Team', configClass: 'Team', tags: { zone: 'eu', tier: 'gold' } });
    expect(alpha.labels).toEqual({ region: 'eu', owner: 'platform', zone: 'eu', tier: 'gold' });
    expect(alpha.config).toEqual({ kind: 'Team', name: 'alpha', region: 'eu', members: 3 });
    expect(alpha.source).toMatch(/a\.yaml#0$/);

    // `items` splits a document; an item whose id selects nothing is an error naming it, the others are kept
    const split = await fileScraper.scrape(ctx(), { ...block, paths: [`${rel}/b.json`], items: '$.teams[*]' });
    expect(split.items.map((i) => i.externalId)).toEqual(['gamma']);
    expect(split.errors).toEqual([expect.stringMatching(/b\.json items\[1\]: id \$\.name selected nothing/)]);
    expect(split.complete).toBe(false);
  });

  it('nothing outside the working directory: absolute paths, .., dot-files and links out are errors, never read', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'catalog-outside-'));
    await writeFile(join(outside, 'secret.json'), JSON.stringify({ id: 'leak' }));
    await writeFile(join(dir, '.env.json'), JSON.stringify({ id: 'dot' }));
    // a link to a file is not a file to fast-glob (links are not followed); a linked directory named in the glob is
    await symlink(join(outside, 'secret.json'), join(dir, 'link.json'));
    await symlink(outside, join(dir, 'linked'));
    const rel = relative(process.cwd(), dir);
    const r = await fileScraper.scrape(ctx(), {
      type: 'T', id: '$.id',
      paths: [join(outside, '*.json'), `${rel}/../../../${outside}/*.json`, `${rel}/.env.json`, `${rel}/link.json`, `${rel}/linked/secret.json`],
    });
    expect(r.items).toEqual([]);
    expect(r.complete).toBe(false);
    expect(r.errors).toEqual([
      expect.stringMatching(/must be relative/), expect.stringMatching(/no \.\./), expect.stringMatching(/dot-files/),
      expect.stringMatching(/linked\/secret\.json: links outside/),
    ]);
    await rm(join(dir, 'link.json'));
    await rm(join(dir, 'linked'));
    await rm(join(dir, '.env.json'));
    await rm(outside, { recursive: true, force: true });
  });

  it('a CEL transform that fails on a document is an error; nothing matched is a complete empty run', async () => {
    const rel = relative(process.cwd(), dir);
    const bad = await fileScraper.scrape(ctx(), { type: 'T', id: '$.name', paths: [`${rel}/a.yaml`], transform: { expr: 'config.nothere.map(x, x)' } });
    expect(bad.items).toEqual([]);
    expect(bad.errors).toHaveLength(2);
    expect(bad.errors[0]).toMatch(/a\.yaml#0: transform\.expr: /);
    const none = await fileScraper.scrape(ctx(), { type: 'T', id: '$.name', paths: [`${rel}/*.none`] });
    expect(none).toMatchObject({ items: [], errors: [], complete: true });
  });
});

describe('transforms on built items (applyTransforms, as the kubernetes extractor calls it)', () => {
  const item = (id: string, config: Record<string, unknown>): ScrapedItem => ({ externalId: id, name: id, type: 'App', configClass: 'App', config, labels: { team: 'web' } });

  it('relationships from lookups and from expr, parent reverses; changes mapped, excluded, deleted; a failing filter is one error', () => {
    const items = [item('a', { owner: 'team-1', deps: ['b', 'c'] }), item('b', {}), item('x', { owner: 7 })];
    const changes = [
      { item: { type: 'App', externalId: 'a' }, changeType: 'Pulled', summary: 'image pulled' },
      { item: { type: 'App', externalId: 'a' }, changeType: 'Heartbeat' },
      { item: { type: 'App', externalId: 'b' }, changeType: 'Killing' },
    ];
    const r = applyTransforms({
      transform: {
        relationship: [
          { filter: 'has(config.owner)', type: { value: 'Team' }, external_id: { expr: 'config.owner' }, parent: true },
          { expr: "has(config.deps) ? config.deps.map(d, {'type': 'App', 'external_id': d}).toJSON() : '[]'" },
        ],
        changes: {
          mapping: [
            { filter: "change_type == 'Pulled'", type: 'ImagePulled', severity: 'info' },
            { filter: "change_type == 'Killing' && config_type == 'App'", action: 'delete' },
          ],
          exclude: ["change_type == 'Heartbeat'"],
        },
      },
    }, items, changes);
    expect(r.relationships).toEqual([
      { from: { type: 'Team', externalId: 'team-1' }, to: { type: 'App', externalId: 'a' }, relation: 'soft' },
      { from: { type: 'App', externalId: 'a' }, to: { type: 'App', externalId: 'b' }, relation: 'soft' },
      { from: { type: 'App', externalId: 'a' }, to: { type: 'App', externalId: 'c' }, relation: 'soft' },
      { from: { type: 'Team', externalId: '7' }, to: { type: 'App', externalId: 'x' }, relation: 'soft' },
    ]);
    // x's owner is a number: the lookup's CEL gives "7", a link all the same; nothing failed
    expect(r.errors).toEqual([]);
    expect(r.changes).toEqual([
      { item: { type: 'App', externalId: 'a' }, changeType: 'ImagePulled', severity: 'info', summary: 'image pulled' },
      { item: { type: 'App', externalId: 'b' }, changeType: 'Killing', action: 'delete' },
    ]);

    // a mask whose selector fails leaves its item out (an error), rather than saving a value it may have had to hide
    const failing = applyTransforms({ transform: { mask: [{ selector: 'config.owner.startsWith("t")', jsonpath: '$.owner', value: '***' }] } }, items);
    expect(failing.items.map((i) => [i.externalId, i.config])).toEqual([['a', { owner: '***', deps: ['b', 'c'] }]]);
    expect(failing.errors).toEqual([expect.stringMatching(/^App\/b: transform: .*owner/), expect.stringMatching(/^App\/x: transform: /)]);
  });
});

describe('http', () => {
  it("config-db's http fixture against a loopback server: CEL filters the list, name and id by JSONPath", async () => {
    const block = await fixtureBlock('http-scraper.yaml', 'http');
    block.url = `${http.url}/todos`;
    const r = await httpScraper.scrape(ctx(), block);
    expect(r.errors).toEqual([]);
    expect(r.complete).toBe(true);
    expect(r.items).toHaveLength(10);
    expect(r.items[0]).toMatchObject({ externalId: '1', name: 'todo 1', type: 'Todo::Task', configClass: 'Todo::Task', config: { title: 'todo 1', id: 1 } });
  });

  it('method, body and headers with $(env) filled from env', async () => {
    const r = await httpScraper.scrape(ctx(), {
      type: 'Echo', id: '$.id', url: `${http.url}/echo`, method: 'post', body: '{"q": "$(query)"}',
      env: [{ name: 'query', value: 'all' }, { name: 'key', value: 'k-123' }], headers: [{ name: 'X-Api-Key', value: '$(key)' }],
    });
    expect(r.errors).toEqual([]);
    expect(r.items[0].config).toEqual({ id: 'echo', method: 'POST', body: '{"q": "all"}', auth: 'k-123' });
  });

  it('connection:// gives the url and basic credentials; a refusal names the url, never the password', async () => {
    const admin = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
    const made = await t.app.inject({ method: 'POST', url: '/api/db/connections', headers: admin,
      payload: { name: 'todo-api', namespace: 'default', type: 'http', url: `${http.url}/private`, username: 'scraper', password: PASSWORD } });
    expect(made.statusCode, made.body).toBe(201);
    const ok = await httpScraper.scrape(ctx(), { type: 'Private', id: '$.id', connection: 'connection://default/todo-api' });
    expect(ok.errors).toEqual([]);
    expect(ok.items.map((i) => i.externalId)).toEqual(['p1']);
    const wrong = await httpScraper.scrape(ctx(), { type: 'Private', id: '$.id', url: `http://scraper:${encodeURIComponent(PASSWORD)}@127.0.0.1:${http.port}/private?token=${PASSWORD}`, password: { value: 'nope' }, username: { value: 'scraper' } });
    expect(wrong.complete).toBe(false);
    expect(wrong.errors).toEqual([`GET http://127.0.0.1:${http.port}/private: HTTP 401 Unauthorized`]);
  });

  it('a 500, a page of HTML, an unreachable port and a run that times out are errors of a partial run', async () => {
    const cases: [string, RegExp][] = [
      [`${http.url}/broken`, /HTTP 500/],
      [`${http.url}/html`, /not a JSON or YAML object or list/],
      [`http://127.0.0.1:${closedPort}/none`, /ECONNREFUSED/],
    ];
    for (const [url, msg] of cases) {
      const r = await httpScraper.scrape(ctx(), { type: 'T', id: '$.id', url });
      expect(r, url).toMatchObject({ items: [], complete: false });
      expect(r.errors[0], url).toMatch(msg);
    }
    const slow = await httpScraper.scrape(ctx(AbortSignal.timeout(300)), { type: 'T', id: '$.id', url: `${http.url}/slow` });
    expect(slow).toMatchObject({ items: [], complete: false, errors: [expect.stringMatching(/\/slow: timed out$/)] });
  });
});

describe('sql', () => {
  const query = "SELECT id, name, json_build_object('size', size) AS spec FROM (VALUES ('db-1', 'orders', 10), ('db-2', 'users', 20)) v(id, name, size)";

  it('postgres: one item per row, fields by JSONPath, JSON columns as objects', async () => {
    const r = await sqlScraper.scrape(ctx(), { type: 'Postgres::Table', id: '$.id', name: '$.name', connection: t.config.DATABASE_URL, query });
    expect(r.errors).toEqual([]);
    expect(r.complete).toBe(true);
    expect(r.items.map((i) => [i.externalId, i.name, i.config])).toEqual([
      ['db-1', 'orders', { id: 'db-1', name: 'orders', spec: { size: 10 } }],
      ['db-2', 'users', { id: 'db-2', name: 'users', spec: { size: 20 } }],
    ]);
  });

  it('postgres: a bad query and an unreachable server are errors of a partial run', async () => {
    const bad = await sqlScraper.scrape(ctx(), { type: 'T', id: '$.id', connection: t.config.DATABASE_URL, query: 'SELECT * FROM no_such_table' });
    expect(bad).toMatchObject({ items: [], complete: false, errors: [expect.stringMatching(/relation "no_such_table" does not exist/)] });
    const down = await sqlScraper.scrape(ctx(), { type: 'T', id: '$.id', connection: `postgres://u:${PASSWORD}@127.0.0.1:1/db`, query: 'SELECT 1' });
    expect(down.complete).toBe(false);
    expect(down.errors[0]).toMatch(/^postgres postgres:\/\/127\.0\.0\.1:1\/db: /);
    expect(down.errors[0]).not.toContain(PASSWORD);
  });

  it.skipIf(!!mariadbMissing)('mysql (MariaDB): auth fills $(username)/$(password); a wrong password is an error without it', async () => {
    const m = maria!;
    const url = `mysql://$(username):$(password)@127.0.0.1:${m.port}/${m.database}`;
    const r = await sqlScraper.scrape(ctx(), {
      type: 'MySQL::Row', id: '$.id', connection: url, auth: { username: { value: m.user }, password: { value: m.password } },
      query: "SELECT 'r1' AS id, 42 AS answer UNION ALL SELECT 'r2', 43",
    });
    expect(r.errors).toEqual([]);
    expect(r.items.map((i) => [i.externalId, i.config])).toEqual([['r1', { id: 'r1', answer: 42 }], ['r2', { id: 'r2', answer: 43 }]]);
    const wrong = await sqlScraper.scrape(ctx(), { type: 'T', id: '$.id', connection: url, auth: { username: { value: m.user }, password: { value: 'nope-wrong' } }, query: 'SELECT 1 AS id' });
    expect(wrong.complete).toBe(false);
    expect(wrong.errors[0]).toMatch(/Access denied/);
    expect(wrong.errors[0]).not.toContain('nope-wrong');
  });
});
