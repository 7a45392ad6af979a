import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';
import { liveLinks } from './topology-links-fixtures.js';
import { CHANGES_PAGE_SIZE, changesPageQuery, nextChangesPage } from '../../web/src/features/topology/sidebar/changes-panel-paging.js';

// Topology spec fields canary-checker acts on that the runner used to keep only (issue 13 "Not yet"): selector
// `search`, a component's `relationships`. Real runs (Run Now) against real PostgreSQL; the topology is `@never`.

const TOPOLOGY = '0000000d-0000-4000-8000-00000000f1e1';
const CANARY = '0000000d-0000-4000-8000-00000000f1c0';
let t: TestContext;
let admin: Record<string, string>;

const runNow = () => t.app.inject({ method: 'POST', url: `/api/canary/run/topology/${TOPOLOGY}`, headers: admin });
const componentId = async (name: string) => (await t.db.query(
  `SELECT id FROM components WHERE topology_id = $1 AND name = $2 AND deleted_at IS NULL`, [TOPOLOGY, name])).rows[0]?.id as string;
const lastJob = async () => (await t.db.query(
  `SELECT status, details FROM job_history WHERE resource_id = $1 AND name = 'TopologyRun' ORDER BY created_at DESC LIMIT 1`, [TOPOLOGY])).rows[0];
const setSpec = (spec: object) => t.db.query(`UPDATE topologies SET spec = $2 WHERE id = $1`, [TOPOLOGY, { schedule: '@never', ...spec }]);

beforeAll(async () => {
  t = await createTestApp();
  const adminId = (await makePerson(t.db, { roles: ['admin'] })).id;
  admin = await bearerHeaders(t.db, adminId);
  await t.db.query(`INSERT INTO topologies (id, name, namespace, schedule, spec) VALUES ($1, 'shop', 'shop-ns', '@never', '{"schedule":"@never"}')`, [TOPOLOGY]);
  await t.db.query(`INSERT INTO canaries (id, name, spec) VALUES ($1, 'core', '{}')`, [CANARY]);
  await t.db.query(`INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', 'core-http', 'healthy'),
    ($1, 'http', 'Core-db', 'healthy'), ($1, 'http', 'billing-http', 'healthy')`, [CANARY]);
});
afterAll(async () => { await t.close(); });

const names = async (ids: string[]) => (await t.db.query<{ name: string }>(
  'SELECT name FROM components WHERE id = ANY($1::uuid[]) ORDER BY name', [ids])).rows.map((r) => r.name);

describe('selector search', () => {
  it('key=value terms, labels.<k>, a property, globs, != and a bare name prefix select components and checks', async () => {
    await setSpec({
      components: [
        { name: 'api', type: 'Service', labels: { app: 'api' }, properties: [{ name: 'tier', text: 'gold' }],
          checks: [{ selector: { search: 'core-*' } }] },
        { name: 'api-worker', type: 'Worker', labels: { app: 'api' } },
        { name: 'frontend', type: 'Service', selectors: [{ search: 'type=Service labels.app=api' }] },
        { name: 'ops', type: 'Team', selectors: [{ search: 'API' }] },
        { name: 'audit', type: 'Team', selectors: [{ search: 'tier=gold' }, { search: 'name=api* type!=Service' }, { search: 'name>1' }] },
      ],
    });
    const res = await runNow();
    expect(res.statusCode, res.payload).toBe(200);
    expect(await names(await liveLinks(t.db, 'component_relationships', await componentId('frontend')))).toEqual(['api']);
    expect(await names(await liveLinks(t.db, 'component_relationships', await componentId('ops')))).toEqual(['api', 'api-worker']);
    expect(await names(await liveLinks(t.db, 'component_relationships', await componentId('audit')))).toEqual(['api', 'api-worker']);
    const checks = (await t.db.query(`SELECT ch.name FROM check_component_relationships r JOIN checks ch ON ch.id = r.check_id
      WHERE r.component_id = $1 AND r.deleted_at IS NULL ORDER BY 1`, [await componentId('api')])).rows.map((r) => r.name);
    expect(checks).toEqual(['Core-db', 'core-http']);
    const job = await lastJob();
    expect(job.details.notes).toEqual([`selectors: spec.components.4.selectors.2: search: 'name>1': only = and != are supported`]);
  });
});

