import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pusher } from '../../server/modules/agent-runtime/pusher.js';
import { OUTBOX_TABLES } from '../../server/modules/agent-runtime/queries.js';
import { RuntimeState } from '../../server/modules/agent-runtime/status.js';
import { UpstreamClient } from '../../server/modules/agent-runtime/upstream-client.js';
import { generateAgent } from '../../server/modules/agents/generate.js';
import { createTestApp, type TestContext } from './helpers.js';

/**
 * The agent's outbox carries relationships and last scrape times (0106): an agent database whose scraper wrote an item
 * tree (the parent_id trigger's `hard` link), a `uses` link and scrape times, and whose topology linked components to
 * each other, to an item and to a check, is pushed by the real Pusher to a real upstream console on loopback. A
 * soft-delete on the agent arrives as deleted_at; a link whose item the upstream lost (422) puts the item back in
 * the outbox and then arrives.
 */

let agentDb: TestContext;
let upstream: TestContext;
let upstreamUrl: string;
let agent: { id: string; token: string };
const log = { info: () => {}, warn: () => {}, error: () => {} };

beforeAll(async () => {
  upstream = await createTestApp();
  await upstream.app.listen({ port: 0, host: '127.0.0.1' });
  upstreamUrl = `http://127.0.0.1:${(upstream.app.server.address() as AddressInfo).port}`;
  const g = await generateAgent(upstream.db, { name: 'edge-links', properties: {}, createdBy: null });
  agent = { id: g.agent_id, token: g.access_token };
  agentDb = await createTestApp();
  // only what this test writes is in the agent's outbox
  for (const { table } of OUTBOX_TABLES) await agentDb.db.query(`UPDATE ${table} SET is_pushed = true WHERE NOT is_pushed`);
});
afterAll(async () => {
  await agentDb?.close();
  await upstream?.close();
});

function pusher(batchRows: number) {
  const client = new UpstreamClient({ url: upstreamUrl, token: agent.token, agentName: 'edge-links' });
  const state = new RuntimeState(client.base, log);
  return { state, p: new Pusher({ db: agentDb.db, client, state, log, intervalMs: 50, backoffMaxMs: 200, bufferMax: 1_000_000, batchRows }) };
}

const q = async (sql: string, params: unknown[] = []) => (await agentDb.db.query(sql, params)).rows;
const up = async (sql: string, params: unknown[] = []) => (await upstream.db.query(sql, params)).rows;

