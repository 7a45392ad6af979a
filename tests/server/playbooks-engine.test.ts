import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelRun, createRun, retryFromFailed } from '../../server/modules/playbooks/runs.js';
import type { PlaybookExecutor } from '../../server/modules/playbooks/executor.js';
import { EVENTS_CHANNEL } from '../../server/lib/events.js';
import { LOG_STREAM_CAP_BYTES, TRUNCATED_LINE } from '../../server/modules/playbooks/log-writer.js';
import { createTestApp, type TestContext } from './helpers.js';
import {
  abortedAt, engine, executions, insertPlaybook, KEY, logLines, runView, systemPerson, waitFinal, waitFor, waitStatus,
} from './playbooks-engine-support.js';

let ctx: TestContext;
let pool: pg.Pool;
let eng: PlaybookExecutor;
let person: string;

beforeAll(async () => {
  ctx = await createTestApp({ PLAYBOOK_ENGINE: 'off' });
  pool = new pg.Pool({ connectionString: ctx.config.DATABASE_URL, max: 12 });
  pool.on('error', () => undefined);
  eng = engine(pool, ctx.config.DATABASE_URL!, { replica: 'engine-a' });
  await eng.start();
  person = await systemPerson(ctx.db);
});

afterAll(async () => {
  await eng?.stop(0);
  await pool?.end();
  await ctx?.close();
});

/** Whether a process is gone (or a zombie waiting to be reaped). */
function gone(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? true;
  } catch {
    return true;
  }
}

async function backgroundPid(runId: string): Promise<number> {
  return waitFor('the script to print its background pid', async () => {
    const m = /bg=(\d+)/.exec((await logLines(ctx.db, runId)).map((l) => l.text).join(''));
    return m ? Number(m[1]) : null;
  });
}

async function run(spec: Record<string, unknown>, params: Record<string, unknown> = {}) {
  const pb = await insertPlaybook(ctx.db, spec);
  return (await createRun(ctx.db, { playbook: pb, params, createdBy: person, secretsKey: KEY })).run_id;
}

