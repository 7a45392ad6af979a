import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeaders, createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';
import type { CanaryPullResponse } from '../../server/contracts/upstream.js';
import { generateAgent } from '../../server/modules/agents/generate.js';
import { loadSchedulable } from '../../server/modules/health/queries.js';
import { until } from '../support/poll.js';

let ctx: TestContext;
let admin: Record<string, string>;

interface TestAgent {
  id: string;
  name: string;
  token: string;
  personId: string;
}

/** An agent made by generate (a person of type agent, its 365-day token, the agents row); expired when asked. */
async function makeAgent(name: string, properties: Record<string, string> = {}, expiresAt: Date | null = null): Promise<TestAgent> {
  const g = await generateAgent(ctx.db, { name, properties, createdBy: null });
  if (expiresAt) await ctx.db.query('UPDATE access_tokens SET expires_at = $2 WHERE person_id = $1', [g.id, expiresAt]);
  return { id: g.agent_id, name, token: g.access_token, personId: g.id };
}

const bearer = (a: TestAgent) => ({ authorization: `Bearer ${a.token}` });
const basic = (a: TestAgent) => ({ authorization: `Basic ${Buffer.from(`token:${a.token}`).toString('base64')}` });

function push(a: TestAgent, payload: unknown, method: 'POST' | 'DELETE' = 'POST') {
  return ctx.app.inject({ method, url: `/api/upstream/push?agent_name=${encodeURIComponent(a.name)}`, headers: basic(a), payload: payload as object });
}

const now = Date.now();
const at = (s: number) => new Date(now - 600_000 + s * 1000).toISOString();

function canary(id = randomUUID(), extra: Record<string, unknown> = {}) {
  return { id, name: `c-${id.slice(0, 6)}`, namespace: 'prod', spec: { interval: 30 }, labels: { team: 'ops' }, agent_id: randomUUID(), is_pushed: false, ...extra };
}
function check(canaryId: string, id = randomUUID(), extra: Record<string, unknown> = {}) {
  return { id, canary_id: canaryId, type: 'http', name: `http-${id.slice(0, 6)}`, labels: { app: 'web' }, ...extra };
}
function status(checkId: string, s: number, pass = true) {
  return { check_id: checkId, time: at(s), duration: 10 + s, status: pass, message: `run ${s}` };
}

let eu: TestAgent;
let us: TestAgent;

beforeAll(async () => {
  ctx = await createTestApp();
  const p = await makePerson(ctx.db, { roles: ['admin'] });
  admin = await sessionHeaders(ctx.db, p.id);
  eu = await makeAgent('eu-west', { region: 'eu', team: 'agent-default' });
  us = await makeAgent('us-east');
});
afterAll(async () => ctx?.close());

