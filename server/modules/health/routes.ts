import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { CanaryInput, CanaryPatch, GraphRequest, HistoryRequest, PushRequest, SummaryRequest } from '../../contracts/health.js';
import { EditPrecondition } from '../../contracts/kubernetes.js';
import type { Role } from '../../contracts/rbac.js';
import { BadRequestError, ForbiddenError } from '../../lib/errors.js';
import { parseBody, parseId } from '../../lib/validation.js';
import { requireFeature } from '../auth/features.js';
import { ChangeFeed } from './change-feed.js';
import { CheckMetrics, sweepCheckMetrics } from './check-metrics.js';
import { ConnectionResolver } from './connections.js';
import { webhookToken } from '../../lib/checks/webhook.js';
import { liveCheckSpecs } from './queries.js';
import { HealthScheduler, type SchedulerOptions } from './scheduler.js';
import { canaryWriter } from './canary-writer.js';
import { createHealthService, type EditContext, type SummaryBody } from './service.js';

export interface HealthRoutesOptions {
  config: Config;
  /** Scheduler settings (tests shorten them); false never starts one. */
  scheduler?: Partial<Omit<SchedulerOptions, 'log' | 'onResults' | 'onOutcome' | 'valueFrom' | 'connections'>> | false;
}

type IdParams = { Params: { id: string } };
const READ = { access: { resource: 'canaries', action: 'read' } } as const;
const WRITE = { access: { resource: 'canaries', action: 'write' } } as const;
/** Run Now is for these roles (spec 000 §6); responders and commanders have no write on canaries. */
/** Webhook bodies: JSON or any text, up to 1 MiB. */
const WEBHOOK_BODY_LIMIT = 1024 * 1024;
const RUN_NOW_ROLES: readonly Role[] = ['admin', 'editor', 'responder', 'commander'];
/** Live-update relations that can change what the summary shows (canaries invalidate it outright). */
const SUMMARY_RELATIONS = new Set(['checks', 'check_statuses', 'check_summary', 'checks_unlogged']);

// The reference binds summary options case-insensitively; `timeRange` is the UI's name for the window.
const SUMMARY_KEYS: Record<string, string> = {
  checkid: 'checkID', canaryid: 'canaryID', labels: 'labels', window: 'window', timerange: 'window', sortby: 'sortBy',
  deletefrom: 'deleteFrom',
};

/** `k=v,k2=v2` or a JSON object. */
function parseLabels(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  if (v.trim().startsWith('{')) {
    try {
      return JSON.parse(v);
    } catch {
      throw new BadRequestError('labels: invalid JSON');
    }
  }
  return Object.fromEntries(v.split(',').filter(Boolean).map((kv) => {
    const i = kv.indexOf('=');
    return i < 0 ? [kv.trim(), ''] : [kv.slice(0, i).trim(), kv.slice(i + 1).trim()];
  }));
}

/** Whether an Accept-Encoding header takes gzip (`gzip` or `*`, with q above 0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return (name === 'gzip' || name === '*') && (!q || Number(q.slice(2)) > 0);
  });
}

/** The summary body as is (PostgreSQL's JSON text); the ready gzip copy to clients that take gzip. */
function sendSummary(req: FastifyRequest, reply: FastifyReply, body: SummaryBody) {
  reply.type('application/json; charset=utf-8');
  if (!body.gzip) return reply.send(body.json);
  reply.header('vary', 'accept-encoding');
  if (!acceptsGzip(req.headers['accept-encoding'])) return reply.send(body.json);
  return reply.header('content-encoding', 'gzip').send(body.gzip);
}

function summaryOptions(raw: unknown): SummaryRequest {
  const out: Record<string, unknown> = {};
  if (raw && typeof raw === 'object') {
    for (const [k, v] of Object.entries(raw)) {
      const key = SUMMARY_KEYS[k.toLowerCase()];
      if (key && v !== '' && v !== undefined) out[key] = key === 'labels' ? parseLabels(v) : v;
    }
  }
  return parseBody(SummaryRequest, out);
}

