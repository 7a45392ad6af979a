import { spawn, type ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';
import { fields, readFields } from './exec-frames.mjs';

/**
 * A child process for the exec action: detached in its own process group, so that stopping it stops everything it
 * started (a script's `sleep 600 &` too). Output streams to `onOutput` as it comes and is kept up to `keepBytes` a
 * stream; what is beyond is counted, not held.
 *
 * The processes are started by a small long-lived spawner process (one per console process, started on first use and
 * again after it dies): starting a process from the console itself forks its whole heap and sets up node streams on its
 * main thread (measured 10–25 ms of CPU a script); from the spawner, which uses posix_spawn where it can
 * (./exec-posix-spawn.mjs), about 1 ms there plus the script's own start. `PLAYBOOK_EXEC_SPAWNER=child_process` makes
 * it use node's child_process instead.
 * The spawner also makes and removes the scripts' temporary trees with synchronous calls, off the console's thread.
 * If it dies, the groups it had started are killed from here and their actions fail "interrupted: …".
 */

/** Output kept in an exec action's result, per stream. */
export const EXEC_OUTPUT_CAP_BYTES = 1024 * 1024;
/** Between SIGTERM and SIGKILL to the process group. */
export const KILL_GRACE_MS = 2_000;
/** How long the pipes may stay open after the group is gone (a grandchild that left the group holding them). */
const PIPE_GRACE_MS = 1_000;
/** The message an action fails with when the spawner dies under it. */
export const SPAWNER_STOPPED = 'interrupted: the exec spawner process stopped';

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

// --- the spawner ---------------------------------------------------------------------------------------------------

const SPAWNER_FILE = fileURLToPath(new URL('./exec-spawner.mjs', import.meta.url));
/** How the spawner starts processes. */
export type SpawnerKind = 'posix_spawn' | 'child_process';
const HEADER = 9;

/** What a request to the spawner hears back. */
interface Pending {
  /** The process's group, once started (killed from here if the spawner dies). */
  pid?: number;
  on(type: string, body: Buffer): void;
  /** The spawner died (or could not start). */
  lost(err: Error): void;
}

class Spawner {
  private child: ChildProcess | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private buf: Buffer = Buffer.alloc(0);
  /** The kind the tests asked for; else PLAYBOOK_EXEC_SPAWNER, else posix_spawn where it works. */
  private chosen: SpawnerKind | undefined;

  /** The spawner's pid (tests); undefined before the first use. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Sends one request; `p` hears the answers until it deletes itself with `done(id)`. */
  request(type: string, payload: Buffer, p: Pending): number {
    const child = this.ensure();
    const id = this.nextId++;
    if (this.nextId > 0xffffffff) this.nextId = 1;
    this.pending.set(id, p);
    this.ref();
    this.write(child, type, id, payload);
    return id;
  }

  /** Uses `kind` from the next request on (tests, when nothing runs): the running spawner is stopped. */
  use(kind: SpawnerKind | undefined): void {
    this.chosen = kind;
    const child = this.child;
    this.child = null;
    child?.stdin?.end();
  }

  kill(id: number): void {
    if (this.child && this.pending.has(id)) this.write(this.child, 'K', id, Buffer.alloc(0));
  }

  done(id: number): void {
    this.pending.delete(id);
    if (!this.pending.size) this.unref();
  }

  private write(child: ChildProcess, type: string, id: number, body: Buffer): void {
    const head = Buffer.allocUnsafe(HEADER);
    head.write(type, 0, 'latin1');
    head.writeUInt32BE(id, 1);
    head.writeUInt32BE(body.length, 5);
    child.stdin!.write(body.length ? Buffer.concat([head, body]) : head);
  }

  /** Only requests in flight keep the console's event loop alive, not an idle spawner. */
  private ref(): void {
    this.child?.ref();
    (this.child?.stdout as unknown as { ref?(): void } | null)?.ref?.();
  }

  private unref(): void {
    this.child?.unref();
    (this.child?.stdout as unknown as { unref?(): void } | null)?.unref?.();
    (this.child?.stdin as unknown as { unref?(): void } | null)?.unref?.();
  }

  private ensure(): ChildProcess {
    if (this.child) return this.child;
    const kind = this.chosen ?? (process.env.PLAYBOOK_EXEC_SPAWNER as SpawnerKind | undefined) ?? 'posix_spawn';
    // an empty environment and no loader flags: nothing of the console's own reaches it, or its scripts
    const child = spawn(process.execPath, ['--max-old-space-size=64', SPAWNER_FILE, String(KILL_GRACE_MS), String(PIPE_GRACE_MS), kind], {
      stdio: ['pipe', 'pipe', 'inherit'], env: {},
    });
    this.child = child;
    this.buf = Buffer.alloc(0);
    child.stdin!.on('error', () => undefined); // it died: 'exit' below handles that
    child.stdout!.on('data', (c: Buffer) => this.read(c));
    const lost = (why: string) => {
      if (this.child !== child) return;
      this.child = null;
      const err = new Error(`${SPAWNER_STOPPED} (${why})`);
      const all = [...this.pending.values()];
      this.pending.clear();
      for (const p of all) {
        // what it started is detached: it would run on without anyone reading its output
        if (p.pid) signalGroup(p.pid, 'SIGKILL');
        p.lost(err);
      }
    };
    child.on('error', (e) => lost(e.message));
    child.on('exit', (code, signal) => lost(signal ? `signal ${signal}` : `exit code ${code}`));
    return child;
  }

  private read(chunk: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    while (this.buf.length >= HEADER) {
      const len = this.buf.readUInt32BE(5);
      if (this.buf.length < HEADER + len) break;
      const type = String.fromCharCode(this.buf[0]);
      const id = this.buf.readUInt32BE(1);
      const body = this.buf.subarray(HEADER, HEADER + len);
      this.buf = this.buf.subarray(HEADER + len);
      this.pending.get(id)?.on(type, body);
    }
  }
}

const spawner = new Spawner();

/** The spawner's pid, or undefined before its first use (tests kill it to check what its death does). */
export function spawnerPid(): number | undefined {
  return spawner.pid;
}

/** How the spawner starts processes (posix_spawn falls back to child_process where it cannot work). */
export async function spawnerKind(): Promise<SpawnerKind> {
  return (await ask('I', Buffer.alloc(0)))[0] as SpawnerKind;
}

/** Tests: the spawner to use from the next request on (undefined: the default choice). */
export function useSpawner(kind: SpawnerKind | undefined): void {
  spawner.use(kind);
}

function spawnerError(body: Buffer): Error {
  const [message, code] = readFields(body);
  return Object.assign(new Error(message), code ? { code } : {});
}

/** A simple request (a temporary tree made or removed) → its answer's fields. */
function ask(type: 'T' | 'R' | 'I', payload: Buffer): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const id = spawner.request(type, payload, {
      on(t, body) {
        spawner.done(id);
        if (t === 'D') resolve(readFields(body));
        else reject(spawnerError(body));
      },
      lost: reject,
    });
  });
}