describe('auth', () => {
  it('takes the agent token as Basic token:<token> with agent_name, or as Bearer', async () => {
    const r1 = await ctx.app.inject({ url: `/api/upstream/ping?agent_name=${eu.name}`, headers: basic(eu) });
    expect(r1.statusCode).toBe(200);
    expect(r1.body).toBe('');
    const r2 = await ctx.app.inject({ url: '/api/upstream/ping', headers: bearer(eu) });
    expect(r2.statusCode).toBe(200);
    const { rows } = await ctx.db.query('SELECT last_seen FROM agents WHERE id = $1', [eu.id]);
    expect(rows[0].last_seen).not.toBeNull();
  });

  it('refuses a mismatching agent_name (403), a user token (403), bad credentials (401)', async () => {
    expect((await ctx.app.inject({ url: '/api/upstream/ping?agent_name=us-east', headers: basic(eu) })).statusCode).toBe(403);
    const user = await makePerson(ctx.db, { roles: ['admin'] });
    expect((await ctx.app.inject({ url: '/api/upstream/ping', headers: await bearerHeaders(ctx.db, user.id) })).statusCode).toBe(403);
    expect((await ctx.app.inject({ url: '/api/upstream/ping', headers: admin })).statusCode).toBe(403);
    expect((await ctx.app.inject({ url: '/api/upstream/ping', headers: { authorization: 'Bearer nope' } })).statusCode).toBe(401);
    expect((await ctx.app.inject({ url: '/api/upstream/ping' })).statusCode).toBe(401);
    const wrong = { ...eu, token: `${eu.token.split('.')[0]}.${'x'.repeat(43)}` };
    expect((await ctx.app.inject({ url: '/api/upstream/ping', headers: bearer(wrong) })).statusCode).toBe(401);
  });

  it('refuses an expired token (401) and an agent token anywhere but /api/upstream (403)', async () => {
    const old = await makeAgent('expired-agent', {}, new Date(Date.now() - 1000));
    expect((await ctx.app.inject({ url: '/api/upstream/ping', headers: bearer(old) })).statusCode).toBe(401);
    for (const url of ['/api/db/agents', '/api/auth/whoami', '/api/canary/api/summary', '/api/properties']) {
      expect((await ctx.app.inject({ url, headers: bearer(eu) })).statusCode, url).toBe(403);
    }
  });

  it('refuses a deleted agent on its next call (401)', async () => {
    const gone = await makeAgent('deleted-agent');
    expect((await ctx.app.inject({ url: '/api/upstream/ping', headers: bearer(gone) })).statusCode).toBe(200);
    const del = await ctx.app.inject({
      method: 'PATCH', url: `/api/db/agents?id=eq.${gone.id}`, headers: admin, payload: { deleted_at: 'now()', cleanup: false },
    });
    expect(del.statusCode, del.body).toBeLessThan(300);
    expect((await push(gone, { canaries: [canary()] })).statusCode).toBe(401);
  });
});

describe('ping telemetry', () => {
  it('stores lag, buffer, dropped, version and topology, one row per ping', async () => {
    const r = await ctx.app.inject({
      url: '/api/upstream/ping?lag_ms=1500&buffer_rows=42&dropped_rows=3&version=1.2.3&topology=prod', headers: bearer(us),
    });
    expect(r.statusCode).toBe(200);
    const { rows } = await ctx.db.query('SELECT push_lag_ms, buffer_rows, dropped_rows, version, topology FROM agent_telemetry WHERE agent_id = $1', [us.id]);
    expect(rows).toEqual([{ push_lag_ms: '1500', buffer_rows: '42', dropped_rows: '3', version: '1.2.3', topology: 'prod' }]);
    expect((await ctx.app.inject({ url: '/api/upstream/ping?lag_ms=-1', headers: bearer(us) })).statusCode).toBe(400);
  });

  it('is readable at /api/db/agent_telemetry with agents read', async () => {
    const r = await ctx.app.inject({ url: `/api/db/agent_telemetry?agent_id=eq.${us.id}&select=buffer_rows`, headers: admin });
    expect(r.statusCode).toBe(200);
    expect(r.json()[0]).toEqual({ buffer_rows: 42 });
  });
});

