import type pg from 'pg';
import { publishChange } from '../../lib/events.js';

/**
 * Live `agents` events for pings and pushes, at most one per agent per `minGapMs` (pings every 30 s and pushes every
 * 5 s from many agents would otherwise flood every browser): the first at once, later ones folded into one at the
 * end of the gap. The agents page re-reads last_seen / last_received on the event; the Online/Offline boundary
 * itself moves with time, not with events.
 */
export function agentActivity(db: pg.Pool, minGapMs = 10_000) {
  const last = new Map<string, number>();
  const pending = new Map<string, NodeJS.Timeout>();
  const publish = (agentId: string) => {
    last.set(agentId, Date.now());
    if (last.size > 10_000) last.delete(last.keys().next().value!);
    void publishChange(db, { relation: 'agents', ids: [agentId] });
  };
  return {
    note(agentId: string): void {
      if (pending.has(agentId)) return;
      const wait = (last.get(agentId) ?? 0) + minGapMs - Date.now();
      if (wait <= 0) return publish(agentId);
      const timer = setTimeout(() => {
        pending.delete(agentId);
        publish(agentId);
      }, wait);
      timer.unref();
      pending.set(agentId, timer);
    },
    stop(): void {
      for (const t of pending.values()) clearTimeout(t);
      pending.clear();
    },
  };
}
