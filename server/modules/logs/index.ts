import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';
import { ConnectionResolver } from '../health/connections.js';
import { logsLiveRoutes } from './live.js';
import { logsRoutes } from './routes.js';
import type { BackendContext } from './types.js';

/** Knobs of the log search; tests shorten them with setLogsTimings. */
export interface LogsTimings {
  /** Per backend request (504 after it). */
  timeoutMs: number;
  /** Live tail polling of loki and opensearch. */
  pollMs: number;
  /** Lines asked for first (streamed at once), then per later request. */
  firstBatch: number;
  batch: number;
}

const DEFAULTS: LogsTimings = { timeoutMs: 10_000, pollMs: 2_000, firstBatch: 100, batch: 1_000 };
let timings: LogsTimings = { ...DEFAULTS };

/** Changes the knobs for every search from now on (tests); no argument restores the defaults. */
export function setLogsTimings(t: Partial<LogsTimings> = {}): void {
  timings = { ...DEFAULTS, ...t };
}

/** Log search (issue 16): POST /api/logs over the logging_backends registry (kubernetes, loki, opensearch, ...). */
export const logsModule: FastifyPluginAsync<{ config: Config }> = fp(async (app: FastifyInstance) => {
  const valueFrom = app.hasDecorator('kube') ? app.kube.valueFrom : null;
  const kube = app.hasDecorator('kube') ? app.kube.cluster?.kc ?? null : null;
  const connections = new ConnectionResolver({ db: app.db, valueFrom: valueFrom ?? undefined });
  const ctx = (): BackendContext => ({ kube, ...timings });
  await app.register(logsRoutes, { deps: { connections, valueFrom }, ctx });
  // live tails over /api/ws ({type: 'logs_subscribe'}), where the live-update socket is there
  if (app.hasDecorator('events')) await app.register(logsLiveRoutes, { deps: { connections, valueFrom }, ctx });
}, { name: 'logs' });
