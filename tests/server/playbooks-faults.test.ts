import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRun } from '../../server/modules/playbooks/runs.js';
import { createTestApp, type TestContext } from './helpers.js';
import { engine, insertPlaybook, runView, systemPerson, waitFinal, waitFor } from './playbooks-engine-support.js';

const CHILD = fileURLToPath(new URL('./playbooks-engine-child.ts', import.meta.url));

describe('playbook engine faults', () => {
  let ctx: TestContext;
  let person: string;
  const pools: pg.Pool[] = [];
  const newPool = () => {
    const p = new pg.Pool({ connectionString: ctx.config.DATABASE_URL, max: 6 });
    p.on('error', () => undefined);
    pools.push(p);
    return p;
  };

  beforeAll(async () => {
    ctx = await createTestApp({ PLAYBOOK_ENGINE: 'off' });
    person = await systemPerson(ctx.db);
  });
  afterAll(async () => {
    for (const p of pools) await p.end();
    await ctx?.close();
  });

  it('a replica SIGKILLed mid-action: another fails the action "interrupted", retries it when it retries, no run stays running', async () => {
    const retried = await insertPlaybook(ctx.db, { actions: [{ name: 'work', retry: { limit: 1, duration: '0s' }, testStep: { print: ['done'] } }] });
    const plain = await insertPlaybook(ctx.db, { actions: [{ name: 'work', testStep: {} }, { name: 'next', testStep: {} }] });
    const a = (await createRun(ctx.db, { playbook: retried, params: {}, createdBy: person })).run_id;
    const b = (await createRun(ctx.db, { playbook: plain, params: {}, createdBy: person })).run_id;

    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ctx.config.DATABASE_URL!, 'doomed-replica'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await waitFor('the child replica to run both actions', async () => {
        const { rows } = await ctx.db.query(
          "SELECT count(*)::int AS n FROM playbook_run_actions WHERE playbook_run_id = ANY($1) AND status = 'running' AND lease_owner LIKE 'doomed-replica#%'",
          [[a, b]]);
        return rows[0].n === 2;
      }, 60_000);
    } finally {
      child.kill('SIGKILL');
    }
    await new Promise((r) => child.once('exit', r));

    const survivor = engine(newPool(), ctx.config.DATABASE_URL!, { replica: 'survivor', leaseMs: 2_000 });
    await survivor.start();
    try {
      const va = await waitFinal(ctx.db, a, 60_000);
      expect(va.status).toBe('completed');
      expect(va.actions.map((x) => [x.status, x.error, x.retry_count])).toEqual([
        ['failed', 'interrupted: replica doomed-replica stopped', 0], ['completed', null, 1],
      ]);
      const vb = await waitFinal(ctx.db, b, 60_000);
      expect(vb.status).toBe('failed');
      expect(vb.actions).toMatchObject([
        { name: 'work', status: 'failed', error: 'interrupted: replica doomed-replica stopped' },
        { name: 'next', status: 'skipped' },
      ]);
      const { rows } = await ctx.db.query("SELECT count(*)::int AS n FROM playbook_runs WHERE status = 'running'");
      expect(rows[0].n).toBe(0);
    } finally {
      await survivor.stop(0);
    }
  }, 150_000);

  it('SIGTERM: the stopping replica claims nothing more, waits its grace, then interrupts; another replica goes on', async () => {
    const pb = await insertPlaybook(ctx.db, {
      actions: [{ name: 'long', retry: { limit: 1, duration: '0s' }, testStep: { sleepOnceKey: 'sigterm' } }, { name: 'after', testStep: {} }],
    });
    const stopping = engine(newPool(), ctx.config.DATABASE_URL!, { replica: 'stopping-replica', graceMs: 500 });
    await stopping.start();
    const id = (await createRun(ctx.db, { playbook: pb, params: {}, createdBy: person })).run_id;
    await waitFor('the action to run', async () => (await runView(ctx.db, id)).actions[0]?.status === 'running');
    await stopping.stop();
    const after = await runView(ctx.db, id);
    expect(after.status).toBe('scheduled');
    expect(after.actions[0]).toMatchObject({ status: 'failed', error: 'interrupted: replica stopping-replica stopped' });
    // stopped: a new run is not taken by it
    const other = engine(newPool(), ctx.config.DATABASE_URL!, { replica: 'other-replica' });
    await other.start();
    try {
      const v = await waitFinal(ctx.db, id);
      expect(v.status).toBe('completed');
      expect(v.actions.map((x) => [x.name, x.status, x.retry_count])).toEqual([['long', 'failed', 0], ['long', 'completed', 1], ['after', 'completed', 0]]);
    } finally {
      await other.stop(0);
    }
  }, 60_000);
});

describe('the engine in the app', () => {
  it('starts with the app on a console replica and runs a created run to the end', async () => {
    const ctx = await createTestApp();
    try {
      const person = await systemPerson(ctx.db);
      const pb = await insertPlaybook(ctx.db, { actions: [{ name: 'one', testStep: { print: ['hello'] } }] });
      const { run_id } = await createRun(ctx.db, { playbook: pb, params: {}, createdBy: person });
      const v = await waitFinal(ctx.db, run_id);
      expect(v).toMatchObject({ status: 'completed', actions: [{ name: 'one', status: 'completed' }] });
    } finally {
      await ctx.close();
    }
  }, 60_000);
});
