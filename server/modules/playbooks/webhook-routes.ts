import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ApiError, BadRequestError, NotFoundError } from '../../lib/errors.js';
import { ValueFromResolver } from '../../lib/value-from.js';
import { createRun } from './runs.js';
import { SYSTEM_PERSON_ID } from './triggers/canary-trigger.js';
import { triggerEnv, triggerParams } from './triggers/params.js';
import { playbookByWebhookPath } from './triggers/queries.js';
import { authenticateWebhook, type CredentialReader } from './webhook-auth.js';

/** The largest webhook body accepted (413 past it). */
export const WEBHOOK_BODY_LIMIT = 1024 * 1024;
/** Requests a minute per webhook path, per replica (429 past it). */
export const WEBHOOK_RATE_PER_MINUTE = 60;
/** Headers a run's `.request` keeps as `***`: credentials have no business in a run's record. */
const REDACTED_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);

const NO_CLUSTER = new ValueFromResolver({ reader: null });
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
type WebhookRequest = FastifyRequest<{ Params: { '*': string } }>;

/** The run's `.request`, as the reference records it: {url, method, headers, params, content, json}. */
export function webhookRequest(req: WebhookRequest, rawBody: string): Record<string, unknown> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    headers[k] = REDACTED_HEADERS.has(k) ? '***' : Array.isArray(v) ? v.join(', ') : String(v);
  }
  const out: Record<string, unknown> = {
    url: req.url, method: req.method, headers, params: { ...(req.query as Record<string, unknown>) }, content: rawBody,
  };
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  if (rawBody && type.includes('json')) {
    try {
      out.json = JSON.parse(rawBody);
    } catch {
      throw new BadRequestError('the body is not valid JSON (Content-Type says it is)');
    }
  }
  return out;
}

/**
 * `GET|POST /api/playbook/webhook/{path}` (issue 14 "Triggers"): no sign-in (the playbook's own authentication guards
 * it) and not behind `playbooks.disable`. The live playbook whose `spec.on.webhook.path` is {path} runs, as the System
 * person, with the request as `.request` and its parameters' defaults: 200 {message: "ok", payload: {run_id}}.
 * Unknown path 404, failed authentication 401, body over 1 MB 413, over 60 requests a minute for a path 429.
 */
export const webhookRoutes: FastifyPluginAsync = async (app) => {
  const resolver = app.hasDecorator('kube') ? app.kube.valueFrom : NO_CLUSTER;
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_req, ctx) => new ApiError(429, 'rate_limited', `too many requests for this webhook, retry in ${ctx.after}`),
  });
  // every body arrives as the exact text sent: signatures (github, svix) are over those bytes
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: WEBHOOK_BODY_LIMIT }, (_req, body, done) => done(null, body));

  const handler = async (req: WebhookRequest) => {
    const path = req.params['*'] ?? '';
    const playbook = path ? await playbookByWebhookPath(app.db, path) : null;
    if (!playbook) throw new NotFoundError('playbook webhook', path);
    const rawBody = typeof req.body === 'string' ? req.body : '';
    const read: CredentialReader = async (value, field) => {
      if (typeof value === 'string') return value;
      if (isObject(value) && typeof value.value === 'string' && value.value !== '') return value.value;
      if (isObject(value) && isObject(value.valueFrom)) {
        const { spec } = await resolver.resolve({ [field]: value }, playbook.namespace);
        const resolved = spec[field];
        if (isObject(resolved) && typeof resolved.value === 'string') return resolved.value;
      }
      throw new ApiError(500, 'misconfigured', `on.webhook.authentication.${field} has no value`);
    };
    const on = isObject(playbook.spec.on) ? playbook.spec.on : {};
    const hook = isObject(on.webhook) ? on.webhook : {};
    await authenticateWebhook(hook.authentication, { headers: req.headers, rawBody }, read);
    const request = webhookRequest(req, rawBody);
    const params = await triggerParams(app.db, playbook, triggerEnv(playbook, { request }));
    const run = await createRun(app.db, { playbook, params, request, createdBy: SYSTEM_PERSON_ID });
    req.log.info({ playbook: playbook.id, run: run.run_id, path }, 'playbook run started by its webhook');
    return { message: 'ok', payload: { run_id: run.run_id } };
  };

  const config = {
    access: 'public' as const,
    rateLimit: {
      max: WEBHOOK_RATE_PER_MINUTE, timeWindow: 60_000,
      keyGenerator: (req: FastifyRequest) => `webhook:${(req.params as { '*'?: string })['*'] ?? ''}`,
    },
  };
  app.get('/api/playbook/webhook/*', { config, bodyLimit: WEBHOOK_BODY_LIMIT }, handler);
  app.post('/api/playbook/webhook/*', { config, bodyLimit: WEBHOOK_BODY_LIMIT }, handler);
};
