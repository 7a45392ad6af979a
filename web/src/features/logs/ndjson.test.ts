import { describe, expect, it } from 'vitest';
import { readNdjson } from './ndjson';
import { LogBuffer, parseSelectors, severityLevel, toStreamMessage } from './model';

/** A body whose chunks arrive as given (split anywhere, even inside a line or a UTF-8 character). */
function body(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const ch of chunks) c.enqueue(typeof ch === 'string' ? enc.encode(ch) : ch);
      c.close();
    },
  });
}

async function all(stream: ReadableStream<Uint8Array>) {
  const out: unknown[][] = [];
  for await (const batch of readNdjson(stream)) out.push(batch);
  return out;
}

describe('readNdjson', () => {
  it('yields each network chunk’s complete lines as one batch, holding a split line until its end arrives', async () => {
    const batches = await all(body(['{"message":"a"}\n{"mess', 'age":"b"}\n', '{"done":true,"total":2}\n']));
    expect(batches).toEqual([[{ message: 'a' }], [{ message: 'b' }], [{ done: true, total: 2 }]]);
  });

  it('keeps a multi-byte character split across chunks, and reads a last line without a newline', async () => {
    const bytes = new TextEncoder().encode('{"message":"café ✓"}\n{"done":true,"total":1}');
    const batches = await all(body([bytes.slice(0, 16), bytes.slice(16)]));
    expect(batches.flat()).toEqual([{ message: 'café ✓' }, { done: true, total: 1 }]);
  });

  it('turns a line that is not JSON into an error object instead of throwing, and skips blank lines', async () => {
    const batches = await all(body(['\n{"message":"a"}\n<html>Bad Gateway</html>\n\n']));
    expect(batches.flat()).toEqual([{ message: 'a' }, { error: 'Invalid line in the log stream: <html>Bad Gateway</html>' }]);
  });

  it('stops reading when the consumer stops (the body is cancelled)', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(new TextEncoder().encode('{"message":"x"}\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const batch of readNdjson(stream)) {
      expect(batch[0]).toEqual({ message: 'x' });
      break;
    }
    expect(cancelled).toBe(true);
  });
});

describe('toStreamMessage', () => {
  it('reads results, the done line and error lines', () => {
    expect(toStreamMessage({ timestamp: '2026-01-01T00:00:00Z', message: 'hi', labels: { pod: 'a', n: 1 }, severity: 'warn' })).toEqual({
      kind: 'result',
      result: { timestamp: '2026-01-01T00:00:00Z', message: 'hi', labels: { pod: 'a', n: '1' }, severity: 'warn' },
    });
    expect(toStreamMessage({ done: true, total: 3, nextPage: 'abc' })).toEqual({ kind: 'done', total: 3, nextPage: 'abc' });
    expect(toStreamMessage({ done: true, total: 0 })).toEqual({ kind: 'done', total: 0 });
    expect(toStreamMessage({ live: true })).toEqual({ kind: 'live' });
    expect(toStreamMessage({ error: 'loki: 502' })).toEqual({ kind: 'error', error: 'loki: 502' });
    expect(toStreamMessage({ foo: 1 })).toBeNull();
    expect(toStreamMessage('text')).toBeNull();
  });
});

describe('the model', () => {
  it('folds severities to four levels', () => {
    expect(['ERROR', 'fatal', 'Warning', 'info', 'trace', 'weird', undefined].map(severityLevel)).toEqual(['error', 'error', 'warn', 'info', 'debug', undefined, undefined]);
  });

  it('shows history (sent newest first) then live lines (sent oldest first) oldest first, capped by dropping the oldest', () => {
    const buf = new LogBuffer<number>();
    buf.addOlder([5, 4]);
    buf.addOlder([3, 2, 1]);
    buf.addNewer([6, 7]);
    expect(buf.toArray()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect([0, 4, 6].map((i) => buf.at(i))).toEqual([1, 5, 7]);
    expect(buf.cap(4)).toBe(3);
    expect(buf.toArray()).toEqual([4, 5, 6, 7]);
    buf.addNewer([8, 9, 10]);
    expect(buf.cap(4)).toBe(3);
    expect(buf.toArray()).toEqual([7, 8, 9, 10]);
    expect(buf.size).toBe(4);
  });

  it('reads named selectors only', () => {
    expect(parseSelectors([{ name: 'console', type: 'console' }, { type: 'x' }, 'junk', { name: 'pods', labels: { app: 'a' } }])).toEqual([
      { name: 'console', type: 'console', labels: {} },
      { name: 'pods', labels: { app: 'a' } },
    ]);
    expect(parseSelectors(null)).toEqual([]);
  });
});
