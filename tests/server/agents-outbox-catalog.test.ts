import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pusher } from '../../server/modules/agent-runtime/pusher.js';
import { RuntimeState } from '../../server/modules/agent-runtime/status.js';
import { UpstreamClient } from '../../server/modules/agent-runtime/upstream-client.js';
import { generateAgent } from '../../server/modules/agents/generate.js';
import { createTestApp, type TestContext } from './helpers.js';

/**
 * The agent's outbox carries its catalog and topology rows (0104): an agent database with a scraper, a three-level
 * item tree written in one transaction, a change, a topology and its components is pushed by the real Pusher to a
 * real upstream console on loopback, in batches smaller than the tree (a row's unpushed ancestors go along), and the
 * upstream holds every row once, under the agent.
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
  const g = await generateAgent(upstream.db, { name: 'edge-catalog', properties: { cluster: 'edge' }, createdBy: null });
  agent = { id: g.agent_id, token: g.access_token };
  agentDb = await createTestApp();
  // only what this test writes is in the agent's outbox
  for (const table of ['canaries', 'checks', 'checks_unlogged', 'check_statuses', 'job_history', 'topologies', 'config_scrapers', 'config_items',
    'config_changes', 'config_analysis', 'components']) {
    await agentDb.db.query(`UPDATE ${table} SET is_pushed = true WHERE NOT is_pushed`);
  }
});
afterAll(async () => {
  await agentDb?.close();
  await upstream?.close();
});

function pusher(batchRows: number) {
  const client = new UpstreamClient({ url: upstreamUrl, token: agent.token, agentName: 'edge-catalog' });
  const state = new RuntimeState(client.base, log);
  return { state, p: new Pusher({ db: agentDb.db, client, state, log, intervalMs: 50, backoffMaxMs: 200, bufferMax: 1_000_000, batchRows }) };
}

const q = async (sql: string, params: unknown[] = []) => (await agentDb.db.query(sql, params)).rows;

describe('the agent pushes its catalog and topology rows', () => {
  it('scraper, item tree (ancestors along with their children), change, topology and components arrive once, as the agent\'s', async () => {
    const c = await agentDb.db.connect();
    let ids: { scraper: string; cluster: string; ns: string; pod: string; topo: string; root: string; leaf: string; change: string };
    try {
      await c.query('BEGIN');
      const scraper = (await c.query(`INSERT INTO config_scrapers (name, spec, source) VALUES ('edge-k8s', '{"kubernetes":[{}]}', 'Agent') RETURNING id`)).rows[0].id;
      // children inserted before their parents' ids are known would need deferral: insert top-down, one transaction
      const cluster = (await c.query(`INSERT INTO config_items (scraper_id, config_class, type, name, external_id) VALUES ($1, 'Cluster', 'Kubernetes::Cluster', 'edge', '{edge}') RETURNING id`, [scraper])).rows[0].id;
      const ns = (await c.query(`INSERT INTO config_items (scraper_id, config_class, type, name, parent_id) VALUES ($1, 'Namespace', 'Kubernetes::Namespace', 'shop', $2) RETURNING id`, [scraper, cluster])).rows[0].id;
      const pod = (await c.query(`INSERT INTO config_items (scraper_id, config_class, type, name, parent_id, labels) VALUES ($1, 'Pod', 'Kubernetes::Pod', 'web-1', $2, '{"app":"web"}') RETURNING id`, [scraper, ns])).rows[0].id;
      const change = (await c.query(`INSERT INTO config_changes (config_id, change_type, summary) VALUES ($1, 'diff', 'image bumped') RETURNING id`, [pod])).rows[0].id;
      const topo = (await c.query(`INSERT INTO topologies (name, spec) VALUES ('edge-topo', '{}') RETURNING id`)).rows[0].id;
      const root = (await c.query(`INSERT INTO components (topology_id, external_id, name, type, config_id) VALUES ($1, 'root', 'shop', 'Namespace', $2) RETURNING id`, [topo, ns])).rows[0].id;
      const leaf = (await c.query(`INSERT INTO components (topology_id, external_id, name, type, parent_id) VALUES ($1, 'leaf', 'web', 'Service', $2) RETURNING id`, [topo, root])).rows[0].id;
      await c.query('COMMIT');
      ids = { scraper, cluster, ns, pod, topo, root, leaf, change };
    } finally {
      c.release();
    }
    // the pod (newest) alone would be refused upstream without its namespace and cluster: make them come later in order
    await q(`UPDATE config_items SET created_at = now() + interval '1 minute' WHERE id IN ($1, $2)`, [ids.cluster, ids.ns]);
    await q(`UPDATE config_items SET created_at = now() - interval '1 minute' WHERE id = $1`, [ids.pod]);

    const { p, state } = pusher(2);
    await p.cycle();
    expect(state.status.lastError ?? null, JSON.stringify(state.status)).toBeNull();
    expect(state.status.skippedRows).toBe(0);
    const left = await q(`SELECT (SELECT count(*) FROM config_items WHERE NOT is_pushed) + (SELECT count(*) FROM components WHERE NOT is_pushed)
      + (SELECT count(*) FROM config_changes WHERE NOT is_pushed) + (SELECT count(*) FROM topologies WHERE NOT is_pushed) AS n`);
    expect(Number(left[0].n)).toBe(0);

    const up = async (sql: string, params: unknown[]) => (await upstream.db.query(sql, params)).rows;
    const items = await up(`SELECT id::text, parent_id::text, agent_id::text, labels FROM config_items WHERE id = ANY($1::uuid[]) ORDER BY name`, [[ids.cluster, ids.ns, ids.pod]]);
    expect(items).toEqual([
      { id: ids.cluster, parent_id: null, agent_id: agent.id, labels: { cluster: 'edge' } },
      { id: ids.ns, parent_id: ids.cluster, agent_id: agent.id, labels: { cluster: 'edge' } },
      { id: ids.pod, parent_id: ids.ns, agent_id: agent.id, labels: { app: 'web', cluster: 'edge' } },
    ]);
    expect((await up('SELECT summary FROM config_changes WHERE id = $1', [ids.change]))[0].summary).toBe('image bumped');
    const comps = await up(`SELECT name, agent_id::text, topology_id::text FROM components WHERE id = ANY($1::uuid[]) ORDER BY name`, [[ids.root, ids.leaf]]);
    expect(comps).toEqual([
      { name: 'shop', agent_id: agent.id, topology_id: ids.topo },
      { name: 'web', agent_id: agent.id, topology_id: ids.topo },
    ]);
    expect((await up('SELECT agent_id::text FROM config_scrapers WHERE id = $1', [ids.scraper]))[0].agent_id).toBe(agent.id);

    // an edit goes again (the outbox trigger), and only that row
    await q(`UPDATE config_items SET health = 'unhealthy' WHERE id = $1`, [ids.pod]);
    expect(Number((await q('SELECT count(*) AS n FROM config_items WHERE NOT is_pushed'))[0].n)).toBe(1);
    await p.cycle();
    expect((await up('SELECT health FROM config_items WHERE id = $1', [ids.pod]))[0].health).toBe('unhealthy');
    expect(Number((await up('SELECT count(*) AS n FROM config_items WHERE agent_id = $1', [agent.id]))[0].n)).toBe(3);
  });
});
