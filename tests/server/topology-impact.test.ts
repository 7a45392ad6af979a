import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImpactResponse } from '../../server/contracts/topology-extra.js';
import { componentImpact } from '../../server/modules/topology/impact.js';
import { bearerHeaders, makePerson, type TestContext } from './helpers.js';
import { TOPO, insertComponent, topologyTestApp } from './topology-fixtures.js';

// GET /api/topology/{id}/impact over the fixture topology plus selector links that make a cycle:
//   api (under Billing) selected db; web selected api; db selected web  →  db → api → web → db.

let t: TestContext;
let viewer: Record<string, string>;
const API = '0000000d-0000-4000-8000-0000000000b1';
const CONFIG = '0000000d-0000-4000-8000-0000000000f1';

const impact = (id: string, headers = viewer) =>
  t.app.inject({ method: 'GET', url: `/api/topology/${id}/impact`, headers });

beforeAll(async () => {
  ({ t, viewer } = await topologyTestApp());
  await insertComponent(t.db, { id: API, name: 'api', parent: TOPO.billing });
  // component_id is the picked one, relationship_id the component whose selectors picked it
  await t.db.query(`INSERT INTO component_relationships (component_id, relationship_id, selector_id) VALUES
    ($1, $2, 's'), ($2, $3, 's'), ($3, $1, 's')`, [TOPO.db, API, TOPO.web]);
  await t.db.query(`INSERT INTO check_component_relationships (component_id, check_id, canary_id, selector_id)
    VALUES ($1, $2, $3, 's2')`, [API, TOPO.check1, TOPO.canary]);
  await t.db.query(`INSERT INTO config_items (id, config_class, type, name) VALUES ($1, 'Deployment', 'Kubernetes::Deployment', 'billing-api')`, [CONFIG]);
  await t.db.query(`INSERT INTO config_component_relationships (component_id, config_id) VALUES ($1, $2)`, [TOPO.billing, CONFIG]);
});
afterAll(() => t.close());

describe('impact', () => {
  it('walks parents and selectors transitively, each component once, through the cycle', async () => {
    const res = await impact(TOPO.db);
    expect(res.statusCode, res.payload).toBe(200);
    const body = ImpactResponse.parse(res.json());
    expect(body.components.map((c) => [c.name, c.depth, c.via.relation, c.via.id])).toEqual([
      ['Ops', 1, 'parent', TOPO.db],
      ['api', 1, 'selector', TOPO.db],
      ['Billing', 2, 'parent', API],
      ['web', 2, 'selector', API],
    ]);
    expect(body.depth).toBe(2);
    expect(body.truncated).toBe(false);
    expect(body.components.find((c) => c.id === API)).toMatchObject({ type: 'Service', path: TOPO.billing, status: 'healthy' });
    // checks and configs of the impacted components; the teams owning the component or an impacted one
    expect(body.checks).toEqual([{ id: TOPO.check1, name: 'web-1 http', type: 'http', status: 'healthy', component_id: API }]);
    expect(body.configs).toEqual([{ id: CONFIG, name: 'billing-api', type: 'Kubernetes::Deployment', component_id: TOPO.billing }]);
    expect(body.teams).toEqual([{ id: TOPO.team, name: 'platform' }]);
  });

  it('a leaf impacts its ancestors; a root nothing but what selected it', async () => {
    const leaf = ImpactResponse.parse((await impact(TOPO.web1)).json());
    expect(leaf.components.map((c) => c.name)).toEqual(['web', 'Ops', 'db', 'api', 'Billing']);
    expect(leaf.components.map((c) => c.via.relation)).toEqual(['parent', 'parent', 'selector', 'selector', 'parent']);
    const root = ImpactResponse.parse((await impact(TOPO.billing)).json());
    expect(root).toMatchObject({ components: [], depth: 0, teams: [], checks: [], configs: [] });
  });

  it('stops at the bound and says so', async () => {
    const cut = await componentImpact(t.db, TOPO.db, 3);
    expect(cut.components.map((c) => c.name)).toEqual(['Ops', 'api', 'Billing']);
    expect(cut.truncated).toBe(true);
  });

  it('leaves out deleted links and components', async () => {
    await t.db.query(`UPDATE component_relationships SET deleted_at = now() WHERE component_id = $1 AND relationship_id = $2`, [TOPO.db, API]);
    try {
      expect(ImpactResponse.parse((await impact(TOPO.db)).json()).components.map((c) => c.name)).toEqual(['Ops']);
    } finally {
      await t.db.query(`UPDATE component_relationships SET deleted_at = NULL WHERE component_id = $1`, [TOPO.db]);
    }
  });

  it('is 404 for an unknown id or while topology.disable, 400 for a malformed id, 401 signed out; every role reads', async () => {
    expect((await impact('0000000d-0000-4000-8000-00000000ffff')).statusCode).toBe(404);
    expect((await impact('x1')).statusCode).toBe(400);
    expect((await impact(TOPO.db, {})).statusCode).toBe(401);
    for (const role of ['commander', 'responder', 'editor'] as const) {
      const headers = await bearerHeaders(t.db, (await makePerson(t.db, { roles: [role] })).id);
      expect((await impact(TOPO.db, headers)).statusCode).toBe(200);
    }
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('topology.disable', 'true')`);
    try {
      expect((await impact(TOPO.db)).statusCode).toBe(404);
    } finally {
      await t.db.query(`DELETE FROM properties WHERE name = 'topology.disable'`);
    }
  });
});
