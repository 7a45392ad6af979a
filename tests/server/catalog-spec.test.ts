import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScrapeConfigSpec, scrapeSpecProblems, specPathText } from '../../server/modules/catalog/spec.js';
import { jsonPathError } from '../../server/modules/catalog/jsonpath.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * The ScrapeConfig spec contract: a console write through /api/db with a bad schedule, JSONPath, CEL or an unsupported
 * scraper type is a 400 naming the path (`spec.file.0.transform.expr`) and stores nothing; a good one is stored as
 * written; the JSON Schema the scraper editor reads is served from the same zod.
 */
let t: TestContext;
let editor: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  editor = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['editor'] })).id);
});
afterAll(async () => {
  await t?.close();
});

const post = (body: unknown) => t.app.inject({ method: 'POST', url: '/api/db/config_scrapers', headers: editor, payload: body as never });
const stored = async (name: string) => Number((await t.db.query('SELECT count(*) FROM config_scrapers WHERE name = $1', [name])).rows[0].count);

const fileBlock = { type: 'File', id: '$.id', paths: ['tests/fixtures/config-db/*.json'] };

describe('POST /api/db/config_scrapers judges the spec', () => {
  it('a spec using every supported type and the transforms is stored as written', async () => {
    const spec = {
      schedule: '@every 5m',
      timeout: '2m',
      retention: { changes: [{ name: 'diff', age: '7d', count: 100 }], types: [{ name: 'File', deletedAge: '30d' }], staleItemAge: '24h' },
      file: [{
        ...fileBlock,
        name: '$.name',
        items: '$.items[*]',
        labels: { team: '$.team', env: 'prod' },
        tags: [{ name: 'region', jsonpath: '$.region' }],
        transform: {
          expr: 'config.items.filter(i, i.enabled).toJSON()',
          exclude: [{ jsonpath: '.password' }, { jsonpath: '$.secret', types: ['File'] }],
          mask: [{ selector: "config.name == 'a'", jsonpath: '$.token', value: 'md5sum' }],
          relationship: [{ filter: 'has(config.owner)', type: { value: 'Team' }, external_id: { expr: 'config.owner' } }],
          changes: { mapping: [{ filter: "change_type == 'diff'", type: 'Edited', severity: 'low' }], exclude: ["change_type == 'Heartbeat'"] },
        },
      }],
      http: [{ type: 'Todo', id: '$.id', url: 'http://127.0.0.1:1/todos', method: 'GET', headers: [{ name: 'X-Api', value: 'k' }] }],
      sql: [{ type: 'Row', id: '$.id', connection: 'postgres://u@127.0.0.1/db', driver: 'postgres', query: 'SELECT 1 AS id' }],
      kubernetes: [{ clusterName: 'local', exclusions: { namespace: ['kube-system'] }, event: { severityKeywords: { error: ['failed'] } } }],
    };
    const res = await post({ name: 'all-types', spec });
    expect(res.statusCode, res.body).toBe(201);
    const row = (await t.db.query('SELECT spec FROM config_scrapers WHERE name = $1', ['all-types'])).rows[0];
    expect(row.spec).toEqual(spec);
  });

  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ['an unsupported scraper type', { aws: [{ region: ['eu-west-1'] }] }, 'spec.aws', /^the aws scraper is not supported; supported: kubernetes, file, http, sql$/],
    ['a bad schedule', { schedule: '@every soon', file: [fileBlock] }, 'spec.schedule', /invalid duration/],
    ['a cron with 3 fields', { schedule: '* * *', file: [fileBlock] }, 'spec.schedule', /5 fields/],
    ['a bad CEL transform', { file: [{ ...fileBlock, transform: { expr: 'config.items.filter(' } }] }, 'spec.file.0.transform.expr', /invalid CEL/],
    ['a CEL calling an unknown function', { file: [{ ...fileBlock, transform: { changes: { mapping: [{ filter: 'nope(change_type)' }] } } }] },
      'spec.file.0.transform.changes.mapping.0.filter', /unknown function nope\(\)/],
    ['a bad JSONPath id', { http: [{ url: 'http://x', id: '$.items[0', type: 'T' }] }, 'spec.http.0.id', /unclosed "\["/],
    ['a bad items JSONPath', { file: [{ ...fileBlock, items: '$.a[?(@.x ==)]' }] }, 'spec.file.0.items', /Expected expression/],
    ['a bad exclude JSONPath', { file: [{ ...fileBlock, transform: { exclude: [{ jsonpath: '$.a)' }] } }] }, 'spec.file.0.transform.exclude.0.jsonpath', /unbalanced/],
    ['a file path outside the working directory', { file: [{ ...fileBlock, paths: ['ok/*.json', '/etc/*'] }] }, 'spec.file.0.paths.1', /relative/],
    ['a file block without paths', { file: [{ type: 'File', id: '$.id' }] }, 'spec.file.0.paths', /paths/],
    ['an sql block without a query', { sql: [{ connection: 'postgres://x/y' }] }, 'spec.sql.0.query', /./],
    ['a bad retention age', { retention: { staleItemAge: 'a while' }, file: [fileBlock] }, 'spec.retention.staleItemAge', /invalid age/],
    ['an unknown top-level field', { fiel: [fileBlock] }, 'spec.fiel', /unknown field/],
  ];
  for (const [what, spec, path, message] of cases) {
    it(`${what}: 400 naming ${path}, nothing stored`, async () => {
      const name = `bad-${path.replace(/[^a-z0-9]+/gi, '-')}-${Math.random().toString(36).slice(2, 6)}`;
      const res = await post({ name, spec });
      expect(res.statusCode, res.body).toBe(400);
      const body = res.json();
      expect(Object.keys(body.details)).toContain(path);
      expect(body.details[path]).toMatch(message);
      expect(body.message ?? body.error).toContain(path);
      expect(await stored(name)).toBe(0);
    });
  }

  it('a PATCH to a bad spec is refused and the stored spec stays', async () => {
    const res = await post({ name: 'patched', spec: { file: [fileBlock] } });
    expect(res.statusCode, res.body).toBe(201);
    const { id } = (await t.db.query('SELECT id FROM config_scrapers WHERE name = $1', ['patched'])).rows[0];
    const bad = await t.app.inject({ method: 'PATCH', url: `/api/db/config_scrapers?id=eq.${id}`, headers: editor, payload: { spec: { trivy: [{}] } } });
    expect(bad.statusCode, bad.body).toBe(400);
    expect(bad.json().details).toHaveProperty(['spec.trivy']);
    expect((await t.db.query('SELECT spec FROM config_scrapers WHERE id = $1', [id])).rows[0].spec).toEqual({ file: [fileBlock] });
  });
});

