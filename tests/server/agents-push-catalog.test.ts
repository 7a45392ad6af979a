import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';
import { generateAgent } from '../../server/modules/agents/generate.js';

/**
 * Pushed catalog and topology rows (issue 16): topologies, config_scrapers, config_items, config_changes,
 * config_analysis and components through POST /api/upstream/push, parents first, agent_id forced, upserts by id,
 * refusals naming the row, and how the console lists them with the agent's name.
 */

let ctx: TestContext;
let admin: Record<string, string>;

interface TestAgent { id: string; name: string; token: string }

async function makeAgent(name: string, properties: Record<string, string> = {}): Promise<TestAgent> {
  const g = await generateAgent(ctx.db, { name, properties, createdBy: null });
  return { id: g.agent_id, name, token: g.access_token };
}

function push(a: TestAgent, payload: unknown, method: 'POST' | 'DELETE' = 'POST') {
  return ctx.app.inject({ method, url: '/api/upstream/push', headers: { authorization: `Bearer ${a.token}` }, payload: payload as object });
}

const topology = (id = randomUUID()) => ({ id, name: `t-${id.slice(0, 6)}`, namespace: 'prod', spec: { schedule: '@every 5m' }, agent_id: randomUUID() });
const scraper = (id = randomUUID()) => ({ id, name: `s-${id.slice(0, 6)}`, namespace: 'prod', spec: { kubernetes: [{ clusterName: 'eu' }] }, source: 'KubernetesCRD' });
const item = (scraperId: string | null, id = randomUUID(), extra: Record<string, unknown> = {}) => ({
  id, scraper_id: scraperId, config_class: 'Node', type: 'Kubernetes::Node', name: `node-${id.slice(0, 6)}`,
  external_id: [`eu/node/${id}`], config: { metadata: { name: 'n' } }, labels: { zone: 'a' }, tags: { cluster: 'eu' },
  health: 'healthy', status: 'Ready', agent_id: randomUUID(), ...extra,
});
const component = (topologyId: string, id = randomUUID(), extra: Record<string, unknown> = {}) => ({
  id, topology_id: topologyId, name: `svc-${id.slice(0, 6)}`, type: 'Service', external_id: `svc/${id}`, status: 'healthy',
  labels: { tier: 'web' }, ...extra,
});

let eu: TestAgent;
let us: TestAgent;

beforeAll(async () => {
  ctx = await createTestApp();
  const p = await makePerson(ctx.db, { roles: ['admin'] });
  admin = await sessionHeaders(ctx.db, p.id);
  eu = await makeAgent('eu-cat', { region: 'eu' });
  us = await makeAgent('us-cat');
});
afterAll(async () => ctx?.close());

