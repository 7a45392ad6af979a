import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from './helpers.js';
import { generateAgent } from '../../server/modules/agents/generate.js';

/**
 * Pushed relationship tables and last scrape times (issue 16): config_relationships, component_relationships,
 * config_component_relationships, check_config_relationships, check_component_relationships and
 * config_items_last_scraped_time through POST /api/upstream/push. A row is the agent's when everything it points at
 * is; pointing at another agent's or the console's rows is refused naming the row, nothing of the batch stored.
 */

let ctx: TestContext;

interface TestAgent { id: string; name: string; token: string }

async function makeAgent(name: string): Promise<TestAgent> {
  const g = await generateAgent(ctx.db, { name, properties: {}, createdBy: null });
  return { id: g.agent_id, name, token: g.access_token };
}

function push(a: TestAgent, payload: unknown, method: 'POST' | 'DELETE' = 'POST') {
  return ctx.app.inject({ method, url: '/api/upstream/push', headers: { authorization: `Bearer ${a.token}` }, payload: payload as object });
}

const q = async (sql: string, params: unknown[] = []) => (await ctx.db.query(sql, params)).rows;

const scraper = (id = randomUUID()) => ({ id, name: `s-${id.slice(0, 6)}`, spec: { kubernetes: [{}] }, source: 'KubernetesCRD' });
const item = (scraperId: string | null, id = randomUUID(), extra: Record<string, unknown> = {}) => ({
  id, scraper_id: scraperId, config_class: 'Deployment', type: 'Kubernetes::Deployment', name: `d-${id.slice(0, 6)}`, ...extra,
});
const topology = (id = randomUUID()) => ({ id, name: `t-${id.slice(0, 6)}`, namespace: 'prod', spec: {} });
const component = (topologyId: string, id = randomUUID()) => ({ id, topology_id: topologyId, name: `c-${id.slice(0, 6)}`, type: 'Service', external_id: id });
const canary = (id = randomUUID()) => ({ id, name: `k-${id.slice(0, 6)}`, namespace: 'prod', spec: {} });
const check = (canaryId: string, id = randomUUID()) => ({ id, canary_id: canaryId, type: 'http', name: `h-${id.slice(0, 6)}` });

/** One agent's full graph: a scraper and two items, a topology with two components, a canary and a check. */
function graph() {
  const s = scraper();
  const a = item(s.id);
  const b = item(s.id);
  const t = topology();
  const c1 = component(t.id);
  const c2 = component(t.id);
  const k = canary();
  const h = check(k.id);
  return { s, a, b, t, c1, c2, k, h, base: { config_scrapers: [s], config_items: [a, b], topologies: [t], components: [c1, c2], canaries: [k], checks: [h] } };
}

let eu: TestAgent;
let us: TestAgent;

beforeAll(async () => {
  ctx = await createTestApp();
  eu = await makeAgent('eu-rel');
  us = await makeAgent('us-rel');
});
afterAll(async () => ctx?.close());