/**
 * A fresh temporary directory `${prefix}XXXXXX` with the sub-directories (0700) and files (0600 unless given) made in
 * it, in one request to the spawner. → its path.
 */
export async function makeTempTree(prefix: string, dirs: string[], files: { path: string; text: string; mode?: number }[] = []): Promise<string> {
  const payload = fields(prefix, dirs.length, ...dirs, ...files.flatMap((f) => [f.path, f.mode ?? 0o600, f.text]));
  return (await ask('T', payload))[0];
}

/** Removes a tree (as rm -rf; a missing one is fine). */
export async function removeTree(path: string): Promise<void> {
  await ask('R', fields(path));
}

/**
 * Runs the process to its end. On abort, and once it has exited (for what it left running in the background), its
 * group gets SIGTERM, then SIGKILL after KILL_GRACE_MS. Rejects when it could not be started (ENOENT…), and with
 * SPAWNER_STOPPED when the spawner died under it (its group is killed).
 */
export function runProcess(spec: ProcessSpec): Promise<ProcessResult> {
  const keep = spec.keepBytes ?? EXEC_OUTPUT_CAP_BYTES;
  return new Promise((resolve, reject) => {
    if (spec.signal.aborted) {
      reject(new Error('aborted before it started'));
      return;
    }
    const env = Object.entries(spec.env).flat();
    // exec would cut a string at a NUL byte: refused as node's spawn refuses it
    if ([spec.command, spec.cwd, ...spec.args, ...env].some((s) => s.includes('\0'))) {
      reject(Object.assign(new Error('spawn: the command, an argument, the working directory or the environment contains a NUL byte'), { code: 'ERR_INVALID_ARG_VALUE' }));
      return;
    }
    const out = collector(keep, (t) => spec.onOutput('stdout', t));
    const err = collector(keep, (t) => spec.onOutput('stderr', t));
    let aborted = false;
    let exit: { code: number | null; signal: number | null } | null = null;
    let settled = false;
    const onAbort = () => {
      aborted = true;
      spawner.kill(id);
    };
    const settle = () => {
      settled = true;
      spawner.done(id);
      spec.signal.removeEventListener('abort', onAbort);
    };
    const pending: Pending = {
      on(type, body) {
        if (settled) return;
        if (type === 'O') out.push(body);
        else if (type === 'e') err.push(body);
        else if (type === 'P') pending.pid = Number(readFields(body)[0]);
        else if (type === 'X') {
          const [code, signal] = readFields(body);
          exit = { code: code === '' ? null : Number(code), signal: signal === '' ? null : Number(signal) };
        }
        else if (type === 'E') {
          settle();
          reject(spawnerError(body));
        } else if (type === 'C') {
          settle();
          out.end();
          err.end();
          const e = exit ?? { code: null, signal: null };
          const bySignal = e.signal ? 128 + e.signal : 1;
          resolve({
            stdout: out.text(), stderr: err.text(), exitCode: e.code ?? bySignal,
            bytes: { stdout: out.total(), stderr: err.total() }, aborted,
          });
        }
      },
      lost(e) {
        if (settled) return;
        settle();
        reject(e);
      },
    };
    const id = spawner.request('S', fields(spec.command, spec.cwd, spec.args.length, ...spec.args, ...env), pending);
    spec.signal.addEventListener('abort', onAbort, { once: true });
  });
}
