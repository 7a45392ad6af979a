import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configsStep } from '../../server/modules/topology/runner/links/configs.js';
import { selectorsStep } from '../../server/modules/topology/runner/links/components.js';
import { LINK_STEPS } from '../../server/modules/topology/runner/links/index.js';
import { selectorHash } from '../../server/modules/topology/runner/links/resource-selector.js';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';
import { TOPO, seedTopologyNeverRun } from './topology-fixtures.js';
import { liveLinks, savedComponent } from './topology-links-fixtures.js';

// The run's link steps called directly with the saved components they get from the run (ids of rows inserted here):
// component selectors and config selectors against real rows, stale links, bad selectors as notes; and the manual
// config link through /api/db.

let t: TestContext;
let editor: Record<string, string>;
let viewer: Record<string, string>;

const run = (step: typeof selectorsStep, saved: ReturnType<typeof savedComponent>[]) => step.run(t.db, TOPO.topology, saved, t.app.log);

beforeAll(async () => {
  t = await createTestApp();
  const adminId = (await makePerson(t.db, { roles: ['admin'] })).id;
  editor = await bearerHeaders(t.db, (await makePerson(t.db, { roles: ['editor'] })).id);
  viewer = await bearerHeaders(t.db, (await makePerson(t.db)).id);
  await seedTopologyNeverRun(t.db, adminId);
});
afterAll(() => t.close());

describe('steps', () => {
  it('runs selectors, checks, configs, teams in that order', () => {
    expect(LINK_STEPS.map((s) => s.name)).toEqual(['selectors', 'checks', 'configs', 'teams']);
  });
});

