import { useCallback, useEffect, useRef, useState } from 'react';
import { errorMessage } from '../../lib/api-client';
import { streamLogs, type LogsSearch } from './api';
import { tailLogs } from '../../lib/live-socket';
import { LIVE_LINE_CAP, LogBuffer, PAGE_LIMIT, type LogLine, type LogResult, type StreamMessage } from './model';

/** Renders wait this long after a batch so a fast stream costs a render per frame or so, not per network chunk. */
const FLUSH_MS = 60;

export type StreamStatus = 'idle' | 'loading' | 'streaming' | 'live' | 'done' | 'error';

export interface LogStream {
  buffer: LogBuffer<LogLine>;
  /** Changes whenever the buffer did: a dependency for memos over it. */
  version: number;
  status: StreamStatus;
  error: string | null;
  /** The server's `total` of the last finished page. */
  total: number | null;
  /** More (older) lines are there: `loadOlder` fetches them. */
  hasOlder: boolean;
  loadingOlder: boolean;
  loadOlder: () => void;
  /** Lines the live tail's cap dropped. */
  dropped: number;
}

/**
 * Streams POST /api/logs for `search` (null: nothing chosen). A new search (any field, or `refreshKey`) aborts the
 * running request before it starts its own, so at most one is open; unmounting aborts too. With `follow` (Live), the
 * search goes over /api/ws instead (tailLogs): the history, then live lines (capped at 50,000, oldest dropped); a new
 * search or unmounting unsubscribes.
 */
