/**
 * The one error type the server throws on purpose. The error plugin renders it as PostgREST's
 * `{code, message, details, hint}` under /api/db and as `{error, code, message, details?}` elsewhere.
 */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details: unknown = null,
    readonly hint: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export class BadRequestError extends ApiError {
  constructor(message: string, details: unknown = null, code = 'invalid') {
    super(400, code, message, details);
  }
}

export class UnauthorizedError extends ApiError {
  constructor(message = 'unauthorized') {
    super(401, 'unauthorized', message);
  }
}

export class ForbiddenError extends ApiError {
  constructor(message = 'unauthorized. Access Denied', details: unknown = null) {
    super(403, 'forbidden', message, details);
  }
}

export class NotFoundError extends ApiError {
  constructor(what: string, id?: string) {
    super(404, 'not_found', id === undefined ? `${what} not found` : `${what} ${id} not found`);
  }
}

export class ConflictError extends ApiError {
  constructor(message: string, details: unknown = null) {
    super(409, 'conflict', message, details);
  }
}
