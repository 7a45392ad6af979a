import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTopology, type RunDeps } from '../../server/modules/topology/runner/run.js';
import { liveTopology } from '../../server/modules/topology/runner/queries.js';
import { LookupError, type LookupRunner } from '../../server/modules/topology/runner/types.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * The topology run (issue 13 "Runs"): spec checks on save (400 naming the path), the builder (static tree, labels,
 * hidden, properties, forEach, lookups, parentLookup, ids, healthExpr/statusExpr), the save (stable ids, no write
 * when unchanged, soft delete) and the job history. Topologies here are `@never`, so the app's scheduler leaves them
 * alone; runs go through Run Now or runTopology with a test lookup runner.
 */
let t: TestContext;
let admin: Record<string, string>;
let editor: Record<string, string>;
let viewer: Record<string, string>;
beforeAll(async () => {
  t = await createTestApp();
  admin = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
  editor = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['editor'] })).id);
  viewer = await sessionHeaders(t.db, (await makePerson(t.db)).id);
});
afterAll(async () => {
  await t?.close();
});

const post = (body: Record<string, unknown>, headers = admin) =>
  t.app.inject({ method: 'POST', url: '/api/db/topologies', headers: { ...headers, prefer: 'return=representation' }, payload: body as never });
async function makeTopology(spec: Record<string, unknown>, name = `t-${Math.random().toString(36).slice(2, 8)}`, labels?: Record<string, string>): Promise<string> {
  const res = await post({ name, namespace: 'default', labels, spec: { schedule: '@never', ...spec } });
  expect(res.statusCode, res.payload).toBe(201);
  return res.json()[0].id;
}
const runNow = (id: string, headers = admin) => t.app.inject({ method: 'POST', url: `/api/canary/run/topology/${id}`, headers });
async function run(id: string, lookup: LookupRunner = async () => [], lookupTimeoutMs?: number) {
  const deps: RunDeps = { db: t.db, log: t.app.log, lookup, linkSteps: [], lookupTimeoutMs };
  return runTopology(deps, (await liveTopology(t.db, id))!);
}
type Row = Record<string, any>;
async function rows(topologyId: string, live = true): Promise<Row[]> {
  const r = await t.db.query(`SELECT * FROM components WHERE topology_id = $1 ${live ? 'AND deleted_at IS NULL' : ''} ORDER BY path, name`, [topologyId]);
  return r.rows;
}
const byName = (rs: Row[], name: string) => rs.find((r) => r.name === name)!;

describe('spec checks on save (POST /api/db/topologies)', () => {
  const bad = async (spec: Record<string, unknown>, message: string) => {
    const res = await post({ name: 'bad', spec });
    expect(res.statusCode, res.payload).toBe(400);
    expect(res.json().message).toContain(message);
  };
  it('names the path of each bad input and stores nothing', async () => {
    await bad({ schedule: '@every banana' }, 'spec.schedule: invalid duration');
    await bad({ healthExpr: 'summary.healthy >' }, 'spec.healthExpr: invalid CEL');
    await bad({ components: [{ name: 'a' }, { name: 'b', statusExpr: 'nope(' }] }, 'spec.components.1.statusExpr: invalid CEL');
    await bad({ components: [{ name: 'a', components: [{ name: '{{ .name | upper }}' }] }] }, 'spec.components.0.components.0.name: only field references');
    await bad({ components: [{ name: 'g', lookup: {}, forEach: { components: [{ name: '$(exec "rm")' }] } }] },
      'spec.components.0.forEach.components.0.name: only field references');
    await bad({ components: [{ name: 'g', id: { template: '{{range .x}}{{end}}' } }] }, 'spec.components.0.id.template: only field references');
    await bad({ components: [{ type: 'Service' }] }, 'spec.components.0.name: name is required');
    await bad({ components: [{ name: 'a', properties: [{ name: 'x', value: 'ten' }] }] }, 'spec.components.0.properties.0.value');
    expect((await t.db.query(`SELECT 1 FROM topologies WHERE name = 'bad'`)).rowCount).toBe(0);
  });

  it('serves the spec as JSON Schema to signed-in users', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/schemas/topology.schema.json', headers: viewer });
    expect(res.statusCode).toBe(200);
    const schema = res.json();
    expect(schema.$id).toBe('topology.schema.json');
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['components', 'healthExpr', 'statusExpr', 'schedule', 'groupBy', 'push']));
    expect(Object.keys(schema.properties.components.items.properties)).toEqual(expect.arrayContaining(['forEach', 'parentLookup', 'lookup', 'checks', 'configID']));
  });
});