describe('push', () => {
  it('stores canaries, checks and results parents first in one batch, agent_id forced, labels merged', async () => {
    const c = canary();
    const ch = check(c.id, randomUUID(), { labels: { app: 'web', team: 'row-wins' } });
    // results listed before their check and canary: the registry stores parents first whatever the body's order
    const body = { check_statuses: [status(ch.id, 1), status(ch.id, 2, false), status(ch.id, 3)], checks: [ch], canaries: [c] };
    const r = await push(eu, body);
    expect(r.statusCode, r.body).toBe(200);
    const { rows: [cr] } = await ctx.db.query('SELECT agent_id, labels FROM canaries WHERE id = $1', [c.id]);
    expect(cr).toEqual({ agent_id: eu.id, labels: { region: 'eu', team: 'ops' } });
    const { rows: [kr] } = await ctx.db.query('SELECT agent_id, labels, status FROM checks WHERE id = $1', [ch.id]);
    expect(kr).toEqual({ agent_id: eu.id, labels: { region: 'eu', team: 'row-wins', app: 'web' }, status: 'healthy' });
    const { rows: [n] } = await ctx.db.query('SELECT count(*)::int AS n FROM check_statuses WHERE check_id = $1', [ch.id]);
    expect(n.n).toBe(3);
    const { rows: [roll] } = await ctx.db.query('SELECT sum(total)::int AS total, sum(failed)::int AS failed FROM check_statuses_1h WHERE check_id = $1', [ch.id]);
    expect(roll).toEqual({ total: 3, failed: 1 });
    const { rows: [a] } = await ctx.db.query('SELECT last_received FROM agents WHERE id = $1', [eu.id]);
    expect(a.last_received).not.toBeNull();

    // the pushed check is in the health summary, with its agent
    const s = await until(async () => {
      const res = await ctx.app.inject({ url: '/api/canary/api/summary', headers: admin });
      return res.json().checks_summary.find((x: { id: string }) => x.id === ch.id);
    }, 'the pushed check in the summary');
    expect(s.agent_id).toBe(eu.id);
    expect(s.status).toBe('healthy');
    // its results (one check's summary is computed exactly; the whole fleet's stats are precomputed, a little behind)
    const one = await ctx.app.inject({ url: `/api/canary/api/summary?checkID=${ch.id}`, headers: admin });
    expect(one.json().checks_summary[0].uptime).toMatchObject({ passed: 2, failed: 1 });
  });

  it('a replayed batch is a no-op (no duplicate results, rollups unchanged, canary not re-stamped)', async () => {
    const c = canary();
    const ch = check(c.id);
    const body = { canaries: [c], checks: [ch], check_statuses: [status(ch.id, 10), status(ch.id, 11)] };
    expect((await push(eu, body)).statusCode).toBe(200);
    const before = await ctx.db.query('SELECT updated_at FROM canaries WHERE id = $1', [c.id]);
    expect((await push(eu, body)).statusCode).toBe(200);
    const after = await ctx.db.query('SELECT updated_at FROM canaries WHERE id = $1', [c.id]);
    expect(after.rows[0].updated_at).toEqual(before.rows[0].updated_at);
    const { rows: [n] } = await ctx.db.query('SELECT count(*)::int AS n FROM check_statuses WHERE check_id = $1', [ch.id]);
    expect(n.n).toBe(2);
    const { rows: [roll] } = await ctx.db.query('SELECT sum(total)::int AS total FROM check_statuses_1h WHERE check_id = $1', [ch.id]);
    expect(roll.total).toBe(2);
  });

  it('refuses non-JSON (400 "invalid json request") and a bad row naming it, storing nothing', async () => {
    const r = await ctx.app.inject({ method: 'POST', url: '/api/upstream/push', headers: { ...bearer(eu), 'content-type': 'application/json' }, payload: '{nope' });
    expect(r.statusCode).toBe(400);
    expect(r.json().message).toBe('invalid json request');
    const c = canary();
    const good = check(c.id);
    const r2 = await push(eu, { canaries: [c], checks: [good, good, { ...check(c.id), canary_id: 'x' }] });
    // rows of one key are deduplicated by key first: the third row is checks[2]
    expect(r2.statusCode).toBe(400);
    expect(r2.json().message).toMatch(/^checks\[2\]\.canary_id/);
    expect((await ctx.db.query('SELECT 1 FROM canaries WHERE id = $1', [c.id])).rowCount).toBe(0);
  });

  it('refuses an unknown parent (422 listing ids) and another agent\'s or a local row (409), storing nothing', async () => {
    const ghost = randomUUID();
    const c = canary();
    const r = await push(eu, { canaries: [c], checks: [check(ghost)] });
    expect(r.statusCode).toBe(422);
    expect(r.json().message).toContain(ghost);
    expect((await ctx.db.query('SELECT 1 FROM canaries WHERE id = $1', [c.id])).rowCount).toBe(0);
    const ghostCheck = randomUUID();
    const r1 = await push(eu, { check_statuses: [status(ghostCheck, 1)] });
    expect(r1.statusCode).toBe(422);
    expect(r1.json().message).toContain(ghostCheck);

    // us-east's canary: eu-west may neither overwrite it nor hang checks under it
    const theirs = canary();
    expect((await push(us, { canaries: [theirs] })).statusCode).toBe(200);
    expect((await push(eu, { canaries: [theirs] })).statusCode).toBe(409);
    expect((await push(eu, { checks: [check(theirs.id)] })).statusCode).toBe(409);
    // a local canary (the console's own)
    const { rows: [local] } = await ctx.db.query(`INSERT INTO canaries (name, spec) VALUES ('mine', '{}') RETURNING id`);
    const r2 = await push(eu, { canaries: [canary(local.id)] });
    expect(r2.statusCode).toBe(409);
    expect(r2.json().message).toContain('local');
    const { rows: [still] } = await ctx.db.query('SELECT agent_id, name FROM canaries WHERE id = $1', [local.id]);
    expect(still).toEqual({ agent_id: '00000000-0000-0000-0000-000000000000', name: 'mine' });
  });

  it('refuses keys of tables it does not take (400 naming the key), and a body over 16 MB (413)', async () => {
    const r = await push(eu, { playbook_actions: [{ id: randomUUID() }] });
    expect(r.statusCode).toBe(400);
    expect(r.json().message).toMatch(/^playbook_actions/);
    expect((await push(eu, { playbook_actions: [], unknown_key: [1] })).statusCode).toBe(200);
    const big = JSON.stringify({ job_history: [{ id: randomUUID(), details: { x: 'y'.repeat(16 * 1024 * 1024) } }] });
    const r2 = await ctx.app.inject({ method: 'POST', url: '/api/upstream/push', headers: { ...bearer(eu), 'content-type': 'application/json' }, payload: big });
    expect(r2.statusCode).toBe(413);
  });

  it('DELETE push hard-deletes the agent\'s listed rows, never another\'s', async () => {
    const mine = canary();
    const ch = check(mine.id);
    const theirs = canary();
    expect((await push(eu, { canaries: [mine], checks: [ch], check_statuses: [status(ch.id, 20), status(ch.id, 21)] })).statusCode).toBe(200);
    expect((await push(us, { canaries: [theirs] })).statusCode).toBe(200);
    const r0 = await push(eu, { check_statuses: [{ check_id: ch.id, time: at(20) }] }, 'DELETE');
    expect(r0.statusCode).toBe(200);
    expect((await ctx.db.query('SELECT 1 FROM check_statuses WHERE check_id = $1', [ch.id])).rowCount).toBe(1);
    const r = await push(eu, { canaries: [{ id: mine.id }, { id: theirs.id }] }, 'DELETE');
    expect(r.statusCode).toBe(200);
    expect((await ctx.db.query('SELECT 1 FROM canaries WHERE id = $1', [mine.id])).rowCount).toBe(0);
    expect((await ctx.db.query('SELECT 1 FROM checks WHERE id = $1', [ch.id])).rowCount).toBe(0);
    expect((await ctx.db.query('SELECT 1 FROM canaries WHERE id = $1', [theirs.id])).rowCount).toBe(1);
  });
});

