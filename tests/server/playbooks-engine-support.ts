import pg from 'pg';
import { ACTION_TYPES } from '../../server/modules/playbooks/actions/index.js';
import type { PlaybookActionType } from '../../server/modules/playbooks/actions/types.js';
import { PlaybookExecutor, type ExecutorOptions } from '../../server/modules/playbooks/executor.js';

/**
 * What the engine tests share: a tiny test-only action type (`testStep`) registered in the action registry, playbook
 * rows, engines on a test database and waits. The action prints, sleeps (honouring the abort signal), fails on
 * request and counts its executions per run and action name.
 */

export const KEY = Buffer.alloc(32, 7);

/** Executions of testStep, by `${runId}/${name}`. */
export const executions = new Map<string, number>();
/** When testStep saw its signal aborted, by `${runId}/${name}`. */
export const abortedAt = new Map<string, number>();

const failedOnce = new Set<string>();
const sleptOnce = new Set<string>();

export interface TestStepBlock {
  print?: string[];
  stderr?: string[];
  sleepMs?: number;
  /** Fails with this message. */
  fail?: string;
  /** Fails the first N executions of this action in the run. */
  failTimes?: number;
  /** Sleeps 60 s (honouring the signal) the first time this key is seen, across runs. */
  sleepOnceKey?: string;
  /** Fails the first execution with this key, across runs. */
  failOnceKey?: string;
  /** Prints this many bytes on stdout, in 64 kB chunks. */
  bytes?: number;
  result?: Record<string, unknown>;
}

export const testStep: PlaybookActionType = {
  type: 'testStep',
  async run(raw, ctx) {
    const block = raw as TestStepBlock;
    const key = `${ctx.runId}/${ctx.name}`;
    const n = (executions.get(key) ?? 0) + 1;
    executions.set(key, n);
    for (const line of block.print ?? []) ctx.log('stdout', `${line}\n`);
    for (const line of block.stderr ?? []) ctx.log('stderr', `${line}\n`);
    if (block.bytes) {
      const chunk = 'x'.repeat(64 * 1024);
      for (let sent = 0; sent < block.bytes; sent += chunk.length) ctx.log('stdout', chunk);
    }
    let sleepMs = block.sleepMs ?? 0;
    if (process.env.TEST_STEP_HANG) sleepMs = 600_000;
    if (block.sleepOnceKey && !sleptOnce.has(block.sleepOnceKey)) {
      sleptOnce.add(block.sleepOnceKey);
      sleepMs = 60_000;
    }
    if (sleepMs) {
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, sleepMs);
        ctx.signal.addEventListener('abort', () => {
          abortedAt.set(key, Date.now());
          clearTimeout(t);
          reject(new Error('aborted'));
        }, { once: true });
      });
    }
    if (block.fail) throw new Error(block.fail);
    if (block.failOnceKey && !failedOnce.has(block.failOnceKey)) {
      failedOnce.add(block.failOnceKey);
      throw new Error(`failing once for ${block.failOnceKey}`);
    }
    if (block.failTimes && n <= block.failTimes) throw new Error(`failing attempt ${n}`);
    return { ok: true, attempt: n, ...(block.result ?? {}) };
  },
};

(ACTION_TYPES as Map<string, PlaybookActionType>).set(testStep.type, testStep);

const silent = { info: () => undefined, warn: () => undefined };

export function engine(db: pg.Pool, url: string, opts: Partial<ExecutorOptions> = {}): PlaybookExecutor {
  return new PlaybookExecutor({
    db, connectionString: url, log: silent, replica: 'test-replica', leaseMs: 3_000, graceMs: 500,
    actionOptions: { dataDir: '/tmp', execEnabled: true }, secretsKey: () => KEY, ...opts,
  });
}

export async function insertPlaybook(db: pg.Pool, spec: Record<string, unknown>, name = `pb-${Math.random().toString(36).slice(2, 10)}`): Promise<{ id: string; spec: Record<string, unknown> }> {
  const { rows } = await db.query<{ id: string }>(
    "INSERT INTO playbooks (name, title, spec, source) VALUES ($1, $1, $2, 'UI') RETURNING id", [name, spec]);
  return { id: rows[0].id, spec };
}

export async function systemPerson(db: pg.Pool): Promise<string> {
  const { rows } = await db.query<{ id: string }>("INSERT INTO people (name, email) VALUES ('Engine Test', $1) RETURNING id",
    [`engine-${Math.random().toString(36).slice(2, 10)}@example.test`]);
  return rows[0].id;
}

export async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface RunView {
  status: string;
  error: string | null;
  actions: { name: string; status: string; error: string | null; retry_count: number; result: Record<string, unknown> | null; lease_owner: string | null }[];
}

export async function runView(db: pg.Pool, runId: string): Promise<RunView> {
  const r = await db.query<{ status: string; error: string | null }>('SELECT status, error FROM playbook_runs WHERE id = $1', [runId]);
  const a = await db.query(
    `SELECT name, status, error, retry_count, result, lease_owner FROM playbook_run_actions WHERE playbook_run_id = $1
      ORDER BY coalesce(start_time, scheduled_time), retry_count, id`, [runId]);
  return { status: r.rows[0]?.status, error: r.rows[0]?.error, actions: a.rows };
}

const FINAL = ['completed', 'failed', 'cancelled', 'timed_out'];

export async function waitFinal(db: pg.Pool, runId: string, timeoutMs = 30_000): Promise<RunView> {
  return waitFor(`run ${runId} to end`, async () => {
    const v = await runView(db, runId);
    return FINAL.includes(v.status) ? v : null;
  }, timeoutMs);
}

export async function waitStatus(db: pg.Pool, runId: string, status: string, timeoutMs = 20_000): Promise<RunView> {
  return waitFor(`run ${runId} ${status}`, async () => {
    const v = await runView(db, runId);
    return v.status === status ? v : null;
  }, timeoutMs);
}

export async function logLines(db: pg.Pool, runId: string): Promise<{ stream: string; text: string; seq: number }[]> {
  const { rows } = await db.query('SELECT stream, text, seq FROM playbook_run_action_logs WHERE run_id = $1 ORDER BY action_id, seq', [runId]);
  return rows;
}