describe('Run Now (POST /api/canary/run/topology/{id})', () => {
  it('answers as the reference, for admin and editor; viewer 403, unknown 404; one TopologyRun job row', async () => {
    const id = await makeTopology({ type: 'App', components: [{ name: 'api', components: [{ name: 'db' }] }] });
    const res = await runNow(id);
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', count: '3' });
    expect((await runNow(id, editor)).json()).toEqual({ status: 'ok', count: '3' });
    expect((await runNow(id, viewer)).statusCode).toBe(403);
    expect((await runNow('01890000-0000-7000-8000-000000000000')).statusCode).toBe(404);
    const jobs = await t.db.query(`SELECT * FROM job_history WHERE resource_id = $1 ORDER BY time_start`, [id]);
    expect(jobs.rows).toHaveLength(2);
    expect(jobs.rows[0]).toMatchObject({ name: 'TopologyRun', resource_type: 'topology', status: 'SUCCESS', success_count: 3 });
    expect(jobs.rows[0].details.summary).toEqual({ inserted: 3, updated: 0, unchanged: 0, deleted: 0 });
    expect(jobs.rows[1].details.summary).toEqual({ inserted: 0, updated: 0, unchanged: 3, deleted: 0 });
  });
});

describe('the builder', () => {
  it('builds the static tree with every field of the spec', async () => {
    const id = await makeTopology({
      type: 'App', icon: 'app', tooltip: 'the app', text: 'Shop', owner: 'team-a', id: { template: 'shop-{{.name}}' },
      properties: [{ name: 'region', text: 'eu' }],
      components: [{
        name: 'api', type: 'Service', icon: 'api', tooltip: 'API', owner: 'ops', lifecycle: 'prod', externalID: 'svc/api',
        labels: { tier: 'web' }, hidden: true, logs: [{ name: 'loki' }], configs: [{ name: 'api-config', type: 'Kubernetes::Deployment' }],
        properties: [
          { name: 'cpu', value: 250, unit: 'millicores', max: 1000, headline: true },
          { name: 'docs', text: 'docs', links: [{ label: 'runbook', url: 'https://example.com/rb' }] },
        ],
        components: [{ name: 'db', type: 'Database', id: { template: '{{.type}}/{{.name}}' } }],
      }],
    }, 'shop', { team: 'a' });
    const out = await run(id);
    expect(out.status, out.errors.join()).toBe('SUCCESS');
    const rs = await rows(id);
    const root = byName(rs, 'Shop');
    expect(root).toMatchObject({
      parent_id: null, type: 'App', icon: 'app', tooltip: 'the app', text: 'Shop', owner: 'team-a', external_id: 'shop-Shop',
      labels: { team: 'a' }, topology_type: 'App', schedule: '@never', agent_id: '00000000-0000-0000-0000-000000000000',
      is_leaf: false, properties: [{ name: 'region', text: 'eu' }],
    });
    const api = byName(rs, 'api');
    expect(api).toMatchObject({
      parent_id: root.id, type: 'Service', external_id: 'svc/api', labels: { tier: 'web' }, hidden: true, lifecycle: 'prod',
      owner: 'ops', log_selectors: [{ name: 'loki' }], configs: [{ name: 'api-config', type: 'Kubernetes::Deployment' }],
      namespace: 'default', path: root.id,
    });
    expect(api.properties).toEqual([
      { name: 'cpu', value: 250, unit: 'millicores', max: 1000, headline: true },
      { name: 'docs', text: 'docs', links: [{ label: 'runbook', url: 'https://example.com/rb' }] },
    ]);
    expect(byName(rs, 'db')).toMatchObject({ parent_id: api.id, external_id: 'Database/db', is_leaf: true, path: `${root.id}.${api.id}` });
  });

  it('runs lookups, applies forEach to each result, turns property lookups into properties', async () => {
    const id = await makeTopology({
      components: [{
        name: 'Pods', type: 'Group', icon: 'pod', lookup: { exec: [{ script: 'pods' }] },
        forEach: {
          components: [{ name: '{{.name}}-container', type: 'Container' }],
          properties: [{ name: 'owner', text: '$(.labels.app)' }, { name: 'restarts', lookup: { exec: [{ script: 'restarts' }] } }],
          configs: [{ name: '{{.name}}', type: 'Kubernetes::Pod' }],
          selectors: [{ labelSelector: 'app={{.labels.app}}' }],
        },
        properties: [{ name: 'version', configLookup: { config: { name: 'x' }, field: 'v' } }],
      }],
    });
    const lookup: LookupRunner = async (block) => {
      if (block.configLookup) return ['1.2.3'];
      const script = (block.exec as Array<{ script: string }>)[0].script;
      if (script === 'restarts') return [4];
      return [{ name: 'web-1', type: 'Pod', labels: { app: 'web' }, properties: [{ name: 'node', text: 'n1' }] }, { name: 'web-2', labels: { app: 'web' } }];
    };
    const out = await run(id, lookup);
    expect(out.status, out.errors.join()).toBe('SUCCESS');
    const rs = await rows(id);
    const pods = byName(rs, 'Pods');
    // the spec's properties are the looked-up components' (reference mergeComponentProperties), not the group's
    expect(pods.properties).toBeNull();
    const web1 = byName(rs, 'web-1');
    expect(web1).toMatchObject({ parent_id: pods.id, type: 'Pod', icon: 'pod', configs: [{ name: 'web-1', type: 'Kubernetes::Pod' }], selectors: [{ labelSelector: 'app=web' }] });
    expect(web1.properties).toEqual([{ name: 'node', text: 'n1' }, { name: 'owner', text: 'web' }, { name: 'restarts', value: 4 }, { name: 'version', text: '1.2.3' }]);
    expect(byName(rs, 'web-1-container')).toMatchObject({ parent_id: web1.id, type: 'Container' });
    expect(byName(rs, 'web-2-container').parent_id).toBe(byName(rs, 'web-2').id);
  });

  it('a failed lookup fails its component only: unknown, the error as status_reason, its static children kept', async () => {
    const id = await makeTopology({
      components: [
        { name: 'broken', lookup: { http: [{ url: 'http://127.0.0.1:1' }] }, components: [{ name: 'static-child' }],
          properties: [{ name: 'p', lookup: { http: [{}] } }] },
        { name: 'slow', lookup: { exec: [{ script: 'sleep' }] } },
        { name: 'fine' },
      ],
    });
    const lookup: LookupRunner = async (block, ctx) => {
      if (block.exec) return new Promise(() => undefined); // never answers: the run's timeout ends it
      if (ctx.signal.aborted) return [];
      throw new LookupError('lookup.http.0: connect ECONNREFUSED 127.0.0.1:1');
    };
    const out = await run(id, lookup, 200);
    expect(out.status).toBe('WARNING');
    const rs = await rows(id);
    expect(byName(rs, 'broken')).toMatchObject({ health: 'unknown', status_reason: 'lookup.http.0: connect ECONNREFUSED 127.0.0.1:1' });
    expect(byName(rs, 'broken').properties).toEqual([{ name: 'p', text: 'lookup.http.0: connect ECONNREFUSED 127.0.0.1:1', error: 'lookup.http.0: connect ECONNREFUSED 127.0.0.1:1' }]);
    expect(byName(rs, 'static-child').parent_id).toBe(byName(rs, 'broken').id);
    expect(byName(rs, 'slow')).toMatchObject({ health: 'unknown', status_reason: 'timed out after 0 s' });
    expect(byName(rs, 'fine')).toBeTruthy();
    expect(out.errors).toEqual(expect.arrayContaining([
      'spec.components.0.lookup: lookup.http.0: connect ECONNREFUSED 127.0.0.1:1',
      'spec.components.0.properties.0: lookup.http.0: connect ECONNREFUSED 127.0.0.1:1',
      'spec.components.1.lookup: timed out after 0 s',
    ]));
  });

  it('parentLookup re-parents; a cycle is broken under the root and reported in the job history', async () => {
    const id = await makeTopology({
      components: [
        { name: 'cluster', type: 'Cluster' },
        { name: 'node-1', type: 'Node', parentLookup: { name: 'cluster', type: 'Cluster' } },
        { name: 'a', components: [{ name: 'b' }], parentLookup: { name: 'b' } },
        { name: 'orphan', parentLookup: { name: 'nowhere' } },
      ],
    }, 'loops');
    const out = await run(id);
    const rs = await rows(id);
    const root = byName(rs, 'loops');
    expect(byName(rs, 'node-1').parent_id).toBe(byName(rs, 'cluster').id);
    expect(byName(rs, 'a').parent_id).toBe(root.id);
    expect(byName(rs, 'b').parent_id).toBe(byName(rs, 'a').id);
    expect(byName(rs, 'orphan').parent_id).toBe(root.id);
    expect(out.status).toBe('WARNING');
    const job = await t.db.query('SELECT details FROM job_history WHERE id = $1', [out.job_history_id]);
    expect(job.rows[0].details.errors).toEqual(expect.arrayContaining([
      expect.stringMatching(/^cycle: a → b → a/),
      expect.stringContaining('spec.components.3.parentLookup: no component of this topology matches'),
    ]));
  });

  it('evaluates healthExpr and statusExpr after the roll-up', async () => {
    const id = await makeTopology({
      statusExpr: 'summary.unhealthy > 0 ? "degraded" : "fine"',
      components: [
        { name: 'bad', health: 'unhealthy' },
        { name: 'judged', properties: [{ name: 'errors', value: 7 }], healthExpr: 'properties.errors > 5 ? "warning" : "healthy"' },
      ],
    }, 'exprs');
    const out = await run(id);
    expect(out.status, out.errors.join()).toBe('SUCCESS');
    const rs = await rows(id);
    expect(byName(rs, 'judged')).toMatchObject({ health: 'warning', status: 'warning' });
    expect(byName(rs, 'exprs').status).toBe('degraded');
    expect(byName(rs, 'exprs').summary).toMatchObject({ unhealthy: 1, warning: 1 });
    // an unchanged rebuild keeps the expression's health and writes nothing
    const again = await run(id);
    expect(again.counts).toEqual({ inserted: 0, updated: 0, unchanged: 3, deleted: 0 });
    expect(byName(await rows(id), 'judged').health).toBe('warning');
  });
});

