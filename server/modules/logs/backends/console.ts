import type { LogLine } from '../../../contracts/logs.js';
import { consoleRing, parsePinoLine } from '../ring-buffer.js';
import { decodePage, encodePage, type BackendQuery, type LogBackend } from '../types.js';

/** `console`: this process's own last 10,000 log lines (ring-buffer.ts), for the demo's `ops-console` component. */

interface Page { end: number; skip: number }

const matches = (l: LogLine, q: BackendQuery) => !q.text || q.text.re.test(l.message);

export const consoleBackend: LogBackend = {
  async *search(ctx, _config, q) {
    const page = decodePage<Page>('console', q.page);
    const endMs = page ? Math.min(q.endMs, page.end) : q.endMs;
    let skip = page?.skip ?? 0;
    let batch: LogLine[] = [];
    let given = 0;
    let last: LogLine | null = null;
    let lastMs = NaN;
    let sameMs = 0;
    let more = false;
    for (const raw of consoleRing.newestFirst()) {
      if (q.signal.aborted) return {};
      const line = parsePinoLine(raw);
      const ms = Date.parse(line.timestamp);
      if (ms > endMs) continue;
      if (ms < q.startMs) break;
      if (!matches(line, q)) continue;
      if (ms === endMs && skip > 0) {
        skip--;
        continue;
      }
      if (given === q.limit) {
        more = true;
        break;
      }
      sameMs = ms === lastMs ? sameMs + 1 : 1;
      lastMs = ms;
      last = line;
      batch.push(line);
      given++;
      if (batch.length >= (given <= ctx.firstBatch ? ctx.firstBatch : ctx.batch)) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length) yield batch;
    // the next page: lines up to the oldest one's ms, skipping those of that ms already given
    const prevSkip = page && lastMs === page.end ? page.skip : 0;
    return { total: given, nextPage: more && last ? encodePage({ end: lastMs, skip: sameMs + prevSkip } satisfies Page) : undefined };
  },

  async *follow(_ctx, _config, q) {
    let queue: LogLine[] = [];
    let wake: (() => void) | null = null;
    const stop = consoleRing.follow((raw) => {
      const line = parsePinoLine(raw);
      if (!matches(line, q)) return;
      queue.push(line);
      wake?.();
    });
    const onAbort = () => wake?.();
    q.signal.addEventListener('abort', onAbort);
    try {
      while (!q.signal.aborted) {
        if (!queue.length) await new Promise<void>((r) => { wake = r; });
        wake = null;
        if (queue.length) {
          const out = queue;
          queue = [];
          yield out;
        }
      }
    } finally {
      stop();
      q.signal.removeEventListener('abort', onAbort);
    }
  },
};
