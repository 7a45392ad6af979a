import { z } from 'zod';

/**
 * Live updates over `GET /api/ws` (one WebSocket per browser tab). Every message the server sends is one JSON
 * object of this union; the client sends nothing it expects an answer to.
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
]);
export type LiveMessage = z.infer<typeof LiveMessage>;
export type ChangeEvent = Extract<LiveMessage, { type: 'change' }>;

/** Close code the server uses when the caller's session ended (logout, expiry, deactivation): do not reconnect. */
export const WS_CLOSE_SESSION_ENDED = 4401;