describe('other tables and the scheduler', () => {
  it('stores checks_unlogged (newer state only) and job_history (agent_id forced)', async () => {
    const c = canary();
    const ch = check(c.id);
    const job = { id: randomUUID(), name: 'Canary', status: 'SUCCESS', resource_type: 'canary', resource_id: c.id, agent_id: randomUUID(), success_count: 1 };
    const state = { check_id: ch.id, canary_id: c.id, status: 'unhealthy', last_runtime: at(50), last_message: 'down' };
    expect((await push(eu, { canaries: [c], checks: [ch], checks_unlogged: [state], job_history: [job] })).statusCode).toBe(200);
    const older = { ...state, status: 'healthy', last_runtime: at(40) };
    expect((await push(eu, { checks_unlogged: [older] })).statusCode).toBe(200);
    const { rows: [u] } = await ctx.db.query('SELECT status, last_message FROM checks_unlogged WHERE check_id = $1', [ch.id]);
    expect(u).toEqual({ status: 'unhealthy', last_message: 'down' });
    const { rows: [j] } = await ctx.db.query('SELECT agent_id, status FROM job_history WHERE id = $1', [job.id]);
    expect(j).toEqual({ agent_id: eu.id, status: 'SUCCESS' });
  });

  it('the upstream never schedules an agent\'s canaries', async () => {
    const c = canary(randomUUID(), { spec: { interval: 1, http: [{ name: 'x', url: 'http://127.0.0.1:9/' }] } });
    expect((await push(eu, { canaries: [c], checks: [check(c.id)] })).statusCode).toBe(200);
    const schedulable = await loadSchedulable(ctx.db);
    expect(schedulable.map((x) => x.id)).not.toContain(c.id);
  });
});

