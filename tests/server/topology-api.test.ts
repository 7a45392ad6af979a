import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TopologyComponent } from '../../server/contracts/topology.js';
import { TopologyResponse } from '../../server/contracts/topology.js';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';
import { TOPO, insertComponent, seedTopologyNeverRun, stored } from './topology-fixtures.js';

// GET /api/topology as the reference UI calls it (flanksource-ui src/api/services/topology.ts), over components
// seeded with SQL, and the health roll-up the triggers of 0060_topology.sql keep.

let t: TestContext;
let viewer: Record<string, string>;

const topology = async (query = '', path = '/api/topology') => {
  const res = await t.app.inject({ method: 'GET', url: `${path}${query ? `?${query}` : ''}`, headers: viewer });
  return res;
};
const ok = async (query = '') => {
  const res = await topology(query);
  expect(res.statusCode, res.payload).toBe(200);
  return TopologyResponse.parse(res.json());
};
const names = (cs: TopologyComponent[] | undefined) => (cs ?? []).map((c) => c.name);

beforeAll(async () => {
  t = await createTestApp();
  const viewerId = (await makePerson(t.db)).id;
  viewer = await bearerHeaders(t.db, viewerId);
  await seedTopologyNeverRun(t.db, viewerId);
});
afterAll(() => t.close());

describe('the tree', () => {
  it('lists the roots with their children, summaries and the filter values; hidden=false leaves hidden ones out', async () => {
    const body = await ok('hidden=false');
    expect(names(body.components)).toEqual(['Billing', 'Ops']);
    const ops = body.components.find((c) => c.id === TOPO.ops)!;
    expect(names(ops.components).sort()).toEqual(['db', 'web']);
    const web = ops.components!.find((c) => c.id === TOPO.web)!;
    expect(names(web.components).sort()).toEqual(['web-1', 'web-2']);
    expect(ops.summary).toMatchObject({ healthy: 2, info: 1, unhealthy: 0, warning: 0, checks: { healthy: 2 } });
    expect(ops.status).toBe('healthy');
    expect(ops.team_names).toEqual(['platform']);
    expect(body.teams).toEqual(['platform']);
    expect(body.types).toEqual(['Database', 'Pod', 'Service', 'Topology']);
    expect(body.healthStatuses).toEqual(['healthy']);
    // the reference UI sends nothing while "Show hidden components" is on
    expect(names((await ok(`id=${TOPO.ops}`)).components[0].components)).toEqual(['db', 'legacy', 'web']);
    expect(body.tags).toEqual({ app: ['web'] });
    // as duty's two queries: the roots carry every column, the rest what a card's child line shows
    expect(ops).toHaveProperty('created_at');
    expect(web).not.toHaveProperty('created_at');
    expect(web).toMatchObject({ id: TOPO.web, name: 'web', status: expect.any(String), summary: expect.any(Object) });
    expect(Object.keys(web)).toEqual(expect.arrayContaining(['type', 'parent_id']));
    // deeper nodes leave null fields out, as duty's omitempty (a card keeps every column, null or not)
    expect(Object.values(web).every((v) => v !== null)).toBe(true);
    expect(web).not.toHaveProperty('text');
    expect(ops).toHaveProperty('deleted_at', null);
    // with an id, the component and its direct children carry every column
    const byId = (await ok(`id=${TOPO.ops}`)).components[0];
    expect(byId.components!.find((c) => c.id === TOPO.web)).toHaveProperty('created_at');
    expect(byId.components!.find((c) => c.id === TOPO.web)!.components![0]).not.toHaveProperty('created_at');
  });

  it('serves the same at the reference path /api/canary/api/topology', async () => {
    const a = await topology('id=' + TOPO.web);
    const b = await topology('id=' + TOPO.web, '/api/canary/api/topology');
    expect(b.statusCode).toBe(200);
    expect(b.json()).toEqual(a.json());
  });

  it('with an id returns that component and its subtree; an unknown id is empty', async () => {
    const body = await ok(`id=${TOPO.ops}&hidden=false`);
    expect(names(body.components)).toEqual(['Ops']);
    expect(names(body.components[0].components).sort()).toEqual(['db', 'web']);
    expect((await ok('id=0000000d-0000-4000-8000-00000000ffff')).components).toEqual([]);
  });

  it('shows hidden components with hidden=true', async () => {
    const body = await ok(`id=${TOPO.ops}&hidden=true`);
    expect(names(body.components[0].components).sort()).toEqual(['db', 'legacy', 'web']);
  });

  it('cuts the tree at depth (the roots are level 1)', async () => {
    const one = await ok(`id=${TOPO.ops}&depth=1`);
    expect(one.components[0].components).toBeUndefined();
    const two = await ok(`id=${TOPO.ops}&depth=2`);
    expect(two.components[0].components!.find((c) => c.id === TOPO.web)!.components).toBeUndefined();
    const three = await ok(`id=${TOPO.ops}&depth=3`);
    expect(names(three.components[0].components!.find((c) => c.id === TOPO.web)!.components)).toHaveLength(2);
  });

  it('flattens, and filters by type, as the Type filter calls it', async () => {
    const body = await ok('flatten=true&type=Pod');
    expect(names(body.components).sort()).toEqual(['web-1', 'web-2']);
    expect(body.components.every((c) => c.components === undefined)).toBe(true);
    const notPods = await ok(`flatten=true&type=!Pod&id=${TOPO.ops}&hidden=false`);
    expect(names(notPods.components).sort()).toEqual(['Ops', 'db', 'web']);
  });

  it('filters cards by owner, labels, team and agent', async () => {
    expect(names((await ok('owner=finance')).components)).toEqual(['Billing']);
    expect(names((await ok('team=platform')).components)).toEqual(['Ops']);
    expect(names((await ok(`id=${TOPO.ops}&labels=app=web`)).components[0].components)).toEqual(['web']);
    expect(names((await ok('team=!platform')).components)).toEqual(['Billing']);
    expect((await ok('agent_id=local')).components).toHaveLength(2);
    expect((await ok('agent_id=0000000d-0000-4000-8000-00000000ffff')).components).toEqual([]);
  });

  it('sorts by name and by a property, either way', async () => {
    expect(names((await ok('sortBy=name&sortOrder=desc')).components)).toEqual(['Ops', 'Billing']);
    expect(names((await ok('sortBy=name&sortOrder=asc')).components)).toEqual(['Billing', 'Ops']);
    await insertComponent(t.db, { id: '0000000d-0000-4000-8000-0000000000a9', name: 'cache', parent: TOPO.ops, health: 'healthy',
      properties: [{ name: 'connections', value: 90 }] });
    const desc = await ok(`id=${TOPO.ops}&hidden=false&sortBy=field:connections&sortOrder=desc`);
    // web has no such property: last either way
    expect(names(desc.components[0].components)).toEqual(['cache', 'db', 'web']);
    const asc = await ok(`id=${TOPO.ops}&hidden=false&sortBy=field:connections&sortOrder=asc`);
    expect(names(asc.components[0].components)).toEqual(['db', 'cache', 'web']);
    await t.db.query('DELETE FROM components WHERE id = $1', ['0000000d-0000-4000-8000-0000000000a9']);
  });
});

