import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../../config.js';
import type { FlowType } from '../../../contracts/identity.js';
import { sha256 } from '../../../lib/crypto.js';
import { ApiError } from '../../../lib/errors.js';
import { sendError } from '../../../plugins/errors.js';
import { setAssuranceResolver } from '../../../plugins/auth.js';
import { adminRoutes } from '../admin-routes.js';
import { orySessionRoutes } from '../ory-sessions.js';
import { checkCsrf, FLOW_CSRF_COOKIE } from './csrf.js';
import {
  callerSession, continueWith, createFlow, expiredError, FLOW_PAGES, flowContext, LOCK_MINUTES, openSession, renderFlow,
  requiredAssurance, type NewFlowParams, type StoredMessage,
} from './engine.js';
import { aal2Required, flowRateLimited, KratosError, sendKratosError, sessionInactive, wantsJson } from './errors.js';
import { hasKind, kindOf } from './kinds/index.js';
import { loginParams } from './kinds/login.js';
import { loginIdentifier } from '../factors/password.js';
import { insertFlowError, selectFlow, selectFlowAndCandidates, selectFlowError, updateFlow, type FlowRow } from './queries.js';
import { checkReturnTo } from './return-to.js';
import { toStored } from './store.js';
import { FlowValidationError, type FlowContext } from './types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const notFound = (what = 'flow') =>
  new KratosError(404, undefined, `Unable to locate the resource: this ${what} does not exist`);

const mismatch = () =>
  new KratosError(403, 'security_identity_mismatch', 'The flow belongs to another identity than the session.', {
    reason: 'The request was initiated by someone else and has been blocked for security reasons. Please go back and try again.',
  });

type Query = Record<string, unknown>;

/** Whether the request is a browser navigation (a page load or a plain form post) rather than an SPA/SDK call. */
const isNavigation = (req: FastifyRequest) =>
  !wantsJson(req) && /\/self-service\/(?!errors)[^/?]+(\/browser)?(\?|$)/.test(req.url) && !/\/flows(\?|$)/.test(req.url);