describe('selectors → component_relationships', () => {
  it('links what each selector matches, never the component itself, with a stable selector_id', async () => {
    // Billing selects the pods (web-*) and everything labelled app=web; web carries that label but is the selector's
    // own component only when it selects, so here Billing links web, web-1 and web-2
    const billing = savedComponent(TOPO.billing, 'Billing', {
      selectors: [{ types: ['Pod'], name: 'web-*' }, { labelSelector: 'app=web' }],
    });
    const out = await run(selectorsStep, [billing]);
    expect(out).toEqual({ linked: 3, notes: [] });
    expect(await liveLinks(t.db, 'component_relationships', TOPO.billing)).toEqual([TOPO.web, TOPO.web1, TOPO.web2].sort());
    const { rows } = await t.db.query(`SELECT DISTINCT selector_id FROM component_relationships WHERE relationship_id = $1 ORDER BY 1`, [TOPO.billing]);
    expect(rows.map((r) => r.selector_id)).toEqual([selectorHash({ types: ['Pod'], name: 'web-*' }), selectorHash({ labelSelector: 'app=web' })].sort());
    // the same selector written another way (types as "a,b", reordered) hashes the same
    expect(selectorHash({ types: ['b', 'a'] })).toBe(selectorHash({ types: ['a', 'b'] }));

    // web selecting by its own label links nothing: it is the only match
    const web = savedComponent(TOPO.web, 'web', { selectors: [{ labelSelector: 'app=web' }] });
    expect(await run(selectorsStep, [web])).toEqual({ linked: 0, notes: [] });
  });

  it('soft-deletes links whose match went and revives them when it matches again; the topology view lists them as children', async () => {
    const billing = savedComponent(TOPO.billing, 'Billing', { selectors: [{ labelSelector: 'app=web' }] });
    await run(selectorsStep, [billing]);
    expect(await liveLinks(t.db, 'component_relationships', TOPO.billing)).toEqual([TOPO.web]);
    await t.db.query(`UPDATE components SET labels = '{"app":"other"}' WHERE id = $1`, [TOPO.web]);
    await run(selectorsStep, [billing]);
    expect(await liveLinks(t.db, 'component_relationships', TOPO.billing)).toEqual([]);
    const gone = await t.db.query(`SELECT count(*)::int AS n FROM component_relationships WHERE relationship_id = $1 AND deleted_at IS NOT NULL`, [TOPO.billing]);
    expect(gone.rows[0].n).toBeGreaterThan(0);
    await t.db.query(`UPDATE components SET labels = '{"app":"web"}' WHERE id = $1`, [TOPO.web]);
    await run(selectorsStep, [billing]);
    expect(await liveLinks(t.db, 'component_relationships', TOPO.billing)).toEqual([TOPO.web]);
    const view = await t.app.inject({ method: 'GET', url: `/api/db/topology?id=eq.${TOPO.billing}&select=children`, headers: viewer });
    expect(view.json()).toEqual([{ children: [TOPO.web] }]);
  });

  it('a selector cycle is kept: both links stand and neither rolls up', async () => {
    await run(selectorsStep, [
      savedComponent(TOPO.billing, 'Billing', { selectors: [{ name: 'db' }] }),
      savedComponent(TOPO.db, 'db', { selectors: [{ name: 'Billing' }] }),
    ]);
    expect(await liveLinks(t.db, 'component_relationships', TOPO.billing)).toEqual([TOPO.db]);
    expect(await liveLinks(t.db, 'component_relationships', TOPO.db)).toEqual([TOPO.billing]);
    // Billing's summary counts its own health only, not db's (selector links do not roll up)
    expect((await t.db.query(`SELECT summary FROM components WHERE id = $1`, [TOPO.billing])).rows[0].summary).toMatchObject({ healthy: 1, unhealthy: 0 });
  });

  it('fieldSelector reads columns and properties; statuses and agent narrow', async () => {
    const ops = savedComponent(TOPO.ops, 'Ops', {
      selectors: [{ fieldSelector: 'connections=40' }, { fieldSelector: 'owner=finance' }, { statuses: ['!unknown'], types: ['Pod'], agent: 'all' }],
    });
    const out = await run(selectorsStep, [ops]);
    expect(out.notes).toEqual([]);
    // db by its property, Billing by its owner, the pods by their status (healthy from their checks)
    expect(await liveLinks(t.db, 'component_relationships', TOPO.ops)).toEqual([TOPO.db, TOPO.billing, TOPO.web1, TOPO.web2].sort());
    const other = savedComponent(TOPO.ops, 'Ops', { selectors: [{ name: 'db', agent: 'some-agent-that-is-not-here' }] });
    await run(selectorsStep, [other]);
    expect(await liveLinks(t.db, 'component_relationships', TOPO.ops)).toEqual([]);
  });

  it('a bad or empty selector is a note naming its spec path; the others still link', async () => {
    const ops = savedComponent(TOPO.ops, 'Ops', {
      selectors: [{ labelSelector: 'app in (web' }, {}, 'db', { types: 5 }, { name: 'db' }, { search: 'name>db' }],
    });
    const out = await run(selectorsStep, [ops]);
    expect(out.linked).toBe(1);
    expect(out.notes).toEqual([
      "spec.components.Ops.selectors.0: labelSelector: cannot read 'app in (web'",
      'spec.components.Ops.selectors.1: the selector is empty: it matches nothing',
      'spec.components.Ops.selectors.2: expected a selector object ({name, types, labelSelector, …})',
      'spec.components.Ops.selectors.3: types: expected a list of strings or "a,b"',
      "spec.components.Ops.selectors.5: search: 'name>db': only = and != are supported",
    ]);
  });
});