describe('the work done in SQL', () => {
  it('cuts the roots at depth 2: the cut level shows as counts in the summary', async () => {
    const body = await ok('depth=2&hidden=false');
    const web = body.components.find((c) => c.id === TOPO.ops)!.components!.find((c) => c.id === TOPO.web)!;
    expect(web.components).toBeUndefined();
    expect(web.summary).toMatchObject({ healthy: 2, unhealthy: 0, checks: { healthy: 2 } });
    // a deeper node carries the child-list columns only, a card every column
    expect(Object.keys(web)).toEqual(expect.arrayContaining(['id', 'name', 'status', 'summary', 'agent_id']));
    expect(body.components.find((c) => c.id === TOPO.ops)).toHaveProperty('created_at');
    expect((await ok('depth=1')).components.every((c) => c.components === undefined)).toBe(true);
  });

  it('type without flatten keeps the tree of the matching components only (roots that do not match drop theirs)', async () => {
    const roots = await ok('type=Topology');
    expect(names(roots.components)).toEqual(['Billing', 'Ops']);
    expect(roots.components.every((c) => c.components === undefined)).toBe(true);
    // the filter values still come from every fetched component
    expect(roots.types).toEqual(['Database', 'Pod', 'Service', 'Topology']);
    expect((await ok('type=Pod')).components).toEqual([]);
  });

  it('flatten with type and the card filters lists every match, each filter applied to every component', async () => {
    expect(names((await ok('flatten=true&type=Pod&status=healthy')).components).sort()).toEqual(['web-1', 'web-2']);
    expect(names((await ok('flatten=true&type=Service&labels=app=web')).components)).toEqual(['web']);
    expect(names((await ok('flatten=true&owner=finance')).components)).toEqual(['Billing']);
    expect(names((await ok('flatten=true&team=platform')).components)).toEqual(['Ops']);
    expect(names((await ok('flatten=true&type=!Pod,!Topology&hidden=false&sortBy=name&sortOrder=desc')).components)).toEqual(['web', 'db']);
    const flat = await ok(`flatten=true&type=Pod&id=${TOPO.web}`);
    expect(names(flat.components).sort()).toEqual(['web-1', 'web-2']);
    expect(flat.types).toEqual(['Pod', 'Service']);
  });

  it('a component under a card the filters drop still shows under the kept card that selects it', async () => {
    // Billing selects web-1, whose own card (Ops) owner=finance drops
    await t.db.query(`INSERT INTO component_relationships (component_id, relationship_id, selector_id) VALUES ($1, $2, 'sel')`,
      [TOPO.web1, TOPO.billing]);
    try {
      const body = await ok('owner=finance');
      expect(names(body.components)).toEqual(['Billing']);
      expect(names(body.components[0].components)).toEqual(['web-1']);
      const byStatus = await ok(`id=${TOPO.ops}&labels=app=nothing`);
      expect(byStatus.components[0].components).toBeUndefined();
    } finally {
      await t.db.query(`DELETE FROM component_relationships`);
    }
  });
});