describe('relationships', () => {
  it('{ref, type} links the referenced component (by external id, name or id); a ref matching nothing is a note', async () => {
    const spec = (rels: object[]) => ({
      components: [
        { name: 'api', type: 'Service', externalID: 'svc/api' },
        { name: 'db', type: 'Database' },
        { name: 'gateway', type: 'Service', relationships: rels },
      ],
    });
    await setSpec(spec([{ ref: 'svc/api', type: 'dependsOn' }, { ref: 'db' }, { ref: 'nope', type: 'dependsOn' }]));
    expect((await runNow()).statusCode).toBe(200);
    const [api, db, gateway] = [await componentId('api'), await componentId('db'), await componentId('gateway')];
    expect(await names(await liveLinks(t.db, 'component_relationships', gateway))).toEqual(['api', 'db']);
    const rows = (await t.db.query(`SELECT component_id::text AS c, selector_id FROM component_relationships
      WHERE relationship_id = $1 AND deleted_at IS NULL ORDER BY selector_id`, [gateway])).rows;
    expect(rows).toEqual([{ c: db, selector_id: 'relationship:' }, { c: api, selector_id: 'relationship:dependsOn' }]);
    expect((await lastJob()).details.notes).toEqual([`selectors: spec.components.2.relationships.2: no component 'nope'`]);

    // the tree API shows the related components among gateway's children
    const tree = await t.app.inject({ method: 'GET', url: `/api/topology?id=${gateway}`, headers: admin });
    expect(tree.statusCode, tree.payload).toBe(200);
    const children = (JSON.parse(tree.payload).components[0].components ?? []).map((c: { name: string }) => c.name).sort();
    expect(children).toEqual(['api', 'db']);

    // by id, and a relationship dropped from the spec is unlinked on the next run
    await setSpec(spec([{ ref: db, type: 'dependsOn' }]));
    expect((await runNow()).statusCode).toBe(200);
    expect(await liveLinks(t.db, 'component_relationships', gateway)).toEqual([db]);
    expect(api).toBeTruthy();
  });
});

describe('groupBy', () => {
  const tree = async () => (await t.db.query<{ name: string; parent: string | null }>(
    `SELECT c.name, p.name AS parent FROM components c LEFT JOIN components p ON p.id = c.parent_id
      WHERE c.topology_id = $1 AND c.deleted_at IS NULL ORDER BY c.path COLLATE "C", c.name`, [TOPOLOGY])).rows
    .map((r) => `${r.parent ?? ''}/${r.name}`).sort();
  const spec = (groupBy: object) => ({
    groupBy,
    components: [
      { name: 'apps', type: 'Application', configs: [{ types: ['Kubernetes::Pod'] }] },
      { name: 'namespaces', type: 'Group', lookup: { configDB: [{ type: 'Kubernetes::Namespace' }] } },
    ],
  });

  it('builds the components once per tag value, under a group per value, with the tag in their catalog filters', async () => {
    const ins = (name: string, type: string, env: string) => t.db.query<{ id: string }>(
      `INSERT INTO config_items (name, type, config_class, tags) VALUES ($1, $2, 'X', $3) RETURNING id`, [name, type, { env }]).then((r) => r.rows[0].id);
    await ins('ns-prod', 'Kubernetes::Namespace', 'prod');
    await ins('ns-dev', 'Kubernetes::Namespace', 'dev');
    const podProd = await ins('pod-prod', 'Kubernetes::Pod', 'prod');
    const podDev = await ins('pod-dev', 'Kubernetes::Pod', 'dev');
    await ins('pod-staging', 'Kubernetes::Pod', 'staging');
    await setSpec(spec({ tag: 'env', query: { types: ['Kubernetes::Namespace'] } }));
    const res = await runNow();
    expect(res.statusCode, res.payload).toBe(200);
    expect(await tree()).toEqual([
      '/shop', 'dev/apps', 'dev/namespaces', 'namespaces/ns-dev', 'namespaces/ns-prod', 'prod/apps', 'prod/namespaces', 'shop/dev', 'shop/prod',
    ]);
    const { rows } = await t.db.query(`SELECT c.name AS c, p.name AS g, c.labels FROM components c JOIN components p ON p.id = c.parent_id
      WHERE c.topology_id = $1 AND c.deleted_at IS NULL AND c.name = 'ns-prod'`, [TOPOLOGY]);
    expect(rows.map((r) => r.c)).toEqual(['ns-prod']);
    const groupOf = async (id: string) => (await t.db.query(`SELECT p.name FROM config_component_relationships r
      JOIN components c ON c.id = r.component_id JOIN components p ON p.id = c.parent_id
      WHERE r.config_id = $1 AND r.deleted_at IS NULL AND c.name = 'apps'`, [id])).rows.map((r) => r.name);
    expect(await groupOf(podProd)).toEqual(['prod']);
    expect(await groupOf(podDev)).toEqual(['dev']);
    const nsParents = (await t.db.query(`SELECT g.name FROM components c JOIN components p ON p.id = c.parent_id JOIN components g ON g.id = p.parent_id
      WHERE c.topology_id = $1 AND c.deleted_at IS NULL AND c.name LIKE 'ns-%' ORDER BY c.name`, [TOPOLOGY])).rows.map((r) => r.name);
    expect(nsParents).toEqual(['dev', 'prod']);
    const labels = (await t.db.query(`SELECT labels FROM components WHERE topology_id = $1 AND name = 'prod' AND deleted_at IS NULL`, [TOPOLOGY])).rows[0].labels;
    expect(labels).toEqual({ env: 'prod' });
    expect((await lastJob()).status).toBe('SUCCESS');
  });

  it('a tag without values builds ungrouped, noted in the job history', async () => {
    await setSpec(spec({ tag: 'nothing-has-this' }));
    expect((await runNow()).statusCode).toBe(200);
    const names = await tree();
    expect(names).toContain('shop/apps');
    expect(names).not.toContain('shop/prod');
    const job = await lastJob();
    expect(job.status).toBe('WARNING');
    expect(job.details.errors).toEqual([`spec.groupBy: no values found for tag 'nothing-has-this'; built ungrouped`]);
  });
});

