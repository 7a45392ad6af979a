import { Counter, Gauge, type Registry } from 'prom-client';
import type { AgentRuntimeStatus } from '../../contracts/agent-runtime.js';

export interface RuntimeLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** The log line of a refused token (issue 16), once per streak of 401s, whoever (push, ping, pull) met it first. */
export const REJECTED_TOKEN_MESSAGE = 'upstream rejected AGENT_TOKEN (401)';

/**
 * What the pusher, pinger and puller share: the status GET /api/agent/status answers, the metrics at /metrics, and
 * the 401 streak (logged once, cleared by any accepted request).
 */
export class RuntimeState {
  readonly status: AgentRuntimeStatus;
  private rejected = false;
  readonly pushedRows: Counter;
  readonly droppedRows: Counter;
  readonly skippedRows: Counter;
  readonly failures: Counter;
  readonly bufferRows: Gauge;
  readonly lagSeconds: Gauge;

  constructor(upstream: string, private readonly log: RuntimeLog, registry?: Registry) {
    this.status = {
      upstream, lastPushAt: null, lastPushRows: 0, pushedRows: 0, bufferRows: 0, lagMs: 0, droppedRows: 0, skippedRows: 0,
      lastPingAt: null, lastPullAt: null, lastError: null, lastErrorAt: null, tokenRejected: false,
    };
    const registers = registry ? [registry] : [];
    this.pushedRows = new Counter({ name: 'agent_outbox_pushed_rows_total', help: 'Rows the upstream accepted', registers });
    this.droppedRows = new Counter({
      name: 'agent_outbox_dropped_rows_total', help: 'Unpushed check statuses dropped over AGENT_BUFFER_MAX_ROWS', registers,
    });
    this.skippedRows = new Counter({ name: 'agent_outbox_skipped_rows_total', help: 'Rows the upstream refused alone (4xx), skipped', registers });
    this.failures = new Counter({ name: 'agent_upstream_failures_total', help: 'Failed upstream requests', labelNames: ['op'], registers });
    this.bufferRows = new Gauge({ name: 'agent_outbox_rows', help: 'Rows waiting to be pushed', registers });
    this.lagSeconds = new Gauge({ name: 'agent_outbox_lag_seconds', help: 'Age of the oldest unpushed row', registers });
  }

  /** An answer the upstream accepted: ends a 401 streak. */
  accepted(): void {
    if (this.rejected) this.log.info({}, 'upstream accepts AGENT_TOKEN again');
    this.rejected = false;
    this.status.tokenRejected = false;
  }

  /** A 401: logged once per streak; the outbox keeps buffering. */
  tokenRejected(op: string): void {
    this.failed(op, REJECTED_TOKEN_MESSAGE);
    this.status.tokenRejected = true;
    if (this.rejected) return;
    this.rejected = true;
    this.log.error({ op, upstream: this.status.upstream }, REJECTED_TOKEN_MESSAGE);
  }

  failed(op: string, message: string): void {
    this.failures.inc({ op });
    this.status.lastError = `${op}: ${message}`;
    this.status.lastErrorAt = new Date().toISOString();
  }

  depth(rows: number, lagMs: number): void {
    this.status.bufferRows = rows;
    this.status.lagMs = lagMs;
    this.bufferRows.set(rows);
    this.lagSeconds.set(lagMs / 1000);
  }
}
