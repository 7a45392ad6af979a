import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestContext } from './helpers.js';
import { TOPO, topologyTestApp } from './topology-fixtures.js';

/**
 * The reference UI's topology calls (flanksource-ui services/topology.ts, the Topology page and its sidebar), each URL
 * built as the UI builds it, answered with the shapes the UI reads. The fixture is tests/server/topology-fixtures.ts.
 */
let t: TestContext;
let viewer: Record<string, string>;

beforeAll(async () => {
  ({ t, viewer } = await topologyTestApp());
}, 60_000);
afterAll(async () => {
  await t?.close();
});

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await t.app.inject({ url, headers: { ...viewer, ...headers } });
  expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(300);
  return res;
}

it('getTopology: the root with depth, hidden=false, sortBy and sortOrder; one component by id', async () => {
  const res = await get('/api/topology?depth=2&hidden=false&sortBy=name&sortOrder=asc');
  const body = res.json() as { components: Array<{ id: string; name: string; components?: Array<{ name: string }> }>; types?: unknown; teams?: unknown; tags?: unknown };
  expect(body.components.map((c) => c.name)).toEqual(['Billing', 'Ops']);
  const ops = body.components.find((c) => c.name === 'Ops')!;
  expect(ops.components!.map((c) => c.name)).not.toContain('legacy');
  expect(body).toHaveProperty('types');
  expect(body).toHaveProperty('teams');
  const one = (await get(`/api/topology?id=${TOPO.web}&depth=2&hidden=false`)).json() as { components: Array<{ id: string; name: string; components?: Array<{ name: string }> }> };
  expect(one.components.map((c) => c.id)).toEqual([TOPO.web]);
  expect(one.components[0].components!.map((c) => c.name).sort()).toEqual(['web-1', 'web-2']);
});

it('the breadcrumb and header: topology?id=eq.&select= with the fields the UI reads', async () => {
  const rows = (await get(`/api/db/topology?id=eq.${TOPO.web1}&select=id,name,icon,parent_id`)).json();
  expect(rows).toEqual([{ id: TOPO.web1, name: 'web-1', icon: null, parent_id: TOPO.web }]);
});

it('component_names with select and order, as the search box asks', async () => {
  const res = await get('/api/db/component_names?select=id,name,type,icon&order=name.asc&limit=10', { prefer: 'count=exact' });
  const rows = res.json() as Array<{ id: string; name: string }>;
  expect(rows.map((r) => r.name)).toEqual(expect.arrayContaining(['Ops', 'web', 'web-1']));
  expect(Object.keys(rows[0]).sort()).toEqual(['icon', 'id', 'name', 'type']);
  expect(res.headers['content-range']).toMatch(/^0-\d+\/\d+$/);
});

it('the sidebar: checks_by_component, team_components with the team embedded, config links with the config embedded', async () => {
  const checks = (await get(`/api/db/checks_by_component?component_id=eq.${TOPO.web1}`)).json() as Array<{ id: string; name: string; status: string }>;
  expect(checks.map((c) => c.name)).toEqual(['web-1 http']);
  const teams = (await get(`/api/db/team_components?component_id=eq.${TOPO.ops}&select=team_id,team:teams(id,name,icon)`)).json();
  expect(teams).toEqual([{ team_id: TOPO.team, team: { id: TOPO.team, name: 'platform', icon: null } }]);
  const configs = (await get(`/api/db/config_component_relationships?component_id=eq.${TOPO.web}&select=*,configs(id,name,type)`)).json();
  expect(configs).toEqual([]);
});

it('the settings list: topologies?select= with the columns the table shows', async () => {
  const rows = (await get('/api/db/topologies?select=id,name,namespace,source,created_at,updated_at&deleted_at=is.null&order=name.asc')).json() as Array<Record<string, unknown>>;
  expect(rows.map((r) => r.name)).toEqual(['ops']);
  expect(Object.keys(rows[0]).sort()).toEqual(['created_at', 'id', 'name', 'namespace', 'source', 'updated_at']);
});
