import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { z } from 'zod';
import type { CheckContext, CheckResult, CheckType } from './types.js';
import { clip, errorText, NameValue } from './util.js';

/** Output kept per stream; the rest is read and dropped so the script never blocks on a full pipe. */
const MAX_OUTPUT = 64 * 1024;

const ExecSpec = z.object({
  script: z.string().min(1),
  env: z.array(NameValue).optional(),
});
type ExecSpec = z.infer<typeof ExecSpec>;

// Scripts get a minimal environment, not the server's: DATABASE_URL or ADMIN_PASSWORD are no business of a check.
function baseEnv(): Record<string, string> {
  const keep = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR'];
  return Object.fromEntries(keep.flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])));
}

const resolved = new Map<string, string>();

/** Where `bash` resolves on a PATH, as Go's exec.LookPath would (the reference reports it as `path`). */
function lookPath(name: string, path: string | undefined): string {
  const key = `${name}\0${path ?? ''}`;
  let found = resolved.get(key);
  if (found === undefined) {
    if (resolved.size >= 64) resolved.clear(); // a PATH set per check: keep the cache small
    resolved.set(key, (found = searchPath(name, path)));
  }
  return found;
}

function searchPath(name: string, path: string | undefined): string {
  for (const dir of (path ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here: next PATH entry
    }
  }
  return name;
}

function collector() {
  let text = '';
  let dropped = 0;
  return {
    push(chunk: Buffer) {
      if (text.length < MAX_OUTPUT) text += chunk.toString('utf8').slice(0, MAX_OUTPUT - text.length);
      else dropped += chunk.length;
    },
    get value() {
      return dropped ? `${text}\n[${dropped} more bytes dropped]` : text;
    },
  };
}

async function run(spec: ExecSpec, ctx: CheckContext): Promise<CheckResult> {
  const start = performance.now();
  const env = { ...baseEnv(), ...Object.fromEntries((spec.env ?? []).map((e) => [e.name, e.value])) };
  const stdout = collector();
  const stderr = collector();
  const path = lookPath('bash', env.PATH);
  const args = [path, '-c', spec.script];
  const outcome = await new Promise<{ code: number | null; signal: string | null; error?: Error }>((resolve) => {
    // its own process group, so a timeout kills whatever the script started too
    const child = spawn(path, args.slice(1), { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    ctx.signal.addEventListener('abort', kill, { once: true });
    child.stdout.on('data', stdout.push);
    child.stderr.on('data', stderr.push);
    child.once('error', (error) => {
      ctx.signal.removeEventListener('abort', kill);
      resolve({ code: null, signal: null, error });
    });
    child.once('close', (code, signal) => {
      ctx.signal.removeEventListener('abort', kill);
      resolve({ code, signal });
    });
  });
  const duration = Math.round(performance.now() - start);
  // as the reference's ExecDetails: both streams trimmed (`echo hello` gives "hello", so `results.stdout == "hello"`),
  // the interpreter's path and the arguments it was given
  const data = { stdout: stdout.value.trim(), stderr: stderr.value.trim(), exitCode: outcome.code ?? -1, path, args };
  if (outcome.error) return { pass: false, duration, error: `could not run bash: ${errorText(outcome.error)}`, data };
  if (ctx.signal.aborted) return { pass: false, duration, error: `timed out after ${ctx.timeoutMs} ms`, data };
  const message = clip(data.stdout, 4_000);
  if (outcome.code !== 0) {
    const why = data.stderr || data.stdout;
    const code = outcome.code === null ? `killed by ${outcome.signal}` : `exit code ${outcome.code}`;
    return { pass: false, duration, message, error: why ? `${code}: ${clip(why, 2_000)}` : code, data };
  }
  return { pass: true, duration, message, data };
}

/**
 * A bash script; passes on exit code 0. `stdout`, `stderr` (both trimmed), `exitCode`, `path` and `args` are visible
 * to test and display, also as `results.*`.
 */
export const execCheck: CheckType<ExecSpec> = { type: 'exec', schema: ExecSpec, run };
