import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REJECTED_TOKEN_MESSAGE } from '../../server/modules/agent-runtime/status.js';
import { generateAgent } from '../../server/modules/agents/generate.js';
import { deleteAgent } from '../../server/modules/agents/writer.js';
import { until } from '../support/poll.js';
import { createDatabase, startAgent, startProxy, type AgentProcess, type UpstreamProxy } from './agent-support.js';
import { createTestApp, type TestContext } from './helpers.js';

/**
 * Agent faults (issue 16), real processes on loopback: an upstream console (in-process, listening), a loopback proxy in
 * front of it, and an agent child (MODE=agent, its own database and DATA_DIR) running a canary it pulled from the
 * upstream every second. The upstream's listener stops (all statuses arrive, in order, once); the answer to a
 * committed push is cut (no duplicate); the agent is deleted upstream (the next push is a 401 and the log line); a
 * wrong token (401, the line once).
 */

let upstream: TestContext;
let upstreamUrl: string;
let proxy: UpstreamProxy;
let agentDb: Awaited<ReturnType<typeof createDatabase>>;
let agent: AgentProcess;
let agentId: string;
let checkId: string;
let dir: string;

type Key = { check_id: string; time: string };
const keyOf = (r: Key) => `${r.check_id}@${Date.parse(r.time)}`;

/** The check's statuses up to `cutoff` on a side, as `check@epoch-ms` keys, with the duplicate count upstream. */
async function statusesUpTo(db: TestContext['db'], cutoff: Date): Promise<string[]> {
  const { rows } = await db.query<{ check_id: string; time: Date }>(
    'SELECT check_id, time FROM check_statuses WHERE check_id = $1 AND time <= $2 ORDER BY time', [checkId, cutoff]);
  return rows.map((r) => `${r.check_id}@${r.time.getTime()}`);
}

const agentStatuses = async () => Number((await agentDb.pool.query('SELECT count(*) AS n FROM check_statuses WHERE check_id = $1', [checkId])).rows[0].n);
const agentUnpushed = async () => Number((await agentDb.pool.query(
  `SELECT (SELECT count(*) FROM check_statuses WHERE NOT is_pushed) + (SELECT count(*) FROM job_history WHERE NOT is_pushed) AS n`)).rows[0].n);

/** The statuses pushed for the check, in the order they were first sent. */
function sentOrder(): number[] {
  const seen = new Set<string>();
  const out: number[] = [];
  for (const body of proxy.pushes) {
    for (const r of (body.check_statuses ?? []) as Key[]) {
      if (r.check_id !== checkId || seen.has(keyOf(r))) continue;
      seen.add(keyOf(r));
      out.push(Date.parse(r.time));
    }
  }
  return out;
}

beforeAll(async () => {
  upstream = await createTestApp();
  await upstream.app.listen({ port: 0, host: '127.0.0.1' });
  upstreamUrl = `http://127.0.0.1:${(upstream.app.server.address() as AddressInfo).port}`;
  proxy = await startProxy(upstreamUrl);
  const generated = await generateAgent(upstream.db, { name: 'faulty', createdBy: null });
  agentId = generated.agent_id!;
  const { rows } = await upstream.db.query<{ id: string }>(
    `INSERT INTO canaries (agent_id, name, namespace, spec, source) VALUES ($1, 'beat', 'default', $2, 'UI') RETURNING id`,
    [agentId, { schedule: '@every 1s', tcp: [{ name: 'beat', endpoint: new URL(upstreamUrl).host }] }]);
  const canaryId = rows[0].id;
  dir = mkdtempSync(join(tmpdir(), 'agent-faults-'));
  agentDb = await createDatabase();
  agent = await startAgent({
    DATABASE_URL: agentDb.url, DATA_DIR: join(dir, 'data'), UPSTREAM_URL: proxy.url, AGENT_TOKEN: generated.access_token,
    AGENT_NAME: 'faulty',
  });
  checkId = await until(async () => (await upstream.db.query<{ id: string }>(
    `SELECT ch.id FROM checks ch WHERE ch.canary_id = $1 AND EXISTS (SELECT 1 FROM check_statuses s WHERE s.check_id = ch.id)`,
    [canaryId])).rows[0]?.id, 'the pulled canary\'s first result upstream', 60_000);
}, 180_000); // a child process loading the whole server through tsx: slow on a busy machine