describe('push of relationship tables and last scrape times', () => {
  it('stores each table (ends in the same batch), and a replay rewrites nothing', async () => {
    const g = graph();
    const scraped = '2026-11-27T10:00:00.123456Z';
    const body = {
      ...g.base,
      config_relationships: [{ config_id: g.a.id, related_id: g.b.id, relation: 'uses', scraper_id: g.s.id, selector_id: null }],
      component_relationships: [{ component_id: g.c2.id, relationship_id: g.c1.id, selector_id: 'sel-1', relationship_path: g.c1.id }],
      config_component_relationships: [{ component_id: g.c1.id, config_id: g.a.id, selector_id: 'cfg' }],
      check_config_relationships: [{ config_id: g.b.id, check_id: g.h.id, canary_id: g.k.id, selector_id: '' }],
      check_component_relationships: [{ component_id: g.c1.id, check_id: g.h.id, canary_id: g.k.id, selector_id: 'chk' }],
      config_items_last_scraped_time: [{ config_id: g.a.id, last_scraped_time: scraped }],
    };
    const r = await push(eu, body);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json().counts).toMatchObject({
      config_relationships: 1, component_relationships: 1, config_component_relationships: 1, check_config_relationships: 1,
      check_component_relationships: 1, config_items_last_scraped_time: 1,
    });
    expect(await q('SELECT relation, scraper_id::text, selector_id, deleted_at FROM config_relationships WHERE config_id = $1 AND related_id = $2', [g.a.id, g.b.id]))
      .toEqual([{ relation: 'uses', scraper_id: g.s.id, selector_id: null, deleted_at: null }]);
    expect(await q('SELECT selector_id, relationship_path FROM component_relationships WHERE component_id = $1 AND relationship_id = $2', [g.c2.id, g.c1.id]))
      .toEqual([{ selector_id: 'sel-1', relationship_path: g.c1.id }]);
    expect(await q('SELECT selector_id FROM config_component_relationships WHERE component_id = $1 AND config_id = $2', [g.c1.id, g.a.id]))
      .toEqual([{ selector_id: 'cfg' }]);
    expect(await q('SELECT selector_id FROM check_config_relationships WHERE config_id = $1 AND check_id = $2', [g.b.id, g.h.id])).toEqual([{ selector_id: '' }]);
    expect(await q('SELECT selector_id FROM check_component_relationships WHERE component_id = $1 AND check_id = $2', [g.c1.id, g.h.id])).toEqual([{ selector_id: 'chk' }]);
    const [last] = await q('SELECT last_scraped_time FROM config_items_last_scraped_time WHERE config_id = $1', [g.a.id]);
    expect((last.last_scraped_time as Date).toISOString()).toBe('2026-11-27T10:00:00.123Z');
    // the catalog's detail view reads the scrape time of a pushed item
    expect((await q('SELECT last_scraped_time FROM config_detail WHERE id = $1', [g.a.id]))[0].last_scraped_time).not.toBeNull();

    // replayed (the answer to a committed push lost): no row version changes, no duplicate
    const versions = async () => q(`
      SELECT 'cr' AS t, xmin::text FROM config_relationships WHERE config_id = $1
      UNION ALL SELECT 'comp', xmin::text FROM component_relationships WHERE component_id = $2
      UNION ALL SELECT 'ccr', xmin::text FROM config_component_relationships WHERE component_id = $3
      UNION ALL SELECT 'chcfg', xmin::text FROM check_config_relationships WHERE check_id = $4
      UNION ALL SELECT 'chcomp', xmin::text FROM check_component_relationships WHERE check_id = $4
      UNION ALL SELECT 'last', xmin::text FROM config_items_last_scraped_time WHERE config_id = $1 ORDER BY 1`,
    [g.a.id, g.c2.id, g.c1.id, g.h.id]);
    const before = await versions();
    expect(before).toHaveLength(6);
    const again = await push(eu, body);
    expect(again.statusCode, again.body).toBe(200);
    expect(await versions()).toEqual(before);
    // the same relationship twice in one batch (selector_id null or left out): one row
    const twice = await push(eu, { config_relationships: [
      { config_id: g.a.id, related_id: g.b.id, relation: 'uses', scraper_id: g.s.id, selector_id: null },
      { config_id: g.a.id, related_id: g.b.id, relation: 'uses', scraper_id: g.s.id },
    ] });
    expect(twice.statusCode, twice.body).toBe(200);
    expect(await q('SELECT count(*)::int AS n FROM config_relationships WHERE config_id = $1 AND related_id = $2', [g.a.id, g.b.id])).toEqual([{ n: 1 }]);
  });

  it('a row pushed with deleted_at is soft-deleted, and revived by a later push without it; an older scrape time never wins', async () => {
    const g = graph();
    const rel = { component_id: g.c2.id, relationship_id: g.c1.id, selector_id: 'x' };
    const ccr = { component_id: g.c1.id, config_id: g.a.id };
    expect((await push(eu, { ...g.base, component_relationships: [rel], config_component_relationships: [ccr] })).statusCode).toBe(200);
    const gone = '2026-11-27T11:00:00Z';
    const r = await push(eu, { component_relationships: [{ ...rel, deleted_at: gone }], config_component_relationships: [{ ...ccr, deleted_at: gone }] });
    expect(r.statusCode, r.body).toBe(200);
    expect((await q('SELECT deleted_at FROM component_relationships WHERE component_id = $1', [g.c2.id]))[0].deleted_at).toEqual(new Date(gone));
    expect((await q('SELECT deleted_at FROM config_component_relationships WHERE component_id = $1', [g.c1.id]))[0].deleted_at).toEqual(new Date(gone));
    expect((await push(eu, { component_relationships: [rel] })).statusCode).toBe(200);
    expect((await q('SELECT deleted_at FROM component_relationships WHERE component_id = $1', [g.c2.id]))[0].deleted_at).toBeNull();

    const newer = '2026-11-27T12:00:00Z';
    expect((await push(eu, { config_items_last_scraped_time: [{ config_id: g.b.id, last_scraped_time: newer }] })).statusCode).toBe(200);
    expect((await push(eu, { config_items_last_scraped_time: [{ config_id: g.b.id, last_scraped_time: '2026-11-27T09:00:00Z' }] })).statusCode).toBe(200);
    expect((await q('SELECT last_scraped_time FROM config_items_last_scraped_time WHERE config_id = $1', [g.b.id]))[0].last_scraped_time).toEqual(new Date(newer));
  });

  it('refuses rows pointing at another agent\'s or the console\'s rows (409 naming the row and field), unknown ones (422), bad rows (400); nothing stored', async () => {
    const mine = graph();
    const theirs = graph();
    expect((await push(us, theirs.base)).statusCode).toBe(200);
    const [localItem] = await q(`INSERT INTO config_items (config_class, type, name) VALUES ('Node', 'Kubernetes::Node', 'console-node') RETURNING id::text`);
    const newItem = item(mine.s.id);
    const cases: Array<[string, Record<string, unknown>, number, RegExp]> = [
      ['config_relationships', { config_relationships: [
        { config_id: mine.a.id, related_id: mine.b.id, relation: 'ok' },
        { config_id: mine.a.id, related_id: theirs.a.id, relation: 'steal' }] }, 409, /^config_relationships\[1\]\.related_id: .*belong to another agent/],
      ['config_relationships (console)', { config_relationships: [{ config_id: localItem.id, related_id: mine.a.id }] }, 409, /^config_relationships\[0\]\.config_id/],
      ['config_relationships (scraper)', { config_relationships: [{ config_id: mine.a.id, related_id: mine.b.id, scraper_id: theirs.s.id }] }, 409, /^config_relationships\[0\]\.scraper_id/],
      ['component_relationships', { component_relationships: [{ component_id: theirs.c1.id, relationship_id: mine.c1.id }] }, 409, /^component_relationships\[0\]\.component_id/],
      ['config_component_relationships', { config_component_relationships: [{ component_id: mine.c1.id, config_id: theirs.b.id }] }, 409, /^config_component_relationships\[0\]\.config_id/],
      ['check_config_relationships', { check_config_relationships: [{ config_id: mine.a.id, check_id: theirs.h.id, canary_id: theirs.k.id }] }, 409, /^check_config_relationships\[0\]\.check_id/],
      ['check_component_relationships', { check_component_relationships: [{ component_id: mine.c1.id, check_id: mine.h.id, canary_id: theirs.k.id }] }, 409, /^check_component_relationships\[0\]\.canary_id/],
      ['config_items_last_scraped_time', { config_items_last_scraped_time: [{ config_id: localItem.id }] }, 409, /^config_items_last_scraped_time\[0\]\.config_id/],
      ['unknown end', { config_relationships: [{ config_id: mine.a.id, related_id: randomUUID() }] }, 422, /^config_relationships\[0\]\.related_id: unknown config_items/],
      ['bad row', { component_relationships: [{ component_id: mine.c1.id, relationship_id: 'nope' }] }, 400, /^component_relationships\[0\]\.relationship_id/],
      ['bad time', { config_items_last_scraped_time: [{ config_id: mine.a.id, last_scraped_time: 'yesterday' }] }, 400, /^config_items_last_scraped_time\[0\]\.last_scraped_time/],
    ];
    for (const [name, rels, status, message] of cases) {
      // the agent's own new item in the same batch must not be stored either
      const r = await push(eu, { ...mine.base, config_items: [mine.a, mine.b, newItem], ...rels });
      expect(r.statusCode, `${name}: ${r.body}`).toBe(status);
      expect(r.json().message, name).toMatch(message);
      expect((await q('SELECT 1 FROM config_items WHERE id = $1', [newItem.id])).length, name).toBe(0);
    }
    expect(await q('SELECT count(*)::int AS n FROM config_relationships WHERE config_id = ANY($1::uuid[]) OR related_id = ANY($1::uuid[])', [[mine.a.id, mine.b.id, localItem.id]]))
      .toEqual([{ n: 0 }]);
    expect(await q('SELECT count(*)::int AS n FROM config_items_last_scraped_time WHERE config_id = $1', [localItem.id])).toEqual([{ n: 0 }]);
  });

  it('DELETE push removes the agent\'s listed relationship rows by the reference\'s keys, never another agent\'s', async () => {
    const mine = graph();
    const theirs = graph();
    const rels = (g: ReturnType<typeof graph>) => ({
      config_relationships: [{ config_id: g.a.id, related_id: g.b.id, relation: 'uses', scraper_id: g.s.id }],
      component_relationships: [{ component_id: g.c2.id, relationship_id: g.c1.id }],
      config_component_relationships: [{ component_id: g.c1.id, config_id: g.a.id }],
      check_config_relationships: [{ config_id: g.a.id, check_id: g.h.id, canary_id: g.k.id, selector_id: 's' }],
      check_component_relationships: [{ component_id: g.c1.id, check_id: g.h.id, canary_id: g.k.id }],
      config_items_last_scraped_time: [{ config_id: g.a.id }],
    });
    expect((await push(eu, { ...mine.base, ...rels(mine) })).statusCode).toBe(200);
    expect((await push(us, { ...theirs.base, ...rels(theirs) })).statusCode).toBe(200);
    // eu lists its own rows and us's: only its own go
    const both = Object.fromEntries(Object.entries(rels(mine)).map(([k, v]) => [k, [...v, ...(rels(theirs) as Record<string, unknown[]>)[k]]]));
    const r = await push(eu, both, 'DELETE');
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json().counts).toEqual({
      config_relationships: 1, component_relationships: 1, config_component_relationships: 1, check_config_relationships: 1,
      check_component_relationships: 1, config_items_last_scraped_time: 1,
    });
    const count = async (g: ReturnType<typeof graph>) => (await q(`SELECT
      (SELECT count(*) FROM config_relationships WHERE config_id = $1 AND relation = 'uses')
      + (SELECT count(*) FROM component_relationships WHERE component_id = $2)
      + (SELECT count(*) FROM config_component_relationships WHERE config_id = $1)
      + (SELECT count(*) FROM check_config_relationships WHERE config_id = $1)
      + (SELECT count(*) FROM check_component_relationships WHERE component_id = $3)
      + (SELECT count(*) FROM config_items_last_scraped_time WHERE config_id = $1) AS n`, [g.a.id, g.c2.id, g.c1.id]))[0].n;
    expect(Number(await count(mine))).toBe(0);
    expect(Number(await count(theirs))).toBe(6);
    // a key part given as the wrong type is 400 naming it
    const bad = await push(eu, { config_relationships: [{ config_id: mine.a.id, related_id: mine.b.id, scraper_id: 'x' }] }, 'DELETE');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/^config_relationships\[0\]\.scraper_id/);
  });
});
