/**
 * The sessions of `pods/exec` and `pods/attach` (connect.ts accepts them): the WebSocket remote-command protocol that
 * kubectl (client-go's remotecommand, since v1.30 WebSocket first) speaks, and a stand-in container that runs a small
 * command language instead of processes.
 *
 * The protocol, as client-go and the API server implement it (client-go tools/remotecommand/websocket.go, v4.go,
 * v5.go; apiserver util/proxy/websocket.go; apimachinery httpstream/wsstream):
 * - the client offers the subprotocol `v5.channel.k8s.io` (kubectl 1.35 offers only that one; older clients also
 *   `v4.channel.k8s.io`); the server picks one in its own order of preference;
 * - every message is binary and starts with a channel byte: 0 stdin, 1 stdout, 2 stderr, 3 error, 4 resize (tty);
 * - on open the server writes an empty message on the lowest channel it writes (stdout, else stderr, else error);
 * - v5 only: the client half-closes stdin with the message `[255, 0]` (the CLOSE signal);
 * - the end: the server writes a metav1.Status on the error channel (`{"status":"Success"}`, or Failure with reason
 *   NonZeroExitCode and `details.causes[{reason: "ExitCode", message: "<code>"}]`, which kubectl turns into its
 *   own exit code; any other Failure is printed as an error) and closes the WebSocket normally (1000): the client
 *   reads each stream until that close, so the close is what ends kubectl.
 */
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import type { SpdyStream } from './spdy.js';
import { SpdyServerSession } from './spdy.js';
import type { ExecRecord } from './types.js';

export const STDIN = 0;
export const STDOUT = 1;
export const STDERR = 2;
export const ERROR = 3;
export const RESIZE = 4;
export const CLOSE = 255;

/** Above this many bytes queued to the client, `cat` stops reading stdin until they are sent (bounded memory). */
const HIGH_WATER = 1024 * 1024;

export interface SessionOptions {
  record: ExecRecord;
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  /** environment of the stand-in container (`env` prints it) */
  env: Array<[string, string]>;
}

/** A stand-in process: what a command of the small language gets to work with. */
interface Proc {
  args: string[];
  out(data: string | Buffer): void;
  err(data: string | Buffer): void;
  /** stdin chunks until EOF (the v5 CLOSE signal, or the connection closing); empty when stdin was not asked for */
  stdin(): AsyncIterable<Buffer>;
  env: Array<[string, string]>;
  hostname: string;
  /** resolves when the client has gone away */
  gone: Promise<void>;
}

type Outcome = { code: number } | { fail: string };

/**
 * The command language of the stand-in container (argv as kubectl sends it, `command=` query parameters):
 * `echo [-n] WORDS...`, `cat` (stdin to stdout until stdin closes), `exit N`, `true`, `false`, `env`, `hostname`,
 * `sleep SECONDS` (ends early when the client goes away), `sh -c 'CMD; CMD ...'` (each CMD one of these, split on
 * `;` and spaces, single or double quotes group words, a trailing `>&2` sends its output to stderr). Anything else
 * fails as a real runtime does: `exec: "<name>": executable file not found in $PATH`.
 */
async function run(p: Proc): Promise<Outcome> {
  const [name, ...args] = p.args;
  switch (name) {
    case 'echo': {
      const noNewline = args[0] === '-n';
      const words = noNewline ? args.slice(1) : args;
      p.out(`${words.join(' ')}${noNewline ? '' : '\n'}`);
      return { code: 0 };
    }
    case 'cat':
      for await (const chunk of p.stdin()) p.out(chunk);
      return { code: 0 };
    case 'exit': {
      const code = Number(args[0] ?? 0);
      return { code: Number.isInteger(code) ? ((code % 256) + 256) % 256 : 2 };
    }
    case 'true':
      return { code: 0 };
    case 'false':
      return { code: 1 };
    case 'env':
      p.out(p.env.map(([k, v]) => `${k}=${v}\n`).join(''));
      return { code: 0 };
    case 'hostname':
      p.out(`${p.hostname}\n`);
      return { code: 0 };
    case 'sleep': {
      const seconds = Number(args[0]);
      if (!Number.isFinite(seconds) || seconds < 0) {
        p.err(`sleep: invalid time interval '${args[0] ?? ''}'\n`);
        return { code: 1 };
      }
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([new Promise((r) => (timer = setTimeout(r, seconds * 1000))), p.gone]);
      clearTimeout(timer);
      return { code: 0 };
    }
    case 'sh':
    case '/bin/sh':
      if (args[0] !== '-c' || args[1] === undefined) {
        p.err('sh: only `sh -c SCRIPT` is supported by the kube-api test container\n');
        return { code: 2 };
      }
      return script(p, args[1]);
    default:
      return { fail: `exec: "${name ?? ''}": executable file not found in $PATH` };
  }
}

