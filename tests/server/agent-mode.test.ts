import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSettingsProblem, loadConfig } from '../../server/config.js';
import { Pusher } from '../../server/modules/agent-runtime/pusher.js';
import { RuntimeState, REJECTED_TOKEN_MESSAGE } from '../../server/modules/agent-runtime/status.js';
import { UpstreamClient } from '../../server/modules/agent-runtime/upstream-client.js';
import { generateAgent } from '../../server/modules/agents/generate.js';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { kubectl } from '../support/kube-tools.js';
import { until } from '../support/poll.js';
import { createDatabase, startAgent, type AgentProcess } from './agent-support.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * MODE=agent (issue 16). First the outbox pusher on its own, against a scripted upstream on loopback (batches, order,
 * marks, 401, refused rows, the bound); then two real processes: an upstream console and an agent child with its own
 * database and DATA_DIR, running a Canary applied with kubectl to the Kubernetes API test server.
 */

interface Answer { status: number; body?: unknown }
type Handler = (body: Record<string, Array<Record<string, unknown>>>, path: string) => Answer | Promise<Answer>;

/** A loopback upstream whose answers the test scripts; records every push body. */
async function scriptedUpstream() {
  const pushes: Array<Record<string, Array<Record<string, unknown>>>> = [];
  const auth: string[] = [];
  let handler: Handler = () => ({ status: 200, body: { message: 'ok' } });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      auth.push(`${req.headers.authorization} ${req.url}`);
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
      if (req.method === 'POST') pushes.push(body);
      const a = await handler(body, req.url ?? '');
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body ?? {}));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pushes, auth,
    set(h: Handler) {
      handler = h;
    },
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