describe('the sidebar Changes panel pages', () => {
  it('pages of 50 over /api/db, newest first, every change once, the total from the first page', async () => {
    const cfg = (name: string) => t.db.query<{ id: string }>(
      `INSERT INTO config_items (name, type, config_class) VALUES ($1, 'Kubernetes::Deployment', 'Deployment') RETURNING id`, [name]).then((r) => r.rows[0].id);
    const [a, b] = [await cfg('pager-a'), await cfg('pager-b')];
    // 120 changes; 20 share one timestamp so only the id orders them
    await t.db.query(`INSERT INTO config_changes (config_id, change_type, summary, created_at)
      SELECT CASE WHEN i % 2 = 0 THEN $1::uuid ELSE $2::uuid END, 'diff', 'change ' || i,
             CASE WHEN i <= 20 THEN timestamptz '2026-11-01' ELSE timestamptz '2026-11-01' + i * interval '1 minute' END
        FROM generate_series(1, 120) i`, [a, b]);
    const pages: Array<{ rows: Array<{ id: string; created_at: string }> }> = [];
    let total: number | null = null;
    for (let page: number | undefined = 0; page !== undefined; page = nextChangesPage(pages, total)) {
      const query = new URLSearchParams(Object.entries(changesPageQuery([a, b], page)).map(([k, v]) => [k, String(v)]));
      const res = await t.app.inject({ method: 'GET', url: `/api/db/config_changes?${query}`, headers: { ...admin, prefer: 'count=exact' } });
      // PostgREST's 206 for a part of the rows
      expect([200, 206], res.payload.slice(0, 200)).toContain(res.statusCode);
      if (page === 0) total = Number(String(res.headers['content-range']).split('/')[1]);
      pages.push({ rows: JSON.parse(res.payload) });
      expect(pages.length).toBeLessThan(5);
    }
    expect(total).toBe(120);
    expect(pages.map((p) => p.rows.length)).toEqual([CHANGES_PAGE_SIZE, CHANGES_PAGE_SIZE, 20]);
    const rows = pages.flatMap((p) => p.rows);
    expect(new Set(rows.map((r) => r.id)).size).toBe(120);
    const times = rows.map((r) => Date.parse(r.created_at));
    expect(times).toEqual([...times].sort((x, y) => y - x));
  });
});
