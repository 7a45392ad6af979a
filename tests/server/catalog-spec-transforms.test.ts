import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * The spec fields config-db's transforms add beyond CEL and JSONPath: scripts (`transform.javascript`, `gotemplate`),
 * `properties`, `transform.locations` and `transform.aliases`. A console write with a script or template that does
 * not compile is a 400 naming its path and stores nothing; the editor's JSON Schema offers the fields.
 */
let t: TestContext;
let editor: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  editor = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['editor'] })).id);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const post = (body: unknown) => t.app.inject({ method: 'POST', url: '/api/db/config_scrapers', headers: editor, payload: body as never });
const fileBlock = { type: 'File', id: '$.id', paths: ['tests/fixtures/config-db/*.json'] };
const file = (more: Record<string, unknown>) => ({ file: [{ ...fileBlock, ...more }] });

describe('POST /api/db/config_scrapers judges scripts and templates', () => {
  it('a spec with each script kind, properties, locations and aliases is stored as written', async () => {
    const spec = {
      file: [
        { ...fileBlock, transform: { javascript: 'config.map(function (c) { return c; })' } },
        { ...fileBlock, transform: { gotemplate: '[{{range .config}}{"id": "{{.id}}"}{{end}}]' } },
        { ...fileBlock, transform: { jsonpath: '$.items[*]' } },
        {
          ...fileBlock,
          properties: [{ name: 'owner', text: '{{.config.owner}} $(.name)', filter: 'has(config.owner)', headline: true, order: 1, links: [{ url: 'https://x/{{.name}}' }] }],
          transform: {
            locations: [{ type: 'File,Test::*', filter: 'has(tags.region)', values: ['region://{{.tags.region}}'], withParent: 'Test::Account' }],
            aliases: [{ type: 'File', values: ['file://{{.name}}'] }],
          },
        },
      ],
    };
    const res = await post({ name: 'scripts-ok', spec });
    expect(res.statusCode, res.body).toBe(201);
    expect((await t.db.query('SELECT spec FROM config_scrapers WHERE name = $1', ['scripts-ok'])).rows[0].spec).toEqual(spec);
  });

  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ['a JavaScript syntax error', file({ transform: { javascript: 'config.map(function (c) { return c; }' } }), 'spec.file.0.transform.javascript', /invalid JavaScript: missing \)/],
    ['a Go template that does not parse', file({ transform: { gotemplate: '[{{range .config}}]' } }), 'spec.file.0.transform.gotemplate', /invalid Go template: .*unexpected EOF/],
    ['two scripts', file({ transform: { javascript: 'config', expr: 'config' } }), 'spec.file.0.transform.expr', /set one script: javascript and expr are set, and only javascript would run/],
    ['a script on a kubernetes block', { kubernetes: [{ clusterName: 'c', transform: { gotemplate: '[]' } }] }, 'spec.kubernetes.0.transform.gotemplate', /not run on kubernetes objects/],
    ['a property template calling an unknown function', file({ properties: [{ name: 'x', text: '{{nope .name}}' }] }), 'spec.file.0.properties.0.text', /invalid Go template: .*nope/],
    ['a property link template that does not parse', file({ properties: [{ name: 'x', links: [{ url: '{{.name' }] }] }), 'spec.file.0.properties.0.links.0.url', /invalid Go template/],
    ['a $( ) action not closed', file({ properties: [{ name: 'x', text: 'a $(.name' }] }), 'spec.file.0.properties.0.text', /invalid Go template: a \$\( action is not closed/],
    ['a location filter that is not CEL', file({ transform: { locations: [{ filter: 'has(', values: ['a'] }] } }), 'spec.file.0.transform.locations.0.filter', /invalid CEL/],
    ['an alias value that does not parse', file({ transform: { aliases: [{ values: ['ok', 'x/{{.name'] }] } }), 'spec.file.0.transform.aliases.0.values.1', /invalid Go template/],
  ];
  for (const [what, spec, path, message] of cases) {
    it(`${what}: 400 naming ${path}, nothing stored`, async () => {
      const name = `bad-${Math.random().toString(36).slice(2, 8)}`;
      const res = await post({ name, spec });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().details[path]).toMatch(message);
      expect(Number((await t.db.query('SELECT count(*) FROM config_scrapers WHERE name = $1', [name])).rows[0].count)).toBe(0);
    });
  }
});

describe('GET /api/schemas/scrape_config.schema.json', () => {
  it('offers the scripts, properties, locations and aliases typed', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/schemas/scrape_config.schema.json', headers: editor });
    expect(res.statusCode).toBe(200);
    const block = res.json().properties.file.items.properties;
    expect(Object.keys(block.transform.properties)).toEqual(expect.arrayContaining(['javascript', 'gotemplate', 'expr', 'jsonpath', 'locations', 'aliases']));
    expect(Object.keys(block.transform.properties.locations.items.properties)).toEqual(expect.arrayContaining(['type', 'filter', 'values', 'withParent']));
    expect(Object.keys(block.properties.items.properties)).toEqual(expect.arrayContaining(['name', 'text', 'filter', 'links', 'headline', 'order']));
    expect(block.properties.items.properties.order.type).toBe('integer');
  });
});