/** `sh -c`: `;`-separated commands of the same language; the last one's status is the script's. */
async function script(p: Proc, text: string): Promise<Outcome> {
  let last: Outcome = { code: 0 };
  for (const part of text.split(';')) {
    const words = splitWords(part);
    if (!words.length) continue;
    let toErr = false;
    if (words[words.length - 1] === '>&2') {
      toErr = true;
      words.pop();
    }
    if (words[0] === 'exit') return run({ ...p, args: words });
    last = await run({ ...p, args: words, out: toErr ? p.err : p.out });
    if ('fail' in last) {
      p.err(`sh: ${words[0]}: not found\n`);
      last = { code: 127 };
    }
  }
  return last;
}

function splitWords(s: string): string[] {
  const words: string[] = [];
  const re = /'([^']*)'|"([^"]*)"|(\S+)/g;
  for (let m = re.exec(s); m; m = re.exec(s)) words.push(m[1] ?? m[2] ?? m[3]);
  return words;
}

/**
 * Stdin as a queue the command pulls from, until EOF. `backpressure` is asked after each chunk: while the client has
 * unread output it returns a promise (and stops reading the connection), so memory stays bounded.
 */
class StdinQueue {
  private readonly queue: Buffer[] = [];
  private ended: boolean;
  private wake?: () => void;

  constructor(enabled: boolean, private readonly backpressure: () => Promise<void> | undefined) {
    this.ended = !enabled;
  }

  push(chunk: Buffer): void {
    if (this.ended) return;
    if (chunk.length) this.queue.push(chunk);
    this.notify();
  }

  end(): void {
    this.ended = true;
    this.notify();
  }

  async *chunks(): AsyncIterable<Buffer> {
    for (;;) {
      while (this.queue.length) {
        yield this.queue.shift()!;
        const wait = this.backpressure();
        if (wait) await wait;
      }
      if (this.ended) return;
      await new Promise<void>((r) => (this.wake = r));
    }
  }

  private notify(): void {
    this.wake?.();
    this.wake = undefined;
  }
}

/** The metav1.Status a finished command ends its session with (v4 and later); sets the record's exit code. */
function statusOf(outcome: Outcome, record: ExecRecord): Record<string, unknown> {
  if ('fail' in outcome) {
    record.exitCode = 128;
    return {
      metadata: {}, status: 'Failure', reason: 'InternalError', code: 500,
      message: `Internal error occurred: error executing command in container: OCI runtime exec failed: exec failed: unable to start container process: ${outcome.fail}: unknown`,
    };
  }
  record.exitCode = outcome.code;
  if (outcome.code === 0) return { metadata: {}, status: 'Success' };
  return {
    metadata: {}, status: 'Failure', reason: 'NonZeroExitCode',
    message: `command terminated with non-zero exit code: error executing command [${record.command.join(' ')}], exit code ${outcome.code}`,
    details: { causes: [{ reason: 'ExitCode', message: String(outcome.code) }] },
  };
}

/** One session on an open WebSocket: channels in, the stand-in command, the status and the close out. */
export function runSession(ws: WebSocket, opts: SessionOptions): void {
  const { record } = opts;
  const v5 = ws.protocol === 'v5.channel.k8s.io';
  // settles once the last message has been handed to the socket: what a paused stdin waits for
  let lastSent: Promise<void> = Promise.resolve();
  const send = (channel: number, data: string | Buffer) => {
    if (ws.readyState !== ws.OPEN) return;
    const body = typeof data === 'string' ? Buffer.from(data) : data;
    lastSent = new Promise((r) => ws.send(Buffer.concat([Buffer.from([channel]), body]), { binary: true }, () => r()));
  };
  // a tty merges stderr into stdout (there is no stderr stream then)
  const out = (d: string | Buffer) => opts.stdout && send(STDOUT, d);
  const err = (d: string | Buffer) => (record.tty ? out(d) : opts.stderr && send(STDERR, d));
  const stdin = new StdinQueue(opts.stdin, () => {
    if (ws.bufferedAmount <= HIGH_WATER) return undefined;
    ws.pause();
    return lastSent.then(() => ws.resume());
  });
  let resolveGone!: () => void;
  const gone = new Promise<void>((r) => (resolveGone = r));
  let finished = false;

  ws.on('message', (data: RawData) => {
    const msg = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    if (!msg.length) return;
    const channel = msg[0];
    const body = msg.subarray(1);
    if (channel === STDIN) stdin.push(body);
    else if (channel === CLOSE && v5 && body[0] === STDIN) stdin.end();
    else if (channel === RESIZE && record.tty) recordResize(record, body);
  });
  ws.on('close', () => {
    stdin.end();
    resolveGone();
    if (!finished) record.exitCode = -1;
  });
  ws.on('error', () => ws.terminate());

  // the kubelet's "connection is established" message: empty, on the lowest channel the server writes
  send(opts.stdout ? STDOUT : opts.stderr && !record.tty ? STDERR : ERROR, Buffer.alloc(0));

  run({ args: record.command, out, err, stdin: () => stdin.chunks(), env: opts.env, hostname: record.pod, gone }).then((outcome) => {
    finished = true;
    send(ERROR, JSON.stringify(statusOf(outcome, record)));
    if (ws.readyState === ws.OPEN) ws.close(1000);
  }, () => ws.terminate());
}