describe('the contract itself', () => {
  it('reports every problem with its path, and passes the reference fixtures', () => {
    const problems = scrapeSpecProblems({ schedule: 'never', gcp: [], file: [{ type: 'x', id: '$.', paths: ['a'], transform: { mask: [{ selector: '1 +', jsonpath: '$.a', value: 'x' }] } }] });
    expect(problems.map((p) => specPathText(p.path)).sort()).toEqual(['spec.file.0.id', 'spec.file.0.transform.mask.0.selector', 'spec.gcp', 'spec.schedule']);
    // config-db's own fixtures (file-mask, file-exclusion without its javascript, http-scraper) are valid specs
    expect(ScrapeConfigSpec.safeParse({ file: [{ type: 'Config', id: '$.id', name: '$.name', paths: ['fixtures/data/single-config.json'],
      transform: { mask: [{ selector: "config.name == 'Config1'", jsonpath: '$.password', value: 'md5sum' }] } }] }).success).toBe(true);
    expect(ScrapeConfigSpec.safeParse({ http: [{ type: 'Todo::Task', name: '$.title', id: '$.id', url: 'https://jsonplaceholder.typicode.com/todos',
      transform: { expr: 'dyn(config).filter(item, item.id <= 10).map(item, {"title": item.title, "id": item.id}).toJSON()' } }] }).success).toBe(true);
  });

  it('JSONPath: well-formed paths pass, malformed ones say why', () => {
    for (const ok of ['$.a', '$..b', '$.a[*].b', "$['a b']", '$.a[?(@.x == 1)]', '.password', '$..[0]', '@.x']) expect(jsonPathError(ok), ok).toBeNull();
    for (const bad of ['$[', '$.a[0', '$.a.b)', 'foo', '$.', '$.[', '$.a[?(@.x ==)]', "$['a"]) expect(jsonPathError(bad), bad).not.toBeNull();
  });
});

describe('GET /api/schemas/scrape_config.schema.json', () => {
  it('serves draft-07 JSON Schema from the same zod to a signed-in user, with the scraper types typed', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/schemas/scrape_config.schema.json', headers: editor });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/schema+json');
    const schema = res.json();
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.$id).toBe('scrape_config.schema.json');
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['schedule', 'retention', 'kubernetes', 'file', 'http', 'sql', 'custom']));
    expect(schema.properties).not.toHaveProperty('aws');
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.sql.items.required).toEqual(expect.arrayContaining(['connection', 'query']));
    expect(schema.properties.file.items.properties.transform.properties.mask.items.properties).toHaveProperty('selector');
    const anon = await t.app.inject({ method: 'GET', url: '/api/schemas/scrape_config.schema.json' });
    expect(anon.statusCode).toBe(401);
  });
});
