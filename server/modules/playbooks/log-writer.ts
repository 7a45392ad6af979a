import type pg from 'pg';
import { EVENTS_CHANNEL, encodeChange } from '../../lib/events.js';
import type { SecretMasker } from '../../lib/secret-mask.js';

/**
 * An action's output as it is printed (issue 14 "Output"): each stream masked across chunk boundaries, batched every
 * 100 ms into playbook_run_action_logs (seq per action, so any replica can serve the lines in order), capped at 1 MB
 * a stream (then one "[output truncated at 1 MB]" line). Each stored batch is announced on
 * 'playbook_run_action_logs' with the run's id.
 */

export const LOG_FLUSH_MS = 100;
export const LOG_STREAM_CAP_BYTES = 1024 * 1024;
export const TRUNCATED_LINE = '[output truncated at 1 MB]';

type Stream = 'stdout' | 'stderr';

/** The lines left when an action ends, stored by the statement that finishes it (engine-queries finishAction). */
export interface FinalLogBatch {
  actionId: string;
  runId: string;
  first: number;
  streams: Stream[];
  texts: string[];
  /** The announcement of the stored lines (EVENTS_CHANNEL). */
  notify: string;
}

interface StreamState {
  masker: { push(chunk: string): string; end(): string };
  bytes: number;
  truncated: boolean;
}

export class ActionLogWriter {
  private seq = 0;
  private pending: { stream: Stream; text: string }[] = [];
  private readonly streams = new Map<Stream, StreamState>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly db: pg.Pool,
    private readonly runId: string,
    private readonly actionId: string,
    private readonly masker: SecretMasker,
    private readonly onError: (err: unknown) => void = () => undefined,
    private readonly flushMs = LOG_FLUSH_MS,
  ) {}

  /** Takes a line or chunk of output (never throws; stores nothing after close). */
  write(stream: Stream, text: string): void {
    if (this.closed || !text) return;
    const s = this.state(stream);
    this.accept(stream, s, s.masker.push(text));
  }

  private state(stream: Stream): StreamState {
    let s = this.streams.get(stream);
    if (!s) {
      s = { masker: this.masker.stream(), bytes: 0, truncated: false };
      this.streams.set(stream, s);
    }
    return s;
  }

  private accept(stream: Stream, s: StreamState, text: string): void {
    if (!text || s.truncated) return;
    const size = Buffer.byteLength(text);
    if (s.bytes + size > LOG_STREAM_CAP_BYTES) {
      const room = LOG_STREAM_CAP_BYTES - s.bytes;
      const head = room > 0 ? Buffer.from(text).subarray(0, room).toString('utf8').replace(/\uFFFD$/, '') : '';
      if (head) this.pending.push({ stream, text: head });
      this.pending.push({ stream, text: TRUNCATED_LINE });
      s.bytes = LOG_STREAM_CAP_BYTES;
      s.truncated = true;
    } else {
      s.bytes += size;
      this.pending.push({ stream, text });
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.flushMs);
  }

  /** Stores what is pending now (one statement), after any flush in progress. */
  flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    if (!batch.length) return this.flushing;
    const first = this.seq;
    this.seq += batch.length;
    this.flushing = this.flushing.then(() => this.store(first, batch)).catch(this.onError);
    return this.flushing;
  }

  private async store(first: number, batch: { stream: Stream; text: string }[]): Promise<void> {
    // the lines and their announcement in one statement (the NOTIFY is sent when it commits)
    await this.db.query({
      name: 'playbooks-store-logs',
      text: `WITH ins AS (
         INSERT INTO playbook_run_action_logs (action_id, seq, run_id, stream, text)
         SELECT $1, $2 + ord - 1, $3, s, t FROM unnest($4::text[], $5::text[]) WITH ORDINALITY AS u(s, t, ord))
       SELECT pg_notify($6, $7)`,
      values: [this.actionId, first, this.runId, batch.map((b) => b.stream), batch.map((b) => b.text.replace(/\u0000/g, '')),
        EVENTS_CHANNEL, this.announcement()],
    });
  }

  private announcement(): string {
    return encodeChange({ relation: 'playbook_run_action_logs', ids: [this.runId] });
  }

  /**
   * Like close(), but the lines still pending are handed back instead of stored, for the statement that finishes the
   * action to store them (one statement less an action); the batches already on their way are stored first, so the
   * seq order holds. Null when nothing is left. If that statement fails, storeFinal() stores them on their own.
   */
  async closeForFinish(): Promise<FinalLogBatch | null> {
    if (this.closed) {
      await this.flushing;
      return null;
    }
    for (const [stream, s] of this.streams) this.accept(stream, s, s.masker.end());
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    await this.flushing;
    if (!batch.length) return null;
    const first = this.seq;
    this.seq += batch.length;
    return {
      actionId: this.actionId, runId: this.runId, first, streams: batch.map((b) => b.stream),
      texts: batch.map((b) => b.text.replace(/\u0000/g, '')), notify: this.announcement(),
    };
  }

  /** Stores a batch closeForFinish() handed back (when the finishing statement could not). */
  async storeFinal(b: FinalLogBatch): Promise<void> {
    await this.store(b.first, b.streams.map((stream, i) => ({ stream, text: b.texts[i] }))).catch(this.onError);
  }

  /** Releases what the maskers held back, stores everything and stops. */
  async close(): Promise<void> {
    if (this.closed) return this.flushing;
    for (const [stream, s] of this.streams) this.accept(stream, s, s.masker.end());
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }
}