/**
 * The same session over a plain SPDY/3.1 connection (kubectl's fallback, `v4.channel.k8s.io`): the client opens one
 * SPDY stream per channel (header `streamType`: error, then stdin, stdout, stderr as asked, resize with a tty); the
 * command starts once they are all there; stdin ends with the stdin stream's FIN; at the end the status goes on the
 * error stream and every stream is finished, after which kubectl closes the connection.
 */
export function runSpdySession(socket: Duplex, opts: SessionOptions): void {
  const { record } = opts;
  const streams = new Map<string, SpdyStream>();
  const wanted = ['error', ...(opts.stdin ? ['stdin'] : []), ...(opts.stdout ? ['stdout'] : []), ...(opts.stderr ? ['stderr'] : [])];
  const stdin = new StdinQueue(opts.stdin, () => {
    if (!socket.writableNeedDrain) return undefined;
    socket.pause();
    return new Promise<void>((r) => socket.once('drain', () => {
      socket.resume();
      r();
    }));
  });
  let resolveGone!: () => void;
  const gone = new Promise<void>((r) => (resolveGone = r));
  let started = false;
  let finished = false;

  const start = () => {
    const out = (d: string | Buffer) => streams.get('stdout')?.write(Buffer.from(d));
    const err = (d: string | Buffer) => (record.tty ? out(d) : streams.get('stderr')?.write(Buffer.from(d)));
    run({ args: record.command, out, err, stdin: () => stdin.chunks(), env: opts.env, hostname: record.pod, gone }).then((outcome) => {
      finished = true;
      streams.get('error')!.write(Buffer.from(JSON.stringify(statusOf(outcome, record))));
      for (const s of streams.values()) s.end();
    }, () => socket.destroy());
  };
  const spdy = new SpdyServerSession(
    (frame) => !socket.destroyed && socket.write(frame),
    (stream) => {
      const type = stream.headers.get('streamtype') ?? '';
      streams.set(type, stream);
      if (type === 'stdin') {
        stream.onData((d) => stdin.push(d));
        stream.onEnd(() => stdin.end());
      } else if (type === 'resize') {
        stream.onData((d) => recordResize(record, d));
      }
      if (!started && wanted.every((t) => streams.has(t))) {
        started = true;
        start();
      }
    },
    () => socket.destroy(),
  );
  socket.on('data', (d: Buffer) => spdy.receive(d));
  socket.on('close', () => {
    spdy.close();
    stdin.end();
    resolveGone();
    if (!finished) record.exitCode = -1;
  });
  socket.on('error', () => socket.destroy());
}

function recordResize(record: ExecRecord, body: Buffer): void {
  try {
    record.resizes.push(JSON.parse(body.toString('utf8')));
  } catch {
    // a malformed resize is ignored, as the kubelet logs and ignores it
  }
}

/**
 * A container's own process (the pod lifecycle of kubelet.ts): its `command` + `args` run in the same small language,
 * with no stdin; `gone` resolves when the pod is deleted (a `sleep` then ends at once). 0 is success; a command the
 * language lacks fails as a runtime would (exit code 128 with the runtime's message).
 */
export async function runContainer(
  args: string[],
  io: { out(data: string): void; err(data: string): void; env: Array<[string, string]>; hostname: string; gone: Promise<void> },
): Promise<{ code: number; message?: string }> {
  const outcome = await run({
    args,
    out: (d) => io.out(String(d)),
    err: (d) => io.err(String(d)),
    stdin: async function* () {},
    env: io.env,
    hostname: io.hostname,
    gone: io.gone,
  });
  return 'fail' in outcome ? { code: 128, message: outcome.fail } : outcome;
}
