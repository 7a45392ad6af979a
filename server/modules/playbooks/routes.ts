import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import {
  PlaybookListQuery, PlaybookParamsRequest, PlaybookPlanRequest, RunPlaybookRequest,
  type PlaybookListItem, type PlaybookParamsResponse, type PlaybookPlanResponse, type PlaybookRunMessage,
  type PlaybookRunStatusResponse, type RunPlaybookResponse,
} from '../../contracts/playbooks-api.js';
import { featureStates } from '../../contracts/rbac.js';
import { NotFoundError } from '../../lib/errors.js';
import { secretsKey } from '../../lib/secret-box.js';
import { parseBody, parseId } from '../../lib/validation.js';
import { propertyMap } from '../auth/queries.js';
import { getLivePlaybook, getRunView, listLivePlaybooks, listRunActions, type PlaybookApiRow } from './api-queries.js';
import { paramDefs } from './params.js';
import { playbookLiveRoutes } from './routes-live.js';
import { paramsFor, planActions, prepareRun } from './plan.js';
import { loadResource, playbooksFor } from './resource-match.js';
import { approveRun, cancelRun, createRun, retryFromFailed } from './runs.js';

const READ = { access: { resource: 'playbooks', action: 'read' } } as const;
const READ_RUNS = { access: { resource: 'playbook_runs', action: 'read' } } as const;
const WRITE_RUNS = { access: { resource: 'playbook_runs', action: 'write' } } as const;

type IdParams = { Params: { id: string } };

function listItem(p: PlaybookApiRow): PlaybookListItem {
  return {
    id: p.id, name: p.name, namespace: p.namespace, title: p.title || (typeof p.spec.title === 'string' ? p.spec.title : p.name),
    icon: p.icon ?? (typeof p.spec.icon === 'string' ? p.spec.icon : null),
    description: p.description ?? (typeof p.spec.description === 'string' ? p.spec.description : null),
    category: p.category || (typeof p.spec.category === 'string' ? p.spec.category : null),
    source: p.source, created_at: new Date(p.created_at).toISOString(), parameters: paramDefs(p.spec), spec: p.spec,
  };
}

const personOf = (req: FastifyRequest): string => req.principal!.id;

/**
 * The /api/playbook routes (issue 14 "API"; reference api.md "Playbooks"; shapes in contracts/playbooks-api.ts).
 * Reads need playbooks/playbook_runs read (every role); run, cancel, retry need playbook_runs write; approve also
 * needs a listed approver (runs.ts answers 403). `playbooks.disable` makes every route here 404, as if it did not
 * exist (the webhooks, registered elsewhere, are not affected).
 */
export const playbookApiRoutes: FastifyPluginAsync<{ config: Config }> = async (app, opts) => {
  const key = () => secretsKey(opts.config);

  // cancel and approve take no body: `curl -X POST -H 'content-type: application/json'` without one is not an error
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  app.addHook('onRequest', async (req) => {
    if (!req.url.startsWith('/api/playbook/') || req.url.startsWith('/api/playbook/webhook/')) return;
    if (!featureStates(await propertyMap(app.db)).playbooks) throw new NotFoundError('playbooks');
  });

  app.get('/api/playbook/list', { config: READ }, async (req): Promise<PlaybookListItem[]> => {
    const q = parseBody(PlaybookListQuery, req.query);
    const resource = await loadResource(app.db, q);
    const all = await listLivePlaybooks(app.db);
    return (resource ? await playbooksFor(app.db, all, resource) : all).map(listItem);
  });

  app.post<IdParams>('/api/playbook/:id/params', { config: READ }, async (req): Promise<PlaybookParamsResponse> => {
    const id = parseId(req.params.id, 'playbook id');
    const body = parseBody(PlaybookParamsRequest, stripId(req.body));
    return { params: await paramsFor(app.db, id, body, personOf(req)) };
  });

  app.post<IdParams>('/api/playbook/:id/plan', { config: READ }, async (req): Promise<PlaybookPlanResponse> => {
    const id = parseId(req.params.id, 'playbook id');
    const body = parseBody(PlaybookPlanRequest, stripId(req.body));
    return planActions(await prepareRun(app.db, id, body, personOf(req)));
  });

  app.post('/api/playbook/run', { config: WRITE_RUNS }, async (req, reply): Promise<RunPlaybookResponse> => {
    const body = parseBody(RunPlaybookRequest, req.body);
    const p = await prepareRun(app.db, body.id, body, personOf(req));
    const created = await createRun(app.db, {
      playbook: p.playbook, params: p.params, checkId: body.check_id, configId: body.config_id,
      componentId: body.component_id, request: body.request, createdBy: personOf(req), parentId: body.parent_id,
      agentId: body.agent_id, notificationSendId: body.notification_send_id, secretsKey: key(),
    });
    reply.code(201);
    return created;
  });

  app.get<IdParams>('/api/playbook/run/:id', { config: READ_RUNS }, async (req) => {
    const id = parseId(req.params.id, 'run id');
    const run = await getRunView(app.db, id);
    if (!run) throw new NotFoundError('playbook run', id);
    return run;
  });

  app.get<IdParams>('/api/playbook/run/:id/status', { config: READ_RUNS }, async (req): Promise<PlaybookRunStatusResponse> => {
    const id = parseId(req.params.id, 'run id');
    const run = await getRunView(app.db, id);
    if (!run) throw new NotFoundError('playbook run', id);
    const [playbook, actions] = await Promise.all([
      app.db.query('SELECT id, name, namespace, title, icon, description, category, source, spec FROM playbooks WHERE id = $1', [run.playbook_id]),
      listRunActions(app.db, id),
    ]);
    return { playbook: playbook.rows[0], run: run as PlaybookRunStatusResponse['run'], actions: actions as PlaybookRunStatusResponse['actions'] };
  });

  app.post<IdParams>('/api/playbook/run/approve/:id', { config: WRITE_RUNS }, async (req): Promise<PlaybookRunMessage> => {
    const { status } = await approveRun(app.db, parseId(req.params.id, 'run id'), personOf(req));
    return { message: status === 'scheduled' ? 'playbook run approved' : 'approval recorded; more approvals are needed' };
  });

  app.post<IdParams>('/api/playbook/run/cancel/:id', { config: WRITE_RUNS }, async (req): Promise<PlaybookRunMessage> => {
    await cancelRun(app.db, parseId(req.params.id, 'run id'), personOf(req));
    return { message: 'playbook run cancelled' };
  });

  app.post<IdParams>('/api/playbook/run/:id/retry', { config: WRITE_RUNS }, async (req, reply): Promise<RunPlaybookResponse> => {
    const id = parseId(req.params.id, 'run id');
    const run = await getRunView(app.db, id);
    if (!run) throw new NotFoundError('playbook run', id);
    if (!(await getLivePlaybook(app.db, String(run.playbook_id)))) throw new NotFoundError('playbook', String(run.playbook_id));
    const created = await retryFromFailed(app.db, id, personOf(req));
    reply.code(201);
    return created;
  });

  await app.register(playbookLiveRoutes); // /api/ws: {type: 'watch', run_id} → the run's log lines
};

/** The reference UI sends the playbook's `id` in the /params body too; the path's id is the one used. */
function stripId(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const { id: _id, ...rest } = body as Record<string, unknown>;
  return rest;
}
