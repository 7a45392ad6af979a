import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRun } from '../../server/modules/playbooks/runs.js';
import type { PlaybookExecutor } from '../../server/modules/playbooks/executor.js';
import { EXEC_DISABLED } from '../../server/modules/playbooks/actions/exec.js';
import { createTestApp, type TestContext } from './helpers.js';
import { engine, insertPlaybook, KEY, logLines, systemPerson, waitFinal } from './playbooks-engine-support.js';

/**
 * The exec action through the engine (issue 14, Security): a `secret` parameter printed by a bash script, whole, split
 * across two writes and base64-encoded, is `***` in the stored lines and the result; PLAYBOOK_EXEC=off fails the action.
 */

const SECRET = 'p4ss-w0rd-for-exec';
let ctx: TestContext;
let pool: pg.Pool;
let eng: PlaybookExecutor;
let off: PlaybookExecutor;
let person: string;

beforeAll(async () => {
  ctx = await createTestApp({ PLAYBOOK_ENGINE: 'off' });
  pool = new pg.Pool({ connectionString: ctx.config.DATABASE_URL, max: 8 });
  pool.on('error', () => undefined);
  eng = engine(pool, ctx.config.DATABASE_URL!, { replica: 'exec-on' });
  await eng.start();
  person = await systemPerson(ctx.db);
});

afterAll(async () => {
  await eng?.stop(0);
  await off?.stop(0);
  await pool?.end();
  await ctx?.close();
});

async function run(spec: Record<string, unknown>, params: Record<string, unknown> = {}) {
  const pb = await insertPlaybook(ctx.db, spec);
  return (await createRun(ctx.db, { playbook: pb, params, createdBy: person, secretsKey: KEY })).run_id;
}

describe('exec through the engine', () => {
  it('masks a secret parameter in stored lines and the result: whole, split across writes, base64', async () => {
    const half = SECRET.length / 2;
    const id = await run({
      parameters: [{ name: 'token', type: 'secret' }],
      actions: [{
        name: 'print',
        exec: {
          script: [
            'echo "whole={{ .params.token }}"',
            `printf 'split=%s' "$(printf %s "$TOKEN" | head -c ${half})"`,
            'sleep 0.3',
            `printf '%s\\n' "$(printf %s "$TOKEN" | tail -c +${half + 1})"`,
            'printf %s "$TOKEN" | base64',
            'echo "to stderr $TOKEN" >&2',
          ].join('\n'),
          env: [{ name: 'TOKEN', value: '{{ .params.token }}' }],
        },
      }],
    }, { token: SECRET });
    const view = await waitFinal(ctx.db, id);
    expect(view.status, JSON.stringify(view)).toBe('completed');
    const { rows } = await ctx.db.query<{ parameters: Record<string, string> }>('SELECT parameters FROM playbook_runs WHERE id = $1', [id]);
    expect(rows[0].parameters.token).toMatch(/^enc:v1:/);
    const lines = await logLines(ctx.db, id);
    const stdout = lines.filter((l) => l.stream === 'stdout').map((l) => l.text).join('');
    expect(stdout).toBe('whole=***\nsplit=***\n***\n');
    expect(lines.filter((l) => l.stream === 'stderr').map((l) => l.text).join('')).toBe('to stderr ***\n');
    expect(view.actions[0].result).toEqual({ stdout: 'whole=***\nsplit=***\n***\n', stderr: 'to stderr ***\n', exitCode: 0 });
    expect(JSON.stringify(lines)).not.toContain(SECRET);
  });

  it('a failing script fails the action with its output kept (masked)', async () => {
    const id = await run({
      parameters: [{ name: 'token', type: 'secret' }],
      actions: [{ name: 'fail', exec: { script: 'echo "using {{ .params.token }}"; exit 4' } }],
    }, { token: SECRET });
    const view = await waitFinal(ctx.db, id);
    expect(view.status).toBe('failed');
    expect(view.actions[0]).toMatchObject({ status: 'failed', error: 'script exited with code 4', result: { stdout: 'using ***\n', exitCode: 4 } });
  });

  it('PLAYBOOK_EXEC=off fails exec actions without running them', async () => {
    await eng.stop(0);
    off = engine(pool, ctx.config.DATABASE_URL!, { replica: 'exec-off', actionOptions: { dataDir: '/tmp', execEnabled: false } });
    await off.start();
    const id = await run({ actions: [{ name: 'refused', exec: { script: 'echo ran' } }] });
    const view = await waitFinal(ctx.db, id);
    expect(view.status).toBe('failed');
    expect(view.actions[0]).toMatchObject({ status: 'failed', error: EXEC_DISABLED });
    expect(await logLines(ctx.db, id)).toEqual([]);
  });
});
