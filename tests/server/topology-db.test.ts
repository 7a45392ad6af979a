import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';
import { TOPO, seedTopologyNeverRun, stored } from './topology-fixtures.js';

// The reference UI's topology calls through /api/db (flanksource-ui src/api/services/topology.ts and the check
// drawer's relationships), the two writes a person may make on components (hidden, parent_id), and the foreign keys
// 0060_topology.sql adds.

let t: TestContext;
let admin: Record<string, string>;
let editor: Record<string, string>;
let viewer: Record<string, string>;

const get = (path: string, headers = viewer) => t.app.inject({ method: 'GET', url: `/api/db/${path}`, headers });
const patch = (id: string, payload: Record<string, unknown>, headers = editor) => t.app.inject({
  method: 'PATCH', url: `/api/db/components?id=eq.${id}`, payload, headers: { ...headers, prefer: 'return=representation' },
});

beforeAll(async () => {
  t = await createTestApp();
  const adminId = (await makePerson(t.db, { roles: ['admin'] })).id;
  admin = await bearerHeaders(t.db, adminId);
  editor = await bearerHeaders(t.db, (await makePerson(t.db, { roles: ['editor'] })).id);
  viewer = await bearerHeaders(t.db, (await makePerson(t.db)).id);
  await seedTopologyNeverRun(t.db, adminId);
});
afterAll(() => t.close());

describe('reads, as the reference UI sends them', () => {
  it('component_names lists live, visible components by name, and one by id', async () => {
    const all = await get('component_names');
    expect(all.statusCode, all.payload).toBe(200);
    // hidden legacy is left out (the order is the database's collation: compare as a set)
    expect(all.json().map((c: { name: string }) => c.name).sort()).toEqual(['Billing', 'Ops', 'db', 'web', 'web-1', 'web-2']);
    const one = (await get(`component_names?id=eq.${TOPO.web1}`)).json();
    expect(one).toEqual([expect.objectContaining({ id: TOPO.web1, name: 'web-1', parent_id: TOPO.web, path: `${TOPO.ops}.${TOPO.web}` })]);
  });

  it('labels, label keys, types and components with logs', async () => {
    expect((await get('component_labels')).json()).toEqual([{ key: 'app', value: 'web' }]);
    expect((await get('component_labels_keys')).json()).toEqual([{ key: 'label:app' }]);
    expect((await get('component_types')).json().map((r: { type: string }) => r.type)).toEqual(['Database', 'Pod', 'Service', 'Topology']);
    expect((await get('components_with_logs')).json()).toEqual([]);
  });

  it('the Teams panel: team_components with the team and its creator embedded', async () => {
    const res = await get(`team_components?component_id=eq.${TOPO.ops}&select=*,team:teams(*, created_by(id,name,avatar))`);
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.json()).toEqual([expect.objectContaining({ team_id: TOPO.team, team: expect.objectContaining({ name: 'platform' }) })]);
  });

  it('the Checks panel and the check drawer\'s relationships', async () => {
    const byComponent = await get(`checks_by_component?component_id=eq.${TOPO.web1}`);
    expect(byComponent.json()).toEqual([{ component_id: TOPO.web1, id: TOPO.check1, type: 'http', name: 'web-1 http', severity: null, status: 'healthy' }]);
    const drawer = await get(`checks?id=eq.${TOPO.check1}&select=id,components:check_component_relationships(components(id,name,icon))`);
    expect(drawer.statusCode, drawer.payload).toBe(200);
    expect(drawer.json()).toEqual([{ id: TOPO.check1, components: [{ components: { id: TOPO.web1, name: 'web-1', icon: null } }] }]);
  });

  it('the topology view carries checks, team names and the stored summary', async () => {
    const res = await get(`topology?id=eq.${TOPO.ops}&select=id,name,status,summary,team_names,checks,children,parents`);
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.json()).toEqual([expect.objectContaining({
      id: TOPO.ops, team_names: ['platform'], checks: null, children: null, parents: null,
      summary: expect.objectContaining({ healthy: 2, checks: { healthy: 2 } }),
    })]);
    expect((await get(`topology?id=eq.${TOPO.web1}&select=checks`)).json()).toEqual([{ checks: { healthy: 1 } }]);
  });

  it('evidence embeds its component (the foreign key this migration adds)', async () => {
    const person = (await t.db.query(`SELECT id FROM people LIMIT 1`)).rows[0].id;
    const incident = (await t.db.query(`INSERT INTO incidents (title, type, created_by, commander_id) VALUES ('x', 'availability', $1, $1) RETURNING id`, [person])).rows[0].id;
    const hyp = (await t.db.query(`INSERT INTO hypotheses (incident_id, title, type, created_by) VALUES ($1, 'h', 'root', $2) RETURNING id`, [incident, person])).rows[0].id;
    await t.db.query(`INSERT INTO evidences (hypothesis_id, type, component_id, created_by) VALUES ($1, 'topology', $2, $3)`, [hyp, TOPO.db, person]);
    const res = await get(`evidences?hypothesis_id=eq.${hyp}&select=id,components(id,name,icon)`);
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.json()[0].components).toEqual({ id: TOPO.db, name: 'db', icon: null });
  });

  it('every role reads; the foreign keys of the component side exist', async () => {
    expect((await get('components?select=id&limit=1', viewer)).statusCode).toBe(200);
    const { rows } = await t.db.query(`SELECT conname FROM pg_constraint WHERE conname = ANY($1) ORDER BY conname`, [[
      'config_component_relationships_component_id_fkey', 'config_component_relationships_config_id_fkey',
      'evidences_component_id_fkey', 'playbook_runs_component_id_fkey',
    ]]);
    expect(rows).toHaveLength(4);
  });
});

