import type { FastifyPluginAsync } from 'fastify';
import type { LiveClientMessage, LiveMessage } from '../../contracts/events.js';
import type { LogLine } from '../../contracts/logs.js';
import { can, featureStates } from '../../contracts/rbac.js';
import { ApiError } from '../../lib/errors.js';
import type { LiveClientContext } from '../../plugins/ws.js';
import { propertyMap } from '../auth/queries.js';
import { withBackendLabels, type LogsRouteOptions } from './routes.js';
import { resolveSearch, type ResolvedSearch } from './search.js';
import { isAbort, sleep, type BackendContext } from './types.js';

/**
 * Log live tails over /api/ws (issue 16, Beyond the reference 2). A client sends `{type: 'logs_subscribe', sub,
 * search, after?}` (contracts/events.ts); this replica checks the caller (read on logging_backends, `logs.disable`
 * off), resolves the search as POST /api/logs does, sends the history (unless `after`), `live`, then the backend's
 * `follow` batches, each as a `logs_tail` message to this connection only. Each subscription has its own
 * AbortController: `logs_unsubscribe`, a new subscribe under the same `sub`, the socket closing or a shutdown abort
 * it, which cancels the backend request (its HTTP socket closed, the Kubernetes follow stream ended). A batch the
 * socket cannot take yet (over 1 MB unsent) waits, and the backend is not asked for more meanwhile. A backend error
 * while live is reported (`retrying: true`) and the tail resumes from the last line sent after a pause (doubling to
 * 30 s); a refusal ends the tail with one `error`.
 */

/** Live tails one connection may hold at once. */
export const MAX_TAILS_PER_CONNECTION = 4;
/** A socket over its unsent limit is tried again after this long. */
const RESEND_MS = 100;
const MAX_BACKOFF_MS = 30_000;

type Subscribe = Extract<LiveClientMessage, { type: 'logs_subscribe' }>;
type TailEvent = Omit<Extract<LiveMessage, { type: 'logs_tail' }>, 'type' | 'sub'>;

const mayRead = (ctx: LiveClientContext) => can(ctx.principal.roles, 'logging_backends', 'read');

interface Tail {
  ac: AbortController;
}

