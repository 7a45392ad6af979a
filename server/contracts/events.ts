import { z } from 'zod';

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
]);
export type LiveClientMessage = z.infer<typeof LiveClientMessage>;

/** Close code the server uses when the caller's session ended (logout, expiry, deactivation): do not reconnect. */
export const WS_CLOSE_SESSION_ENDED = 4401;