describe('live updates', () => {
  it('a push publishes the new results (check_statuses) and the agent\'s activity (agents)', async () => {
    const seen: Array<{ relation: string; ids?: string[] }> = [];
    const off = ctx.app.events.bus.subscribe((e) => {
      if (e.type === 'change') seen.push({ relation: e.relation, ids: e.ids });
    });
    try {
      const agent = await makeAgent('live-agent');
      const c = canary();
      const ch = check(c.id);
      expect((await push(agent, { canaries: [c], checks: [ch], check_statuses: [status(ch.id, 70)] })).statusCode).toBe(200);
      await until(async () => seen.some((e) => e.relation === 'check_statuses' && e.ids?.includes(ch.id)), 'a check_statuses event');
      await until(async () => seen.some((e) => e.relation === 'agents' && e.ids?.includes(agent.id)), 'an agents event');
    } finally {
      off();
    }
  });
});

describe('canary pull', () => {
  it('returns the agent\'s canaries changed in (since, before], deleted ones included', async () => {
    const agent = await makeAgent('puller');
    const { rows: [c1] } = await ctx.db.query(`INSERT INTO canaries (name, spec, agent_id) VALUES ('p1', '{"interval": 60}', $1) RETURNING id`, [agent.id]);
    await ctx.db.query(`INSERT INTO canaries (name, spec) VALUES ('local-one', '{}')`);
    const first = await until(async () => {
      const r = await ctx.app.inject({ url: `/api/upstream/canary/pull?agent_name=puller`, headers: basic(agent) });
      const b = r.json() as CanaryPullResponse;
      return b.canaries.length ? b : undefined;
    }, 'the first pull');
    expect(first.canaries.map((c) => c.id)).toEqual([c1.id]);
    const since = first.before;
    const empty = await ctx.app.inject({ url: `/api/upstream/canary/pull?since=${encodeURIComponent(since)}`, headers: bearer(agent) });
    expect(empty.json().canaries).toEqual([]);
    await ctx.db.query('UPDATE canaries SET deleted_at = now() WHERE id = $1', [c1.id]);
    const next = await until(async () => {
      const r = await ctx.app.inject({ url: `/api/upstream/canary/pull?since=${encodeURIComponent(since)}`, headers: bearer(agent) });
      const b = r.json() as CanaryPullResponse;
      return b.canaries.length ? b : undefined;
    }, 'the deletion in a pull');
    expect(next.canaries[0]).toMatchObject({ id: c1.id, deleted_at: expect.any(String) });
    expect((await ctx.app.inject({ url: '/api/upstream/canary/pull?since=yesterday', headers: bearer(agent) })).statusCode).toBe(400);
  });
});

describe('Run Now', () => {
  it('is 409 on an agent\'s check, naming the agent', async () => {
    const c = canary();
    const ch = check(c.id);
    expect((await push(eu, { canaries: [c], checks: [ch] })).statusCode).toBe(200);
    const r = await ctx.app.inject({ method: 'POST', url: `/api/canary/run/check/${ch.id}`, headers: admin });
    expect(r.statusCode).toBe(409);
    expect(r.json().message).toContain('eu-west');
  });
});
