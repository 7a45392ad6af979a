import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../lib/errors.js';
import type { DbRequest, DbResponse } from './http.js';
import { checkProfile } from './parse/headers.js';
import type { RegistryFilter } from './schema-cache.js';
import { createDbService } from './service.js';

const header = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(',') : v);

function toDbRequest(req: FastifyRequest, target: string): DbRequest {
  // The schema is negotiated per request (Accept-Profile for reads, Content-Profile for the rest); only public exists.
  const read = req.method === 'GET' || req.method === 'HEAD';
  checkProfile(header(read ? req.headers['accept-profile'] : req.headers['content-profile']));
  const q = req.url.indexOf('?');
  return {
    method: req.method,
    target,
    query: q < 0 ? '' : req.url.slice(q + 1),
    prefer: req.headers.prefer,
    range: header(req.headers.range),
    accept: header(req.headers.accept),
    body: req.body,
    actor: req.principal?.id,
    roles: req.principal?.roles,
    can: (resource, action) => req.can(resource, action),
  };
}

function send(reply: FastifyReply, res: DbResponse) {
  reply.status(res.status).headers(res.headers);
  // The body is JSON text built by PostgreSQL: sent as is, never parsed and re-serialised here.
  return res.body === null ? reply.send() : reply.send(res.body);
}

/**
 * /api/db: the PostgREST-compatible API over the relations and functions of ./registry.ts. Access is checked per
 * relation, embed and function inside the service ('custom'); the auth plugin guarantees a principal and CSRF.
 */
export const dbRoutes: FastifyPluginAsync<{ only?: RegistryFilter }> = async (app, opts) => {
  const service = createDbService(app.db, opts.only, app.relationWriters);
  app.addHook('onReady', async () => {
    await service.load();
  });
  // PostgREST accepts DELETE (and body-less POST /rpc) with `Content-Type: application/json` and no body; Fastify's
  // own parser rejects an empty JSON body, so this scope parses JSON itself: empty → undefined, else the default parser.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) done(null, undefined);
    else json(req, body as string, done);
  });
  const config = { access: 'custom' as const };
  type Rel = { Params: { relation: string } };
  type Fn = { Params: { fn: string } };

  app.get<Fn>('/rpc/:fn', { config }, async (req, reply) => send(reply, await service.rpc(toDbRequest(req, req.params.fn))));
  app.post<Fn>('/rpc/:fn', { config }, async (req, reply) => send(reply, await service.rpc(toDbRequest(req, req.params.fn))));
  app.route<Fn>({
    method: ['PUT', 'PATCH', 'DELETE'], url: '/rpc/:fn', config,
    handler: async (req) => {
      throw new ApiError(405, 'PGRST101', `Cannot use the ${req.method} method on RPC`, null, 'Use GET (read-only functions) or POST.');
    },
  });

  app.get<Rel>('/:relation', { config }, async (req, reply) => send(reply, await service.read(toDbRequest(req, req.params.relation))));
  app.route<Rel>({
    method: ['POST', 'PATCH', 'DELETE'], url: '/:relation', config,
    handler: async (req, reply) => send(reply, await service.write(toDbRequest(req, req.params.relation))),
  });
  app.put('/:relation', { config }, async (req) => {
    throw new ApiError(405, 'PGRST117', `Unsupported HTTP verb: ${req.method}`, null, 'Use POST with Prefer: resolution=merge-duplicates to upsert.');
  });
};
