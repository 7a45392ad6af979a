import type { FastifyPluginAsync } from 'fastify';
import { CanaryPullQuery, PingQuery, type CanaryPullResponse } from '../../contracts/upstream.js';
import { BadRequestError } from '../../lib/errors.js';
import { parseBody } from '../../lib/validation.js';
import { agentActivity } from './activity.js';
import { callingAgent } from './auth.js';
import { createPushService } from './push.js';
import { pullCanaries, recordPing, trimTelemetry } from './queries.js';

export interface UpstreamRoutesOptions {
  /** How far back `before` of a canary pull lies (see pullCanaries). */
  pullSettleMs?: number;
  /** Telemetry rows kept (the timeline shows 24 h). */
  telemetryHours?: number;
  /** Gap between live `agents` events of one agent. */
  activityGapMs?: number;
  /** New results stored from a push (the health module's live list). */
  onResults?: (checkIds: string[]) => void;
}

/** The reference's limit is larger; 16 MB holds ~20,000 results, far over an agent's 2 MB batches. */
export const PUSH_BODY_LIMIT = 16 * 1024 * 1024;
const AGENT = { access: 'agent' } as const;
const TRIM_EVERY_MS = 10 * 60_000;

/** /api/upstream/*: what agents ping, push, delete and pull, with their own token (access `agent`). */
export const upstreamRoutes: FastifyPluginAsync<UpstreamRoutesOptions> = async (app, opts) => {
  // the agents module's throttled notifier (app.agentActivity) when it runs, else our own with the same rule
  const own = agentActivity(app.db, opts.activityGapMs);
  const shared = (app as { agentActivity?: { note(agentId: string): void } }).agentActivity;
  const activity = opts.activityGapMs === undefined && shared ? shared : own;
  app.addHook('onClose', async () => own.stop());
  const pushes = createPushService({
    db: app.db,
    onStored: (_agent, checks) => opts.onResults?.(checks),
  });
  let trimmedAt = 0;

  // Any body is read as text and parsed here, so that what is not JSON gets the reference's answer.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: PUSH_BODY_LIMIT }, (_req, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new BadRequestError('invalid json request'), undefined);
    }
  });

  app.get('/ping', { config: AGENT }, async (req, reply) => {
    const agent = callingAgent(req);
    const q = parseBody(PingQuery, req.query);
    await recordPing(app.db, agent.id, {
      lagMs: q.lag_ms, bufferRows: q.buffer_rows, droppedRows: q.dropped_rows, version: q.version, topology: q.topology,
    });
    if (Date.now() - trimmedAt > TRIM_EVERY_MS) {
      trimmedAt = Date.now();
      await trimTelemetry(app.db, opts.telemetryHours ?? 48);
    }
    activity.note(agent.id);
    return reply.status(200).send();
  });

  app.post('/push', { config: AGENT, bodyLimit: PUSH_BODY_LIMIT }, async (req) => {
    const agent = callingAgent(req);
    const out = await pushes.push(agent, req.body);
    activity.note(agent.id);
    return out;
  });

  app.delete('/push', { config: AGENT, bodyLimit: PUSH_BODY_LIMIT }, async (req) => {
    const agent = callingAgent(req);
    const out = await pushes.remove(agent, req.body ?? {});
    activity.note(agent.id);
    return out;
  });

  app.get('/canary/pull', { config: AGENT }, async (req): Promise<CanaryPullResponse> => {
    const agent = callingAgent(req);
    const q = parseBody(CanaryPullQuery, req.query);
    const out = await pullCanaries(app.db, agent.id, q.since ?? null, opts.pullSettleMs ?? 1_000);
    return { before: new Date(out.before).toISOString(), canaries: out.canaries as CanaryPullResponse['canaries'] };
  });
};