describe('the save', () => {
  it('keeps ids across rebuilds, a user\'s hidden flag and manual links; writes nothing when unchanged; soft-deletes what vanished', async () => {
    const spec = { components: [{ name: 'svc', components: [{ name: 'pod-a' }, { name: 'pod-b' }] }] };
    const id = await makeTopology(spec, 'stable');
    await run(id);
    const first = await rows(id);
    const podA = byName(first, 'pod-a');
    await t.db.query('UPDATE components SET hidden = true WHERE id = $1', [podA.id]);
    await t.db.query(`INSERT INTO config_items (id, name, type, config_class) VALUES ('01890000-0000-7000-8000-0000000000c1', 'cfg', 'Test::Thing', 'Thing')`);
    await t.db.query(`INSERT INTO config_component_relationships (component_id, config_id, selector_id) VALUES ($1, '01890000-0000-7000-8000-0000000000c1', 'manual')`, [podA.id]);
    // after the user's edits (they move updated_at themselves): an unchanged rebuild moves no updated_at
    const before = (await rows(id)).map((r) => [r.id, r.updated_at.toISOString()]);

    const same = await run(id);
    expect(same.counts).toEqual({ inserted: 0, updated: 0, unchanged: 4, deleted: 0 });
    const second = await rows(id);
    expect(second.map((r) => [r.id, r.updated_at.toISOString()])).toEqual(before);
    expect(byName(second, 'pod-a').hidden).toBe(true);

    // pod-b goes, pod-c comes, svc changes
    await t.db.query(`UPDATE topologies SET spec = $2 WHERE id = $1`, [id, { schedule: '@never', components: [{ name: 'svc', icon: 'svc', components: [{ name: 'pod-a' }, { name: 'pod-c' }] }] }]);
    const changed = await run(id);
    expect(changed.counts).toEqual({ inserted: 1, updated: 1, unchanged: 2, deleted: 1 });
    const third = await rows(id, false);
    expect(byName(third, 'pod-b').deleted_at).not.toBeNull();
    expect(byName(third, 'pod-a')).toMatchObject({ id: podA.id, hidden: true, deleted_at: null });
    const link = await t.db.query('SELECT deleted_at FROM config_component_relationships WHERE component_id = $1', [podA.id]);
    expect(link.rows).toEqual([{ deleted_at: null }]);

    // pod-b comes back as the same row
    await t.db.query(`UPDATE topologies SET spec = $2 WHERE id = $1`, [id, { schedule: '@never', ...spec }]);
    await run(id);
    const fourth = await rows(id);
    expect(byName(fourth, 'pod-b').id).toBe(byName(first, 'pod-b').id);
    expect(fourth.map((r) => r.name).sort()).toEqual(['pod-a', 'pod-b', 'stable', 'svc']);
  });
});