/** The Kratos-compatible frontend API (browser flows) under /api/.ory, plus sessions and the admin routes. */
export const oryRoutes: FastifyPluginAsync<{ config: Config }> = async (app, { config }) => {
  setAssuranceResolver(requiredAssurance);
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  // Per client address and per replica (in memory), like the legacy login's LOGIN_RATE_LIMIT: flow submissions and
  // mail links; a 429 is Kratos' error body with Retry-After (seconds). Only routes with config.rateLimit count.
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_req, ctx) => flowRateLimited(Math.max(1, Math.ceil(ctx.ttl / 1000))),
  });
  const submitLimit = { max: flowRateLimit(config), timeWindow: 60_000 };

  app.setErrorHandler(async (err, req, reply) => {
    if (!(err instanceof ApiError)) return sendError(err, req, reply);
    if (isNavigation(req)) {
      const k = err instanceof KratosError ? err : null;
      const useFlow = k?.id === 'self_service_flow_expired' ? (k.extra.details?.use_flow_id as string | undefined) : undefined;
      const type = /\/self-service\/([a-z]+)/.exec(req.url)?.[1] as FlowType | undefined;
      if (useFlow && type && FLOW_PAGES[type]) return reply.redirect(`${FLOW_PAGES[type]}?flow=${useFlow}`, 303);
      if (k?.extra.redirectTo) return reply.redirect(k.extra.redirectTo, 303);
      const id = await insertFlowError(app.db, { ...errorBody(err), id: k?.id });
      return reply.redirect(`/error?id=${id}`, 303);
    }
    return sendKratosError(reply, err);
  });

  async function paramsFor(req: FastifyRequest, type: FlowType, q: Query): Promise<NewFlowParams> {
    if (type === 'login') return loginParams(app.db, config, req, q);
    const returnTo = checkReturnTo(config, q.return_to);
    const session = callerSession(req);
    if (type === 'settings') {
      if (!session) throw sessionInactive(`/profile-settings`);
      if (session.aal === 'aal1' && (await requiredAssurance(app.db, session.personId)) === 'aal2') throw aal2Required('/profile-settings');
      return { returnTo, requestedAal: null, refresh: false, personId: session.personId };
    }
    if (type === 'registration' && session) {
      throw new KratosError(400, 'session_already_available', 'A valid session was detected and thus registration is not possible.', {
        redirectTo: returnTo ?? '/',
      });
    }
    return { returnTo, requestedAal: null, refresh: false, personId: type === 'verification' ? session?.personId ?? null : null };
  }

  /** A settings flow is its person's alone; a second-step login flow is its session's. */
  async function checkOwner(req: FastifyRequest, row: FlowRow): Promise<void> {
    if (row.type !== 'settings' && !(row.type === 'login' && row.person_id)) return;
    const s = callerSession(req);
    if (!s) throw sessionInactive(row.type === 'settings' ? '/profile-settings' : undefined);
    if (s.personId !== row.person_id) throw mismatch();
    if (row.type === 'settings' && s.aal === 'aal1' && (await requiredAssurance(app.db, s.personId)) === 'aal2') {
      throw aal2Required('/profile-settings');
    }
  }

  async function loadFlow(type: string, id: unknown): Promise<FlowRow> {
    if (!hasKind(type) || typeof id !== 'string' || !UUID.test(id)) throw notFound();
    const row = await selectFlow(app.db, id);
    if (!row || row.type !== type) throw notFound();
    return row;
  }

  /** loadFlow for a submission; a password sign-in's candidates come with the flow (one round trip, not two). */
  async function loadSubmitted(type: string, id: unknown, body: Query, link: boolean): Promise<{ row: FlowRow; candidates?: FlowContext['loginCandidates'] }> {
    const method = typeof body.method === 'string' ? body.method : body.password !== undefined ? 'password' : '';
    const identifier = type === 'login' && !link && method === 'password' ? loginIdentifier(body) : '';
    if (!identifier) return { row: await loadFlow(type, id) };
    if (!hasKind(type) || typeof id !== 'string' || !UUID.test(id)) throw notFound();
    const found = await selectFlowAndCandidates(app.db, id, identifier, LOCK_MINUTES);
    if (!found || found.row.type !== type) throw notFound();
    return { row: found.row, candidates: found.candidates ? { identifier, rows: found.candidates } : undefined };
  }

  const csrfFor = (req: FastifyRequest, row: FlowRow) => {
    const c = req.cookies?.[FLOW_CSRF_COOKIE];
    return c && sha256(c) === row.csrf_hash ? c : '';
  };

  async function answerFlow(req: FastifyRequest, reply: FastifyReply, row: FlowRow, csrf: string, status: number, values?: Query) {
    const ctx = flowContext(app.db, config, req, reply, toStored(row));
    const flow = await renderFlow(ctx, csrf, (row.messages ?? []) as StoredMessage[], values);
    return reply.status(status).send(flow);
  }

  app.get<{ Params: { type: string }; Querystring: Query }>('/self-service/:type/browser', { config: { access: 'public' } }, async (req, reply) => {
    const { type } = req.params;
    if (!hasKind(type)) throw notFound('flow type');
    const json = wantsJson(req);
    const row = await createFlow(app.db, config, req, reply, type, { ...(await paramsFor(req, type, req.query)), query: req.query }, {
      render: json,
    });
    if (!json) return reply.redirect(`${FLOW_PAGES[type]}?flow=${row.id}`, 303);
    if (row.rendered) return reply.status(200).send(row.rendered);
    return answerFlow(req, reply, row, row.csrfToken, 200);
  });

  app.get<{ Params: { type: string }; Querystring: Query }>('/self-service/:type/flows', { config: { access: 'public' } }, async (req, reply) => {
    const row = await loadFlow(req.params.type, req.query.id);
    if (row.expires_at.getTime() <= Date.now()) throw await expiredError(app.db, config, req, reply, row);
    await checkOwner(req, row);
    return answerFlow(req, reply, row, csrfFor(req, row), 200);
  });

  async function submit(req: FastifyRequest, reply: FastifyReply, type: string, flowId: unknown, body: Query, link: boolean) {
    const { row, candidates } = await loadSubmitted(type, flowId, body, link);
    if (row.expires_at.getTime() <= Date.now()) throw await expiredError(app.db, config, req, reply, row);
    if (!link) checkCsrf(req, row.csrf_hash, body);
    await checkOwner(req, row);
    const flow = toStored(row);
    const ctx = flowContext(app.db, config, req, reply, flow);
    if (candidates) ctx.loginCandidates = candidates;
    const navigation = link || !wantsJson(req);
    const page = `${FLOW_PAGES[row.type]}?flow=${row.id}`;
    let outcome;
    try {
      outcome = await kindOf(row.type).submit(ctx, body);
    } catch (err) {
      if (!(err instanceof FlowValidationError)) throw err;
      const messages: StoredMessage[] = err.messages.map((m) => ({ ...m, ...(err.field && { field: err.field }) }));
      await updateFlow(app.db, row.id, { messages });
      if (navigation) return reply.redirect(page, 303);
      const fresh = (await selectFlow(app.db, row.id))!;
      return answerFlow(req, reply, fresh, csrfFor(req, fresh), 400, body);
    }
    if (outcome.kind === 'show') {
      await updateFlow(app.db, row.id, { messages: outcome.messages ?? [] });
      if (navigation) return reply.redirect(page, 303);
      const fresh = (await selectFlow(app.db, row.id))!;
      return answerFlow(req, reply, fresh, csrfFor(req, fresh), 200);
    }
    if (outcome.kind === 'redirect') {
      if (navigation) return reply.redirect(outcome.to, 303);
      return reply.status(422).send({
        error: {
          id: 'browser_location_change_required', code: 422, status: 'Unprocessable Entity',
          reason: 'In order to complete this flow please redirect the browser to the URL in redirect_browser_to.',
          message: 'browser location change required',
        },
        redirect_browser_to: outcome.to,
      });
    }
    const opened = await openSession(ctx, outcome, { endFlow: row.type === 'login' || row.type === 'registration' });
    const next = outcome.continueTo ?? opened.next;
    if (navigation) return reply.redirect(next ?? row.return_to ?? '/', 303);
    return reply.send({
      session: opened.session, identity: opened.identity,
      ...(next ? { continue_with: continueWith(next) } : row.return_to ? { continue_with: continueWith(row.return_to) } : {}),
    });
  }

  app.post<{ Params: { type: string }; Querystring: Query }>('/self-service/:type', { config: { access: 'public', rateLimit: submitLimit } }, async (req, reply) => {
    const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Query) : {};
    return submit(req, reply, req.params.type, req.query.flow, body, false);
  });

  // a link from a mail (recovery, verification): `?flow=&token=`, opened in any browser, so no CSRF token
  app.get<{ Params: { type: string }; Querystring: Query }>('/self-service/:type', { config: { access: 'public', rateLimit: submitLimit } }, async (req, reply) => {
    if (typeof req.query.token !== 'string' || !['recovery', 'verification'].includes(req.params.type)) throw notFound('route');
    return submit(req, reply, req.params.type, req.query.flow, { method: 'link', token: req.query.token }, true);
  });

  app.get<{ Querystring: Query }>('/self-service/errors', { config: { access: 'public' } }, async (req) => {
    const id = req.query.id;
    if (typeof id !== 'string' || !UUID.test(id)) throw notFound('error');
    const row = await selectFlowError(app.db, id);
    if (!row) throw notFound('error');
    return { id: row.id, error: row.error, created_at: row.created_at.toISOString(), updated_at: row.created_at.toISOString() };
  });

  await app.register(orySessionRoutes, { config });
  await app.register(adminRoutes, { config });
};

/** Flow submissions a client may make a minute: AUTH_FLOW_RATE_LIMIT, else 6 × LOGIN_RATE_LIMIT. */
export const flowRateLimit = (config: Pick<Config, 'AUTH_FLOW_RATE_LIMIT' | 'LOGIN_RATE_LIMIT'>): number =>
  config.AUTH_FLOW_RATE_LIMIT ?? config.LOGIN_RATE_LIMIT * 6;

function errorBody(err: ApiError) {
  return {
    code: err.statusCode, message: err.message,
    ...(err instanceof KratosError && err.extra.reason && { reason: err.extra.reason }),
    ...(err.details != null && { details: err.details }),
  };
}
