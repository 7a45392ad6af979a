import type { LogLine } from '../../contracts/logs.js';
import { normaliseSeverity } from './severity.js';

/**
 * This process's own last log lines (the `console` backend): the pino logger's output is teed into a ring of raw
 * JSON lines (parsed only when searched, so logging stays cheap), and followers hear each new line.
 */

export const CONSOLE_RING_SIZE = 10_000;

export class LogRing {
  private readonly lines: (string | undefined)[];
  private next = 0;
  private count = 0;
  /** Lines ever pushed (a follower's position). */
  private seq = 0;
  private readonly followers = new Set<(raw: string) => void>();

  constructor(readonly size = CONSOLE_RING_SIZE) {
    this.lines = new Array<string | undefined>(size);
  }

  push(raw: string): void {
    const line = raw.endsWith('\n') ? raw.slice(0, -1) : raw;
    if (!line) return;
    this.lines[this.next] = line;
    this.next = (this.next + 1) % this.size;
    if (this.count < this.size) this.count++;
    this.seq++;
    for (const f of this.followers) f(line);
  }

  /** The kept raw lines, newest first. */
  *newestFirst(): Generator<string> {
    for (let i = 1; i <= this.count; i++) yield this.lines[(this.next - i + this.size) % this.size]!;
  }

  get length(): number {
    return this.count;
  }

  /** Calls fn with every new raw line until the returned function is called. */
  follow(fn: (raw: string) => void): () => void {
    this.followers.add(fn);
    return () => this.followers.delete(fn);
  }
}

/** The process-wide ring the console backend reads. */
export const consoleRing = new LogRing();

/**
 * A pino destination writing to stdout and into the ring (server/app.ts passes it as the logger's `stream`).
 * `out` is where the lines go besides the ring (process.stdout unless told).
 */
export function consoleLogStream(out: { write(s: string): unknown } | null = process.stdout, ring: LogRing = consoleRing): { write(s: string): void } {
  return {
    write(s: string) {
      out?.write(s);
      try {
        ring.push(s);
      } catch {
        // the ring never stops the logger
      }
    },
  };
}

const PINO_KEYS = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'v']);

/** A raw pino JSON line as a LogLine (a non-JSON line is kept as its text, time unknown = now). */
export function parsePinoLine(raw: string): LogLine {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return { timestamp: new Date().toISOString(), message: raw, labels: {} };
  }
  if (typeof o !== 'object' || o === null) return { timestamp: new Date().toISOString(), message: raw, labels: {} };
  const labels: Record<string, string> = {};
  for (const k of ['module', 'reqId']) if (typeof o[k] === 'string') labels[k] = o[k] as string;
  let message = typeof o.msg === 'string' ? o.msg : '';
  const err = o.err as { message?: unknown } | undefined;
  if (err && typeof err.message === 'string') message = message ? `${message}: ${err.message}` : err.message;
  // the rest of the structured fields, compactly, so a search finds them
  const rest: string[] = [];
  for (const [k, v] of Object.entries(o)) {
    if (PINO_KEYS.has(k) || k === 'err' || k in labels || v === undefined) continue;
    rest.push(`${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  }
  if (rest.length) message = message ? `${message} ${rest.join(' ')}` : rest.join(' ');
  const time = typeof o.time === 'number' ? new Date(o.time) : new Date();
  const severity = normaliseSeverity(o.level);
  return { timestamp: time.toISOString(), message, labels, ...(severity ? { severity } : {}) };
}