afterAll(async () => {
  await agent?.stop();
  await proxy?.close();
  await agentDb?.drop();
  await upstream?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('an agent and its upstream, with faults between them', () => {
  it('upstream down: the agent buffers; back up, every status arrives, in order, once', async () => {
    await proxy.down();
    const before = await agentStatuses();
    await until(async () => (await agentStatuses()) >= before + 3 && (await agentUnpushed()) >= 3, 'statuses buffered while the upstream is down');
    const status = await (await fetch(`${agent.url}/api/agent/status`)).json();
    await proxy.up();
    expect(status.lastError).toMatch(/^(push|ping|pull): /);
    const cutoff = new Date(Date.now() - 1);
    await until(async () => {
      const [a, u] = [await statusesUpTo(agentDb.pool, cutoff), await statusesUpTo(upstream.db, cutoff)];
      return a.length >= before + 3 && a.join() === u.join();
    }, 'the upstream has every status the agent had', 20_000);
    const { rows } = await upstream.db.query(
      'SELECT count(*)::int AS n, count(DISTINCT time)::int AS d FROM check_statuses WHERE check_id = $1', [checkId]);
    expect(rows[0].n).toBe(rows[0].d);
    const order = sentOrder();
    expect(order).toEqual([...order].sort((x, y) => x - y));
  });

  it('the answer to a committed push is cut: the batch is sent again and nothing is duplicated', async () => {
    proxy.mode = 'cut';
    await until(async () => proxy.cuts >= 1, 'a push whose answer was cut');
    proxy.mode = 'pass';
    const rowKey = (table: string, r: Record<string, unknown>) => `${table}:${String(r.id ?? `${r.check_id}@${Date.parse(String(r.time))}`)}`;
    const keys = (b: Record<string, unknown[]>) =>
      Object.entries(b).flatMap(([table, rows]) => (rows as Array<Record<string, unknown>>).map((r) => rowKey(table, r)));
    const cutKeys = new Set(keys(proxy.cutPushes[0]));
    const after = proxy.pushes.length;
    // the agent never saw the 2xx: the same rows go again, and the upstream takes the replay as a no-op
    await until(async () => proxy.pushes.slice(after).some((b) => keys(b).some((k) => cutKeys.has(k))), 'the cut batch sent again');
    const cutoff = new Date(Date.now() - 1);
    await until(async () => {
      const [a, u] = [await statusesUpTo(agentDb.pool, cutoff), await statusesUpTo(upstream.db, cutoff)];
      return a.join() === u.join();
    }, 'the upstream has every status the agent had', 20_000);
    const { rows } = await upstream.db.query(
      'SELECT count(*)::int AS n, count(DISTINCT time)::int AS d FROM check_statuses WHERE check_id = $1', [checkId]);
    expect(rows[0].n).toBe(rows[0].d);
    const jobs = await upstream.db.query(
      `SELECT count(*)::int AS n, count(DISTINCT id)::int AS d FROM job_history WHERE agent_id = $1`, [agentId]);
    expect(jobs.rows[0].n).toBe(jobs.rows[0].d);
  });

  it('a wrong token: 401s, the log line once, the outbox kept', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    const wrong = await createTestApp({
      MODE: 'agent', UPSTREAM_URL: upstreamUrl, AGENT_TOKEN: 'not.a-token', AGENT_PUSH_INTERVAL_MS: '100', AGENT_PING_INTERVAL_MS: '100',
      AGENT_PULL_INTERVAL_MS: '100', AGENT_BACKOFF_MAX_MS: '200',
    }, { logger: { level: 'info', stream } });
    try {
      await wrong.db.query(`INSERT INTO job_history (name, status) VALUES ('kept', 'SUCCESS')`);
      const rejected = () => lines.filter((l) => l.includes(REJECTED_TOKEN_MESSAGE));
      await until(async () => rejected().length, 'the log line');
      // further 401s (push, ping and pull keep trying) without another line
      const failures = async () => {
        const res = await wrong.app.inject({ method: 'GET', url: '/metrics' });
        return Number(/agent_upstream_failures_total\{op="push"\} (\d+)/.exec(res.body)?.[1] ?? 0);
      };
      const seen = await failures();
      await until(async () => (await failures()) >= seen + 2, 'two more refused pushes');
      expect(rejected()).toHaveLength(1);
      const status = (await wrong.app.inject({ method: 'GET', url: '/api/agent/status' })).json();
      expect(status).toMatchObject({ tokenRejected: true, lastError: expect.stringContaining('401') });
      expect((await wrong.db.query(`SELECT is_pushed FROM job_history WHERE name = 'kept'`)).rows).toEqual([{ is_pushed: false }]);
    } finally {
      await wrong.close();
    }
  }, 90_000); // builds a second app in-process

  it('the agent deleted upstream: its next push is a 401, logged', async () => {
    await deleteAgent(upstream.db, agentId, false);
    await until(async () => agent.lines.some((l) => l.includes(REJECTED_TOKEN_MESSAGE)), 'the agent logs the 401', 15_000);
    // (a ping answered just before the delete may land after the first 401: poll)
    await until(async () => (await (await fetch(`${agent.url}/api/agent/status`)).json()).tokenRejected, 'the status says rejected');
    await until(async () => (await agentUnpushed()) > 0, 'the agent keeps buffering');
  });
});
