import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExecAction } from '../../../contracts/playbook-actions/exec.js';
import { saveArtifacts } from './exec-artifacts.js';
import { checkout } from './exec-checkout.js';
import { connectionEnv } from './exec-connections.js';
import { makeTempTree, removeTree, runProcess } from './exec-process.js';
import { abortError, envValue } from './support.js';
import { ActionFailedError, type ActionContext, type PlaybookActionType } from './types.js';

/**
 * The `exec` action (issue 14): `script` run by bash as the console's user, in a fresh temporary directory removed
 * afterwards, detached in its own process group (cancel, timeout and a stopping replica kill the whole group). The
 * environment is built from scratch: PATH, HOME (the temporary directory), LANG, TMPDIR, then the run's env and the
 * block's env[] (valueFrom read now; Secret values handed to the masker). Nothing else of the console's own environment
 * (DATABASE_URL, ADMIN_PASSWORD…) reaches the script. `connections` add credentials for its CLIs
 * (./exec-connections.ts); `artifacts` are stored after it ends (./exec-artifacts.ts). → `{stdout, stderr, exitCode}`,
 * each stream kept to 1 MB.
 */

export const EXEC_DISABLED = 'exec actions are disabled (PLAYBOOK_EXEC=off)';
const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';
/** Names a script's environment cannot take (a name with `=` or NUL would corrupt the environment block). */
const ENV_NAME = /^[^=\0]+$/;
/** setTimeout's longest delay. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The script's environment: the base, then the run's env, then the block's env[] (later ones win). */
export async function scriptEnv(ctx: ActionContext, block: ExecAction, home: string, tmp: string): Promise<Record<string, string>> {
  const env: Record<string, string> = {
    PATH: process.env.PATH || DEFAULT_PATH,
    HOME: home,
    LANG: process.env.LANG || 'C.UTF-8',
    TMPDIR: tmp,
  };
  for (const [k, v] of Object.entries(ctx.env)) if (ENV_NAME.test(k) && typeof v === 'string') env[k] = v;
  for (const [i, e] of (block.env ?? []).entries()) {
    const value = await envValue(ctx, e, `env[${i}]`);
    env[e.name] = value ?? '';
  }
  return env;
}

/** The action's signal, also aborted at its deadline (the engine aborts it then too; this holds without an engine). */
function withDeadline(ctx: ActionContext): { signal: AbortSignal; clear(): void } {
  const ms = ctx.deadline - Date.now();
  if (!Number.isFinite(ms) || ms > MAX_TIMER_MS) return { signal: ctx.signal, clear: () => undefined };
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new Error('exec action timed out')), Math.max(0, ms));
  return { signal: AbortSignal.any([ctx.signal, timeout.signal]), clear: () => clearTimeout(timer) };
}

function parseBlock(block: Record<string, unknown>): ExecAction {
  const parsed = ExecAction.safeParse(block);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new Error(`exec: ${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`);
}

export const execAction: PlaybookActionType = {
  type: 'exec',
  async run(raw, ctx) {
    if (!ctx.options.execEnabled) throw new Error(EXEC_DISABLED);
    const block = parseBlock(raw);
    if (ctx.signal.aborted) throw abortError(ctx.signal);
    // base/ holds the script, git's askpass helper and tmp/ (TMPDIR); base/work is the script's HOME and working
    // directory (empty, so that a checkout without a destination can clone into it); made and removed by the exec
    // spawner, one request each (./exec-process.ts)
    const base = await makeTempTree(join(tmpdir(), 'playbook-exec-'), ['work', 'tmp'], [{ path: 'script.sh', text: block.script }]);
    const { signal, clear } = withDeadline(ctx);
    try {
      const work = join(base, 'work');
      const env = await scriptEnv(ctx, block, work, join(base, 'tmp'));
      // connections' credentials (files under base/credentials) over the env[] values of the same names
      if (block.connections) Object.assign(env, await connectionEnv(ctx, block.connections, join(base, 'credentials')));
      const cwd = block.checkout ? await checkout({ ...ctx, signal }, block.checkout, work, base, env) : work;
      const scriptFile = join(base, 'script.sh');
      const r = await runProcess({
        command: 'bash', args: ['--noprofile', '--norc', scriptFile], cwd, env, signal,
        onOutput: (stream, text) => ctx.log(stream, text),
      });
      const result: Record<string, unknown> = { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
      const truncated = (['stdout', 'stderr'] as const).filter((s) => r.bytes[s] > Buffer.byteLength(r[s]));
      if (truncated.length) result.truncated = Object.fromEntries(truncated.map((s) => [s, r.bytes[s]]));
      if (r.aborted) throw new ActionFailedError(abortError(signal).message, result);
      if (block.artifacts?.length) await saveArtifacts(ctx, block.artifacts, cwd, r, signal);
      if (r.exitCode !== 0) throw new ActionFailedError(`script exited with code ${r.exitCode}`, result);
      return result;
    } finally {
      clear();
      await removeTree(base).catch(() => undefined);
    }
  },
};
