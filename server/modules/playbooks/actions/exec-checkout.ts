import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { runProcess } from './exec-process.js';
import { useConnection } from './support.js';
import type { ActionContext } from './types.js';

/**
 * exec's `checkout{url | connection, destination}`: a shallow clone (depth 1) with the system `git`, before the script.
 * A connection gives the URL and its username/password, which reach git through GIT_ASKPASS (never the command line or
 * the URL) and are handed to the masker.
 */

export interface CheckoutSpec {
  url?: string;
  connection?: string;
  destination?: string;
}

/** Answers git's Username/Password prompts from the environment it is given. */
const ASKPASS = `#!/bin/sh
case "$1" in
  Username*) printf '%s\\n' "$PLAYBOOK_GIT_USERNAME" ;;
  *) printf '%s\\n' "$PLAYBOOK_GIT_PASSWORD" ;;
esac
`;

/**
 * Clones into `destination` under `workDir` (the work directory itself when unset) and returns the directory the script
 * runs in. `privateDir` holds the askpass helper (outside the script's reach of its work directory, removed with it).
 */
export async function checkout(
  ctx: ActionContext, spec: CheckoutSpec, workDir: string, privateDir: string, env: Record<string, string>,
): Promise<string> {
  const dest = resolve(workDir, spec.destination || '.');
  if (dest !== workDir && !dest.startsWith(workDir + '/')) throw new Error('checkout.destination must stay inside the action\'s temporary directory');
  let url = spec.url ?? '';
  const gitEnv: Record<string, string> = { ...env, GIT_TERMINAL_PROMPT: '0' };
  if (spec.connection) {
    const conn = await useConnection(ctx, spec.connection);
    url = url || conn.url;
    if (conn.password || conn.username) {
      const askpass = join(privateDir, 'askpass.sh');
      await writeFile(askpass, ASKPASS, { mode: 0o700 });
      Object.assign(gitEnv, {
        GIT_ASKPASS: askpass,
        PLAYBOOK_GIT_USERNAME: conn.username || 'git',
        PLAYBOOK_GIT_PASSWORD: conn.password,
      });
    }
  }
  if (!url) throw new Error('checkout: the connection has no URL');
  const inUrl = URL.canParse(url) ? new URL(url).password : '';
  if (inUrl) ctx.addSecret(decodeURIComponent(inUrl));
  const args = ['-c', 'credential.helper=', 'clone', '--depth', '1', '--', url, dest];
  let result;
  try {
    result = await runProcess({
      command: 'git', args, cwd: workDir, env: gitEnv, signal: ctx.signal, keepBytes: 16 * 1024,
      onOutput: (_stream, text) => ctx.log('stderr', text),
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error('checkout needs git, which is not installed on the console\'s machine (or not on its PATH)');
    }
    throw err;
  }
  if (result.aborted) throw new Error('checkout was stopped');
  if (result.exitCode !== 0) {
    const why = result.stderr.trim().split('\n').slice(-3).join(' ');
    throw new Error(`checkout of ${withoutPassword(url)} failed (git exit ${result.exitCode})${why ? `: ${why}` : ''}`);
  }
  return dest;
}

/** A URL without the password it may carry (`https://user:token@host/…`), for messages. */
function withoutPassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*):[^/@]*@/i, '$1:***@');
}
