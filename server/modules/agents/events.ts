import type { FastifyInstance } from 'fastify';
import { publishChange } from '../../lib/events.js';

/** At most one `agents` event per agent per this many milliseconds (issue 16 "Gates": ≤ 1 per agent per 10 s). */
export const AGENT_EVENT_INTERVAL_MS = 10_000;

/**
 * Live `agents` change events for agent activity (ping → last_seen, push → last_received), throttled per agent:
 * the first activity publishes at once, later ones within the interval are folded into one trailing event at the
 * interval's end, so the list always ends up current (an agent pinging every 30 s gets an event per ping; one
 * pushing every 5 s, one per 10 s).
 */
export class AgentActivity {
  private readonly last = new Map<string, number>();
  private readonly pending = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly db: Parameters<typeof publishChange>[0], readonly intervalMs = AGENT_EVENT_INTERVAL_MS,
    private readonly onError?: (err: unknown) => void) {}

  note(agentId: string): void {
    if (this.closed || this.pending.has(agentId)) return;
    const now = Date.now();
    const wait = (this.last.get(agentId) ?? -Infinity) + this.intervalMs - now;
    if (wait <= 0) {
      this.fire(agentId);
      return;
    }
    const timer = setTimeout(() => {
      this.pending.delete(agentId);
      this.fire(agentId);
    }, wait);
    timer.unref();
    this.pending.set(agentId, timer);
  }

  close(): void {
    this.closed = true;
    for (const t of this.pending.values()) clearTimeout(t);
    this.pending.clear();
  }

  private fire(agentId: string): void {
    if (this.closed) return;
    this.last.set(agentId, Date.now());
    if (this.last.size > 10_000) this.last.delete(this.last.keys().next().value!); // bounded: oldest forgotten
    void publishChange(this.db, { relation: 'agents', ids: [agentId] }, this.onError);
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Throttled `agents` events (the agents module, console mode). */
    agentActivity?: AgentActivity;
  }
}

/**
 * For /api/upstream (part B): call after a ping or push changed `last_seen` / `last_received`. Publishes a live
 * `agents` change for the agent, at most once per agent per 10 s (trailing: the last activity is never lost).
 * A no-op when the agents module is not registered.
 */
export function noteAgentActivity(app: FastifyInstance, agentId: string): void {
  app.agentActivity?.note(agentId);
}
