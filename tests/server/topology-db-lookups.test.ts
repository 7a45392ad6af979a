import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestContext } from './helpers.js';
import { TOPO, topologyTestApp } from './topology-fixtures.js';

// The component lookups the reference UI makes through /api/db (flanksource-ui src/api/services/topology.ts), as it
// makes them, over the fixture topology: the web's topology screens call the same.

let t: TestContext;
let viewer: Record<string, string>;
const db = async (path: string) => {
  const res = await t.app.inject({ method: 'GET', url: `/api/db/${path}`, headers: viewer });
  expect(res.statusCode, `${path}: ${res.payload.slice(0, 300)}`).toBe(200);
  return res.json();
};

beforeAll(async () => {
  ({ t, viewer } = await topologyTestApp());
  await t.db.query(`UPDATE components SET log_selectors = '[{"name": "web logs"}]' WHERE id = $1`, [TOPO.web]);
});
afterAll(() => t.close());

describe('component lookups as the reference UI calls them', () => {
  it('component_names: all in name order, and one by id', async () => {
    const all = await db('component_names?order=name.asc');
    expect(all.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining(['Billing', 'Ops', 'db', 'web', 'web-1']));
    const one = await db(`component_names?id=eq.${TOPO.web}`);
    expect(one).toHaveLength(1);
    expect(one[0]).toMatchObject({ id: TOPO.web, name: 'web' });
  });

  it('components_with_logs lists the components with log selectors', async () => {
    expect((await db('components_with_logs?order=name.asc')).map((c: { name: string }) => c.name)).toEqual(['web']);
  });

  it('component_labels, the topology spec and the canary by id', async () => {
    expect(await db('component_labels')).toEqual(expect.arrayContaining([expect.objectContaining({ key: 'app', value: 'web' })]));
    expect((await db(`topologies?id=eq.${TOPO.topology}`))[0]).toMatchObject({ id: TOPO.topology, name: 'ops' });
    expect((await db(`canaries?id=eq.${TOPO.canary}`))[0]).toMatchObject({ id: TOPO.canary, name: 'web' });
  });

  it('team_components with the team and its creator embedded', async () => {
    const teams = await db(`team_components?component_id=eq.${TOPO.ops}&select=*,team:teams(*, created_by(id,name,avatar))`);
    expect(teams).toHaveLength(1);
    expect(teams[0]).toMatchObject({ component_id: TOPO.ops, team_id: TOPO.team, team: { id: TOPO.team, name: 'platform' } });
    expect(teams[0].team.created_by).toMatchObject({ id: expect.any(String) });
  });

  it('checks_by_component: the checks linked to a component', async () => {
    const checks = await db(`checks_by_component?component_id=eq.${TOPO.web1}`);
    expect(checks).toEqual([expect.objectContaining({ component_id: TOPO.web1, id: TOPO.check1, name: 'web-1 http', type: 'http', status: 'healthy' })]);
  });
});
