import { useEffect, useState, useSyncExternalStore } from 'react';
import { isLiveSocketUp, subscribeLiveSocketState, watchRunLogs } from '../../../lib/live-socket';
import { mergeLines, type LogLine } from './model';

/** Whether the tab's live socket is up: the run pages poll every 2 s only while it is not. */
export function useLiveSocketUp(): boolean {
  return useSyncExternalStore(subscribeLiveSocketState, isLiveSocketUp, () => false);
}

/** Lines arriving this close together render once (a chatty script prints thousands a second). */
const FLUSH_MS = 50;

/**
 * A run's output lines by action id, stored then live, while `enabled` (the run is shown): the socket's `watch`
 * replays the stored lines and streams the new ones. Returns a new Map whenever lines arrive.
 */
export function useRunLogs(runId: string, enabled: boolean): ReadonlyMap<string, LogLine[]> {
  const [lines, setLines] = useState<ReadonlyMap<string, LogLine[]>>(() => new Map());
  useEffect(() => {
    setLines(new Map());
    if (!enabled || !runId) return;
    let pending: LogLine[] = [];
    let timer: ReturnType<typeof setTimeout> | null = null;
    const flush = () => {
      timer = null;
      const batch = pending;
      pending = [];
      setLines((prev) => {
        const next = new Map(prev);
        const byAction = new Map<string, LogLine[]>();
        for (const l of batch) byAction.set(l.action_id, [...(byAction.get(l.action_id) ?? []), l]);
        for (const [actionId, incoming] of byAction) next.set(actionId, mergeLines(next.get(actionId) ?? [], incoming));
        return next;
      });
    };
    const stop = watchRunLogs(runId, (line) => {
      pending.push({ action_id: line.action_id, seq: line.seq, stream: line.stream, text: line.text });
      timer ??= setTimeout(flush, FLUSH_MS);
    });
    return () => {
      stop();
      if (timer) clearTimeout(timer);
    };
  }, [runId, enabled]);
  return lines;
}
