import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { StringDecoder } from 'node:string_decoder';

/**
 * A child process for the exec action: detached in its own process group, so that stopping it stops everything it
 * started (a script's `sleep 600 &` too). Output streams to `onOutput` as it comes and is kept up to `keepBytes` a
 * stream; what is beyond is counted, not held.
 */

/** Output kept in an exec action's result, per stream. */
export const EXEC_OUTPUT_CAP_BYTES = 1024 * 1024;
/** Between SIGTERM and SIGKILL to the process group. */
export const KILL_GRACE_MS = 2_000;
/** How long the pipes may stay open after the group is gone (a grandchild that left the group holding them). */
const PIPE_GRACE_MS = 1_000;

export interface ProcessSpec {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  signal: AbortSignal;
  onOutput(stream: 'stdout' | 'stderr', text: string): void;
  keepBytes?: number;
}

export interface ProcessResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** Bytes each stream wrote in all (more than kept when truncated). */
  bytes: { stdout: number; stderr: number };
  /** Whether the signal aborted it (then it was killed). */
  aborted: boolean;
}

/** Sends a signal to a whole process group; false when the group is gone. */
function signalGroup(pid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, sig);
    return true;
  } catch {
    return false;
  }
}

/** Collects one stream: every chunk decoded for onOutput, the first `keep` bytes kept. */
function collector(keep: number, emit: (text: string) => void) {
  const decoder = new StringDecoder('utf8');
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let total = 0;
  return {
    push(chunk: Buffer) {
      total += chunk.length;
      if (keptBytes < keep) {
        const part = chunk.length > keep - keptBytes ? chunk.subarray(0, keep - keptBytes) : chunk;
        kept.push(Buffer.from(part));
        keptBytes += part.length;
      }
      const text = decoder.write(chunk);
      if (text) emit(text);
    },
    end() {
      const rest = decoder.end();
      if (rest) emit(rest);
    },
    /** The kept bytes as text; a character cut at the cap is dropped. */
    text: () => new StringDecoder('utf8').write(Buffer.concat(kept)),
    total: () => total,
  };
}

/**
 * Runs the process to its end. On abort, and once it has exited (for what it left running in the background), its
 * group gets SIGTERM, then SIGKILL after KILL_GRACE_MS. Rejects only when it could not be started (ENOENT…).
 */
export function runProcess(spec: ProcessSpec): Promise<ProcessResult> {
  const keep = spec.keepBytes ?? EXEC_OUTPUT_CAP_BYTES;
  return new Promise((resolve, reject) => {
    if (spec.signal.aborted) {
      reject(new Error('aborted before it started'));
      return;
    }
    const child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = collector(keep, (t) => spec.onOutput('stdout', t));
    const err = collector(keep, (t) => spec.onOutput('stderr', t));
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));

    let aborted = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let killTimer: NodeJS.Timeout | null = null;
    let pipeTimer: NodeJS.Timeout | null = null;
    let settled = false;

    const stopGroup = () => {
      if (!child.pid || killTimer || !signalGroup(child.pid, 'SIGTERM')) return;
      // kept after the action finished: a member that ignores SIGTERM and closed its pipes still gets SIGKILL
      killTimer = setTimeout(() => signalGroup(child.pid!, 'SIGKILL'), KILL_GRACE_MS).unref();
    };
    const onAbort = () => {
      aborted = true;
      stopGroup();
    };
    spec.signal.addEventListener('abort', onAbort, { once: true });

    const finish = () => {
      if (settled || !exit) return;
      settled = true;
      spec.signal.removeEventListener('abort', onAbort);
      if (pipeTimer) clearTimeout(pipeTimer);
      child.stdout.destroy();
      child.stderr.destroy();
      out.end();
      err.end();
      const bySignal = exit.signal ? 128 + (constants.signals[exit.signal] ?? 0) : 1;
      resolve({
        stdout: out.text(), stderr: err.text(), exitCode: exit.code ?? bySignal,
        bytes: { stdout: out.total(), stderr: err.total() }, aborted,
      });
    };

    child.on('error', (e) => {
      if (settled) return;
      settled = true;
      spec.signal.removeEventListener('abort', onAbort);
      if (killTimer) clearTimeout(killTimer);
      reject(e);
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // the script is done: whatever it left running in its group goes too (its temporary directory is removed)
      stopGroup();
      // a grandchild that left the group may hold the pipes open: stop waiting for them after the kill grace
      pipeTimer = setTimeout(() => finish(), KILL_GRACE_MS + PIPE_GRACE_MS);
    });
    child.on('close', () => finish());
  });
}
