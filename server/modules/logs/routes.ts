import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import { LogsRequest, type LogLine, type LogsResponse } from '../../contracts/logs.js';
import { featureStates } from '../../contracts/rbac.js';
import { ApiError, BadRequestError, ForbiddenError } from '../../lib/errors.js';
import { parseBody } from '../../lib/validation.js';
import { propertyMap } from '../auth/queries.js';
import { resolveSearch, type ResolvedSearch, type SearchDeps } from './search.js';
import { isAbort, type BackendContext } from './types.js';

/**
 * POST /api/logs (read on logging_backends; 403 while `logs.disable`): JSON `{total, results, nextPage?}`, or NDJSON
 * streamed as the backend yields (contracts/logs.ts says the lines). The request's end (the client closing it, or
 * a new search aborting the old fetch) aborts the backend request through an AbortController.
 */

export interface LogsRouteOptions {
  deps: Omit<SearchDeps, 'db'>;
  ctx: () => BackendContext;
}

const READ = { access: { resource: 'logging_backends', action: 'read' } } as const;

/** A backend's own `labels` added to what it found (apm-hub's `labels`; the line's own win). */
export function withBackendLabels(lines: LogLine[], config: Record<string, unknown>): LogLine[] {
  const extra = config.labels;
  if (typeof extra !== 'object' || extra === null || Array.isArray(extra) || !Object.keys(extra).length) return lines;
  return lines.map((l) => ({ ...l, labels: { ...(extra as Record<string, string>), ...l.labels } }));
}

export const logsRoutes: FastifyPluginAsync<LogsRouteOptions> = async (app, opts) => {
  // searches in flight (live tails never end by themselves): a shutdown ends them
  const active = new Set<AbortController>();
  app.addHook('preClose', async () => {
    for (const a of active) a.abort(new Error('shutting down'));
  });

  app.post('/api/logs', { config: READ }, async (req, reply) => {
    if (!featureStates(await propertyMap(app.db)).logs) throw new ForbiddenError('logs are disabled (logs.disable)');
    const body = parseBody(LogsRequest, req.body);
    const ndjson = (req.headers.accept ?? '').includes('application/x-ndjson');
    if (body.follow && !ndjson) throw new BadRequestError('follow: only with Accept: application/x-ndjson', { follow: 'needs NDJSON' });

    const ac = new AbortController();
    active.add(ac);
    const onClose = () => {
      active.delete(ac);
      if (!reply.raw.writableFinished) ac.abort(new Error('client went away'));
    };
    reply.raw.on('close', onClose);
    const ctx = opts.ctx();
    const search = await resolveSearch({ db: app.db, ...opts.deps }, body, ac.signal);
    const gen = search.backend.search(ctx, search.config, search.query);

    if (!ndjson) {
      const results: LogLine[] = [];
      let step = await gen.next();
      while (!step.done) {
        for (const l of withBackendLabels(step.value, search.config)) results.push(l);
        step = await gen.next();
      }
      const out: LogsResponse = { total: step.value.total ?? results.length, results };
      if (step.value.nextPage) out.nextPage = step.value.nextPage;
      return out;
    }

    // the first batch (or the end) before the headers: an error now is a plain HTTP error
    const first = await gen.next();
    const stream = new PassThrough();
    void pump(search, gen, first, stream, ctx, ac.signal, body.follow === true, req.log);
    return reply.type('application/x-ndjson; charset=utf-8').header('cache-control', 'no-store').header('x-accel-buffering', 'no').send(stream);
  });
};

type Gen = ReturnType<ResolvedSearch['backend']['search']>;

async function pump(search: ResolvedSearch, gen: Gen, first: IteratorResult<LogLine[], { total?: number; nextPage?: string }>, out: PassThrough,
  ctx: BackendContext, signal: AbortSignal, follow: boolean, log: { warn(o: object, m: string): void }): Promise<void> {
  const write = async (text: string) => {
    if (signal.aborted || out.destroyed) throw Object.assign(new Error('aborted'), { name: 'AbortError' });
    if (!out.write(text)) await Promise.race([once(out, 'drain'), once(signal, 'abort')]);
  };
  const lines = (batch: LogLine[]) => withBackendLabels(batch, search.config).map((l) => `${JSON.stringify(l)}\n`).join('');
  let count = 0;
  let newest: LogLine | null = null;
  try {
    let step = first;
    while (!step.done) {
      if (step.value.length) {
        newest ??= step.value[0];
        count += step.value.length;
        await write(lines(step.value));
      }
      step = await gen.next();
    }
    if (!follow) {
      await write(`${JSON.stringify({ done: true, total: step.value.total ?? count, ...(step.value.nextPage ? { nextPage: step.value.nextPage } : {}) })}\n`);
      out.end();
      return;
    }
    await write('{"live":true}\n');
    for await (const batch of search.backend.follow(ctx, search.config, search.query, newest)) {
      if (batch.length) await write(lines(batch));
    }
    out.end();
  } catch (err) {
    if (isAbort(err, signal)) {
      out.destroy();
      void gen.return?.({}).catch(() => {});
      return;
    }
    const message = err instanceof ApiError ? err.message : `${search.type} backend: ${(err as Error).message}`;
    log.warn({ err, backend: search.type }, 'logs: search failed while streaming');
    if (!out.destroyed) out.end(`${JSON.stringify({ error: message })}\n`);
  }
}
