import { z } from 'zod';

/** GET /api/agent/status in MODE=agent: the outbox and the link to the upstream, cheap to read (no secrets). */
export const AgentRuntimeStatus = z.object({
  /** The upstream's /api/upstream base. */
  upstream: z.string(),
  lastPushAt: z.string().nullable(),
  /** Rows in the last accepted push. */
  lastPushRows: z.number().int(),
  /** Rows accepted since start. */
  pushedRows: z.number().int(),
  /** Unpushed rows (as of the last push cycle). */
  bufferRows: z.number().int(),
  /** Age of the oldest unpushed row, ms. */
  lagMs: z.number(),
  /** Check statuses dropped over AGENT_BUFFER_MAX_ROWS since start. */
  droppedRows: z.number().int(),
  /** Rows the upstream refused on their own (a 4xx other than 401/408/429), skipped since start. */
  skippedRows: z.number().int(),
  lastPingAt: z.string().nullable(),
  lastPullAt: z.string().nullable(),
  lastError: z.string().nullable(),
  lastErrorAt: z.string().nullable(),
  /** The last answer was 401: the token is not (or no longer) valid upstream. */
  tokenRejected: z.boolean(),
});
export type AgentRuntimeStatus = z.infer<typeof AgentRuntimeStatus>;
