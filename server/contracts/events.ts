import { z } from 'zod';
import { LogLine, LogsRequest } from './logs.js';

/**
 * Live updates over `GET /api/ws` (one WebSocket per browser tab). Every message the server sends is one JSON
 * object of this union; the client may send LiveClientMessage (watch a run's log lines), nothing else.
 *
 * - `ready`: the connection is subscribed; changes committed from now on will arrive.
 * - `change`: rows of `relation` (an /api/db relation name) were written; `ids` lists the primary keys when
 *   they were few and cheap to know; without `ids`, anything in the relation may have changed.
 * - `resync`: events may have been missed (the connection lagged, or the server lost its database listener for a
 *   while): refetch everything that is shown.
 */
export const LiveMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), at: z.string() }),
  z.object({
    type: z.literal('change'),
    relation: z.string(),
    ids: z.array(z.string()).optional(),
    at: z.string(),
  }),
  z.object({ type: z.literal('resync'), reason: z.string().optional(), at: z.string() }),
  // a run's output line, sent only to the connections watching that run (see LiveClientMessage)
  z.object({
    type: z.literal('log'),
    run_id: z.string(),
    action_id: z.string(),
    seq: z.number(),
    stream: z.string(),
    text: z.string(),
    /** When the line was stored. */
    at: z.string(),
  }),
  // the server's answer to a `watch`: lines stored from now on (and the backlog asked for) will arrive
  z.object({ type: z.literal('watching'), run_id: z.string(), at: z.string() }),
  // a log live tail's news (issue 16 "Live tail"), sent only to the connection that subscribed `sub`: see LogsTailEvent
  z.object({
    type: z.literal('logs_tail'),
    sub: z.string(),
    event: z.enum(['history', 'live', 'lines', 'error']),
    /** history: newest first; lines: oldest first (each newer than the last sent). */
    lines: z.array(LogLine).optional(),
    /** error: the message (naming the field or the backend) and its HTTP status. */
    error: z.string().optional(),
    status: z.number().optional(),
    /** error: the tail goes on (a backend error while live: polled again after a pause); else it has ended. */
    retrying: z.boolean().optional(),
  }),
]);
export type LiveMessage = z.infer<typeof LiveMessage>;
export type ChangeEvent = Extract<LiveMessage, { type: 'change' }>;
export type LiveLogLine = Extract<LiveMessage, { type: 'log' }>;

/**
 * What a client may send over `/api/ws`: watch a playbook run's output lines (issue 14 "Live"). On `watch` the server
 * answers `watching`, then sends the run's stored lines after `since` (action id → last seq the client has; without
 * it, every stored line of the run), then each new line as it is stored (batched every 100 ms), as `log` messages in
 * (action, seq) order. Callers that may not read `playbook_runs` get nothing. `unwatch` stops it; a connection
 * watches at most 20 runs.
 */
export const LiveClientMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('watch'),
    run_id: z.uuid(),
    since: z.record(z.string(), z.number().int()).optional(),
  }),
  z.object({ type: z.literal('unwatch'), run_id: z.uuid() }),
  /**
   * A log live tail (issue 16 "Live tail"): `search` as POST /api/logs takes it (no page, no follow). Without `after`
   * the server sends `logs_tail` `history` batches (newest first, up to `limit`), then `live`, then `lines` (oldest
   * first) as the backend yields them (Kubernetes follow; Loki and OpenSearch polled every 2 s; console: its ring).
   * With `after` (RFC 3339: the newest line the client holds, when resuming after a reconnect) no history: `live`,
   * then the lines from that time on (a line of that very time may come again). A refusal (403 role or gate, 400,
   * 404) is one `error` without `retrying`, and the tail is over. `logs_unsubscribe`, or the socket closing, cancels
   * the backend request. A connection tails at most 4 at once; `sub` is the client's name for it.
   */
  z.object({
    type: z.literal('logs_subscribe'),
    sub: z.string().min(1).max(64),
    search: LogsRequest.omit({ page: true, follow: true, end: true }),
    after: z.string().max(64).optional(),
  }),
  z.object({ type: z.literal('logs_unsubscribe'), sub: z.string().min(1).max(64) }),
]);
export type LiveClientMessage = z.infer<typeof LiveClientMessage>;

/** Close code the server uses when the caller's session ended (logout, expiry, deactivation): do not reconnect. */
export const WS_CLOSE_SESSION_ENDED = 4401;