describe('writes', () => {
  it('an editor hides a component and shows it again; a viewer may not', async () => {
    const hide = await patch(TOPO.web2, { hidden: true });
    expect(hide.statusCode, hide.payload).toBe(200);
    expect(hide.json()[0]).toMatchObject({ id: TOPO.web2, hidden: true });
    expect((await get('component_names')).json().map((c: { name: string }) => c.name)).not.toContain('web-2');
    expect((await patch(TOPO.web2, { hidden: false }, viewer)).statusCode).toBe(403);
    expect((await patch(TOPO.web2, { hidden: false }, admin)).statusCode).toBe(200);
  });

  it('refuses every other column, and creating or deleting components', async () => {
    const rename = await patch(TOPO.web2, { name: 'renamed' });
    expect(rename.statusCode).toBe(400);
    expect(rename.json().message).toContain("'name'");
    expect((await patch(TOPO.web2, { status: 'healthy' })).statusCode).toBe(400);
    const post = await t.app.inject({ method: 'POST', url: '/api/db/components', payload: { name: 'x', external_id: 'x' }, headers: editor });
    expect(post.statusCode).toBeGreaterThanOrEqual(400);
    const del = await t.app.inject({ method: 'DELETE', url: `/api/db/components?id=eq.${TOPO.web2}`, headers: editor });
    expect(del.statusCode).toBeGreaterThanOrEqual(400);
    expect((await t.db.query('SELECT name, deleted_at FROM components WHERE id = $1', [TOPO.web2])).rows[0]).toEqual({ name: 'web-2', deleted_at: null });
  });

  it('moves a component under another parent: path follows and both parents roll up again', async () => {
    await t.db.query(`UPDATE checks SET status = 'unhealthy' WHERE id = $1`, [TOPO.check2]);
    expect((await stored(t.db, TOPO.web)).status).toBe('warning');
    const move = await patch(TOPO.web2, { parent_id: TOPO.billing });
    expect(move.statusCode, move.payload).toBe(200);
    expect(move.json()[0]).toMatchObject({ parent_id: TOPO.billing, path: TOPO.billing });
    expect((await stored(t.db, TOPO.web)).status).toBe('healthy');
    expect((await stored(t.db, TOPO.billing)).status).toBe('warning');
    // moving a subtree rewrites its descendants' paths
    expect((await patch(TOPO.web, { parent_id: TOPO.billing })).statusCode).toBe(200);
    const { rows } = await t.db.query('SELECT path FROM components WHERE id = $1', [TOPO.web1]);
    expect(rows[0].path).toBe(`${TOPO.billing}.${TOPO.web}`);
    expect((await patch(TOPO.web, { parent_id: TOPO.ops })).statusCode).toBe(200);
    expect((await patch(TOPO.web2, { parent_id: TOPO.web })).statusCode).toBe(200);
  });

  it('a move that makes a cycle is a 400 naming the ids, and changes nothing', async () => {
    const res = await patch(TOPO.ops, { parent_id: TOPO.web1 });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(`cycle: ${TOPO.ops} → ${TOPO.web1} → ${TOPO.web} → ${TOPO.ops}`);
    const self = await patch(TOPO.web, { parent_id: TOPO.web });
    expect(self.statusCode).toBe(400);
    expect(self.json().message).toBe(`cycle: ${TOPO.web} → ${TOPO.web}`);
    expect((await t.db.query('SELECT parent_id FROM components WHERE id = $1', [TOPO.ops])).rows[0].parent_id).toBeNull();
  });

  it('links a config by hand (selector_id manual) through the component foreign key', async () => {
    const cfg = (await t.db.query(`INSERT INTO config_items (name, type, config_class, health) VALUES ('app.yaml', 'File', 'File', 'warning') RETURNING id`)).rows[0].id;
    const link = (component: string) => t.app.inject({
      method: 'POST', url: '/api/db/config_component_relationships',
      payload: { component_id: component, config_id: cfg, selector_id: 'manual' }, headers: editor,
    });
    expect((await link(TOPO.db)).statusCode).toBe(201);
    expect((await stored(t.db, TOPO.db)).summary).toMatchObject({ healthy: 1, warning: 1 });
    expect((await link('0000000d-0000-4000-8000-00000000ffff')).statusCode).toBe(409);
  });
});