export function useLogStream(search: LogsSearch | null, refreshKey: number): LogStream {
  const [buffer, setBuffer] = useState(() => new LogBuffer<LogLine>());
  const [version, setVersion] = useState(0);
  const [status, setStatus] = useState<StreamStatus>('idle');
  const [error, setError] = useState<string | null>(null);
  const [total, setTotal] = useState<number | null>(null);
  const [nextPage, setNextPage] = useState<string | undefined>();
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [dropped, setDropped] = useState(0);
  const nextId = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const olderAbort = useRef<AbortController | null>(null);
  const key = search ? JSON.stringify(search) : '';

  const scheduleFlush = useCallback(() => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      setVersion((v) => v + 1);
    }, FLUSH_MS);
  }, []);

  const toLines = (messages: StreamMessage[]): LogLine[] =>
    messages.flatMap((m) => (m.kind === 'result' ? [{ ...m.result, id: nextId.current++ }] : []));

  useEffect(() => {
    olderAbort.current?.abort();
    const fresh = new LogBuffer<LogLine>();
    setBuffer(fresh);
    setVersion((v) => v + 1);
    setError(null);
    setTotal(null);
    setNextPage(undefined);
    setDropped(0);
    setLoadingOlder(false);
    if (!search) {
      setStatus('idle');
      return;
    }
    setStatus('loading');
    if (search.follow) return startTail(search, fresh);
    const controller = new AbortController();
    let live = false;
    let seen = false;
    streamLogs({ limit: PAGE_LIMIT, ...search }, controller.signal, (messages) => {
      // results before the {live} marker are the history (newest first), after it the tail (oldest first)
      let batch: StreamMessage[] = [];
      const flushBatch = () => {
        const lines = toLines(batch);
        if (live) fresh.addNewer(lines);
        else fresh.addOlder(lines);
        batch = [];
      };
      for (const m of messages) {
        if (m.kind === 'result') batch.push(m);
        else if (m.kind === 'live') {
          flushBatch();
          live = true;
          setStatus('live');
        } else if (m.kind === 'done') {
          flushBatch();
          setTotal(m.total);
          setNextPage(m.nextPage);
          setStatus('done');
        } else {
          flushBatch();
          setError(m.error);
          setStatus('error');
        }
      }
      flushBatch();
      if (live) {
        const n = fresh.cap(LIVE_LINE_CAP);
        if (n) setDropped((d) => d + n);
      }
      if (!seen && fresh.size) {
        seen = true;
        if (!live) setStatus('streaming');
      }
      scheduleFlush();
    })
      .then(() => {
        if (controller.signal.aborted) return;
        // a stream that ended without its done line (the link dropped, or a live tail the server closed)
        setStatus((s) => (s === 'error' ? s : 'done'));
        setVersion((v) => v + 1);
      })
      .catch((err: unknown) => {
        if (controller.signal.aborted) return;
        setError(errorMessage(err));
        setStatus('error');
        setVersion((v) => v + 1);
      });
    return () => {
      controller.abort();
      if (timer.current) {
        clearTimeout(timer.current);
        timer.current = null;
      }
    };
    // the search is keyed by its content; refreshKey re-runs the same search
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, refreshKey, scheduleFlush]);

  /**
   * Live: the history then new lines over /api/ws (tailLogs); the cap keeps the newest LIVE_LINE_CAP. After a
   * reconnect the server resumes from the newest line's time, so lines of that very time already held are skipped.
   */
  function startTail(s: LogsSearch, fresh: LogBuffer<LogLine>): () => void {
    let newestMs = -Infinity;
    let atNewest = new Set<string>();
    const note = (l: LogResult) => {
      const ms = Date.parse(l.timestamp);
      if (ms > newestMs) {
        newestMs = ms;
        atNewest = new Set();
      }
      if (ms === newestMs) atNewest.add(`${l.timestamp}\u0000${l.message}`);
    };
    const stop = tailLogs({ id: s.id, ...(s.name ? { name: s.name } : {}), ...(s.query ? { query: s.query } : {}), ...(s.start ? { start: s.start } : {}), limit: PAGE_LIMIT },
      (m) => {
        if (m.event === 'history') {
          const lines = m.lines ?? [];
          lines.forEach(note);
          fresh.addOlder(lines.map((l) => ({ ...l, id: nextId.current++ })));
          setStatus((st) => (st === 'loading' ? 'streaming' : st));
        } else if (m.event === 'live') {
          setError(null);
          setStatus('live');
        } else if (m.event === 'lines') {
          const lines = (m.lines ?? []).filter((l) => {
            const ms = Date.parse(l.timestamp);
            if (ms < newestMs || (ms === newestMs && atNewest.has(`${l.timestamp}\u0000${l.message}`))) return false;
            note(l);
            return true;
          });
          fresh.addNewer(lines.map((l) => ({ ...l, id: nextId.current++ })));
          const n = fresh.cap(LIVE_LINE_CAP);
          if (n) setDropped((d) => d + n);
          setError(null);
        } else {
          setError(m.error ?? 'the live tail failed');
          // a backend error while live is retried by the server; anything else ended the tail
          if (!m.retrying) setStatus('error');
        }
        scheduleFlush();
      });
    return () => {
      stop();
      if (timer.current) {
        clearTimeout(timer.current);
        timer.current = null;
      }
    };
  }

  const loadOlder = useCallback(() => {
    if (!search || !nextPage || loadingOlder) return;
    const controller = new AbortController();
    olderAbort.current = controller;
    setLoadingOlder(true);
    let next: string | undefined;
    streamLogs({ limit: PAGE_LIMIT, ...search, follow: undefined, page: nextPage }, controller.signal, (messages) => {
      buffer.addOlder(toLines(messages));
      for (const m of messages) {
        if (m.kind === 'done') next = m.nextPage;
        if (m.kind === 'error') setError(m.error);
      }
      scheduleFlush();
    })
      .then(() => {
        if (!controller.signal.aborted) setNextPage(next);
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) setError(errorMessage(err));
      })
      .finally(() => {
        if (!controller.signal.aborted) setLoadingOlder(false);
      });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, nextPage, loadingOlder, buffer, scheduleFlush]);

  useEffect(() => () => olderAbort.current?.abort(), []);

  return { buffer, version, status, error, total, hasOlder: !!nextPage, loadingOlder, loadOlder, dropped };
}