describe('configs → config_component_relationships', () => {
  let pod: string;
  let deploy: string;
  beforeAll(async () => {
    const ins = (name: string, type: string, tags: object, health: string) => t.db.query<{ id: string }>(
      `INSERT INTO config_items (name, type, config_class, tags, labels, health) VALUES ($1, $2, 'X', $3, '{"app":"web"}', $4) RETURNING id`,
      [name, type, tags, health]).then((r) => r.rows[0].id);
    pod = await ins('web-1-pod', 'Kubernetes::Pod', { namespace: 'prod', cluster: 'a' }, 'healthy');
    deploy = await ins('web', 'Kubernetes::Deployment', { namespace: 'prod', cluster: 'a' }, 'unhealthy');
  });

  it('links by types, namespace (the tag), labels and the older type/tags form; the config health rolls up', async () => {
    const db = savedComponent(TOPO.db, 'db', {
      configs: [{ types: ['Kubernetes::Pod'], namespace: 'prod' }, { type: 'Kubernetes::Deployment', tags: { cluster: 'a' } }, { labelSelector: 'app=web', name: 'web*' }],
    });
    const out = await run(configsStep, [db]);
    // two configs; the third selector matches both again but each pair is one row
    expect(out).toEqual({ linked: 2, notes: [] });
    expect(await liveLinks(t.db, 'config_component_relationships', TOPO.db)).toEqual([pod, deploy].sort());
    const c = (await t.db.query(`SELECT status, summary FROM components WHERE id = $1`, [TOPO.db])).rows[0];
    expect(c.status).toBe('warning');
    expect(c.summary).toMatchObject({ unhealthy: 1 });
  });

  it('a config that stops matching is unlinked at the next run; a manual link stays', async () => {
    await t.db.query(`INSERT INTO config_component_relationships (component_id, config_id, selector_id) VALUES ($1, $2, 'manual')`, [TOPO.web, pod]);
    await t.db.query(`UPDATE config_items SET tags = '{"namespace":"dev"}' WHERE id = $1`, [pod]);
    await run(configsStep, [
      savedComponent(TOPO.db, 'db', { configs: [{ types: ['Kubernetes::Pod'], namespace: 'prod' }] }),
      savedComponent(TOPO.web, 'web', { configs: [] }),
    ]);
    expect(await liveLinks(t.db, 'config_component_relationships', TOPO.db)).toEqual([]);
    expect(await liveLinks(t.db, 'config_component_relationships', TOPO.web)).toEqual([pod]);
    expect((await t.db.query(`SELECT status FROM components WHERE id = $1`, [TOPO.db])).rows[0].status).toBe('healthy');
  });

  it('a tagSelector on components is a note (components have labels, not tags)', async () => {
    const out = await run(selectorsStep, [savedComponent(TOPO.ops, 'Ops', { selectors: [{ tagSelector: 'a=b' }] })]);
    expect(out.notes).toEqual(['spec.components.Ops.selectors.0: tags: components have no tags (use labelSelector)']);
  });
});

describe('manual config links through /api/db', () => {
  const post = (payload: object, headers: Record<string, string>) => t.app.inject({
    method: 'POST', url: '/api/db/config_component_relationships', headers: { ...headers, 'content-type': 'application/json' }, payload,
  });

  it('links once (409 the second time), viewers may not, and DELETE removes only that manual link', async () => {
    const cfg = (await t.db.query(`INSERT INTO config_items (name, type, config_class) VALUES ('manual-target', 'File', 'File') RETURNING id`)).rows[0].id;
    const other = (await t.db.query(`INSERT INTO config_items (name, type, config_class) VALUES ('selected', 'File', 'File') RETURNING id`)).rows[0].id;
    // a run's link of the same component to another config
    await run(configsStep, [savedComponent(TOPO.web1, 'web-1', { configs: [{ name: 'selected' }] })]);

    expect((await post({ component_id: TOPO.web1, config_id: cfg, selector_id: 'manual' }, viewer)).statusCode).toBe(403);
    const made = await post({ component_id: TOPO.web1, config_id: cfg, selector_id: 'manual' }, editor);
    expect(made.statusCode, made.payload).toBe(201);
    const again = await post({ component_id: TOPO.web1, config_id: cfg, selector_id: 'manual' }, editor);
    expect(again.statusCode, again.payload).toBe(409);
    expect(again.json().message).toBe(`component ${TOPO.web1} is already linked to config ${cfg} (linked by hand)`);
    // a link the run made cannot be made again by hand either, nor removed by hand
    const taken = await post({ component_id: TOPO.web1, config_id: other, selector_id: 'manual' }, editor);
    expect(taken.statusCode).toBe(409);
    expect(taken.json().message).toMatch(/linked by its topology's configs selector/);
    const notManual = await t.app.inject({
      method: 'DELETE', url: `/api/db/config_component_relationships?component_id=eq.${TOPO.web1}&config_id=eq.${other}`, headers: editor,
    });
    expect(notManual.statusCode).toBe(403);

    expect((await t.app.inject({
      method: 'DELETE', url: `/api/db/config_component_relationships?component_id=eq.${TOPO.web1}&selector_id=eq.manual`, headers: viewer,
    })).statusCode).toBe(403);
    const del = await t.app.inject({
      method: 'DELETE', url: `/api/db/config_component_relationships?component_id=eq.${TOPO.web1}&selector_id=eq.manual`, headers: editor,
    });
    expect(del.statusCode, del.payload).toBe(204);
    expect(await liveLinks(t.db, 'config_component_relationships', TOPO.web1)).toEqual([other]);
  });
});
