import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoSets } from '../../server/lib/demo.js';
import { foundationDemo } from '../../server/modules/demo/foundation.js';
import { healthDemo } from '../../server/modules/demo/health.js';
import { DEMO_SETS } from '../../server/modules/demo/index.js';
import { DEMO_WEBHOOK, demoPlaybooks, PAST_RUNS, playbooksDemo } from '../../server/modules/demo/playbooks.js';
import { recordResult } from '../../server/modules/health/queries.js';
import { createRun } from '../../server/modules/playbooks/runs.js';
import { playbookSpecProblems } from '../../server/modules/playbooks/spec.js';
import { createTestApp, makePerson, type TestContext, type TestPerson } from './helpers.js';

/**
 * The playbooks' demo (issue 14 "Demo"): its playbooks pass the spec's checks, load once (a second start adds
 * nothing), come with past runs (completed, failed with an error, cancelled) and their actions and logs, and work:
 * the approval gate holds, the webhook answers its credentials, the failing check's first failure runs its playbook.
 * Only the sets it builds on are loaded (the catalog's replays a week): foundation, health, playbooks.
 */

let t: TestContext;
let admin: TestPerson;
const SETS = [foundationDemo, healthDemo, playbooksDemo];
beforeAll(async () => {
  t = await createTestApp();
  admin = await makePerson(t.db, { roles: ['admin'] });
  expect(await loadDemoSets(t.db, SETS)).toEqual(['foundation', 'health', 'playbooks']);
}, 120_000);
afterAll(() => t?.close());

const ids = async () => new Map((await t.db.query<{ name: string; id: string }>(
  `SELECT name, id FROM playbooks WHERE deleted_at IS NULL`)).rows.map((r) => [r.name, r.id]));

