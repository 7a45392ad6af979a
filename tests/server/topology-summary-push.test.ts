import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * A component's static `summary` and the topology's `push` (issue 13, canary-checker's ComponentSpec.summary and
 * TopologySpec.PushLocation): the spec's incidents and insights add up the tree with the roll-up; after each run the
 * tree is POSTed to `push` (a real loopback server here), a failure a line of the job history. Runs go through Run
 * Now (the app's engine with its real pusher); topologies are `@never`.
 */
let t: TestContext;
let admin: Record<string, string>;

interface Received { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }
let server: http.Server;
let base = '';
const received: Received[] = [];
let answer = 200;

beforeAll(async () => {
  t = await createTestApp();
  admin = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(answer, { 'content-type': 'application/json' }).end(answer < 300 ? '{"ok":true}' : '{"error":"receiver is down"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server?.close(() => r()));
  await t?.close();
});

const post = (body: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/db/topologies', headers: { ...admin, prefer: 'return=representation' }, payload: body as never });
const patchSpec = (id: string, spec: Record<string, unknown>) =>
  t.app.inject({ method: 'PATCH', url: `/api/db/topologies?id=eq.${id}`, headers: { ...admin, prefer: 'return=representation' }, payload: { spec: { schedule: '@never', ...spec } } as never });
async function makeTopology(spec: Record<string, unknown>): Promise<string> {
  const res = await post({ name: `t-${Math.random().toString(36).slice(2, 8)}`, namespace: 'default', spec: { schedule: '@never', ...spec } });
  expect(res.statusCode, res.payload).toBe(201);
  return res.json()[0].id;
}
const runNow = (id: string) => t.app.inject({ method: 'POST', url: `/api/canary/run/topology/${id}`, headers: admin });
async function summaryOf(topologyId: string, name: string) {
  const { rows } = await t.db.query(`SELECT summary, status FROM components WHERE topology_id = $1 AND name = $2 AND deleted_at IS NULL`, [topologyId, name]);
  return rows[0] as { summary: Record<string, unknown>; status: string };
}
async function lastJob(topologyId: string) {
  const { rows } = await t.db.query(
    `SELECT status, details FROM job_history WHERE resource_id = $1 AND name = 'TopologyRun' ORDER BY created_at DESC LIMIT 1`, [topologyId]);
  return rows[0] as { status: string; details: { errors: string[] } };
}

describe('bad input', () => {
  const bad = async (spec: Record<string, unknown>, message: string) => {
    const res = await post({ name: 'bad-summary-push', spec });
    expect(res.statusCode, res.payload).toBe(400);
    expect(res.json().message).toContain(message);
  };
  it('names the path of a bad summary (at any depth) or push, and stores nothing', async () => {
    await bad({ components: [{ name: 'a', summary: { incidents: { issue: { High: 'two' } } } }] }, 'spec.components.0.summary.incidents.issue.High');
    await bad({ components: [{ name: 'a', summary: { insights: { security: { critical: -1 } } } }] }, 'spec.components.0.summary.insights.security.critical');
    await bad({ components: [{ name: 'a', components: [{ name: 'b', components: [{ name: 'c', summary: { incidents: { x: { y: 1.5 } } } }] }] }] },
      'spec.components.0.components.0.components.0.summary.incidents.x.y');
    await bad({ components: [{ name: 'a', summary: { unknownKey: 1 } }] }, 'spec.components.0.summary');
    await bad({ push: { url: 'ftp://example.com/x' } }, 'spec.push.url');
    await bad({ push: { url: `${base}/push`, awsSigV4: { region: 'eu-west-1' } } }, 'spec.push.awsSigV4');
    await bad({ push: { connection: 'receiver' } }, 'spec.push.connection');
    expect((await t.db.query(`SELECT 1 FROM topologies WHERE name = 'bad-summary-push'`)).rowCount).toBe(0);
  });
});

describe('static summary', () => {
  it('adds the spec\'s incidents and insights to the component and sums them up the tree; removing them rolls back', async () => {
    const spec = {
      type: 'App',
      components: [{
        name: 'api', type: 'Service',
        summary: { healthy: 99, incidents: { issue: { High: 2 } }, insights: { security: { critical: 1 } } },
        components: [
          { name: 'pod-1', type: 'Pod', summary: { incidents: { issue: { High: 1, Low: 1 }, availability: { Critical: 1 } } } },
          { name: 'pod-2', type: 'Pod', health: 'healthy' },
        ],
      }, { name: 'db', type: 'Database', summary: { insights: { cost: { info: 3 } } } }],
    };
    const id = await makeTopology(spec);
    const res = await runNow(id);
    expect(res.statusCode, res.payload).toBe(200);
    const pod1 = await summaryOf(id, 'pod-1');
    expect(pod1.summary).toMatchObject({ incidents: { issue: { High: 1, Low: 1 }, availability: { Critical: 1 } }, insights: {} });
    const api = await summaryOf(id, 'api');
    expect(api.summary).toMatchObject({
      incidents: { issue: { High: 3, Low: 1 }, availability: { Critical: 1 } }, insights: { security: { critical: 1 } },
    });
    // health counts are computed, never the spec's (healthy: 99 is ignored): one healthy pod
    expect(api.summary.healthy).toBe(1);
    const root = (await t.db.query(`SELECT summary FROM components WHERE topology_id = $1 AND parent_id IS NULL AND deleted_at IS NULL`, [id])).rows[0];
    expect(root.summary).toMatchObject({
      incidents: { issue: { High: 3, Low: 1 }, availability: { Critical: 1 } },
      insights: { security: { critical: 1 }, cost: { info: 3 } },
    });

    // the spec without the summaries: the next run writes static_summary null and the roll-up follows
    const patched = await patchSpec(id, { ...spec, components: [{ ...spec.components[0], summary: undefined, components: spec.components[0].components!.map((c) => ({ ...c, summary: undefined })) }, spec.components[1]] });
    expect(patched.statusCode, patched.payload).toBe(200);
    expect((await runNow(id)).statusCode).toBe(200);
    const rootAfter = (await t.db.query(`SELECT summary FROM components WHERE topology_id = $1 AND parent_id IS NULL AND deleted_at IS NULL`, [id])).rows[0];
    expect(rootAfter.summary).toMatchObject({ incidents: {}, insights: { cost: { info: 3 } } });
  });
});

describe('push', () => {
  it('POSTs the saved tree as JSON after the run, with the spec\'s credentials and headers', async () => {
    received.length = 0;
    answer = 200;
    const id = await makeTopology({
      type: 'App', text: 'Pushed',
      push: { url: `${base}/push/topology`, username: 'pusher', password: { value: 's3cret' }, headers: [{ name: 'X-Agent', value: 'edge-1' }] },
      components: [{ name: 'api', type: 'Service', properties: [{ name: 'version', text: '1.2' }], components: [{ name: 'pod', type: 'Pod', health: 'healthy' }] }],
    });
    const res = await runNow(id);
    expect(res.statusCode, res.payload).toBe(200);
    expect(received).toHaveLength(1);
    const r = received[0];
    expect(r.method).toBe('POST');
    expect(r.url).toBe('/push/topology');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['x-agent']).toBe('edge-1');
    expect(r.headers.authorization).toBe(`Basic ${Buffer.from('pusher:s3cret').toString('base64')}`);
    const body = JSON.parse(r.body);
    const rootId = (await t.db.query(`SELECT id FROM components WHERE topology_id = $1 AND parent_id IS NULL`, [id])).rows[0].id;
    expect(body).toMatchObject({
      id: rootId, name: 'Pushed', type: 'App', status: 'healthy', topology_id: id,
      components: [{ name: 'api', type: 'Service', properties: [{ name: 'version', text: '1.2' }], components: [{ name: 'pod', status: 'healthy' }] }],
    });
    expect((await lastJob(id)).status).toBe('SUCCESS');
  });

  it('a receiver that fails is a line of the job history (WARNING); the components are saved; the secret never shows', async () => {
    received.length = 0;
    answer = 500;
    const id = await makeTopology({ push: { url: `${base}/push`, password: 'hunter2-secret', username: 'u' }, components: [{ name: 'only' }] });
    const res = await runNow(id);
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', count: '2' });
    expect(received).toHaveLength(1);
    const job = await lastJob(id);
    expect(job.status).toBe('WARNING');
    const line = job.details.errors.find((e) => e.startsWith('error pushing topology: '));
    expect(line, JSON.stringify(job.details.errors)).toBeDefined();
    expect(line).toContain('500');
    expect(JSON.stringify(job.details)).not.toContain('hunter2-secret');
    answer = 200;
  });

  it('an unreachable receiver fails the push, not the run', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const id = await makeTopology({ push: { url: `http://127.0.0.1:${port}/push` }, components: [{ name: 'x' }] });
    expect((await runNow(id)).statusCode).toBe(200);
    const job = await lastJob(id);
    expect(job.status).toBe('WARNING');
    expect(job.details.errors.some((e) => e.startsWith('error pushing topology: '))).toBe(true);
    expect((await t.db.query(`SELECT count(*)::int AS n FROM components WHERE topology_id = $1 AND deleted_at IS NULL`, [id])).rows[0].n).toBe(2);
  });
});
