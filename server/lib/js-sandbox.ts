import { Worker } from 'node:worker_threads';

/**
 * User-written JavaScript (a check's `transform.javascript`, `test.javascript`, `display.javascript`; a scraper's
 * `transform.javascript`) in a sandbox: QuickJS
 * (WebAssembly, quickjs-emscripten) in one worker thread, so a script has no host objects (no `process`, `require`,
 * file system, network, timers) and a slow one never blocks the server's event loop. Limits: JS_MEMORY_BYTES for the script's heap, JS_TIME_MS checked by the interpreter, and a
 * hard stop (the worker is terminated) JS_KILL_GRACE_MS later for a native operation that never yields.
 */

export const JS_TIME_MS = 1_000;
export const JS_MEMORY_BYTES = 32 * 1024 * 1024;
const JS_KILL_GRACE_MS = 500;
/**
 * A new worker first loads the QuickJS WebAssembly module, which takes far longer on a loaded machine than any script
 * should; the interpreter's own limit (timeMs) starts only once it runs the script, so the hard stop of a first job
 * allows for the start-up too.
 */
const JS_START_GRACE_MS = 10_000;
const MAX_OUTPUT = 4 * 1024 * 1024;
/** Scripts waiting for the worker; past this a script fails at once rather than piling up behind a slow one. */
const MAX_QUEUE = 256;

export class JsSandboxError extends Error {}

export interface JsLimits {
  timeMs?: number;
  memoryBytes?: number;
}

interface Job {
  code: string;
  input: string;
  timeMs: number;
  memoryBytes: number;
  resolve: (text: string) => void;
  reject: (err: Error) => void;
}

let worker: Worker | null = null;
let busy: (Job & { id: number; timer: NodeJS.Timeout; worker: Worker }) | null = null;
const queue: Job[] = [];
let nextId = 1;

function spawn(): Worker {
  const w = new Worker(new URL('./js-sandbox-worker.mjs', import.meta.url), {
    // QuickJS's heap is WebAssembly memory, bounded by its own limit; this bounds the worker's own JavaScript
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
  });
  w.on('message', (msg: { id: number; value?: string; error?: string }) => {
    if (!busy || busy.worker !== w || msg.id !== busy.id) return;
    const job = busy;
    clearTimeout(job.timer);
    busy = null;
    if (msg.error !== undefined) job.reject(new JsSandboxError(msg.error));
    else job.resolve(msg.value ?? '');
    pump();
  });
  const lost = (why: string) => {
    if (worker === w) worker = null;
    if (busy?.worker === w) {
      const job = busy;
      clearTimeout(job.timer);
      busy = null;
      job.reject(new JsSandboxError(why));
    }
    pump();
  };
  w.on('error', (err) => lost(`javascript sandbox failed: ${err.message}`));
  w.on('exit', () => lost('javascript sandbox stopped'));
  // after the listeners: adding a 'message' listener refs the worker again; an idle sandbox must not keep the
  // process alive
  w.unref();
  return w;
}

function pump(): void {
  if (busy) return;
  const job = queue.shift();
  if (!job) return;
  const fresh = !worker;
  worker ??= spawn();
  const w = worker;
  const id = nextId++;
  // the interpreter stops itself at timeMs; a native call that never reaches its checks is stopped here
  const timer = setTimeout(() => {
    if (busy?.id !== id) return;
    busy = null;
    worker = null;
    void w.terminate();
    job.reject(new JsSandboxError(`javascript stopped after ${job.timeMs} ms (time limit)`));
    pump();
  }, job.timeMs + JS_KILL_GRACE_MS + (fresh ? JS_START_GRACE_MS : 0));
  busy = { ...job, id, timer, worker: w };
  w.postMessage({ id, code: job.code, input: job.input, timeMs: job.timeMs, memoryBytes: job.memoryBytes, maxOutput: MAX_OUTPUT });
}

/**
 * Runs a script with `vars` as its globals (plus `_`, as the reference's JavaScript has underscore) and returns its
 * completion value as text: a string as it is, any other value as JSON. Rejects with JsSandboxError (script error,
 * time or memory limit).
 */
export function runJavascript(code: string, vars: Record<string, unknown>, limits: JsLimits = {}): Promise<string> {
  if (queue.length >= MAX_QUEUE) return Promise.reject(new JsSandboxError('too many javascript scripts waiting; try again later'));
  let input: string;
  try {
    input = JSON.stringify(vars);
  } catch (err) {
    return Promise.reject(new JsSandboxError(`javascript input: ${(err as Error).message}`));
  }
  return new Promise<string>((resolve, reject) => {
    queue.push({
      code, input, resolve, reject,
      timeMs: limits.timeMs ?? JS_TIME_MS, memoryBytes: limits.memoryBytes ?? JS_MEMORY_BYTES,
    });
    pump();
  });
}