describe('push of catalog and topology rows', () => {
  it('stores topologies, scrapers, items (child before parent in the batch), changes, insights and components', async () => {
    const t = topology();
    const s = scraper();
    const parent = item(s.id);
    const child = item(s.id, randomUUID(), { parent_id: parent.id, config_class: 'Pod', type: 'Kubernetes::Pod' });
    const change = { id: randomUUID(), config_id: child.id, change_type: 'diff', summary: 'image changed', severity: 'info' };
    const insight = { id: randomUUID(), config_id: child.id, scraper_id: s.id, analyzer: 'restarts', analysis_type: 'availability', severity: 'high' };
    const root = component(t.id, randomUUID(), { config_id: parent.id });
    const leaf = component(t.id, randomUUID(), { parent_id: root.id });
    // rows of one table in any order: the child item and the leaf come first
    const r = await push(eu, {
      components: [leaf, root], config_analysis: [insight], config_changes: [change], config_items: [child, parent],
      config_scrapers: [s], topologies: [t],
    });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json().counts).toMatchObject({ topologies: 1, config_scrapers: 1, config_items: 2, config_changes: 1, config_analysis: 1, components: 2 });

    const owner = async (table: string, id: string) => (await ctx.db.query(`SELECT agent_id::text FROM ${table} WHERE id = $1`, [id])).rows[0]?.agent_id;
    for (const [table, id] of [['topologies', t.id], ['config_scrapers', s.id], ['config_items', parent.id], ['config_items', child.id], ['components', root.id], ['components', leaf.id]]) {
      expect(await owner(table, id), `${table} ${id}`).toBe(eu.id);
    }
    const { rows: [ci] } = await ctx.db.query('SELECT labels, external_id, parent_id::text FROM config_items WHERE id = $1', [child.id]);
    expect(ci).toEqual({ labels: { region: 'eu', zone: 'a' }, external_id: [`eu/node/${child.id}`], parent_id: parent.id });
    expect((await ctx.db.query('SELECT summary FROM config_changes WHERE id = $1', [change.id])).rows[0].summary).toBe('image changed');
    expect((await ctx.db.query('SELECT analyzer FROM config_analysis WHERE id = $1', [insight.id])).rows[0].analyzer).toBe('restarts');
    const { rows: [comp] } = await ctx.db.query('SELECT parent_id::text, config_id::text, labels FROM components WHERE id = $1', [leaf.id]);
    expect(comp).toEqual({ parent_id: root.id, config_id: null, labels: { region: 'eu', tier: 'web' } });

    // a replay changes nothing; an edit updates in place
    const before = (await ctx.db.query('SELECT updated_at FROM config_items WHERE id = $1', [parent.id])).rows[0].updated_at;
    expect((await push(eu, { config_scrapers: [s], config_items: [parent] })).statusCode).toBe(200);
    expect((await ctx.db.query('SELECT updated_at FROM config_items WHERE id = $1', [parent.id])).rows[0].updated_at).toEqual(before);
    expect((await push(eu, { config_items: [{ ...parent, health: 'unhealthy' }] })).statusCode).toBe(200);
    expect((await ctx.db.query('SELECT health FROM config_items WHERE id = $1', [parent.id])).rows[0].health).toBe('unhealthy');

    // the console lists them with the agent's name (the catalog's config_detail and the agents summary counts)
    const detail = await ctx.app.inject({ url: `/api/db/config_detail?id=eq.${parent.id}&select=id,agent_name`, headers: admin });
    expect(detail.statusCode, detail.body).toBe(200);
    expect(detail.json()[0].agent_name).toBe('eu-cat');
    const summary = await ctx.app.inject({ url: `/api/db/agents_summary?id=eq.${eu.id}&select=config_count`, headers: admin });
    expect(summary.json()[0].config_count).toBe(2);
  });

  it('refuses a bad row naming it (components[2].topology_id), storing nothing of the batch', async () => {
    const t = topology();
    const rows = [component(t.id), component(t.id), { ...component(t.id), topology_id: 'not-a-uuid' }];
    const r = await push(eu, { topologies: [t], components: rows });
    expect(r.statusCode).toBe(400);
    expect(r.json().message).toMatch(/^components\[2\]\.topology_id/);
    expect((await ctx.db.query('SELECT 1 FROM topologies WHERE id = $1', [t.id])).rowCount).toBe(0);
    const noClass = await push(eu, { config_items: [{ ...item(null), config_class: '' }] });
    expect(noClass.statusCode).toBe(400);
    expect(noClass.json().message).toMatch(/^config_items\[0\]\.config_class/);
  });

  it('refuses an unknown parent (422 listing it) and another agent\'s row or parent (409)', async () => {
    const ghost = randomUUID();
    const r = await push(eu, { components: [component(ghost)] });
    expect(r.statusCode).toBe(422);
    expect(r.json().message).toContain(ghost);
    const theirs = item(null);
    expect((await push(us, { config_items: [theirs] })).statusCode).toBe(200);
    const take = await push(eu, { config_items: [{ ...theirs, name: 'mine now' }] });
    expect(take.statusCode).toBe(409);
    expect(take.json().message).toContain('us-cat');
    expect((await push(eu, { config_changes: [{ id: randomUUID(), config_id: theirs.id, summary: 'x' }] })).statusCode).toBe(409);
    expect((await ctx.db.query('SELECT name, agent_id::text FROM config_items WHERE id = $1', [theirs.id])).rows[0])
      .toEqual({ name: theirs.name, agent_id: us.id });
    // a local (console) topology
    const { rows: [local] } = await ctx.db.query(`INSERT INTO topologies (name) VALUES ('local-topo') RETURNING id`);
    expect((await push(eu, { components: [component(local.id)] })).statusCode).toBe(409);
  });

  it('two components of one name and type under one parent: 409 naming the table, nothing stored', async () => {
    const t = topology();
    const a = component(t.id, randomUUID(), { name: 'dup' });
    const b = component(t.id, randomUUID(), { name: 'dup' });
    const r = await push(eu, { topologies: [t], components: [a, b] });
    expect(r.statusCode).toBe(409);
    expect(r.json().message).toMatch(/^components/);
    expect((await ctx.db.query('SELECT 1 FROM topologies WHERE id = $1', [t.id])).rowCount).toBe(0);
  });

  it('DELETE push removes the agent\'s listed items and components, never another agent\'s', async () => {
    const t = topology();
    const c = component(t.id);
    const mine = item(null);
    const change = { id: randomUUID(), config_id: mine.id, summary: 'gone soon' };
    const theirs = item(null);
    expect((await push(eu, { topologies: [t], components: [c], config_items: [mine], config_changes: [change] })).statusCode).toBe(200);
    expect((await push(us, { config_items: [theirs] })).statusCode).toBe(200);
    const r = await push(eu, { components: [{ id: c.id }], config_changes: [{ id: change.id }], config_items: [{ id: mine.id }, { id: theirs.id }] }, 'DELETE');
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json().counts).toMatchObject({ components: 1, config_changes: 1, config_items: 1 });
    expect((await ctx.db.query('SELECT 1 FROM config_items WHERE id = $1', [theirs.id])).rowCount).toBe(1);
    expect((await ctx.db.query('SELECT 1 FROM components WHERE id = $1', [c.id])).rowCount).toBe(0);
  });
});

