import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveTopology } from '../../server/modules/topology/runner/queries.js';
import { TopologyRunner } from '../../server/modules/topology/runner/runner.js';
import { topologySchedule } from '../../server/modules/topology/runner/scheduler.js';
import type { LookupRunner } from '../../server/modules/topology/runner/types.js';
import { until } from '../support/poll.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * The engine around a run: one run per topology at a time (Run Now waits for the one under way), the scheduler runs
 * a topology as soon as it is saved, the schedule's defaults, and topology.disable.
 */
let t: TestContext;
let admin: Record<string, string>;
beforeAll(async () => {
  t = await createTestApp();
  admin = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
});
afterAll(async () => {
  await t?.close();
});

async function makeTopology(spec: Record<string, unknown>): Promise<string> {
  const res = await t.app.inject({
    method: 'POST', url: '/api/db/topologies', headers: { ...admin, prefer: 'return=representation' },
    payload: { name: `e-${Math.random().toString(36).slice(2, 8)}`, namespace: 'default', spec } as never,
  });
  expect(res.statusCode, res.payload).toBe(201);
  return res.json()[0].id;
}
const jobs = async (id: string) =>
  (await t.db.query(`SELECT status, time_start, time_end FROM job_history WHERE resource_id = $1 AND name = 'TopologyRun' ORDER BY time_start`, [id])).rows;

describe('one run per topology at a time', () => {
  it('a second run waits for the first to end, then runs (its answer is a run that began after the request)', async () => {
    const id = await makeTopology({ schedule: '@never', components: [{ name: 'slow', lookup: { exec: [{ script: 'x' }] } }] });
    let calls = 0;
    let open = 0;
    let overlapped = false;
    const lookup: LookupRunner = async () => {
      calls++;
      open++;
      if (open > 1) overlapped = true;
      await new Promise((r) => setTimeout(r, 300));
      open--;
      return [{ name: `child-${calls}` }];
    };
    const runner = new TopologyRunner({ db: t.db, log: t.app.log, parts: async () => ({ lookup, linkSteps: [] }) });
    const topology = (await liveTopology(t.db, id))!;
    const first = runner.run(topology);
    expect(runner.isRunning(id)).toBe(true);
    const [a, b] = await Promise.all([first, runner.run(topology)]);
    expect([a.status, b.status]).toEqual(['SUCCESS', 'SUCCESS']);
    expect(overlapped).toBe(false);
    const rows = await jobs(id);
    expect(rows).toHaveLength(2);
    expect(rows[1].time_start.getTime()).toBeGreaterThanOrEqual(rows[0].time_end.getTime());
    // the second run's result replaced the first's: child-1 soft-deleted, child-2 live
    const live = await t.db.query(`SELECT name FROM components WHERE topology_id = $1 AND deleted_at IS NULL ORDER BY name`, [id]);
    expect(live.rows.map((r) => r.name)).toEqual(expect.arrayContaining(['child-2', 'slow']));
    expect(live.rows.map((r) => r.name)).not.toContain('child-1');
  });
});

describe('the scheduler', () => {
  it('runs a topology as soon as it is saved, and again when its spec changes', async () => {
    const id = await makeTopology({ schedule: '@every 1h', components: [{ name: 'first' }] });
    await until(async () => (await jobs(id)).find((j) => j.status === 'SUCCESS'), 'the run after the save', 30_000);
    await t.app.inject({
      method: 'PATCH', url: `/api/db/topologies?id=eq.${id}`, headers: admin,
      payload: { spec: { schedule: '@every 1h', components: [{ name: 'second' }] } } as never,
    });
    await until(async () => (await t.db.query(`SELECT 1 FROM components WHERE topology_id = $1 AND name = 'second' AND deleted_at IS NULL`, [id])).rowCount || undefined,
      'the run after the change', 30_000);
  });

  it('schedules the spec\'s schedule, else every 10 minutes, never faster than every 30 s', () => {
    expect(topologySchedule({ spec: {}, schedule: null })).toMatchObject({ kind: 'every', everyMs: 600_000 });
    expect(topologySchedule({ spec: { schedule: '@every 5s' }, schedule: null })).toMatchObject({ kind: 'every', everyMs: 30_000 });
    expect(topologySchedule({ spec: {}, schedule: '@every 2m' })).toMatchObject({ kind: 'every', everyMs: 120_000 });
    expect(topologySchedule({ spec: { schedule: '@never' }, schedule: null }).kind).toBe('never');
  });

  it('topology.disable refuses Run Now', async () => {
    const id = await makeTopology({ schedule: '@never', components: [{ name: 'a' }] });
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('topology.disable', 'true')`);
    try {
      const res = await t.app.inject({ method: 'POST', url: `/api/canary/run/topology/${id}`, headers: admin });
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toBe('topology is disabled');
    } finally {
      await t.db.query(`DELETE FROM properties WHERE name = 'topology.disable'`);
    }
  });
});

describe('MODE=agent', () => {
  it('starts no topology scheduler: a saved topology runs only when asked (Run Now)', async () => {
    const agent = await createTestApp({ MODE: 'agent' });
    try {
      const headers = await sessionHeaders(agent.db, (await makePerson(agent.db, { roles: ['admin'] })).id);
      const save = async (name: string, schedule: string) => {
        const res = await agent.app.inject({
          method: 'POST', url: '/api/db/topologies', headers: { ...headers, prefer: 'return=representation' },
          payload: { name, namespace: 'default', spec: { schedule, components: [{ name: 'c' }] } } as never,
        });
        expect(res.statusCode, res.payload).toBe(201);
        return res.json()[0].id as string;
      };
      // a console's scheduler runs this one as soon as it is saved (the scheduler test above)
      const scheduled = await save('agent-scheduled', '@every 1h');
      const asked = await save('agent-asked', '@never');
      const run = await agent.app.inject({ method: 'POST', url: `/api/canary/run/topology/${asked}`, headers });
      expect(run.statusCode, run.payload).toBe(200);
      const ran = async (id: string) =>
        (await agent.db.query(`SELECT 1 FROM job_history WHERE resource_id = $1 AND name = 'TopologyRun'`, [id])).rowCount;
      expect(await ran(asked)).toBe(1);
      expect(await ran(scheduled)).toBe(0);
    } finally {
      await agent.close();
    }
  });
});
