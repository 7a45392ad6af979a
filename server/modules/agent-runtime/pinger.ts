import { SerialTicker } from './ticker.js';
import type { RuntimeState } from './status.js';
import { briefBody, type UpstreamClient } from './upstream-client.js';

export interface PingerOptions {
  client: UpstreamClient;
  state: RuntimeState;
  /** AGENT_PING_INTERVAL_MS */
  intervalMs: number;
  /** AGENT_PUSH_TELEMETRY: send lag_ms, buffer_rows, dropped_rows, version and topology with each ping. */
  telemetry: boolean;
  version: string;
  /** AGENT_TOPOLOGY_NAME */
  topology?: string;
}

/** The telemetry query of a ping (part B stores it for the agent's health timeline). */
export function telemetryQuery(o: Pick<PingerOptions, 'state' | 'version' | 'topology'>): Record<string, string | number | undefined> {
  const s = o.state.status;
  return { lag_ms: Math.round(s.lagMs), buffer_rows: s.bufferRows, dropped_rows: s.droppedRows, version: o.version, topology: o.topology };
}

/** GET /api/upstream/ping at start and every `intervalMs`: the upstream's `last_seen` (Online within 61 s). */
export class Pinger extends SerialTicker {

  constructor(private readonly o: PingerOptions) {
    super(o.intervalMs);
  }

  protected run(): Promise<void> {
    return this.ping();
  }

  async ping(): Promise<void> {
    if (this.stopped) return;
    const { state } = this.o;
    try {
      const answer = await this.o.client.request('GET', '/ping', { query: this.o.telemetry ? telemetryQuery(this.o) : {} });
      if (answer.ok) {
        state.accepted();
        state.status.lastPingAt = new Date().toISOString();
      } else if (answer.status === 401) state.tokenRejected('ping');
      else state.failed('ping', `${answer.status} ${briefBody(answer.text)}`);
    } catch (err) {
      state.failed('ping', (err as Error).message);
    }
  }
}
