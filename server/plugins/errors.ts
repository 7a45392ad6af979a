import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../lib/errors.js';
import { isPgError, statusForSqlState } from '../lib/pg-errors.js';

interface ErrorBody {
  status: number;
  code: string;
  message: string;
  details: unknown;
  hint: string | null;
}

const isDbApi = (req: FastifyRequest) => req.url.startsWith('/api/db/') || req.url === '/api/db';

/** Turns anything thrown into one status and error body; unexpected errors are logged and hidden. */
function describe(err: unknown, req: FastifyRequest): ErrorBody {
  if (err instanceof ApiError) {
    return { status: err.statusCode, code: err.code, message: err.message, details: err.details, hint: err.hint };
  }
  if (isPgError(err)) {
    const status = statusForSqlState(err.code);
    if (status < 500) {
      return { status, code: err.code, message: err.message, details: err.detail ?? null, hint: err.hint ?? null };
    }
    req.log.error({ err }, 'database error');
    return { status, code: err.code, message: 'database error', details: null, hint: null };
  }
  const fe = err as FastifyError;
  if (fe.validation) {
    return { status: 400, code: 'invalid', message: fe.message, details: fe.validation, hint: null };
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    // Fastify's own client errors: bad JSON, body too large, unsupported media type, rate limit...
    const code =
      fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? 'PGRST107'
      : fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || fe instanceof SyntaxError ? 'PGRST102'
      : fe.code ?? 'invalid';
    return { status: fe.statusCode, code, message: fe.message, details: null, hint: null };
  }
  req.log.error({ err }, 'unhandled error');
  return { status: 500, code: 'internal', message: 'internal server error', details: null, hint: null };
}

export function sendError(err: unknown, req: FastifyRequest, reply: FastifyReply) {
  const e = describe(err, req);
  reply.status(e.status).type('application/json; charset=utf-8');
  if (isDbApi(req)) return reply.send({ code: e.code, message: e.message, details: e.details, hint: e.hint });
  return reply.send({ error: e.message, code: e.code, message: e.message, ...(e.details != null && { details: e.details }) });
}

/** One error path for the whole server (STYLE.md rule 12). */
export const errorsPlugin = fp(
  async (app) => {
    app.setErrorHandler((err, req, reply) => sendError(err, req, reply));
    app.setNotFoundHandler((req, reply) =>
      sendError(new ApiError(404, isDbApi(req) ? 'PGRST205' : 'not_found', `route ${req.method} ${req.url.split('?')[0]} not found`), req, reply),
    );
  },
  { name: 'errors' },
);
