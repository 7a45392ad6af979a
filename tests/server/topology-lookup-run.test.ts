import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoSets } from '../../server/lib/demo.js';
import { DEMO_SETS } from '../../server/modules/demo/index.js';
import { sendJson, startHttpServer, type HttpServer } from '../fixtures/servers/http.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * Lookups end to end (issue 13 "Runs"): a topology's lookups run by the topology runner (Run Now), their results saved
 * as components; the Ops Console demo topology run against the test database.
 */

let t: TestContext;
let http: HttpServer;
let admin: Record<string, string>;
let answer: unknown = [];

beforeAll(async () => {
  t = await createTestApp();
  http = await startHttpServer((_req, res) => sendJson(res, 200, answer));
  admin = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
});
afterAll(async () => {
  await http?.close();
  await t?.close();
});

async function topology(name: string, spec: Record<string, unknown>): Promise<string> {
  const { rows } = await t.db.query<{ id: string }>(
    `INSERT INTO topologies (name, namespace, spec, schedule, source) VALUES ($1, 'default', $2, '@never', 'UI') RETURNING id`, [name, spec]);
  return rows[0].id;
}

async function runNow(id: string) {
  const res = await t.app.inject({ method: 'POST', url: `/api/canary/run/topology/${id}`, headers: admin });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { status: string; count: string };
}

const children = async (topologyId: string, parent: string) => (await t.db.query<{ name: string; type: string; status_reason: string | null }>(
  `SELECT c.name, c.type, c.status_reason FROM components c JOIN components p ON p.id = c.parent_id
    WHERE c.topology_id = $1 AND p.name = $2 AND c.deleted_at IS NULL ORDER BY c.name`, [topologyId, parent])).rows;

describe('a lookup in a topology run', () => {
  it('lookup.http yielding 3 components makes 3 children; a failing lookup keeps the component with the reason', async () => {
    answer = [{ name: 'api', type: 'Service' }, { name: 'web', type: 'Service' }, { name: 'worker', type: 'Service' }];
    const id = await topology('shop', { components: [{ name: 'Services', type: 'Group', lookup: { http: [{ url: `${http.url}/services` }] } }] });
    expect(await runNow(id)).toEqual({ status: 'ok', count: '5' });
    expect(await children(id, 'Services')).toEqual(['api', 'web', 'worker'].map((name) => ({ name, type: 'Service', status_reason: null })));

    answer = [{ name: 'api' }, { type: 'nameless' }];
    await runNow(id);
    const { rows } = await t.db.query(`SELECT status_reason FROM components WHERE topology_id = $1 AND name = 'Services' AND deleted_at IS NULL`, [id]);
    expect(rows[0].status_reason).toBe('lookup.http.0: lookup result 1 has no name');
  });
});

describe('a property lookup in a topology run', () => {
  it('plain text from an exec or an expression is the property\'s value, not a JSON error', async () => {
    const id = await topology('props', { components: [{ name: 'box', type: 'Host', properties: [
      { name: 'load', lookup: { exec: [{ script: 'echo 42' }] } },
      { name: 'release', lookup: { http: [{ url: `${http.url}/x`, display: { expr: '"v1.2"' } }] } },
    ] }] });
    await runNow(id);
    const { rows } = await t.db.query<{ properties: Array<{ name: string; text?: string; value?: number; error?: string }> }>(
      `SELECT properties FROM components WHERE topology_id = $1 AND name = 'box' AND deleted_at IS NULL`, [id]);
    const props = Object.fromEntries(rows[0].properties.map((p) => [p.name, p]));
    expect(props.load).toMatchObject({ text: '42' }); // text stays text (a version such as 16.10 would lose its form as a number)
    expect(props.release).toMatchObject({ text: 'v1.2' });
    expect(JSON.stringify(props)).not.toMatch(/not JSON/);
  });
});

describe('the Ops Console demo, run', () => {
  it('adopts the demo\'s Database row, fills its properties, and lists the demo canaries', async () => {
    await loadDemoSets(t.db, DEMO_SETS);
    const { rows: [topo] } = await t.db.query<{ id: string }>(`SELECT id FROM topologies WHERE name = 'ops-console'`);
    const before = await t.db.query<{ id: string }>(`SELECT id FROM components WHERE topology_id = $1 AND name = 'Database'`, [topo.id]);
    await runNow(topo.id);
    const { rows } = await t.db.query<{ id: string; properties: Array<{ name: string; text?: string; value?: number; max?: number }> }>(
      `SELECT id, properties FROM components WHERE topology_id = $1 AND name = 'Database' AND deleted_at IS NULL`, [topo.id]);
    expect(rows.map((r) => r.id)).toEqual(before.rows.map((r) => r.id));
    const props = Object.fromEntries(rows[0].properties.map((p) => [p.name, p]));
    expect(props.version.text).toMatch(/^\d+/);
    expect(props.size.value).toBeGreaterThan(0);
    expect(props.connections.max).toBeGreaterThanOrEqual(props.connections.value!);
    expect((await children(topo.id, 'Health checks')).map((c) => c.name)).toEqual(['console-self', 'legacy-billing', 'platform-basics']);
    // each child's forEach selects its own canary's checks (by namespace); the HTTP server the console's own
    const links = await t.db.query(
      `SELECT c.name, count(r.check_id)::int AS checks FROM components c
         LEFT JOIN check_component_relationships r ON r.component_id = c.id AND r.deleted_at IS NULL
        WHERE c.topology_id = $1 AND c.deleted_at IS NULL AND c.type IN ('Canary', 'WebServer') GROUP BY c.name ORDER BY c.name`, [topo.id]);
    expect(links.rows).toEqual([
      { name: 'HTTP server', checks: 2 }, { name: 'console-self', checks: 2 }, { name: 'legacy-billing', checks: 1 }, { name: 'platform-basics', checks: 2 },
    ]);
  }, 180_000); // every demo set loads first (the catalog's replays a week): minutes on a loaded machine
});