describe('the outbox pusher (a scripted upstream)', () => {
  let t: TestContext;
  let up: Awaited<ReturnType<typeof scriptedUpstream>>;
  const logged: Array<{ level: string; msg: string }> = [];
  const log = {
    info: (_o: object, msg: string) => logged.push({ level: 'info', msg }),
    warn: (_o: object, msg: string) => logged.push({ level: 'warn', msg }),
    error: (_o: object, msg: string) => logged.push({ level: 'error', msg }),
  };
  let canaryId: string;
  let checkId: string;

  const pusher = (over: Partial<ConstructorParameters<typeof Pusher>[0]> = {}) => {
    const client = new UpstreamClient({ url: up.url, token: 'tok.secret', agentName: 'edge-1' });
    const state = new RuntimeState(client.base, log);
    return { state, p: new Pusher({ db: t.db, client, state, log, intervalMs: 50, backoffMaxMs: 200, bufferMax: 1_000_000, batchRows: 10, ...over }) };
  };
  const unpushed = async () => Number((await t.db.query(`SELECT
    (SELECT count(*) FROM canaries WHERE NOT is_pushed) + (SELECT count(*) FROM checks WHERE NOT is_pushed)
    + (SELECT count(*) FROM check_statuses WHERE NOT is_pushed) + (SELECT count(*) FROM checks_unlogged WHERE NOT is_pushed)
    + (SELECT count(*) FROM job_history WHERE NOT is_pushed) AS n`)).rows[0].n);
  const addStatuses = async (n: number, from = 0, message = 'ok') => {
    await t.db.query(
      `INSERT INTO check_statuses (check_id, time, status, message, duration)
       SELECT $1, timestamptz '2026-01-01T00:00:00Z' + make_interval(secs => g * 1.000001), true, $4, 5
       FROM generate_series($2::int, $3::int) g`, [checkId, from, from + n - 1, message]);
  };

  beforeAll(async () => {
    t = await createTestApp();
    up = await scriptedUpstream();
    const { rows } = await t.db.query<{ id: string }>(
      `INSERT INTO canaries (name, namespace, spec, source) VALUES ('edge', 'default', '{"schedule":"@never"}', 'UI') RETURNING id`);
    canaryId = rows[0].id;
    checkId = (await t.db.query<{ id: string }>(
      `INSERT INTO checks (canary_id, type, name) VALUES ($1, 'http', 'home') RETURNING id`, [canaryId])).rows[0].id;
    await t.db.query(`INSERT INTO checks (canary_id, type, name) VALUES ($1, 'tcp', 'port')`, [canaryId]);
  });
  afterAll(async () => {
    await up?.close();
    await t?.close();
  });

  it('pushes parents first and statuses in time order, ≤ batch rows a push, marks them pushed on 2xx', async () => {
    await addStatuses(25);
    await t.db.query('UPDATE check_statuses SET created_at = now() WHERE check_id = $1', [checkId]);
    const { p, state } = pusher();
    expect(await p.cycle()).toBe(50);
    expect(await unpushed()).toBe(0);
    // 1 canary + 2 checks + 25 statuses (+ job history of the template, if any) in pushes of at most 10
    const all = up.pushes.flatMap((b) => Object.entries(b).flatMap(([table, rows]) => rows.map((r) => ({ table, r }))));
    expect(up.pushes.every((b) => Object.values(b).reduce((n, rows) => n + rows.length, 0) <= 10)).toBe(true);
    const order = all.map((x) => x.table);
    expect(order.indexOf('canaries')).toBe(0);
    expect(order.lastIndexOf('checks')).toBeLessThan(order.indexOf('check_statuses'));
    const times = all.filter((x) => x.table === 'check_statuses').map((x) => String(x.r.time));
    expect(times).toHaveLength(25);
    expect([...times].sort()).toEqual(times);
    // microseconds kept (the upstream's key is (check_id, time)), is_pushed never sent
    expect(times[1]).toMatch(/^2026-01-01T00:00:01\.000001\+00:00$/);
    expect(all.some((x) => 'is_pushed' in x.r)).toBe(false);
    expect(up.auth[0]).toBe(`Basic ${Buffer.from('token:tok.secret').toString('base64')} /api/upstream/push?agent_name=edge-1`);
    expect(state.status).toMatchObject({ bufferRows: 0, pushedRows: all.length, tokenRejected: false });
  });

  it('an update of a pushed row puts it back in the outbox; the puller flag (outbox.keep_pushed) does not', async () => {
    await t.db.query(`UPDATE checks SET description = 'changed' WHERE id = $1`, [checkId]);
    expect((await t.db.query('SELECT is_pushed FROM checks WHERE id = $1', [checkId])).rows[0].is_pushed).toBe(false);
    const c = await t.db.connect();
    try {
      await c.query('BEGIN');
      await c.query(`SELECT set_config('outbox.keep_pushed', 'on', true)`);
      await c.query(`UPDATE canaries SET labels = '{"a":"b"}' WHERE id = $1`, [canaryId]);
      await c.query('COMMIT');
    } finally {
      c.release();
    }
    expect((await t.db.query('SELECT is_pushed FROM canaries WHERE id = $1', [canaryId])).rows[0].is_pushed).toBe(true);
    await pusher().p.cycle();
    expect(await unpushed()).toBe(0);
  });

  it('a row updated while its push is in flight stays unpushed and goes again', async () => {
    up.pushes.length = 0;
    await addStatuses(1, 1000);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let seen = false;
    up.set(async () => {
      if (!seen) {
        seen = true;
        await gate;
      }
      return { status: 200 };
    });
    const { p } = pusher();
    const cycle = p.cycle();
    await until(async () => seen, 'the push in flight');
    await t.db.query(`UPDATE check_statuses SET message = 'edited in flight' WHERE check_id = $1 AND message = 'ok' AND time =
      (SELECT max(time) FROM check_statuses WHERE check_id = $1)`, [checkId]);
    release();
    await cycle;
    // the edited version went in a second push of the same cycle? No: the cycle stops after a short batch; the next does
    const left = await t.db.query(`SELECT message FROM check_statuses WHERE NOT is_pushed`);
    expect(left.rows).toEqual([{ message: 'edited in flight' }]);
    up.set(() => ({ status: 200 }));
    await p.cycle();
    expect(await unpushed()).toBe(0);
    expect(up.pushes.at(-1)?.check_statuses?.[0]).toMatchObject({ message: 'edited in flight' });
  });

  it('a 401 logs "upstream rejected AGENT_TOKEN (401)" once per streak, keeps the rows, and backs off', async () => {
    await addStatuses(3, 2000);
    up.set(() => ({ status: 401, body: { error: 'unauthorized' } }));
    const { p, state } = pusher({ backoffMaxMs: 60_000 });
    logged.length = 0;
    expect(await p.cycle()).toBe(1000);
    expect(await p.cycle()).toBe(2000);
    expect(await p.cycle()).toBe(4000);
    expect(logged.filter((l) => l.msg === REJECTED_TOKEN_MESSAGE)).toHaveLength(1);
    expect(state.status.tokenRejected).toBe(true);
    expect(await unpushed()).toBe(3);
    up.set(() => ({ status: 200 }));
    expect(await p.cycle()).toBe(50);
    expect(await unpushed()).toBe(0);
    expect(state.status.tokenRejected).toBe(false);
  });

  it('a batch refused with 400 is split until the bad row stands alone; that row is skipped, the rest pushed', async () => {
    up.pushes.length = 0;
    await addStatuses(4, 3000);
    await addStatuses(1, 3004, 'poison');
    await addStatuses(4, 3005);
    up.set((body) => (body.check_statuses?.some((r) => r.message === 'poison') ? { status: 400, body: { error: 'check_statuses[0].message: bad' } } : { status: 200 }));
    const { p, state } = pusher();
    await p.cycle();
    expect(await unpushed()).toBe(0);
    expect(state.status.skippedRows).toBe(1);
    const accepted = up.pushes.filter((b) => !b.check_statuses?.some((r) => r.message === 'poison'));
    expect(accepted.flatMap((b) => b.check_statuses ?? []).length).toBe(8);
    expect(logged.some((l) => l.level === 'error' && /refused this row; skipped/.test(l.msg))).toBe(true);
  });

  it('a 422 (unknown parent) sends the parents again first', async () => {
    up.pushes.length = 0;
    await addStatuses(2, 4000);
    let first = true;
    up.set((body) => {
      if (first && body.check_statuses) {
        first = false;
        return { status: 422, body: { error: `unknown parent: checks ${checkId}` } };
      }
      return { status: 200 };
    });
    await pusher().p.cycle();
    expect(await unpushed()).toBe(0);
    const after = up.pushes[1];
    expect(Object.keys(after)).toEqual(['canaries', 'checks', 'check_statuses']);
    expect(after.checks.map((r) => r.id)).toContain(checkId);
  });

  it('over AGENT_BUFFER_MAX_ROWS the oldest unpushed statuses are dropped, counted and logged', async () => {
    await addStatuses(20, 5000);
    up.set(() => ({ status: 503 }));
    const { p, state } = pusher({ bufferMax: 12 });
    const oldest = (await t.db.query(`SELECT min(time) AS m FROM check_statuses WHERE NOT is_pushed`)).rows[0].m as Date;
    await p.cycle();
    expect(state.status.droppedRows).toBe(8);
    expect(await unpushed()).toBe(12);
    expect((await t.db.query('SELECT 1 FROM check_statuses WHERE time = $1', [oldest])).rowCount).toBe(0);
    expect(logged.some((l) => /AGENT_BUFFER_MAX_ROWS/.test(l.msg))).toBe(true);
    up.set(() => ({ status: 200 }));
    await p.cycle();
    expect(await unpushed()).toBe(0);
  });
});

