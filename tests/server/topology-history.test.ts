import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryResponse } from '../../server/contracts/topology-extra.js';
import { recordResult } from '../../server/modules/health/queries.js';
import { pruneStatusHistory } from '../../server/modules/topology/history.js';
import { bearerHeaders, makePerson, type TestContext } from './helpers.js';
import { TOPO, topologyTestApp } from './topology-fixtures.js';

// Health history: component_status_history written by 0063's trigger when the roll-up changes a status, read by
// GET /api/topology/{id}/history, kept 30 days.

let t: TestContext;
let viewer: Record<string, string>;

const history = (id: string, query = '') =>
  t.app.inject({ method: 'GET', url: `/api/topology/${id}/history${query ? `?${query}` : ''}`, headers: viewer });
const rows = async (id: string) => (await t.db.query(
  'SELECT status, previous FROM component_status_history WHERE component_id = $1 ORDER BY at', [id])).rows;

const result = (pass: boolean, time = new Date()) => recordResult(t.db, {
  checkId: TOPO.check1, canaryId: TOPO.canary, time, duration: 5, pass, invalid: false, message: null,
  error: pass ? null : 'HTTP 503', details: null, severity: null, nextRuntime: null,
});

beforeAll(async () => {
  ({ t, viewer } = await topologyTestApp());
  // seeding is history of its own (unknown → healthy as the roll-up first counts); the tests start from a clean slate
  await t.db.query('DELETE FROM component_status_history');
});
afterAll(() => t.close());

