import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';

/**
 * Whole playbook flows through the public doors only, as the reference UI and its clients call them (issue 14):
 * a console playbook written by POST /api/db/playbooks, run by POST /api/playbook/run, watched on
 * /api/playbook/run/{id}/status to completed, its actions' results and stored log lines read back through /api/db;
 * a webhook starting a run; a check pushed failing starting its on.canary playbook; an approval gate approved.
 * The engine runs in the app (PLAYBOOK_ENGINE on); nothing here is scheduled.
 */

let t: TestContext;
let admin: Record<string, string>;
let approver: Record<string, string>;
let approverEmail = '';
let peer: Server;
let peerUrl = '';
const seen: { method?: string; body: string }[] = [];

type Inject = { method: 'GET' | 'POST' | 'PATCH'; url: string; headers?: Record<string, string>; payload?: unknown };
const call = ({ method, url, headers = admin, payload }: Inject) =>
  t.app.inject({ method, url, headers: { ...headers, ...(payload !== undefined && { 'content-type': 'application/json' }) }, payload: payload as never });

async function createPlaybook(title: string, spec: Record<string, unknown>): Promise<string> {
  const res = await call({ method: 'POST', url: '/api/db/playbooks', headers: { ...admin, prefer: 'return=representation' }, payload: { name: title, title, spec, source: 'UI' } });
  expect(res.statusCode, res.body).toBe(201);
  const body = res.json();
  return (Array.isArray(body) ? body[0] : body).id as string;
}

interface StatusAnswer {
  run: { id: string; status: string; error?: string | null; parameters?: Record<string, unknown>; check_id?: string | null; request?: Record<string, unknown> | null };
  actions: { id: string; name: string; status: string; result?: Record<string, unknown> | null; error?: string | null }[];
}