describe('MODE=agent start', () => {
  it('is refused naming what is missing (main.ts refuses on agentSettingsProblem)', () => {
    expect(agentSettingsProblem(loadConfig({ MODE: 'agent' }))).toMatch(/^MODE=agent needs UPSTREAM_URL and AGENT_TOKEN/);
    expect(agentSettingsProblem(loadConfig({ MODE: 'agent', UPSTREAM_URL: 'http://127.0.0.1:9' }))).toMatch(/needs AGENT_TOKEN \(/);
    expect(agentSettingsProblem(loadConfig({ MODE: 'agent', UPSTREAM_URL: 'http://127.0.0.1:9', AGENT_TOKEN: 'a.b' }))).toBeNull();
    expect(agentSettingsProblem(loadConfig({ MODE: 'console' }))).toBeNull();
  });
});

describe('two processes: an upstream console and an agent', () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  let upstream: TestContext;
  let kube: KubeApi;
  let dir: string;
  let kubeconfig: string;
  let agentDb: Awaited<ReturnType<typeof createDatabase>>;
  let agent: AgentProcess;
  let agentId: string;
  let admin: Record<string, string>;

  beforeAll(async () => {
    upstream = await createTestApp();
    await upstream.app.listen({ port: 0, host: '127.0.0.1' });
    const upstreamUrl = `http://127.0.0.1:${(upstream.app.server.address() as AddressInfo).port}`;
    admin = await sessionHeaders(upstream.db, (await makePerson(upstream.db, { roles: ['admin'] })).id);
    const generated = await generateAgent(upstream.db, { name: 'edge-1', properties: { region: 'eu' }, createdBy: null });
    agentId = generated.agent_id!;
    kube = await startKubeApi({ crdsDir: join(root, 'crds') });
    dir = mkdtempSync(join(tmpdir(), 'agent-mode-'));
    kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
    agentDb = await createDatabase();
    agent = await startAgent({
      DATABASE_URL: agentDb.url, DATA_DIR: join(dir, 'data'), KUBERNETES: 'auto', KUBECONFIG: kubeconfig, POD_NAME: 'edge-agent',
      UPSTREAM_URL: upstreamUrl, AGENT_TOKEN: generated.access_token, AGENT_NAME: 'edge-1', AGENT_PUSH_TELEMETRY: 'true',
      AGENT_TOPOLOGY_NAME: 'edge',
    });
  }, 180_000); // a child process loading the whole server through tsx: slow on a busy machine
  afterAll(async () => {
    await agent?.stop();
    await agentDb?.drop();
    await upstream?.close();
    await kube?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a Canary applied with kubectl runs on the agent; its result is in the upstream summary, the agent Online', async () => {
    const manifest = {
      apiVersion: 'canaries.flanksource.com/v1', kind: 'Canary', metadata: { name: 'edge-tcp', namespace: 'default' },
      spec: { schedule: '@every 1s', tcp: [{ name: 'upstream-port', endpoint: new URL(agent.url).host }] },
    };
    const applied = await kubectl(kubeconfig, ['apply', '-f', '-'], { input: JSON.stringify(manifest) });
    expect(applied.code, applied.stderr).toBe(0);
    const started = Date.now();
    const row = await until(async () => {
      const res = await upstream.app.inject({ method: 'GET', url: '/api/canary/api/summary', headers: admin });
      const checks = (res.json() as { checks_summary?: Array<Record<string, unknown>> }).checks_summary ?? [];
      return checks.find((c) => c.name === 'upstream-port' && c.agent_id === agentId && c.status === 'healthy');
    }, 'the agent check in the upstream summary', 10_000);
    console.log(`kubectl apply → upstream summary: ${Date.now() - started} ms`);
    expect(row).toMatchObject({ canary_name: 'edge-tcp' });
    const seen = await upstream.db.query(`SELECT last_seen > now() - interval '61 seconds' AS online, last_received IS NOT NULL AS received
      FROM agents WHERE id = $1`, [agentId]);
    expect(seen.rows[0]).toEqual({ online: true, received: true });
    const status = await (await fetch(`${agent.url}/api/agent/status`)).json();
    expect(status).toMatchObject({ tokenRejected: false, lastError: null });
    expect(status.lastPushAt).not.toBeNull();
  });

  it('a canary made upstream for the agent is pulled, run there, and its results pushed back (the canary is not)', async () => {
    const { rows } = await upstream.db.query<{ id: string }>(
      `INSERT INTO canaries (agent_id, name, namespace, spec, source) VALUES ($1, 'pulled', 'default', $2, 'UI') RETURNING id`,
      [agentId, { schedule: '@every 1s', tcp: [{ name: 'pulled-port', endpoint: new URL(agent.url).host }] }]);
    const id = rows[0].id;
    await until(async () => (await upstream.db.query(
      `SELECT 1 FROM checks ch JOIN check_statuses s ON s.check_id = ch.id WHERE ch.canary_id = $1 AND ch.agent_id = $2 LIMIT 1`,
      [id, agentId])).rowCount, 'a pushed status of the pulled canary', 15_000);
    const local = await agentDb.pool.query('SELECT source, is_pushed, agent_id FROM canaries WHERE id = $1', [id]);
    expect(local.rows[0]).toEqual({ source: 'Upstream', is_pushed: true, agent_id: '00000000-0000-0000-0000-000000000000' });
    // deleted upstream: soft-deleted on the agent, its checks with it
    await upstream.db.query('UPDATE canaries SET deleted_at = now() WHERE id = $1', [id]);
    await until(async () => (await agentDb.pool.query('SELECT 1 FROM canaries WHERE id = $1 AND deleted_at IS NOT NULL', [id])).rowCount,
      'the pulled canary deleted on the agent');
  });
});