describe('the playbooks demo', () => {
  it('is a demo set, before the topology (which stays last)', () => {
    expect(DEMO_SETS.map((s) => s.name)).toContain('playbooks');
    expect(DEMO_SETS.findIndex((s) => s.name === 'playbooks')).toBeGreaterThan(DEMO_SETS.findIndex((s) => s.name === 'health'));
    expect(DEMO_SETS.at(-1)?.name).toBe('topology');
  });

  it('every demo spec passes the spec\'s checks', () => {
    for (const p of demoPlaybooks('admin@example.com')) expect(playbookSpecProblems(p.spec), p.name).toEqual([]);
  });

  it('loads once: a second start, or the set loaded again, adds nothing', async () => {
    const count = async () => (await t.db.query<{ p: number; r: number; a: number; l: number }>(
      `SELECT (SELECT count(*)::int FROM playbooks) AS p, (SELECT count(*)::int FROM playbook_runs) AS r,
              (SELECT count(*)::int FROM playbook_run_actions) AS a, (SELECT count(*)::int FROM playbook_run_action_logs) AS l`)).rows[0];
    const before = await count();
    expect(await loadDemoSets(t.db, SETS)).toEqual([]);
    const client = await t.db.connect();
    try {
      await playbooksDemo.load(client);
    } finally {
      client.release();
    }
    expect(await count()).toEqual(before);
    expect(before.p).toBe(4);
  });

  it('the approval-gated playbook lists the admin and team Platform SRE; a viewer\'s run waits for them', async () => {
    const { rows } = await t.db.query(`SELECT id, spec FROM playbooks WHERE name = 'restart-deployment'`);
    expect(rows[0].spec.approval).toEqual({ type: 'any', approvers: { people: [admin.email], teams: ['Platform SRE'] } });
    const viewer = await makePerson(t.db, { roles: [] });
    const run = await createRun(t.db, { playbook: rows[0], params: { deployment: 'x', namespace: 'y' }, createdBy: viewer.id });
    const status = (await t.db.query('SELECT status FROM playbook_runs WHERE id = $1', [run.run_id])).rows[0].status;
    expect(status).toBe('pending_approval');
  });

  it('past runs: completed, failed with an error, cancelled, each with its actions and logs', async () => {
    const byName = await ids();
    const { rows } = await t.db.query<{ id: string; playbook_id: string; status: string; created_by: string; check_id: string | null }>(
      `SELECT r.id, r.playbook_id, r.status, r.created_by, r.check_id FROM playbook_runs r
        WHERE r.created_at < now() - interval '1 hour' ORDER BY r.created_at`);
    expect(rows.map((r) => r.status)).toEqual(PAST_RUNS.map((r) => r.status));
    expect(rows.map((r) => r.playbook_id)).toEqual(PAST_RUNS.map((r) => byName.get(r.playbook)));
    expect(new Set(rows.map((r) => r.status))).toEqual(new Set(['completed', 'failed', 'cancelled']));
    expect(rows[0].created_by).toBe(admin.id);
    const billing = (await t.db.query(`SELECT id FROM checks WHERE name = 'billing-api'`)).rows[0].id;
    expect(rows.find((r) => r.check_id)?.check_id).toBe(billing);
    const actions = await t.db.query<{ run: string; status: string; error: string | null; result: Record<string, unknown> | null; logs: number }>(
      `SELECT a.playbook_run_id AS run, a.status, a.error, a.result,
              (SELECT count(*)::int FROM playbook_run_action_logs l WHERE l.action_id = a.id) AS logs
         FROM playbook_run_actions a WHERE a.playbook_run_id = ANY($1::uuid[])`, [rows.map((r) => r.id)]);
    for (const r of rows) {
      const mine = actions.rows.filter((a) => a.run === r.id);
      expect(mine.length, r.status).toBeGreaterThan(0);
      expect(mine.every((a) => a.logs > 0)).toBe(true);
    }
    const failed = actions.rows.find((a) => a.status === 'failed' && a.error === 'exit status 1');
    expect(failed?.result).toMatchObject({ exitCode: 1 });
    const approvals = await t.db.query('SELECT count(*)::int AS n FROM playbook_approvals WHERE run_id = $1', [rows[0].id]);
    expect(approvals.rows[0].n).toBe(1);
  });

  it('the demo webhook runs with its credentials and refuses others', async () => {
    const auth = (p: string) => `Basic ${Buffer.from(`${DEMO_WEBHOOK.username}:${p}`).toString('base64')}`;
    const url = `/api/playbook/webhook/${DEMO_WEBHOOK.path}`;
    const ok = await t.app.inject({ method: 'POST', url, headers: { authorization: auth(DEMO_WEBHOOK.password), 'content-type': 'application/json' }, payload: '{"service":"billing"}' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().payload.run_id).toEqual(expect.any(String));
    expect((await t.app.inject({ method: 'POST', url, headers: { authorization: auth('nope') } })).statusCode).toBe(401);
  });

  it('the failing check\'s first failure runs "Restart failing service" against it, to completion', async () => {
    const check = (await t.db.query(`SELECT id, canary_id FROM checks WHERE name = 'billing-api'`)).rows[0];
    await recordResult(t.db, {
      checkId: check.id, canaryId: check.canary_id, time: new Date(), duration: 3, pass: false, invalid: false,
      message: null, error: 'connection refused', details: null, severity: null, nextRuntime: null,
    });
    const playbookId = (await ids()).get('restart-failing-service');
    const end = Date.now() + 60_000;
    let run: { id: string; status: string } | undefined;
    while (Date.now() < end) {
      run = (await t.db.query(`SELECT id, status FROM playbook_runs WHERE playbook_id = $1 AND check_id = $2
                                  AND created_at > now() - interval '5 minutes'`, [playbookId, check.id])).rows[0];
      if (run && ['completed', 'failed', 'cancelled', 'timed_out'].includes(run.status)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(run?.status).toBe('completed');
    const out = await t.db.query(`SELECT name, result FROM playbook_run_actions WHERE playbook_run_id = $1 ORDER BY start_time`, [run!.id]);
    expect(out.rows[0]).toMatchObject({ name: 'restart', result: { stdout: expect.stringContaining('restarting billing-api') } });
  });
});
