import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoSets, startDemoSets } from '../../server/lib/demo.js';
import { DEMO_SETS } from '../../server/modules/demo/index.js';
import { agentsDemo, consoleLogSelectors, consoleLogsSpec } from '../../server/modules/demo/agents.js';
import { consoleLogStream } from '../../server/modules/logs/ring-buffer.js';
import { liveTopology } from '../../server/modules/topology/runner/queries.js';
import { runTopology } from '../../server/modules/topology/runner/run.js';
import { until } from '../support/poll.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * The agents and logs demo (issue 16 "Gates and demo"): eu-west-prod generated with checks and statuses of its own
 * and kept Online by the in-process pinger (a real HTTP ping of this console's /api/upstream/ping with its own
 * token), us-east-staging Offline, and the ops-console component whose `console` selector answers this process's
 * own log lines through POST /api/logs.
 */

let t: TestContext;
let headers: Record<string, string>;
const SETS = DEMO_SETS.filter((s) => s.name === 'foundation' || s.name === 'agents');

beforeAll(async () => {
  // the app logs into the console ring as main.ts's does (the console backend's source)
  t = await createTestApp({ LOG_LEVEL: 'info' }, { logger: { level: 'info', stream: consoleLogStream(null) } });
  expect(await loadDemoSets(t.db, SETS)).toEqual(['foundation', 'agents']);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  await startDemoSets(t.app, [agentsDemo]);
  const admin = await makePerson(t.db, { roles: ['admin'] });
  headers = await sessionHeaders(t.db, admin.id);
}, 60_000);
afterAll(() => t?.close());

const summary = async (name: string) =>
  (await t.db.query<{ status: string; checks_count: string; person_id: string | null }>(
    'SELECT status, checks_count, person_id FROM agents_summary WHERE name = $1', [name])).rows[0];

describe('agents demo', () => {
  it('is registered before the topology set and loads once', async () => {
    const names = DEMO_SETS.map((s) => s.name);
    expect(names.indexOf('agents')).toBeGreaterThan(names.indexOf('foundation'));
    expect(names.at(-1)).toBe('topology');
    expect(await loadDemoSets(t.db, SETS)).toEqual([]);
    const { rows } = await t.db.query(`SELECT name, count(*)::int AS n FROM agents WHERE deleted_at IS NULL AND name IN ('eu-west-prod', 'us-east-staging') GROUP BY name ORDER BY name`);
    expect(rows).toEqual([{ name: 'eu-west-prod', n: 1 }, { name: 'us-east-staging', n: 1 }]);
  });

  it('eu-west-prod is a generated agent with checks and statuses of its own, one failing', async () => {
    const agent = (await t.db.query<{ id: string; person_type: string }>(
      `SELECT a.id, p.type AS person_type FROM agents a JOIN people p ON p.id = a.person_id
        WHERE a.name = 'eu-west-prod' AND a.deleted_at IS NULL`)).rows[0];
    expect(agent.person_type).toBe('agent');
    const checks = (await t.db.query<{ name: string; status: string; results: number }>(
      `SELECT c.name, c.status, (SELECT count(*)::int FROM check_statuses s WHERE s.check_id = c.id) AS results
         FROM checks c WHERE c.agent_id = $1 AND c.deleted_at IS NULL ORDER BY c.name`, [agent.id])).rows;
    expect(checks.length).toBe(4);
    expect(checks.filter((c) => c.status === 'unhealthy').map((c) => c.name)).toEqual(['payments-gateway']);
    expect(checks.every((c) => c.results > 0)).toBe(true);
    // the health API lists them with the agent's id (its badge)
    const res = await t.app.inject({ url: '/api/canary/api/summary', headers });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(agent.id);
  });

  it('eu-west-prod is Online by its pinger (a real ping with its own token), us-east-staging Offline', async () => {
    await until(async () => (await summary('eu-west-prod'))?.status === 'online', 'eu-west-prod online', 10_000);
    // a restart: the agent went quiet meanwhile; the new pinger (a new token, the old one deleted) brings it back
    await t.db.query(`UPDATE agents SET last_seen = now() - interval '2 minutes' WHERE name = 'eu-west-prod' AND deleted_at IS NULL`);
    expect((await summary('eu-west-prod')).status).toBe('offline');
    await startDemoSets(t.app, [agentsDemo]);
    await until(async () => (await summary('eu-west-prod'))?.status === 'online', 'eu-west-prod online again', 10_000);
    const tokens = await t.db.query(
      `SELECT 1 FROM access_tokens k JOIN agents a ON a.person_id = k.person_id WHERE a.name = 'eu-west-prod' AND k.name = 'demo-pinger'`);
    expect(tokens.rowCount).toBe(1);
    expect((await summary('us-east-staging')).status).toBe('offline');
  });

  it('ops-console is in components_with_logs and its console selector answers this process\'s log lines', async () => {
    const list = await t.app.inject({ url: '/api/db/components_with_logs?order=name.asc', headers });
    expect(list.statusCode).toBe(200);
    const component = (list.json() as Array<{ id: string; name: string }>).find((c) => c.name === 'ops-console');
    expect(component).toBeTruthy();
    t.app.log.info('agents demo test: a line for the console backend');
    const res = await t.app.inject({ method: 'POST', url: '/api/logs', headers, payload: { id: component!.id, query: 'agents demo test' } });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { total: number; results: Array<{ message: string }> };
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.results[0].message).toContain('a line for the console backend');
    const all = await t.app.inject({ method: 'POST', url: '/api/logs', headers, payload: { id: component!.id, name: 'console' } });
    expect((all.json() as { results: unknown[] }).results.length).toBeGreaterThan(1);
  });

  it('the topology engine keeps ops-console (same row, same selector) when it runs console-logs', async () => {
    const before = (await t.db.query<{ id: string; topology_id: string; log_selectors: unknown }>(
      `SELECT id, topology_id, log_selectors FROM components WHERE name = 'ops-console' AND deleted_at IS NULL`)).rows;
    expect(before.length).toBe(1);
    await runTopology({ db: t.db, log: t.app.log, lookup: async () => [], linkSteps: [] }, (await liveTopology(t.db, before[0].topology_id))!);
    const after = (await t.db.query(`SELECT id, topology_id, log_selectors FROM components WHERE name = 'ops-console' AND deleted_at IS NULL`)).rows;
    expect(after).toEqual(before);
  });

  it('in a cluster the selector and backend name this pod (kubernetes backend)', () => {
    const env = { POD_NAME: 'console-7d9f-abcde', POD_NAMESPACE: 'ops' };
    expect(consoleLogsSpec(env)).toEqual({ backends: [{ kubernetes: { namespace: 'ops', routes: [{ type: 'console' }] } }] });
    expect(consoleLogSelectors(env)[0].labels).toEqual({ app: 'ops-console', pod: 'console-7d9f-abcde', namespace: 'ops' });
    expect(consoleLogsSpec({})).toEqual({ backends: [{ console: { routes: [{ type: 'console' }] } }] });
  });
});