describe('component_status_history', () => {
  it('records each status the roll-up changes when a check fails, and nothing for a result that changes none', async () => {
    await result(false);
    expect(await rows(TOPO.web1)).toEqual([{ status: 'unhealthy', previous: 'healthy' }]);
    expect(await rows(TOPO.web)).toEqual([{ status: 'warning', previous: 'healthy' }]);
    expect(await rows(TOPO.ops)).toEqual([{ status: 'warning', previous: 'healthy' }]);
    expect(await rows(TOPO.web2)).toEqual([]);
    // a second failing result: the check's status stays, so nothing rolls up and nothing is written
    await result(false, new Date(Date.now() + 1000));
    expect(await rows(TOPO.web1)).toHaveLength(1);
    // a write to a component that leaves its status alone (the roll-up's summary too) writes nothing
    await t.db.query(`UPDATE components SET description = 'edited' WHERE id = $1`, [TOPO.web1]);
    expect(await rows(TOPO.web1)).toHaveLength(1);
    await result(true, new Date(Date.now() + 2000));
    expect(await rows(TOPO.web1)).toEqual([{ status: 'unhealthy', previous: 'healthy' }, { status: 'healthy', previous: 'unhealthy' }]);
  });

  it('answers the transitions newest first and the 7-day strip, each segment the worst status in it', async () => {
    const res = await history(TOPO.web1);
    expect(res.statusCode, res.payload).toBe(200);
    const body = HistoryResponse.parse(res.json());
    expect(body.status).toBe('healthy');
    expect(body.transitions.map((x) => [x.previous, x.status])).toEqual([['unhealthy', 'healthy'], ['healthy', 'unhealthy']]);
    expect(body.buckets).toHaveLength(28);
    const starts = body.buckets.map((b) => Date.parse(b.start));
    expect(starts.every((s, i) => i === 0 || s - starts[i - 1] === 6 * 3_600_000)).toBe(true);
    expect(new Date(starts[27]).getUTCHours() % 6).toBe(0);
    // the component was created moments ago: earlier segments are null, the current one held unhealthy for a while
    expect(body.buckets.at(-1)!.status).toBe('unhealthy');
    expect(body.buckets.slice(0, 27).every((b) => b.status === null)).toBe(true);
  });

  it('builds the strip from older transitions: the status before the window carries into it', async () => {
    const h = 3_600_000;
    const now = Date.now();
    await t.db.query(`UPDATE components SET created_at = now() - interval '20 days' WHERE id = $1`, [TOPO.db]);
    await t.db.query(
      `INSERT INTO component_status_history (component_id, status, previous, at) VALUES
         ($1, 'warning', 'healthy', $2), ($1, 'healthy', 'warning', $3)`,
      [TOPO.db, new Date(now - 10 * 24 * h), new Date(now - 3 * 24 * h)]);
    const body = HistoryResponse.parse((await history(TOPO.db, 'since=30d')).json());
    expect(body.transitions).toHaveLength(2);
    // warning from 10 days back until 3 days ago, healthy since
    expect(body.buckets[0].status).toBe('warning');
    expect(body.buckets.at(-1)!.status).toBe('healthy');
    const turn = body.buckets.findIndex((b) => b.status === 'healthy');
    // the segment holding the turn was warning for part of it, so it shows warning; the next one is healthy
    expect(Date.parse(body.buckets[turn].start)).toBeGreaterThan(now - 3 * 24 * h);
    expect(Date.parse(body.buckets[turn].start)).toBeLessThanOrEqual(now - 3 * 24 * h + 6 * h);
    expect(body.buckets[turn - 1].status).toBe('warning');
    // the default window (7d) leaves the older transition out of the list, not out of the strip
    expect((HistoryResponse.parse((await history(TOPO.db)).json())).transitions).toHaveLength(1);
  });

  it('refuses a bad or too long since, an unknown or malformed id', async () => {
    expect((await history(TOPO.db, 'since=yesterday')).json().error).toMatch(/^since: /);
    expect((await history(TOPO.db, 'since=31d')).statusCode).toBe(400);
    expect((await history(TOPO.db, 'since=2026-13-01T00:00:00Z')).statusCode).toBe(400);
    expect((await history('0000000d-0000-4000-8000-00000000ffff')).statusCode).toBe(404);
    expect((await history('nope')).statusCode).toBe(400);
  });

  it('is 404 while topology.disable', async () => {
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('topology.disable', 'true')`);
    try {
      expect((await history(TOPO.db)).statusCode).toBe(404);
    } finally {
      await t.db.query(`DELETE FROM properties WHERE name = 'topology.disable'`);
    }
  });
});

describe('/api/db/component_status_history', () => {
  it('reads for every role, embeds the component, and writes for none', async () => {
    const res = await t.app.inject({
      method: 'GET', headers: viewer,
      url: `/api/db/component_status_history?component_id=eq.${TOPO.web1}&select=status,previous,components(name)&order=at.asc`,
    });
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.json()).toEqual([
      { status: 'unhealthy', previous: 'healthy', components: { name: 'web-1' } },
      { status: 'healthy', previous: 'unhealthy', components: { name: 'web-1' } },
    ]);
    const admin = await bearerHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
    const post = await t.app.inject({ method: 'POST', url: '/api/db/component_status_history', headers: admin,
      payload: { component_id: TOPO.web1, status: 'healthy' } });
    expect(post.statusCode).toBeGreaterThanOrEqual(400);
    const del = await t.app.inject({ method: 'DELETE', url: `/api/db/component_status_history?component_id=eq.${TOPO.web1}`, headers: admin });
    expect(del.statusCode).toBeGreaterThanOrEqual(400);
    expect(await rows(TOPO.web1)).toHaveLength(2);
  });
});

describe('retention', () => {
  it('deletes transitions older than 30 days and keeps the rest, with a job_history row', async () => {
    const day = 86_400_000;
    await t.db.query(
      `INSERT INTO component_status_history (component_id, status, previous, at) VALUES
         ($1, 'unhealthy', 'healthy', $2), ($1, 'healthy', 'unhealthy', $3)`,
      [TOPO.billing, new Date(Date.now() - 31 * day), new Date(Date.now() - 29 * day)]);
    const deleted = await pruneStatusHistory(t.db);
    expect(deleted).toBe(1);
    expect(await rows(TOPO.billing)).toEqual([{ status: 'healthy', previous: 'unhealthy' }]);
    expect(await rows(TOPO.web1)).toHaveLength(2);
    const { rows: jobs } = await t.db.query(
      `SELECT status, success_count FROM job_history WHERE name = 'ComponentStatusHistoryRetention'`);
    expect(jobs).toEqual([{ status: 'SUCCESS', success_count: 1 }]);
  });
});