describe('pushed results: rollups', () => {
  it('hourly and daily rollups (counts, durations, histograms, last pass/fail) equal what the raw results give, across pushes', async () => {
    const canary = { id: randomUUID(), name: 'roll', namespace: 'prod', spec: {} };
    const checks = [randomUUID(), randomUUID()].map((id, k) => ({ id, canary_id: canary.id, type: 'http', name: `roll-${k}` }));
    expect((await push(eu, { canaries: [canary], checks })).statusCode).toBe(200);
    // two hours of one day (and a result in the previous day), durations over several histogram buckets, some failing
    const base = Date.parse('2026-03-04T10:00:00Z');
    const results = Array.from({ length: 240 }, (_, i) => ({
      check_id: checks[i % 2].id, time: new Date(base - 3_600_000 * 11 + i * 60_000 * 3).toISOString(), duration: (i * 37) % 900,
      status: i % 7 !== 0, message: `r${i}`,
    }));
    // in three pushes, so rollup rows are both inserted and merged
    for (const part of [results.slice(0, 80), results.slice(80, 170), results.slice(170)]) {
      const r = await push(eu, { check_statuses: part });
      expect(r.statusCode, r.body).toBe(200);
    }
    for (const [table, unit] of [['check_statuses_1h', 'hour'], ['check_statuses_1d', 'day']] as const) {
      const { rows: got } = await ctx.db.query(
        `SELECT check_id::text, created_at, duration, total, passed, failed, latency, last_pass, last_fail FROM ${table}
         WHERE check_id = ANY($1::uuid[]) ORDER BY check_id, created_at`, [checks.map((c) => c.id)]);
      const { rows: want } = await ctx.db.query(
        `SELECT check_id::text, date_trunc('${unit}', time, 'UTC') AS created_at, sum(duration)::int AS duration, count(*)::int AS total,
                (count(*) FILTER (WHERE status))::int AS passed, (count(*) FILTER (WHERE NOT status))::int AS failed,
                latency_agg(duration) AS latency, max(time) FILTER (WHERE status) AS last_pass, max(time) FILTER (WHERE NOT status) AS last_fail
         FROM check_statuses WHERE check_id = ANY($1::uuid[]) GROUP BY 1, 2 ORDER BY 1, 2`, [checks.map((c) => c.id)]);
      expect(want.length).toBeGreaterThan(unit === 'hour' ? 10 : 1);
      expect(got, table).toEqual(want);
    }
  });
});

describe('pushed results: the parents already seen', () => {
  it('a check removed since its last results (DELETE push, or gone behind this replica\'s back) makes the next results 422', async () => {
    const canary = { id: randomUUID(), name: 'seen', namespace: 'prod', spec: {} };
    const checks = [randomUUID(), randomUUID()].map((id, k) => ({ id, canary_id: canary.id, type: 'http', name: `seen-${k}` }));
    expect((await push(eu, { canaries: [canary], checks })).statusCode).toBe(200);
    const result = (checkId: string, s: number) => ({ check_id: checkId, time: new Date(Date.now() - 100_000 + s * 1000).toISOString(), duration: 5, status: true });
    expect((await push(eu, { check_statuses: [result(checks[0].id, 1), result(checks[1].id, 1)] })).statusCode).toBe(200);
    // another agent may not hang results off them, seen or not
    expect((await push(us, { check_statuses: [result(checks[0].id, 2)] })).statusCode).toBe(409);
    // removed through DELETE push
    expect((await push(eu, { checks_unlogged: [{ check_id: checks[0].id }], check_statuses: [{ check_id: checks[0].id, time: result(checks[0].id, 1).time }], checks: [{ id: checks[0].id }] }, 'DELETE')).statusCode).toBe(200);
    const r1 = await push(eu, { check_statuses: [result(checks[0].id, 3)] });
    expect(r1.statusCode).toBe(422);
    expect(r1.json().message).toContain(checks[0].id);
    // removed directly in the database (as another replica would): the foreign key refuses, nothing stored
    await ctx.db.query('DELETE FROM check_statuses WHERE check_id = $1', [checks[1].id]);
    await ctx.db.query('DELETE FROM checks_unlogged WHERE check_id = $1', [checks[1].id]);
    await ctx.db.query('DELETE FROM check_statuses_1h WHERE check_id = $1', [checks[1].id]);
    await ctx.db.query('DELETE FROM check_statuses_1d WHERE check_id = $1', [checks[1].id]);
    await ctx.db.query('DELETE FROM checks WHERE id = $1', [checks[1].id]);
    const r2 = await push(eu, { check_statuses: [result(checks[1].id, 4)] });
    expect(r2.statusCode).toBe(422);
    expect(r2.json().message).toMatch(/^check_statuses/);
    expect((await ctx.db.query('SELECT 1 FROM check_statuses WHERE check_id = $1', [checks[1].id])).rowCount).toBe(0);
  });
});