async function status(runId: string): Promise<StatusAnswer> {
  const res = await call({ method: 'GET', url: `/api/playbook/run/${runId}/status` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as StatusAnswer;
}

/** Polls the status route until the run is in one of `want` (no timing asserted: the test's timeout bounds it). */
async function until(runId: string, want: string[]): Promise<StatusAnswer> {
  for (;;) {
    const s = await status(runId);
    if (want.includes(s.run.status)) return s;
    if (['completed', 'failed', 'cancelled', 'timed_out'].includes(s.run.status)) {
      throw new Error(`run ${runId} ended ${s.run.status}, wanted ${want.join('|')}: ${JSON.stringify(s)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function runsOf(playbookId: string): Promise<{ id: string; status: string; check_id: string | null }[]> {
  const res = await call({ method: 'GET', url: `/api/db/playbook_runs?playbook_id=eq.${playbookId}&select=id,status,check_id&order=created_at.desc` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function firstRun(playbookId: string) {
  for (;;) {
    const runs = await runsOf(playbookId);
    if (runs.length) return runs[0];
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  t = await createTestApp({ SECRETS_KEY: 'b'.repeat(64) });
  admin = await bearerHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
  const ap = await makePerson(t.db, { roles: ['editor'] });
  approverEmail = ap.email;
  approver = await bearerHeaders(t.db, ap.id);
  peer = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      seen.push({ method: req.method, body });
      res.writeHead(201, { 'content-type': 'application/json', 'x-peer': 'flows' });
      res.end(JSON.stringify({ got: body }));
    });
  });
  await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
  peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  await new Promise((r) => peer?.close(r));
  await t?.close();
});

describe('playbook flows through the public API', () => {
  it('create (as the reference UI) → params → run → completed: exec, http, sql results and stored log lines', async () => {
    const id = await createPlaybook('Flows three actions', {
      description: 'exec, http and sql in a row',
      parameters: [{ name: 'who', label: 'Who', default: 'world' }],
      actions: [
        { name: 'greet', exec: { script: 'echo "hello {{.params.who}}"; echo "to stderr" >&2' } },
        { name: 'post', http: { url: `${peerUrl}/hook`, method: 'POST', body: '{"from":"{{ (getAction "greet").result.stdout | strings.TrimSpace }}"}' } },
        { name: 'count', sql: { driver: 'postgres', url: t.config.DATABASE_URL, query: "SELECT count(*)::int AS n FROM playbooks WHERE title = 'Flows three actions'" } },
      ],
    });

    const list = await call({ method: 'GET', url: '/api/playbook/list' });
    expect(list.statusCode).toBe(200);
    expect((list.json() as { id: string; title: string }[]).find((p) => p.id === id)).toMatchObject({ title: 'Flows three actions' });

    const params = await call({ method: 'POST', url: `/api/playbook/${id}/params`, payload: { id } });
    expect(params.statusCode, params.body).toBe(200);
    expect(params.json().params).toEqual([expect.objectContaining({ name: 'who', default: 'world' })]);

    const started = await call({ method: 'POST', url: '/api/playbook/run', payload: { id, params: { who: 'flows' } } });
    expect(started.statusCode, started.body).toBe(201);
    expect(started.json()).toEqual({ run_id: expect.any(String), starts_at: expect.any(String) });
    const runId = started.json().run_id as string;

    const done = await until(runId, ['completed']);
    expect(done.run.parameters).toMatchObject({ who: 'flows' });
    expect(done.actions.map((a) => [a.name, a.status])).toEqual([['greet', 'completed'], ['post', 'completed'], ['count', 'completed']]);
    const [greet, post, count] = done.actions;
    // the status route may leave results out (the reference's rpc does); read each action as the run page does
    const result = async (actionId: string) => {
      const res = await call({ method: 'GET', url: `/api/db/playbook_run_actions?id=eq.${actionId}&select=id,result` });
      expect(res.statusCode, res.body).toBe(200);
      return res.json()[0].result as Record<string, unknown>;
    };
    expect(await result(greet.id)).toMatchObject({ stdout: expect.stringContaining('hello flows'), stderr: expect.stringContaining('to stderr'), exitCode: 0 });
    expect(await result(post.id)).toMatchObject({ code: 201, headers: expect.objectContaining({ 'X-Peer': 'flows' }), content: { got: '{"from":"hello flows"}' } });
    expect(seen.at(-1)).toEqual({ method: 'POST', body: '{"from":"hello flows"}' });
    expect(await result(count.id)).toMatchObject({ count: 1, rows: [{ n: 1 }] });

    const logs = await call({ method: 'GET', url: `/api/db/playbook_run_action_logs?action_id=eq.${greet.id}&order=seq.asc` });
    expect(logs.statusCode, logs.body).toBe(200);
    const lines = logs.json() as { stream: string; text: string; run_id: string }[];
    expect(lines.every((l) => l.run_id === runId)).toBe(true);
    expect(lines.some((l) => l.stream === 'stdout' && l.text.includes('hello flows'))).toBe(true);
    expect(lines.some((l) => l.stream === 'stderr' && l.text.includes('to stderr'))).toBe(true);
  }, 120_000);

  it('a failing action fails the run; retry starts a new run that completes once the cause is fixed', async () => {
    const id = await createPlaybook('Flows retry', {
      actions: [{ name: 'flaky', exec: { script: `test -e "${'/tmp/playbooks-flows-' + process.pid}" || { echo missing >&2; exit 3; }` } }],
    });
    const runId = (await call({ method: 'POST', url: '/api/playbook/run', payload: { id } })).json().run_id as string;
    const failed = await until(runId, ['failed']);
    expect(failed.actions[0]).toMatchObject({ name: 'flaky', status: 'failed' });
    const { writeFile, rm } = await import('node:fs/promises');
    const marker = `/tmp/playbooks-flows-${process.pid}`;
    await writeFile(marker, '');
    try {
      const retried = await call({ method: 'POST', url: `/api/playbook/run/${runId}/retry` });
      expect(retried.statusCode, retried.body).toBe(201);
      const again = await until(retried.json().run_id, ['completed']);
      expect(again.actions.at(-1)).toMatchObject({ name: 'flaky', status: 'completed' });
    } finally {
      await rm(marker, { force: true });
    }
  }, 120_000);

  it('the reference\'s action-last-result: getLastAction() and getAction() in if, getAction in a template', async () => {
    // mission-control playbook/testdata/action-last-result.yaml (Apache-2.0), its Slack notification left out
    const path = `/tmp/playbooks-flows-last-${process.pid}`;
    const id = await createPlaybook('Flows last result', {
      parameters: [{ name: 'path', label: 'Path to save the result' }],
      actions: [
        { name: 'make dummy API call', exec: { script: `echo '{\n  "result": "success",\n  "count": 20\n}'` } },
        { name: 'Log if count is low', if: 'getLastAction().result.stdout.JSON().count < 5', exec: { script: "echo 'LOW' > {{.params.path}}" } },
        { name: 'Log if count is high', if: 'getAction("make dummy API call").result.stdout.JSON().count > 15', exec: { script: "echo 'HIGH' > {{.params.path}}" } },
        {
          name: 'Save the count', if: 'success()',
          exec: { script: `{{$result:=index (getAction "make dummy API call") "result"}}\n{{$stdout:=index $result "stdout"}}\necho -n '{{index ($stdout | json) "count"}}' >> {{.params.path}}` },
        },
      ],
    });
    const { readFile, rm } = await import('node:fs/promises');
    try {
      const runId = (await call({ method: 'POST', url: '/api/playbook/run', payload: { id, params: { path } } })).json().run_id as string;
      const done = await until(runId, ['completed']);
      expect(done.actions.map((a) => [a.name, a.status])).toEqual([
        ['make dummy API call', 'completed'], ['Log if count is low', 'skipped'], ['Log if count is high', 'completed'], ['Save the count', 'completed'],
      ]);
      expect(await readFile(path, 'utf8')).toBe('HIGH\n20');
    } finally {
      await rm(path, { force: true });
    }
  }, 120_000);

  it('a webhook call starts a run with the request, and it completes', async () => {
    const id = await createPlaybook('Flows webhook', {
      on: { webhook: { path: 'flows-hook' } },
      actions: [{ name: 'echo', exec: { script: 'echo "ref={{.request.json.ref}}"' } }],
    });
    const res = await t.app.inject({ method: 'POST', url: '/api/playbook/webhook/flows-hook', headers: { 'content-type': 'application/json' }, payload: { ref: 'main' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ message: 'ok', payload: { run_id: expect.any(String) } });
    const done = await until(res.json().payload.run_id, ['completed']);
    expect(done.run.request).toMatchObject({ method: 'POST', json: { ref: 'main' } });
    const out = await call({ method: 'GET', url: `/api/db/playbook_run_actions?id=eq.${done.actions[0].id}&select=result` });
    expect(out.json()[0].result).toMatchObject({ stdout: expect.stringContaining('ref=main') });
    expect((await runsOf(id)).map((r) => r.id)).toEqual([done.run.id]);
  }, 120_000);

  it('a check pushed failing starts its on.canary playbook for that check, which completes', async () => {
    const id = await createPlaybook('Flows on failure', {
      on: { canary: [{ event: 'failed', labels: { flows: 'yes' } }] },
      actions: [{ name: 'note', exec: { script: 'echo "failed: {{.check.name}}"' } }],
    });
    const push = (status: boolean) => call({ method: 'POST', url: '/api/canary/api/push', payload: { name: 'flows-check', canary_name: 'flows', labels: { flows: 'yes' }, status } });
    const ok = await push(true);
    expect(ok.statusCode, ok.body).toBe(201);
    const bad = await push(false);
    expect(bad.statusCode, bad.body).toBe(201);
    expect(bad.json()).toMatchObject({ status: 'unhealthy', transitioned: true });
    const run = await firstRun(id);
    expect(run.check_id).toBe(bad.json().id);
    const done = await until(run.id, ['completed']);
    const out = await call({ method: 'GET', url: `/api/db/playbook_run_actions?id=eq.${done.actions[0].id}&select=result` });
    expect(out.json()[0].result).toMatchObject({ stdout: expect.stringContaining('failed: flows-check') });
    expect(await runsOf(id)).toHaveLength(1);
  }, 120_000);

  it('an approval gate: pending_approval, only a listed approver approves, then it runs to completed', async () => {
    const id = await createPlaybook('Flows gated', {
      approval: { type: 'any', approvers: { people: [approverEmail] } },
      actions: [{ name: 'act', exec: { script: 'echo approved' } }],
    });
    const runId = (await call({ method: 'POST', url: '/api/playbook/run', payload: { id } })).json().run_id as string;
    expect((await status(runId)).run.status).toBe('pending_approval');
    const byAdmin = await call({ method: 'POST', url: `/api/playbook/run/approve/${runId}` });
    expect(byAdmin.statusCode, byAdmin.body).toBe(403);
    expect(byAdmin.json()).toMatchObject({ error: expect.any(String) });
    expect((await status(runId)).run.status).toBe('pending_approval');
    const ok = await call({ method: 'POST', url: `/api/playbook/run/approve/${runId}`, headers: approver });
    expect(ok.statusCode, ok.body).toBe(200);
    const done = await until(runId, ['completed']);
    expect(done.actions[0]).toMatchObject({ name: 'act', status: 'completed' });
    const approvals = await call({ method: 'GET', url: `/api/db/playbook_approvals?run_id=eq.${runId}&select=*` });
    expect(approvals.json()).toHaveLength(1);
  }, 120_000);
});
