import type { FastifyPluginAsync } from 'fastify';
import type { LiveMessage } from '../../contracts/events.js';
import { can } from '../../contracts/rbac.js';
import type { LiveClientContext } from '../../plugins/ws.js';
import { logLinesAfter } from './api-queries.js';

/**
 * A run's output lines, live over /api/ws (issue 14 "Live"). A client sends `{type: 'watch', run_id, since?}`; this
 * replica answers `watching`, sends the stored lines after `since`, then, each time the engine (on whichever replica)
 * stores lines and NOTIFYs 'playbook_run_action_logs' with the run id, the new ones: read from
 * playbook_run_action_logs after the last seq sent per action, so any replica serves any run and nothing is lost
 * between the backlog and the live part. Lines a slow socket cannot take yet are sent on the next pass, from where
 * it stopped. Callers who may not read playbook_runs get nothing.
 */

/** Runs one connection may watch at once. */
export const MAX_WATCHED_RUNS = 20;
/** Lines read per query; a pass loops until it has caught up. */
const PAGE = 500;
/** NOTIFYs arriving this close together make one pass. */
const COALESCE_MS = 20;
/** A pass stopped by a full socket retries after this long. */
const RETRY_MS = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Watch {
  since: Record<string, number>;
  timer: NodeJS.Timeout | null;
  running: boolean;
  again: boolean;
  closed: boolean;
}

const mayRead = (ctx: LiveClientContext) => can(ctx.principal.roles, 'playbook_runs', 'read');

export const playbookLiveRoutes: FastifyPluginAsync = async (app) => {
  const watchers = new Map<LiveClientContext, Map<string, Watch>>();

  const schedule = (ctx: LiveClientContext, runId: string, w: Watch, ms = COALESCE_MS) => {
    if (w.closed || w.timer) return;
    w.timer = setTimeout(() => {
      w.timer = null;
      void pass(ctx, runId, w);
    }, ms);
  };

  /** Sends every stored line after `since`, page by page, until caught up or the socket is full. */
  async function pass(ctx: LiveClientContext, runId: string, w: Watch): Promise<void> {
    if (w.running) {
      w.again = true;
      return;
    }
    w.running = true;
    try {
      do {
        w.again = false;
        if (!mayRead(ctx)) {
          stop(ctx, runId);
          return;
        }
        for (;;) {
          const lines = await logLinesAfter(app.db, runId, w.since, PAGE);
          for (const l of lines) {
            if (w.closed) return;
            const message: LiveMessage = {
              type: 'log', run_id: runId, action_id: l.action_id, seq: l.seq, stream: l.stream, text: l.text,
              at: new Date(l.created_at).toISOString(),
            };
            if (!ctx.send(message)) {
              schedule(ctx, runId, w, RETRY_MS);
              return;
            }
            w.since[l.action_id] = l.seq;
          }
          if (lines.length < PAGE) break;
        }
      } while (w.again && !w.closed);
    } catch (err) {
      app.log.warn({ err, runId }, 'live logs: could not read a run\'s lines');
      schedule(ctx, runId, w, RETRY_MS);
    } finally {
      w.running = false;
    }
  }

  function stop(ctx: LiveClientContext, runId: string): void {
    const runs = watchers.get(ctx);
    const w = runs?.get(runId);
    if (!runs || !w) return;
    w.closed = true;
    if (w.timer) clearTimeout(w.timer);
    runs.delete(runId);
  }

  app.events.onClientMessage((ctx, message) => {
    if (message.type !== 'watch' && message.type !== 'unwatch') return; // another feature's message (a log tail)
    if (message.type === 'unwatch') {
      stop(ctx, message.run_id);
      return;
    }
    if (!mayRead(ctx)) return;
    let runs = watchers.get(ctx);
    if (!runs) {
      runs = new Map();
      watchers.set(ctx, runs);
      ctx.onClose(() => {
        for (const runId of [...(watchers.get(ctx)?.keys() ?? [])]) stop(ctx, runId);
        watchers.delete(ctx);
      });
    }
    if (runs.has(message.run_id)) stop(ctx, message.run_id);
    if (runs.size >= MAX_WATCHED_RUNS) return;
    const since = Object.fromEntries(Object.entries(message.since ?? {}).filter(([id]) => UUID.test(id)).map(([id, seq]) => [id.toLowerCase(), seq]));
    const w: Watch = { since, timer: null, running: false, again: false, closed: false };
    runs.set(message.run_id, w);
    ctx.send({ type: 'watching', run_id: message.run_id, at: new Date().toISOString() });
    void pass(ctx, message.run_id, w);
  });

  app.events.bus.subscribe((event) => {
    const all = event.type === 'resync'
      || (event.type === 'change' && event.relation === 'playbook_run_action_logs' && !event.ids);
    const ids = event.type === 'change' && (event.relation === 'playbook_run_action_logs' || event.relation === 'playbook_runs')
      ? new Set(event.ids ?? []) : null;
    if (!all && !ids?.size) return;
    for (const [ctx, runs] of watchers) {
      for (const [runId, w] of runs) if (all || ids!.has(runId)) schedule(ctx, runId, w);
    }
  });

  app.addHook('preClose', async () => {
    for (const [ctx, runs] of watchers) for (const runId of [...runs.keys()]) stop(ctx, runId);
  });
};