export const logsLiveRoutes: FastifyPluginAsync<LogsRouteOptions> = async (app, opts) => {
  const tails = new Map<LiveClientContext, Map<string, Tail>>();

  function stop(ctx: LiveClientContext, sub: string, why: string): void {
    const mine = tails.get(ctx);
    const t = mine?.get(sub);
    if (!mine || !t) return;
    mine.delete(sub);
    t.ac.abort(new Error(why));
  }

  app.events.onClientMessage((ctx, message) => {
    if (message.type === 'logs_unsubscribe') {
      stop(ctx, message.sub, 'unsubscribed');
      return;
    }
    if (message.type !== 'logs_subscribe') return;
    let mine = tails.get(ctx);
    if (!mine) {
      const created = new Map<string, Tail>();
      mine = created;
      tails.set(ctx, created);
      ctx.onClose(() => {
        for (const sub of [...created.keys()]) stop(ctx, sub, 'socket closed');
        tails.delete(ctx);
      });
    }
    stop(ctx, message.sub, 'resubscribed');
    if (mine.size >= MAX_TAILS_PER_CONNECTION) {
      ctx.send({ type: 'logs_tail', sub: message.sub, event: 'error', status: 429, error: `sub: at most ${MAX_TAILS_PER_CONNECTION} live tails per connection` });
      return;
    }
    const t: Tail = { ac: new AbortController() };
    mine.set(message.sub, t);
    void run(ctx, message, t).finally(() => {
      if (tails.get(ctx)?.get(message.sub) === t) tails.get(ctx)!.delete(message.sub);
    });
  });

  app.addHook('preClose', async () => {
    for (const [ctx, mine] of tails) for (const sub of [...mine.keys()]) stop(ctx, sub, 'shutting down');
  });

  /** Sends one event, waiting while the socket is full; false when the tail is over (aborted, or the caller lost read). */
  async function send(ctx: LiveClientContext, sub: string, signal: AbortSignal, event: TailEvent): Promise<boolean> {
    const message = { type: 'logs_tail', sub, ...event } as LiveMessage;
    for (;;) {
      if (signal.aborted) return false;
      if (!mayRead(ctx)) return false;
      if (ctx.send(message)) return true;
      await sleep(RESEND_MS, signal);
    }
  }

  async function run(ctx: LiveClientContext, msg: Subscribe, t: Tail): Promise<void> {
    const { signal } = t.ac;
    const refuse = (status: number, error: string) => send(ctx, msg.sub, signal, { event: 'error', status, error });
    if (!mayRead(ctx)) {
      // ctx.send would drop it (mayReceive): the refusal goes out as the socket's own message
      ctx.send({ type: 'logs_tail', sub: msg.sub, event: 'error', status: 403, error: 'logs: read on logging_backends required' });
      return;
    }
    let search: ResolvedSearch;
    let after: LogLine | null = null;
    try {
      if (!featureStates(await propertyMap(app.db)).logs) throw new ApiError(403, 'forbidden', 'logs are disabled (logs.disable)');
      if (msg.after !== undefined) {
        const ms = Date.parse(msg.after);
        if (Number.isNaN(ms)) throw new ApiError(400, 'invalid', 'after: not an RFC 3339 time');
        after = { timestamp: new Date(ms).toISOString(), message: '', labels: {} };
      }
      search = await resolveSearch({ db: app.db, ...opts.deps }, msg.search, signal);
    } catch (err) {
      if (isAbort(err, signal)) return;
      await refuse(err instanceof ApiError ? err.statusCode : 500, err instanceof ApiError ? err.message : 'logs: could not start the live tail');
      if (!(err instanceof ApiError)) app.log.warn({ err }, 'logs live tail: could not start');
      return;
    }
    const ctxNow = (): BackendContext => opts.ctx();
    const lines = (batch: LogLine[]) => withBackendLabels(batch, search.config);

    // the history, newest first (none when resuming after a reconnect)
    if (!after) {
      try {
        const gen = search.backend.search(ctxNow(), search.config, search.query);
        for (let step = await gen.next(); !step.done; step = await gen.next()) {
          if (!step.value.length) continue;
          after ??= step.value[0];
          if (!(await send(ctx, msg.sub, signal, { event: 'history', lines: lines(step.value) }))) {
            void gen.return?.({}).catch(() => {});
            return;
          }
        }
      } catch (err) {
        if (isAbort(err, signal)) return;
        await refuse(err instanceof ApiError ? err.statusCode : 502, err instanceof ApiError ? err.message : `${search.type} backend: ${(err as Error).message}`);
        return;
      }
      // nothing in range: new lines are those from the time the search ended
      after ??= { timestamp: new Date(search.query.endMs).toISOString(), message: '', labels: {} };
    }
    if (!(await send(ctx, msg.sub, signal, { event: 'live' }))) return;

    let backoff = 0;
    while (!signal.aborted) {
      try {
        for await (const batch of search.backend.follow(ctxNow(), search.config, search.query, after)) {
          if (!batch.length) continue;
          if (!(await send(ctx, msg.sub, signal, { event: 'lines', lines: lines(batch) }))) return;
          after = batch[batch.length - 1];
          backoff = 0;
        }
        if (signal.aborted) return;
        // the backend ended its stream (a pod restarted, a follow closed by the API server): follow again
        backoff = Math.max(backoff, opts.ctx().pollMs);
      } catch (err) {
        if (isAbort(err, signal)) return;
        const status = err instanceof ApiError ? err.statusCode : 502;
        const error = err instanceof ApiError ? err.message : `${search.type} backend: ${(err as Error).message}`;
        app.log.debug({ err, backend: search.type }, 'logs live tail: backend failed; retrying');
        backoff = Math.min(MAX_BACKOFF_MS, Math.max(opts.ctx().pollMs, backoff * 2));
        if (!(await send(ctx, msg.sub, signal, { event: 'error', status, error, retrying: true }))) return;
      }
      await sleep(backoff, signal);
    }
  }
};
