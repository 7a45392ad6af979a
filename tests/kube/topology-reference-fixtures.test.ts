import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sendJson, startHttpServer, type HttpServer } from '../fixtures/servers/http.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from '../server/helpers.js';

/**
 * The reference's own topology fixtures (canary-checker fixtures/topology, copied in tests/fixtures/topology) saved as
 * the reference UI saves them (POST /api/db/topologies {name, namespace, spec, source:'UI'}), run with Run Now, and
 * their components compared with what each fixture describes. httpbin is a loopback server answering 200.
 */
const dir = fileURLToPath(new URL('../fixtures/topology/', import.meta.url));
let t: TestContext;
let http: HttpServer;
let editor: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  http = await startHttpServer((_req, res) => sendJson(res, 200, {}));
  editor = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['editor'] })).id);
}, 60_000);
afterAll(async () => {
  await http?.close();
  await t?.close();
});

function fixture(file: string): { name: string; spec: Record<string, unknown> } {
  const text = readFileSync(dir + file, 'utf8').replaceAll('https://httpbin.flanksource.com', http.url);
  const doc = parse(text) as { metadata: { name: string }; spec: Record<string, unknown> };
  // @never: the app's scheduler runs a new topology at once; the test runs it by hand
  return { name: doc.metadata.name, spec: { ...doc.spec, schedule: '@never' } };
}

async function save(file: string): Promise<string> {
  const { name, spec } = fixture(file);
  const res = await t.app.inject({
    method: 'POST', url: '/api/db/topologies', headers: { ...editor, prefer: 'return=representation' },
    payload: { name, namespace: 'default', spec, source: 'UI' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as Array<{ id: string }>)[0].id;
}

async function run(id: string): Promise<{ status: string; count: string }> {
  const res = await t.app.inject({ method: 'POST', url: `/api/canary/run/topology/${id}`, headers: editor });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

type Row = { name: string; type: string | null; parent: string | null; namespace: string | null; properties: Array<Record<string, unknown>> | null };
const components = async (id: string) => (await t.db.query<Row>(
  `SELECT c.name, c.type, p.name AS parent, c.namespace, c.properties FROM components c LEFT JOIN components p ON p.id = c.parent_id
    WHERE c.topology_id = $1 AND c.deleted_at IS NULL ORDER BY c.name`, [id])).rows;
const parentOf = (rows: Row[]) => Object.fromEntries(rows.map((r) => [r.name, r.parent]));
const propsOf = (rows: Row[], name: string) =>
  Object.fromEntries((rows.find((r) => r.name === name)?.properties ?? []).map((p) => [p.name as string, p]));

it('component-with-parent-lookup: children move under the parent their parentLookup names', async () => {
  const id = await save('component-with-parent-lookup.yml');
  await run(id);
  const p = parentOf(await components(id));
  expect(p['Child-1A']).toBe('Parent-1');
  expect(p['Child-1C']).toBe('Parent-2');
  expect(p['Child-1D']).toBe('Parent-3');
  expect(p['Child-2C']).toBe('Parent-3');
});

it('component-with-properties: the lookup results become typed children of the component', async () => {
  const id = await save('component-with-properties.yml');
  await run(id);
  const rows = await components(id);
  expect(rows.filter((r) => r.parent === 'RootComponents').map((r) => [r.name, r.type]))
    .toEqual([['component-a', 'API'], ['component-b', 'Frontend'], ['component-c', 'Database']]);
  expect(propsOf(rows, 'component-a').error_percentage).toMatchObject({ min: 0, max: 100 });
  // reference run_test.go: a lookup's results naming a component merge into that component's property of that name,
  // a property list goes to each component, one property per name
  const props = (name: string) => (rows.find((r) => r.name === name)?.properties ?? []).filter((p) => p.name !== 'config-key');
  for (const [name, value, owner] of [['component-a', 1, 'team-a'], ['component-b', 10, 'team-b'], ['component-c', 50, 'team-b']] as const) {
    expect(props(name)).toEqual([
      { name: 'error_percentage', value, min: 0, max: 100 }, { name: 'owner', text: owner }, { name: 'company', text: 'Acme' },
      { name: 'location', text: 'Mars' }, { name: 'key', text: 'value' },
    ]);
  }
  expect(propsOf(rows, 'RootComponents').error_percentage).toBeUndefined();
});

it('component-with-property-list: accepted and run; the component keeps its error_percentage property', async () => {
  const id = await save('component-with-property-list.yml');
  await run(id);
  // reference run_test.go: the static property and both lookups' results merge into one
  expect((await components(id)).find((r) => r.name === 'RootComponent')?.properties)
    .toEqual([{ name: 'error_percentage', value: 10, min: 0, max: 100 }]);
});

it('component-with-for-each: forEach adds its children under every looked-up component', async () => {
  const id = await save('component-with-for-each.yml');
  await run(id);
  const rows = await components(id);
  expect(rows.filter((r) => r.parent === 'GroupA').map((r) => r.name)).toEqual(['component-a', 'component-b', 'component-c']);
  expect(rows.filter((r) => r.parent === 'component-a').map((r) => r.name)).toEqual(['Child-A', 'Child-B']);
  expect(propsOf(rows, 'component-b').owner).toMatchObject({ text: 'team-b' });
  // reference run_test.go: each component merges only the processor its lookup names for it
  for (const [name, owner, processor] of [['component-a', 'team-a', 'intel'], ['component-b', 'team-b', 'intel'], ['component-c', 'team-b', 'amd']]) {
    expect(rows.find((r) => r.name === name)?.properties).toEqual([
      { name: 'owner', text: owner }, { name: 'processor', text: processor }, { name: 'company', text: 'Acme' }, { name: 'location', text: 'Mars' },
    ]);
  }
});

it('inline-check: the inline canary is created and its check linked to the component', async () => {
  const id = await save('inline-check.yaml');
  await run(id);
  const rows = await components(id);
  expect(rows.map((r) => r.name)).toContain('inline-canary');
  const { rows: links } = await t.db.query(
    `SELECT ch.name FROM check_component_relationships r JOIN checks ch ON ch.id = r.check_id JOIN components c ON c.id = r.component_id
      WHERE c.topology_id = $1 AND r.deleted_at IS NULL`, [id]);
  expect(links.map((l) => l.name)).toEqual(['inline-check']);
});

for (const file of ['single-check.yaml', 'canary-selector.yaml', 'component-status-expr.yml']) {
  it(`${file}: accepted and run`, async () => {
    const id = await save(file);
    const out = await run(id);
    expect(Number(out.count)).toBeGreaterThan(0);
  });
}

it('selector.yaml: its nameless selectors-only component is kept, as the reference keeps it (an empty name, its selectors)', async () => {
  const id = await save('selector.yaml');
  await run(id);
  const { rows } = await t.db.query<{ name: string; selectors: unknown }>(
    `SELECT c.name, c.selectors FROM components c JOIN components p ON p.id = c.parent_id
      WHERE c.topology_id = $1 AND c.deleted_at IS NULL AND p.parent_id IS NULL ORDER BY c.name`, [id]);
  expect(rows.map((r) => r.name)).toEqual(['', 'selector']);
  expect(rows[0].selectors).toEqual([{ labelSelector: 'namespace=kube-system' }]);
});
