import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogChangesSearchResponse, ConfigSummaryRow } from '../../server/contracts/catalog-api.js';
import { IDS, seedCatalog } from './catalog-fixtures.js';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';

// /api/catalog: POST /summary, POST|GET /changes, GET /:id/relationships (server/contracts/catalog-api.ts).

let t: TestContext;
let admin: Record<string, string>;
let viewer: Record<string, string>;
let adaId: string;

const post = (path: string, payload: unknown, headers = admin) =>
  t.app.inject({ method: 'POST', url: `/api/catalog/${path}`, headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
const summary = async (body: unknown) => {
  const res = await post('summary', body);
  expect(res.statusCode, res.payload).toBe(200);
  return res.json() as ConfigSummaryRow[];
};
const changes = async (body: Record<string, unknown>) => {
  const res = await post('changes', body);
  expect(res.statusCode, res.payload).toBe(200);
  return res.json() as CatalogChangesSearchResponse;
};
const types = (r: CatalogChangesSearchResponse) => r.changes.map((c) => c.change_type).sort();
const byGroup = (rows: ConfigSummaryRow[], key = 'type') => Object.fromEntries(rows.map((r) => [String(r.group[key]), r]));

beforeAll(async () => {
  t = await createTestApp();
  adaId = (await makePerson(t.db, { roles: ['admin'] })).id;
  admin = await bearerHeaders(t.db, adaId);
  viewer = await bearerHeaders(t.db, (await makePerson(t.db)).id);
  await seedCatalog(t.db, adaId);
});
afterAll(() => t.close());

describe('POST /api/catalog/summary', () => {
  it('groups live items by type with health, 30-day changes, open insights and cost', async () => {
    const rows = byGroup(await summary({ groupBy: ['type'], changes: { since: '30d' }, cost: '30d' }));
    expect(Object.keys(rows)).toEqual(['File::Config', 'Kubernetes::Cluster', 'Kubernetes::Deployment', 'Kubernetes::Namespace', 'Kubernetes::Pod', 'Kubernetes::Service']);
    expect(rows['Kubernetes::Deployment']).toMatchObject({
      type: 'Kubernetes::Deployment', count: 1, health: { unhealthy: 1 }, changes: 2,
      analysis: { security: 1, reliability: 1 }, severity: { high: 1, medium: 1 }, cost_total_30d: 432, cost_30d: 432,
    });
    // the deleted pod and its change are left out; the resolved insight too
    expect(rows['Kubernetes::Pod']).toMatchObject({ count: 1, health: { healthy: 1 }, changes: 2, analysis: { availability: 1 } });
    expect(rows['Kubernetes::Namespace'].changes).toBe(1);
    expect(rows['Kubernetes::Cluster'].changes).toBe(1);
    const week = byGroup(await summary({ changes: { since: '7d' } }));
    expect(week['Kubernetes::Cluster'].changes).toBe(0);
  });

  it('answers the same from the rollups as from the exact join, by type and by a tag with its null group', async () => {
    const strip = (rows: ConfigSummaryRow[]) => rows.map((r) => ({ g: r.group, n: r.count, c: r.changes, a: r.analysis, s: r.severity, h: r.health }));
    // `status: '!none'` excludes nothing but is a filter, so the exact path answers
    for (const groupBy of [['type'], ['config_class'], ['namespace'], ['cluster']]) {
      expect(strip(await summary({ groupBy })), groupBy[0]).toEqual(strip(await summary({ groupBy, status: '!none' })));
    }
    const ns = byGroup(await summary({ groupBy: ['namespace'] }), 'namespace');
    expect(ns.default).toMatchObject({ count: 4, changes: 5 });
    expect(ns.null).toMatchObject({ count: 2, changes: 2, namespace: null });
  });

  it('keeps the rollups right through the upserts a scrape makes (a repeated event, an insight resolved and reopened)', async () => {
    const strip = (rows: ConfigSummaryRow[]) => rows.map((r) => ({ g: r.group, c: r.changes, a: r.analysis, s: r.severity }));
    await t.db.query(`INSERT INTO config_changes (config_id, change_type, severity, external_change_id) VALUES ($1, 'Pulled', 'low', 'evt-1')
      ON CONFLICT (config_id, external_change_id) DO UPDATE SET count = config_changes.count + 1`, [IDS.pod]);
    await t.db.query(`INSERT INTO config_analysis (config_id, analyzer, analysis_type, severity, status) VALUES ($1, 'crashloop', 'availability', 'critical', 'resolved')
      ON CONFLICT (config_id, analyzer) DO UPDATE SET status = EXCLUDED.status`, [IDS.pod]);
    expect(byGroup(await summary({}))['Kubernetes::Pod']).toMatchObject({ changes: 2, analysis: {} });
    expect(strip(await summary({}))).toEqual(strip(await summary({ status: '!none' })));
    await t.db.query(`UPDATE config_analysis SET status = 'open' WHERE config_id = $1 AND analyzer = 'crashloop'`, [IDS.pod]);
    expect(byGroup(await summary({}))['Kubernetes::Pod']).toMatchObject({ analysis: { availability: 1 }, severity: { critical: 1 } });
    expect(strip(await summary({}))).toEqual(strip(await summary({ status: '!none' })));
    await t.db.query(`UPDATE config_changes SET count = 4 WHERE external_change_id = 'evt-1'`);
  });

  it('moves counts when an item is deleted or restored', async () => {
    await t.db.query('UPDATE config_items SET deleted_at = now() WHERE id = $1', [IDS.pod]);
    expect(byGroup(await summary({}))['Kubernetes::Pod']).toBeUndefined();
    const all = byGroup(await summary({ deleted: true }))['Kubernetes::Pod'];
    expect(all).toMatchObject({ count: 2, changes: 3 });
    await t.db.query('UPDATE config_items SET deleted_at = NULL WHERE id = $1', [IDS.pod]);
    expect(byGroup(await summary({}))['Kubernetes::Pod']).toMatchObject({ count: 1, changes: 2, analysis: { availability: 1 } });
  });

  it('filters by labels (tri-state), status, health, type and search', async () => {
    expect(Object.keys(byGroup(await summary({ filter: { team: 'payments' } })))).toEqual(['Kubernetes::Deployment']);
    expect(Object.keys(byGroup(await summary({ filter: { app: 'web', team: '!payments' } })))).toEqual(['Kubernetes::Pod', 'Kubernetes::Service']);
    expect(Object.keys(byGroup(await summary({ health: 'warning' })))).toEqual(['File::Config']);
    expect(Object.keys(byGroup(await summary({ status: 'Running,Degraded', type: 'Kubernetes::*' })))).toEqual(['Kubernetes::Cluster', 'Kubernetes::Deployment', 'Kubernetes::Pod']);
    const found = await summary({ search: 'storefront' });
    expect(found).toEqual([expect.objectContaining({ type: 'Kubernetes::Deployment', count: 1, changes: 2 })]);
    expect(await summary({ search: '%' })).toEqual([]);
  });

  it('refuses bad input with 400 naming it', async () => {
    for (const [body, param] of [
      [{ groupBy: ['type;drop'] }, 'groupBy.0'], [{ changes: { since: 'forever' } }, 'changes.since'],
      [{ cost: '2y' }, 'cost'], [{ filter: { 'a b': 'x' } }, 'filter'], [{ deleted: 'yes' }, 'deleted'],
    ] as const) {
      const res = await post('summary', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.json().details ?? {})).toContain(param);
    }
  });
});

describe('POST|GET /api/catalog/changes', () => {
  it('defaults to the last 2 days of live items, newest first, with a summary by type', async () => {
    const r = await changes({});
    expect(r.total).toBe(5);
    expect(r.summary).toEqual({ diff: 2, CREATE: 1, Pulled: 1, BackOff: 1 });
    expect(r.changes[0]).toMatchObject({ change_type: 'diff', name: 'app.yaml', type: 'File::Config', external_created_by: 'alice' });
    const times = r.changes.map((c) => c.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(r.changes.find((c) => c.change_type === 'Pulled')).toMatchObject({ count: 4, external_change_id: 'evt-1', tags: { cluster: 'prod', namespace: 'default' } });
  });

  it('filters severity >=high (and the bare level), negated types, config types, tags, creators and agent', async () => {
    expect(types(await changes({ severity: '>=high' }))).toEqual(['BackOff', 'diff']);
    expect(types(await changes({ severity: 'high' }))).toEqual(['BackOff', 'diff']);
    expect(types(await changes({ severity: '<medium' }))).toEqual(['CREATE', 'Pulled']);
    expect(types(await changes({ severity: 'critical,info' }))).toEqual(['BackOff', 'CREATE']);
    expect(types(await changes({ type: '!diff,!CREATE' }))).toEqual(['BackOff', 'Pulled']);
    expect(types(await changes({ type: 'Back*' }))).toEqual(['BackOff']);
    expect(types(await changes({ config_type: 'Kubernetes::Pod' }))).toEqual(['BackOff', 'Pulled']);
    expect((await changes({ tags: 'namespace=default' })).total).toBe(4);
    expect((await changes({ tags: 'namespace!=default' })).total).toBe(1);
    expect((await changes({ tags: 'cluster in (prod,dev),!missing' })).total).toBe(4);
    expect(types(await changes({ created_by: adaId }))).toEqual(['diff']);
    expect(types(await changes({ created_by: 'ali*' }))).toEqual(['diff']);
    expect((await changes({ agent_id: 'local' })).total).toBe(5);
    expect(types(await changes({ source: 'kubernetes/event', summary: '!nothing' }))).toEqual(['BackOff', 'Pulled']);
  });

  it('includes deleted items on request and widens the window with from/to', async () => {
    expect((await changes({ include_deleted_configs: true })).total).toBe(6);
    expect((await changes({ from: 'now-30d' })).total).toBe(7);
    const window = await changes({ from: 'now-4d', to: 'now-2d' });
    expect(types(window)).toEqual(['diff']);
    expect(window.changes[0].name).toBe('default');
  });

  it('walks related configs: downstream, upstream, all, none, soft', async () => {
    const of = (id: string, extra: Record<string, unknown>) => changes({ id, from: 'now-30d', ...extra });
    expect(types(await of(IDS.deployment, {}))).toEqual(['BackOff', 'CREATE', 'Pulled', 'diff']);
    expect(types(await of(IDS.deployment, { include_deleted_configs: true }))).toEqual(['BackOff', 'CREATE', 'Pulled', 'diff', 'diff']);
    expect((await of(IDS.pod, { recursive: 'upstream' })).total).toBe(6);
    expect((await of(IDS.pod, { recursive: 'none' })).total).toBe(2);
    expect((await of(IDS.namespace, { recursive: 'downstream', depth: 1 })).total).toBe(3);
    expect((await of(IDS.service, { recursive: 'downstream' })).total).toBe(0);
    expect((await of(IDS.service, { recursive: 'downstream', soft: true })).total).toBe(2);
    expect((await of(IDS.pod, { recursive: 'all', depth: 1 })).total).toBe(4);
    expect((await of(`${IDS.pod},${IDS.file}`, {})).total).toBe(3);
  });

  it('pages and sorts, and GET takes the same parameters as strings', async () => {
    const res = await t.app.inject({
      method: 'GET', headers: admin,
      url: `/api/catalog/changes?severity=${encodeURIComponent('>=high')}&page_size=1&page=2&sort_by=-created_at&include_deleted_configs=false`,
    });
    expect(res.statusCode, res.payload).toBe(200);
    const r = res.json() as CatalogChangesSearchResponse;
    expect(r.total).toBe(2);
    expect(r.changes.map((c) => c.change_type)).toEqual(['diff']);
    const byName = await changes({ sort_by: 'name', page_size: 2 });
    expect(byName.changes.map((c) => c.name)).toEqual(['app.yaml', 'web']);
  });

  it('answers bad parameters with 400 naming them, or drops them when lenient', async () => {
    for (const [body, param] of [
      [{ page_size: 5000 }, 'page_size'], [{ page_size: 0 }, 'page_size'], [{ page: 'two' }, 'page'], [{ sort_by: 'diff;drop' }, 'sort_by'],
      [{ id: IDS.pod, recursive: 'sideways' }, 'recursive'], [{ id: IDS.pod, depth: 50 }, 'depth'], [{ from: 'yesterday-ish' }, 'from'],
      [{ from: 'now-1d', to: 'now-2d' }, 'from'], [{ severity: 'urgent' }, 'severity'], [{ id: 'web' }, 'id'],
      [{ agent_id: 'remote' }, 'agent_id'], [{ tags: 'a=(' }, 'tags'], [{ include_deleted_configs: 'maybe' }, 'include_deleted_configs'],
    ] as const) {
      const res = await post('changes', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().message).toContain(param);
      expect(Object.keys(res.json().details)).toEqual([param]);
    }
    const lenient = await post('changes', { severity: 'urgent', sort_by: 'nope', from: 'soon', lenient: true });
    expect(lenient.statusCode, lenient.payload).toBe(200);
  });

  it('checks recursive and depth without an id too (GET), as duty does; lenient drops a bad recursive', async () => {
    for (const [query, param] of [['recursive=sideways', 'recursive'], ['depth=1000', 'depth'], ['depth=0', 'depth'], ['depth=abc', 'depth']]) {
      const res = await t.app.inject({ method: 'GET', url: `/api/catalog/changes?${query}`, headers: admin });
      expect(res.statusCode, query).toBe(400);
      expect(res.json().message).toContain(param);
    }
    const lenient = await t.app.inject({ method: 'GET', url: '/api/catalog/changes?recursive=sideways&lenient=true', headers: admin });
    expect(lenient.statusCode, lenient.payload).toBe(200);
  });
});

describe('GET /api/catalog/:id/relationships', () => {
  it('answers nodes and edges, outgoing by default, incoming and hard-only on request', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/catalog/${IDS.deployment}/relationships`, headers: admin });
    expect(res.statusCode, res.payload).toBe(200);
    const g = res.json();
    expect(g.nodes.find((n: { id: string }) => n.id === IDS.deployment)).toMatchObject({ depth: 0, name: 'web' });
    expect(g.nodes.map((n: { name: string }) => n.name).sort()).toEqual(['default', 'prod', 'web', 'web-7d9f']);
    expect(g.edges).toContainEqual({ config_id: IDS.deployment, related_id: IDS.pod, relation: 'hard', manual: false });
    const incoming = (await t.app.inject({ method: 'GET', url: `/api/catalog/${IDS.pod}/relationships?direction=incoming&depth=1`, headers: admin })).json();
    expect(incoming.edges).toContainEqual({ config_id: IDS.service, related_id: IDS.pod, relation: 'soft', manual: false });
    const hard = (await t.app.inject({ method: 'GET', url: `/api/catalog/${IDS.pod}/relationships?direction=incoming&relation=hard&depth=1`, headers: admin })).json();
    expect(hard.nodes.map((n: { name: string }) => n.name)).not.toContain('web-svc');
  });

  it('404 for an unknown item, 400 for a bad id or depth', async () => {
    const get = (url: string) => t.app.inject({ method: 'GET', url, headers: admin });
    expect((await get('/api/catalog/0000000c-0000-4000-8000-000000000999/relationships')).statusCode).toBe(404);
    expect((await get('/api/catalog/web/relationships')).statusCode).toBe(400);
    const depth = await get(`/api/catalog/${IDS.pod}/relationships?depth=99`);
    expect(depth.statusCode).toBe(400);
    expect(depth.json().message).toContain('depth');
    expect((await get(`/api/catalog/${IDS.pod}/relationships?direction=up`)).statusCode).toBe(400);
  });
});

describe('roles and the config feature', () => {
  it('every role reads; anonymous callers are refused', async () => {
    expect((await post('summary', {}, viewer)).statusCode).toBe(200);
    expect((await post('changes', {}, viewer)).statusCode).toBe(200);
    const anon = await t.app.inject({ method: 'POST', url: '/api/catalog/summary', payload: {} });
    expect(anon.statusCode).toBe(401);
  });

  it('config.disable closes every route with 403', async () => {
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('config.disable', 'true')`);
    try {
      for (const res of [
        await post('summary', {}), await post('changes', {}),
        await t.app.inject({ method: 'GET', url: '/api/catalog/changes', headers: admin }),
        await t.app.inject({ method: 'GET', url: `/api/catalog/${IDS.pod}/relationships`, headers: admin }),
      ]) {
        expect(res.statusCode).toBe(403);
        expect(res.json().message).toBe('config is disabled');
      }
    } finally {
      await t.db.query(`DELETE FROM properties WHERE name = 'config.disable'`);
    }
    expect((await post('summary', {})).statusCode).toBe(200);
  });
});