describe('selector relationships', () => {
  it('show a related component under its selector parent, and a loop through them is cut, never repeated', async () => {
    // Billing is selected by web; Ops (web's own ancestor) is selected by web-1: a loop
    await t.db.query(`INSERT INTO component_relationships (component_id, relationship_id, selector_id) VALUES ($1, $2, 'sel'), ($3, $4, 'sel')`,
      [TOPO.billing, TOPO.web, TOPO.ops, TOPO.web1]);
    const web = await ok(`id=${TOPO.web}`);
    expect(names(web.components[0].components)).toEqual(['Billing', 'web-1', 'web-2']);
    const ops = await ok(`id=${TOPO.ops}&depth=5`);
    const web1 = ops.components[0].components!.find((c) => c.id === TOPO.web)!.components!.find((c) => c.id === TOPO.web1)!;
    expect(web1.components).toBeUndefined();
    await t.db.query(`DELETE FROM component_relationships`);
  });
});

describe('bad input', () => {
  it.each([
    ['depth=0', 'depth'], ['depth=11', 'depth'], ['depth=x', 'depth'], ['sortBy=health', 'sortBy'],
    ['sortOrder=up', 'sortOrder'], ['id=not-a-uuid', 'id'], ['labels=app', 'labels'], ['hidden=yes', 'hidden'],
    ['agent_id=nobody', 'agent_id'],
  ])('%s is a 400 naming %s', async (query, name) => {
    const res = await topology(query);
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json())).toContain(name);
  });

  it('is a 404 while topology is disabled, and back when enabled', async () => {
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('topology.disable', 'true')`);
    expect((await topology()).statusCode).toBe(404);
    expect((await topology('', '/api/canary/api/topology')).statusCode).toBe(404);
    await t.db.query(`DELETE FROM properties WHERE name = 'topology.disable'`);
    expect((await topology()).statusCode).toBe(200);
  });

  it('needs a signed-in caller', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/topology' })).statusCode).toBe(401);
  });
});

describe('the roll-up', () => {
  it('a check turning unhealthy turns its component unhealthy, its parent warning (healthy with unhealthy) and the root warning', async () => {
    expect((await stored(t.db, TOPO.web)).status).toBe('healthy');
    await t.db.query(`UPDATE checks SET status = 'unhealthy' WHERE id = $1`, [TOPO.check1]);
    expect(await stored(t.db, TOPO.web1)).toMatchObject({ status: 'unhealthy', summary: { unhealthy: 1, healthy: 0 } });
    expect(await stored(t.db, TOPO.web)).toMatchObject({
      status: 'warning', summary: { healthy: 1, unhealthy: 1, warning: 0, checks: { healthy: 1, unhealthy: 1 } },
    });
    // web counts as one warning (it has both); db healthy, legacy info
    expect(await stored(t.db, TOPO.ops)).toMatchObject({ status: 'warning', summary: { healthy: 1, unhealthy: 0, warning: 1, info: 1 } });
    const body = await ok(`id=${TOPO.ops}&hidden=false&status=warning`);
    expect(names(body.components[0].components)).toEqual(['web']);
    // the cards' default sort (the reference UI sends sortBy=status&sortOrder=desc): unhealthy, warning, healthy, info
    const health = await ok(`id=${TOPO.ops}&sortBy=status&sortOrder=desc`);
    expect(health.components[0].components!.map((c) => c.status)).toEqual(['warning', 'healthy', 'info']);
    const up = await ok(`id=${TOPO.ops}&sortBy=status&sortOrder=asc`);
    expect(up.components[0].components!.map((c) => c.status)).toEqual(['info', 'healthy', 'warning']);
    // the hidden info component is not fetched
    expect(body.healthStatuses).toEqual(['healthy', 'unhealthy', 'warning']);

    await t.db.query(`UPDATE checks SET status = 'healthy' WHERE id = $1`, [TOPO.check1]);
    expect((await stored(t.db, TOPO.ops)).status).toBe('healthy');
  });

  it('follows a linked config, a child moved or deleted, and an open incident with the component as evidence', async () => {
    const cfg = (await t.db.query(`INSERT INTO config_items (name, type, config_class, health) VALUES ('web-deploy', 'Kubernetes::Deployment', 'Deployment', 'healthy') RETURNING id`)).rows[0].id;
    await t.db.query(`INSERT INTO config_component_relationships (component_id, config_id, selector_id) VALUES ($1, $2, 'sel')`, [TOPO.db, cfg]);
    expect((await stored(t.db, TOPO.db)).summary).toMatchObject({ healthy: 2 });
    await t.db.query(`UPDATE config_items SET health = 'unhealthy' WHERE id = $1`, [cfg]);
    expect(await stored(t.db, TOPO.db)).toMatchObject({ status: 'warning', summary: { healthy: 1, unhealthy: 1 } });
    expect((await stored(t.db, TOPO.ops)).status).toBe('warning');
    await t.db.query(`DELETE FROM config_component_relationships WHERE config_id = $1`, [cfg]);
    expect(await stored(t.db, TOPO.db)).toMatchObject({ status: 'healthy', summary: { healthy: 1, unhealthy: 0 } });
    expect(await stored(t.db, TOPO.ops)).toMatchObject({ status: 'healthy', summary: { healthy: 2 } });

    // a failing child moved under Billing makes Billing warning, and Ops no longer counts it
    await t.db.query(`UPDATE checks SET status = 'unhealthy' WHERE id = $1`, [TOPO.check2]);
    expect((await stored(t.db, TOPO.ops)).status).toBe('warning');
    await t.db.query(`UPDATE components SET parent_id = $2 WHERE id = $1`, [TOPO.web2, TOPO.billing]);
    expect(await stored(t.db, TOPO.billing)).toMatchObject({ status: 'warning', summary: { healthy: 1, unhealthy: 1 } });
    expect((await stored(t.db, TOPO.ops)).status).toBe('healthy');
    await t.db.query(`UPDATE components SET deleted_at = now() WHERE id = $1`, [TOPO.web2]);
    expect(await stored(t.db, TOPO.billing)).toMatchObject({ status: 'healthy', summary: { healthy: 1, unhealthy: 0 } });

    const person = (await makePerson(t.db, { roles: ['admin'] })).id;
    const inc = (await t.db.query(`INSERT INTO incidents (title, type, severity, created_by, commander_id) VALUES ('db down', 'availability', 'High', $1, $1) RETURNING id`, [person])).rows[0].id;
    const hyp = (await t.db.query(`INSERT INTO hypotheses (incident_id, title, type, created_by) VALUES ($1, 'db', 'root', $2) RETURNING id`, [inc, person])).rows[0].id;
    await t.db.query(`INSERT INTO evidences (hypothesis_id, type, component_id, created_by) VALUES ($1, 'topology', $2, $3)`, [hyp, TOPO.db, person]);
    expect((await stored(t.db, TOPO.db)).summary).toMatchObject({ incidents: { availability: { high: 1 } } });
    expect((await stored(t.db, TOPO.ops)).summary).toMatchObject({ incidents: { availability: { high: 1 } } });
    await t.db.query(`UPDATE incidents SET resolved = now(), status = 'resolved' WHERE id = $1`, [inc]);
    expect((await stored(t.db, TOPO.ops)).summary).toMatchObject({ incidents: {} });
  });
});