/** The caller's roles, and the CR resourceVersion an edit of a CR-sourced canary was made against (if it says). */
function editContext(req: FastifyRequest): EditContext {
  const pre = parseBody(EditPrecondition, req.body ?? {});
  return { roles: req.principal!.roles, version: pre.resource_version ?? pre.metadata?.resourceVersion };
}

/** Health: /api/canary/* (the reference's canary-checker paths) and canary CRUD. */
export const healthRoutes: FastifyPluginAsync<HealthRoutesOptions> = async (app, opts) => {
  const feed = app.hasDecorator('events') ? new ChangeFeed((change) => app.events.publish(change)) : null;
  const onResults = (ids: string[]) => {
    feed?.add(['checks', 'check_statuses', 'check_summary'], ids);
    health.resultsChanged();
  };
  // every mode runs checks (an agent its cluster's Canary CRs and pulled canaries, into its outbox); an agent app
  // built without an upstream (tests use MODE=agent for an app without a scheduler; main.ts refuses it) does not
  const { config } = opts;
  const runs = opts.scheduler !== false && (config.MODE !== 'agent' || Boolean(config.UPSTREAM_URL && config.AGENT_TOKEN));
  // Only the leader runs the schedule (app.leadership, from the kube plugin: a Lease with Kubernetes; a lone process
  // always leads). A HealthScheduler does not restart after stop(), so each gain of the lead starts a new one; the
  // service reaches whichever is running through this handle.
  let scheduler: HealthScheduler | undefined;
  const schedulerHandle = runs
    ? { reload: () => scheduler?.reload() ?? Promise.resolve(), nextRunOf: (id: string) => scheduler?.nextRunOf(id) ?? null }
    : undefined;
  // valueFrom in check specs is read from the cluster the kube plugin connects to
  const valueFrom = app.hasDecorator('kube') ? app.kube.valueFrom : undefined;
  // connection:// in check specs names a row of `connections`; its valueFrom is read from the connection's namespace
  const connections = new ConnectionResolver({ db: app.db, valueFrom });
  // custom metrics[] of checks, exported at /metrics by the process that ran the check, kept in step with the specs
  const checkMetrics = new CheckMetrics(app.metrics, app.log);
  const onOutcome = checkMetrics.observe.bind(checkMetrics);
  const stopSweep = sweepCheckMetrics(checkMetrics, {
    lookup: (ids) => liveCheckSpecs(app.db, ids), log: app.log,
    subscribe: app.hasDecorator('events') ? (fn) => app.events.bus.subscribe(fn) : undefined,
  });
  app.addHook('onClose', async () => stopSweep());
  // CR-sourced canaries are edited in the cluster (the kube plugin's edits), whichever door the edit came through
  const crEdits = app.hasDecorator('kube') ? app.kube.canaries : undefined;
  const health = createHealthService({
    db: app.db, scheduler: schedulerHandle, onResults, onOutcome, valueFrom, connections, log: app.log, crEdits,
  });
  // /api/db/canaries writes through the same service functions as the routes below
  if (app.hasDecorator('relationWriters')) app.relationWriters.register('canaries', canaryWriter(health));
  // Other replicas' changes reach the ready whole-fleet summary through the live-update bus.
  if (app.hasDecorator('events')) {
    const off = app.events.bus.subscribe((event) => {
      if (event.type === 'change' && event.relation === 'canaries') health.checksChanged();
      else if (event.type === 'resync' || (event.type === 'change' && SUMMARY_RELATIONS.has(event.relation))) health.resultsChanged();
    });
    app.addHook('onClose', async () => {
      off();
    });
  }

  if (runs) {
    const leadership = app.hasDecorator('leadership') ? app.leadership : null;
    let closing = false;
    let change = Promise.resolve();
    const follow = (leads: boolean) => {
      change = change.then(async () => {
        if (leads && !scheduler && !closing) {
          scheduler = new HealthScheduler(app.db, { ...(opts.scheduler || {}), log: app.log, onResults, onOutcome, valueFrom, connections });
          await scheduler.start();
        } else if (!leads && scheduler) {
          const s = scheduler;
          scheduler = undefined;
          await s.stop();
        }
      }).catch((err) => app.log.error({ err }, 'health scheduler: start/stop failed'));
      return change;
    };
    let off = () => {};
    app.addHook('onReady', async () => {
      off = leadership ? leadership.onChange(follow) : off;
      await follow(leadership ? leadership.isLeader() : true);
    });
    app.addHook('onClose', async () => {
      closing = true;
      off();
      await follow(false);
      feed?.flush();
    });
  }

  // The summary body is PostgreSQL's JSON text (SummaryResponse), sent as is.
  app.get('/api/summary', { config: READ }, async (req, reply) =>
    sendSummary(req, reply, await health.summary(summaryOptions(req.query))));
  app.post('/api/summary', { config: READ }, async (req, reply) =>
    sendSummary(req, reply, await health.summary(summaryOptions({ ...(req.query as object), ...(req.body as object) }))));
  app.get('/api/history', { config: READ }, (req) => health.history(parseBody(HistoryRequest, req.query)));
  app.get('/api/graph', { config: READ }, (req) => health.graph(parseBody(GraphRequest, req.query)));
  app.get<IdParams & { Querystring: { window?: string } }>('/api/check/:id', { config: READ }, (req) =>
    health.checkDetail(parseId(req.params.id, 'check id'), req.query.window));

  app.post<IdParams>('/run/check/:id', { config: { access: 'custom' } }, (req: FastifyRequest<IdParams>) => {
    if (!req.principal!.roles.some((r) => RUN_NOW_ROLES.includes(r))) throw new ForbiddenError();
    return health.runCheck(parseId(req.params.id, 'check id'));
  });

  // Pushed results. The webhook is public (the check's own token, `?token=` or `Webhook-Token`, guards it), as the
  // reference's /webhook/:id; push needs write on canaries and creates the canary and check when missing.
  await app.register(async (hooks) => {
    // any other content type arrives as text (JSON and text/plain keep Fastify's own parsers)
    hooks.addContentTypeParser('*', { parseAs: 'string', bodyLimit: WEBHOOK_BODY_LIMIT }, (_req, body, done) => done(null, body));
    hooks.post<IdParams>('/webhook/:id', { config: { access: 'public' }, bodyLimit: WEBHOOK_BODY_LIMIT }, (req) => {
      const id = req.params.id;
      if (!id || id.length > 255) throw new BadRequestError('invalid webhook check id');
      const body = req.body;
      const isJson = (req.headers['content-type'] ?? '').toLowerCase().includes('json') && typeof body !== 'string';
      return health.webhook(id, webhookToken(req.query as Record<string, unknown>, req.headers), {
        headers: req.headers as Record<string, string | string[] | undefined>,
        ...(isJson ? { json: body } : body === undefined || body === null ? {} : { content: String(body) }),
      });
    });
  });
  app.post('/api/push', { config: WRITE }, async (req, reply) => {
    const out = await health.push(parseBody(PushRequest, req.body), req.principal!.id);
    return reply.status(201).send(out);
  });

  // Canary edits are the Health settings page's writes: refused while settings.health (or health) is off.
  const settingsOn = async () => requireFeature(app.db, 'settings.health');
  app.get<IdParams>('/:id', { config: READ }, (req) => health.getCanary(parseId(req.params.id, 'canary id')));
  app.post('/', { config: WRITE, preHandler: settingsOn }, async (req, reply) => {
    const created = await health.createCanary(parseBody(CanaryInput, req.body), req.principal!.id);
    return reply.status(201).send(created);
  });
  app.put<IdParams>('/:id', { config: WRITE, preHandler: settingsOn }, (req) =>
    health.updateCanary(parseId(req.params.id, 'canary id'), parseBody(CanaryInput, req.body), editContext(req)));
  app.patch<IdParams>('/:id', { config: WRITE, preHandler: settingsOn }, (req) =>
    health.patchCanary(parseId(req.params.id, 'canary id'), parseBody(CanaryPatch, req.body), editContext(req)));
  app.delete<IdParams>('/:id', { config: WRITE, preHandler: settingsOn }, async (req) => {
    await health.deleteCanary(parseId(req.params.id, 'canary id'), editContext(req));
    return { message: 'success' };
  });
};
