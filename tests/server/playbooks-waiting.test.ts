import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRun } from '../../server/modules/playbooks/runs.js';
import type { PlaybookExecutor } from '../../server/modules/playbooks/executor.js';
import { createTestApp, type TestContext } from './helpers.js';
import { engine, insertPlaybook, KEY, systemPerson, waitFinal, waitStatus } from './playbooks-engine-support.js';

/**
 * runsOn another agent (issue 14 "Engine"): a run whose action waits for an agent is timed out at its timeout (the
 * run's, or the action's own), by whichever replica's sweep claims it when that time comes.
 */

let ctx: TestContext;
let pool: pg.Pool;
let eng: PlaybookExecutor;
let person: string;

beforeAll(async () => {
  ctx = await createTestApp({ PLAYBOOK_ENGINE: 'off' });
  pool = new pg.Pool({ connectionString: ctx.config.DATABASE_URL, max: 8 });
  pool.on('error', () => undefined);
  eng = engine(pool, ctx.config.DATABASE_URL!, { replica: 'engine-wait' });
  await eng.start();
  person = await systemPerson(ctx.db);
  await ctx.db.query("INSERT INTO agents (name) VALUES ('edge-wait') ON CONFLICT DO NOTHING");
});

afterAll(async () => {
  await eng?.stop(0);
  await pool?.end();
  await ctx?.close();
});

async function run(spec: Record<string, unknown>) {
  const pb = await insertPlaybook(ctx.db, spec);
  return (await createRun(ctx.db, { playbook: pb, params: {}, createdBy: person, secretsKey: KEY })).run_id;
}

describe('a run waiting for another agent', () => {
  it('waits until its run timeout, then ends timed_out with the waiting action failed', async () => {
    const id = await run({ timeout: '2s', actions: [{ name: 'remote', runsOn: ['edge-wait'], testStep: {} }] });
    const waiting = await waitStatus(ctx.db, id, 'waiting');
    expect(waiting.actions).toMatchObject([{ name: 'remote', status: 'waiting' }]);
    const { rows } = await ctx.db.query<{ scheduled_time: Date; start_time: Date }>('SELECT scheduled_time, start_time FROM playbook_runs WHERE id = $1', [id]);
    // released until the run's deadline: not claimed again before it
    expect(rows[0].scheduled_time.getTime() - rows[0].start_time.getTime()).toBeGreaterThanOrEqual(1900);
    const v = await waitFinal(ctx.db, id, 15_000);
    expect(v.status).toBe('timed_out');
    expect(v.actions).toMatchObject([{ name: 'remote', status: 'failed', error: 'playbook run timed out' }]);
  });

  it('an action timeout fails the waiting action; timeout() actions still run and the run ends timed_out', async () => {
    const id = await run({
      timeout: '1m',
      actions: [
        { name: 'remote', runsOn: ['edge-wait'], timeout: '1s', testStep: {} },
        { name: 'skipped-after-failure', testStep: {} },
        { name: 'cleanup', if: 'timeout()', testStep: {} },
      ],
    });
    await waitStatus(ctx.db, id, 'waiting');
    const v = await waitFinal(ctx.db, id, 15_000);
    expect(v.status).toBe('timed_out');
    expect(v.actions.map((a) => [a.name, a.status])).toEqual([
      ['remote', 'failed'], ['skipped-after-failure', 'skipped'], ['cleanup', 'completed'],
    ]);
    expect(v.actions[0].error).toBe('action timed out after 1s waiting for its agent');
  });

  it('a waiting action with a retry is tried again after its timeout (a new waiting row)', async () => {
    const id = await run({
      timeout: '1m',
      actions: [{ name: 'remote', runsOn: ['edge-wait'], timeout: '1s', retry: { limit: 1, duration: '1s' }, testStep: {} }],
    });
    await waitStatus(ctx.db, id, 'waiting');
    const v = await waitFinal(ctx.db, id, 20_000);
    expect(v.status).toBe('timed_out');
    expect(v.actions.map((a) => [a.name, a.status, a.retry_count])).toEqual([['remote', 'failed', 0], ['remote', 'failed', 1]]);
  });
});