describe('the agent pushes its relationships and scrape times', () => {
  it('links arrive once with their ends, a soft-delete follows, and a link whose item the upstream lost is repaired', async () => {
    const one = async (sql: string, params: unknown[] = []) => (await q(sql, params))[0].id as string;
    const scraper = await one(`INSERT INTO config_scrapers (name, spec, source) VALUES ('edge-k8s', '{"kubernetes":[{}]}', 'Agent') RETURNING id`);
    const ns = await one(`INSERT INTO config_items (scraper_id, config_class, type, name) VALUES ($1, 'Namespace', 'Kubernetes::Namespace', 'shop') RETURNING id`, [scraper]);
    const deploy = await one(`INSERT INTO config_items (scraper_id, config_class, type, name, parent_id) VALUES ($1, 'Deployment', 'Kubernetes::Deployment', 'web', $2) RETURNING id`, [scraper, ns]);
    const db = await one(`INSERT INTO config_items (scraper_id, config_class, type, name, parent_id) VALUES ($1, 'StatefulSet', 'Kubernetes::StatefulSet', 'db', $2) RETURNING id`, [scraper, ns]);
    await q(`INSERT INTO config_relationships (config_id, related_id, relation, scraper_id) VALUES ($1, $2, 'uses', $3)`, [deploy, db, scraper]);
    await q(`INSERT INTO config_items_last_scraped_time (config_id, last_scraped_time) VALUES ($1, now()), ($2, now()), ($3, now())`, [ns, deploy, db]);
    const topo = await one(`INSERT INTO topologies (name, spec) VALUES ('edge-topo', '{}') RETURNING id`);
    const web = await one(`INSERT INTO components (topology_id, external_id, name, type) VALUES ($1, 'web', 'web', 'Service') RETURNING id`, [topo]);
    const api = await one(`INSERT INTO components (topology_id, external_id, name, type) VALUES ($1, 'api', 'api', 'Service') RETURNING id`, [topo]);
    await q(`INSERT INTO component_relationships (component_id, relationship_id, selector_id) VALUES ($1, $2, 'sel')`, [api, web]);
    await q(`INSERT INTO config_component_relationships (component_id, config_id, selector_id) VALUES ($1, $2, 'cfg')`, [web, deploy]);
    const canary = await one(`INSERT INTO canaries (name, spec) VALUES ('edge-canary', '{}') RETURNING id`);
    const check = await one(`INSERT INTO checks (canary_id, type, name) VALUES ($1, 'http', 'edge-http') RETURNING id`, [canary]);
    await q(`INSERT INTO check_component_relationships (component_id, check_id, canary_id, selector_id) VALUES ($1, $2, $3, 'chk')`, [web, check, canary]);

    // batches of 3 rows: the links wait for their ends' batches
    const { p, state } = pusher(3);
    await p.cycle();
    expect(state.status.lastError ?? null, JSON.stringify(state.status)).toBeNull();
    expect(state.status.skippedRows).toBe(0);
    const left = await q(OUTBOX_TABLES.map((t) => `SELECT count(*)::int AS n FROM ${t.table} WHERE NOT is_pushed`).join(' UNION ALL '));
    expect(left.reduce((s, r) => s + r.n, 0)).toBe(0);

    const links = await up(`SELECT config_id::text, related_id::text, relation, scraper_id::text FROM config_relationships
      WHERE config_id = ANY($1::uuid[]) ORDER BY relation, related_id`, [[ns, deploy]]);
    expect(links).toEqual([
      ...[deploy, db].sort().map((id) => ({ config_id: ns, related_id: id, relation: 'hard', scraper_id: scraper })),
      { config_id: deploy, related_id: db, relation: 'uses', scraper_id: scraper },
    ]);
    expect(await up('SELECT count(*)::int AS n FROM config_items_last_scraped_time WHERE config_id = ANY($1::uuid[])', [[ns, deploy, db]])).toEqual([{ n: 3 }]);
    expect(await up('SELECT selector_id FROM component_relationships WHERE component_id = $1 AND relationship_id = $2', [api, web])).toEqual([{ selector_id: 'sel' }]);
    expect(await up('SELECT selector_id FROM config_component_relationships WHERE component_id = $1 AND config_id = $2', [web, deploy])).toEqual([{ selector_id: 'cfg' }]);
    expect(await up('SELECT selector_id FROM check_component_relationships WHERE component_id = $1 AND check_id = $2', [web, check])).toEqual([{ selector_id: 'chk' }]);

    // a scrape that no longer sees the link soft-deletes it: the row goes again (the outbox trigger) and only it
    await q(`UPDATE config_relationships SET deleted_at = now() WHERE config_id = $1 AND relation = 'uses'`, [deploy]);
    await q(`UPDATE component_relationships SET deleted_at = now() WHERE component_id = $1`, [api]);
    const waiting = await q(OUTBOX_TABLES.map((t) => `SELECT '${t.table}' AS t, count(*)::int AS n FROM ${t.table} WHERE NOT is_pushed`).join(' UNION ALL '));
    expect(waiting.filter((r) => r.n > 0)).toEqual([{ t: 'config_relationships', n: 1 }, { t: 'component_relationships', n: 1 }]);
    await p.cycle();
    expect((await up(`SELECT deleted_at FROM config_relationships WHERE config_id = $1 AND relation = 'uses'`, [deploy]))[0].deleted_at).not.toBeNull();
    expect((await up('SELECT deleted_at FROM component_relationships WHERE component_id = $1', [api]))[0].deleted_at).not.toBeNull();

    // the upstream lost an item (removed there): a link to it is 422; the pusher puts the item back, then the link arrives
    await upstream.db.query('DELETE FROM config_items_last_scraped_time WHERE config_id = $1', [db]);
    await upstream.db.query('DELETE FROM config_relationships WHERE config_id = $1 OR related_id = $1', [db]);
    await upstream.db.query('DELETE FROM config_items WHERE id = $1', [db]);
    await q(`UPDATE config_relationships SET deleted_at = NULL WHERE config_id = $1 AND relation = 'uses'`, [deploy]);
    await p.cycle();
    expect(state.status.skippedRows).toBe(0);
    expect(await up('SELECT agent_id::text FROM config_items WHERE id = $1', [db])).toEqual([{ agent_id: agent.id }]);
    expect(await up(`SELECT deleted_at FROM config_relationships WHERE config_id = $1 AND related_id = $2 AND relation = 'uses'`, [deploy, db]))
      .toEqual([{ deleted_at: null }]);
  });
});