describe('playbook engine', () => {
  it('runs the actions in spec order and completes; output is stored in order and secrets are masked', async () => {
    const id = await run({
      parameters: [{ name: 'token', type: 'secret' }],
      actions: [
        { name: 'one', testStep: { print: ['first line', 'token=s3cr3t-value'] } },
        { name: 'two', testStep: { print: ['second'], stderr: ['warn'] } },
        { name: 'three', testStep: { result: { leaked: 's3cr3t-value' } } },
      ],
    }, { token: 's3cr3t-value' });
    const stored = await ctx.db.query('SELECT parameters FROM playbook_runs WHERE id = $1', [id]);
    expect(String(stored.rows[0].parameters.token)).toMatch(/^enc:v1:/);
    const v = await waitFinal(ctx.db, id);
    expect(v.status).toBe('completed');
    expect(v.actions.map((a) => [a.name, a.status])).toEqual([['one', 'completed'], ['two', 'completed'], ['three', 'completed']]);
    expect(v.actions[2].result).toMatchObject({ leaked: '***' });
    const lines = await logLines(ctx.db, id);
    expect(lines.map((l) => l.text).join('')).toContain('first line\ntoken=***\n');
    expect(lines.some((l) => l.stream === 'stderr' && l.text === 'warn\n')).toBe(true);
    expect(JSON.stringify(lines)).not.toContain('s3cr3t-value');
  });

  it("reads a run's playbook and person once per version: the next run reuses them, an update is seen by the run after it", async () => {
    const pb = await insertPlaybook(ctx.db, { actions: [{ name: 'who', testStep: { print: ['{{.playbook.title}} by {{.user.name}}'] } }] });
    const reads: string[] = [];
    const query = pool.query.bind(pool);
    pool.query = ((...args: Parameters<typeof pool.query>) => {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text;
      if (/FROM (playbooks|people) WHERE id/.test(text)) reads.push(/FROM (\w+)/.exec(text)![1]);
      return query(...args);
    }) as typeof pool.query;
    const once = async () => {
      const id = (await createRun(ctx.db, { playbook: pb, params: {}, createdBy: person, secretsKey: KEY })).run_id;
      expect((await waitFinal(ctx.db, id)).status).toBe('completed');
      return (await logLines(ctx.db, id)).map((l) => l.text).join('');
    };
    try {
      const name = (await ctx.db.query('SELECT name FROM people WHERE id = $1', [person])).rows[0].name;
      expect(await once()).toBe(`${(await ctx.db.query('SELECT title FROM playbooks WHERE id = $1', [pb.id])).rows[0].title} by ${name}\n`);
      const first = reads.length;
      expect(await once()).toContain(' by ');
      expect(reads.length).toBe(first); // neither row read again
      await ctx.db.query("UPDATE playbooks SET title = 'Renamed playbook' WHERE id = $1", [pb.id]);
      expect(await once()).toBe(`Renamed playbook by ${name}\n`);
      expect(reads.slice(first)).toEqual(['playbooks']);
      await ctx.db.query("UPDATE people SET name = 'Renamed Person' WHERE id = $1", [person]);
      expect(await once()).toBe('Renamed playbook by Renamed Person\n');
      expect(reads.slice(first)).toEqual(['playbooks', 'people']);
    } finally {
      pool.query = query;
      await ctx.db.query("UPDATE people SET name = 'Engine Test' WHERE id = $1", [person]);
    }
  });

  it('publishes run and action changes on playbook_runs and stored lines on playbook_run_action_logs, with the run id', async () => {
    const listener = new pg.Client({ connectionString: ctx.config.DATABASE_URL });
    await listener.connect();
    const events: { relation: string; ids?: string[] }[] = [];
    listener.on('notification', (n) => events.push(JSON.parse(n.payload ?? '{}')));
    await listener.query(`LISTEN ${EVENTS_CHANNEL}`);
    try {
      const id = await run({ actions: [{ name: 'one', testStep: { print: ['a line'] } }] });
      await waitFinal(ctx.db, id);
      // changes of one run within PUBLISH_COALESCE_MS are announced once, so a run this fast may make one event; the
      // last one is sent when the engine lets go of the run, after its final write
      await waitFor('the events', async () =>
        events.some((e) => e.relation === 'playbook_runs' && e.ids?.includes(id))
        && events.some((e) => e.relation === 'playbook_run_action_logs' && e.ids?.includes(id)));
    } finally {
      await listener.end();
    }
  });

  it('after a failure runs only actions with an if: always() and failure() run, success() and plain ones are skipped', async () => {
    const id = await run({
      actions: [
        { name: 'ok', testStep: {} },
        { name: 'boom', testStep: { fail: 'it broke' } },
        { name: 'plain', testStep: {} },
        { name: 'cleanup', if: 'always()', testStep: {} },
        { name: 'on-failure', if: 'failure()', testStep: {} },
        { name: 'on-success', if: 'success()', testStep: {} },
      ],
    });
    const v = await waitFinal(ctx.db, id);
    expect(v.status).toBe('failed');
    expect(v.actions.map((a) => [a.name, a.status])).toEqual([
      ['ok', 'completed'], ['boom', 'failed'], ['plain', 'skipped'], ['cleanup', 'completed'], ['on-failure', 'completed'],
      ['on-success', 'skipped'],
    ]);
    expect(v.actions[1].error).toBe('it broke');
  });

  it('a delay puts the action and the run to sleep until their scheduled time', async () => {
    const id = await run({ actions: [{ name: 'later', delay: '2s', testStep: {} }] });
    const sleeping = await waitStatus(ctx.db, id, 'sleeping');
    expect(sleeping.actions).toMatchObject([{ name: 'later', status: 'sleeping' }]);
    const v = await waitFinal(ctx.db, id);
    expect(v.status).toBe('completed');
    expect(v.actions).toMatchObject([{ name: 'later', status: 'completed' }]);
  });

  it('retry: the run is retrying between attempts, each attempt is a row with its retry_count', async () => {
    const id = await run({ actions: [{ name: 'flaky', retry: { limit: 3, duration: '1s' }, testStep: { failTimes: 2 } }] });
    await waitStatus(ctx.db, id, 'retrying');
    const v = await waitFinal(ctx.db, id);
    expect(v.status).toBe('completed');
    expect(v.actions.map((a) => [a.status, a.retry_count])).toEqual([['failed', 0], ['failed', 1], ['completed', 2]]);
    expect(executions.get(`${id}/flaky`)).toBe(3);
  });

  it('an action timeout aborts it: the action fails, the run is timed_out; a run timeout ends the run', async () => {
    const a = await run({ actions: [{ name: 'slow', timeout: '1s', testStep: { sleepMs: 60_000 } }, { name: 'after', if: 'always()', testStep: {} }] });
    const va = await waitFinal(ctx.db, a);
    expect(va.status).toBe('timed_out');
    expect(va.actions[0]).toMatchObject({ name: 'slow', status: 'failed', error: 'action timed out after 1s' });
    expect(va.actions[1]).toMatchObject({ name: 'after', status: 'completed' });
    expect(abortedAt.has(`${a}/slow`)).toBe(true);

    const b = await run({ timeout: '2s', actions: [{ name: 'slow', testStep: { sleepMs: 60_000 } }, { name: 'never', testStep: {} }] });
    const vb = await waitFinal(ctx.db, b);
    expect(vb.status).toBe('timed_out');
    expect(vb.actions).toMatchObject([{ name: 'slow', status: 'failed', error: 'playbook run timed out' }]);
  });

  it('cancel aborts the running action at once and the run is cancelled; cancelling again is a 400', async () => {
    const id = await run({ actions: [{ name: 'hang', testStep: { sleepMs: 120_000 } }, { name: 'next', testStep: {} }] });
    await waitFor('the action to run', async () => (await runView(ctx.db, id)).actions[0]?.status === 'running');
    const asked = Date.now();
    await cancelRun(ctx.db, id, person);
    await waitFor('the action to be aborted', async () => abortedAt.has(`${id}/hang`), 5_000);
    console.log(`cancel → action aborted in ${abortedAt.get(`${id}/hang`)! - asked} ms`);
    const v = await runView(ctx.db, id);
    expect(v.status).toBe('cancelled');
    expect(v.actions).toMatchObject([{ name: 'hang', status: 'failed', error: 'cancelled' }]);
    await expect(cancelRun(ctx.db, id, person)).rejects.toMatchObject({ statusCode: 400 });
    await new Promise((r) => setTimeout(r, 500));
    expect((await runView(ctx.db, id)).status).toBe('cancelled');
  });

  it('exec: cancel kills the script and its background sleep within 5 s; so does an action timeout', async () => {
    const script = 'sleep 300 &\necho "bg=$!"\nwait';
    const id = await run({ actions: [{ name: 'script', exec: { script } }] });
    const pid = await backgroundPid(id);
    expect(gone(pid)).toBe(false);
    const asked = Date.now();
    await cancelRun(ctx.db, id, person);
    await waitFor('the background sleep to die', async () => gone(pid), 5_000);
    console.log(`exec cancel → background sleep gone in ${Date.now() - asked} ms`);
    expect((await runView(ctx.db, id)).status).toBe('cancelled');

    const t = await run({ actions: [{ name: 'script', timeout: '2s', exec: { script } }] });
    const tpid = await backgroundPid(t);
    const v = await waitFinal(ctx.db, t);
    expect(v.status).toBe('timed_out');
    expect(v.actions[0]).toMatchObject({ status: 'failed', error: 'action timed out after 2s' });
    await waitFor('the background sleep to die', async () => gone(tpid), 5_000);
  }, 60_000);

  it('a failure before any action sets the run error and fails it, with no action rows', async () => {
    const id = await run({
      env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
      actions: [{ name: 'one', testStep: {} }],
    });
    const v = await waitFinal(ctx.db, id);
    expect(v.status).toBe('failed');
    expect(v.error).toMatch(/valueFrom/);
    expect(v.actions).toEqual([]);
    const bad = await run({ actions: [{ name: 'one', nosuchtype: {} }] });
    const vb = await waitFinal(ctx.db, bad);
    expect(vb).toMatchObject({ status: 'failed', error: 'action type nosuchtype is not available', actions: [] });
  });

  it('runsOn another agent: the action waits for it, with its agent data', async () => {
    const { rows } = await ctx.db.query("INSERT INTO agents (name) VALUES ('edge-1') RETURNING id");
    const id = await run({ actions: [{ name: 'remote', runsOn: ['edge-1'], testStep: {} }] });
    const v = await waitStatus(ctx.db, id, 'waiting');
    expect(v.actions).toMatchObject([{ name: 'remote', status: 'waiting' }]);
    const data = await ctx.db.query('SELECT d.run_id, a.agent_id FROM playbook_action_agent_data d JOIN playbook_run_actions a ON a.id = d.action_id WHERE d.run_id = $1', [id]);
    expect(data.rows).toEqual([{ run_id: id, agent_id: rows[0].id }]);
  });

  it('output is kept up to 1 MB a stream, then one truncation line', async () => {
    const id = await run({ actions: [{ name: 'loud', testStep: { bytes: 3 * 1024 * 1024 } }] });
    const v = await waitFinal(ctx.db, id);
    expect(v.status).toBe('completed');
    const lines = await logLines(ctx.db, id);
    const body = lines.filter((l) => l.text !== TRUNCATED_LINE).reduce((n, l) => n + Buffer.byteLength(l.text), 0);
    expect(body).toBe(LOG_STREAM_CAP_BYTES);
    expect(lines.filter((l) => l.text === TRUNCATED_LINE)).toHaveLength(1);
    expect(lines.map((l) => l.seq)).toEqual(lines.map((_, i) => i));
  });

  it('retry from the failed action: a child run reuses the completed results and starts at the failed one', async () => {
    const id = await run({ actions: [{ name: 'first', testStep: {} }, { name: 'second', testStep: { failOnceKey: 'retry-from-failed' } }] });
    expect((await waitFinal(ctx.db, id)).status).toBe('failed');
    const child = await retryFromFailed(ctx.db, id, person);
    const v = await waitFinal(ctx.db, child.run_id);
    expect(v.status).toBe('completed');
    expect(v.actions.map((a) => [a.name, a.status])).toEqual([['first', 'completed'], ['second', 'completed']]);
    expect(executions.get(`${child.run_id}/first`)).toBeUndefined();
    const parent = await ctx.db.query('SELECT parent_id FROM playbook_runs WHERE id = $1', [child.run_id]);
    expect(parent.rows[0].parent_id).toBe(id);
    await expect(retryFromFailed(ctx.db, child.run_id, person)).rejects.toMatchObject({ statusCode: 400 });
  });

  it('two engines share 200 runs and every action runs exactly once', async () => {
    const pool2 = new pg.Pool({ connectionString: ctx.config.DATABASE_URL, max: 12 });
    pool2.on('error', () => undefined);
    const second = engine(pool2, ctx.config.DATABASE_URL!, { replica: 'engine-b' });
    await second.start();
    try {
      const pb = await insertPlaybook(ctx.db, { actions: [{ name: 'a', testStep: {} }, { name: 'b', testStep: {} }] });
      const ids: string[] = [];
      for (let i = 0; i < 200; i++) ids.push((await createRun(ctx.db, { playbook: pb, params: {}, createdBy: person })).run_id);
      await waitFor('200 runs to complete', async () => {
        const { rows } = await ctx.db.query("SELECT count(*)::int AS n FROM playbook_runs WHERE id = ANY($1) AND status = 'completed'", [ids]);
        return rows[0].n === 200;
      }, 120_000);
      for (const id of ids) {
        expect(executions.get(`${id}/a`)).toBe(1);
        expect(executions.get(`${id}/b`)).toBe(1);
      }
      const { rows } = await ctx.db.query(
        'SELECT count(*)::int AS n, count(DISTINCT playbook_run_id)::int AS runs FROM playbook_run_actions WHERE playbook_run_id = ANY($1)', [ids]);
      expect(rows[0]).toEqual({ n: 400, runs: 200 });
    } finally {
      await second.stop(0);
      await pool2.end();
    }
  }, 180_000);
});
