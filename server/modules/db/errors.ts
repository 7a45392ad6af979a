import { ApiError } from '../../lib/errors.js';

// PostgREST error constructors. Every client mistake becomes one of these (a 4xx JSON body), never a 5xx.

const clip = (s: string) => (s.length > 200 ? `${s.slice(0, 200)}…` : s);

/** 400 PGRST100: a query parameter that does not follow the grammar. */
export function parseError(what: string, value: string, details: string): ApiError {
  return new ApiError(400, 'PGRST100', `"failed to parse ${what}" (${clip(value)})`, details);
}

/** 400 PGRST100 for limits we impose (list sizes, nesting) so hostile input cannot exhaust the server. */
export function tooLarge(message: string): ApiError {
  return new ApiError(400, 'PGRST100', message, null, 'Split the request into smaller ones.');
}

export function unknownRelation(name: string): ApiError {
  return new ApiError(404, 'PGRST205', `Could not find the table 'public.${clip(name)}' in the schema cache`);
}

export function unknownColumn(relation: string, column: string, suggestion?: string): ApiError {
  return new ApiError(400, '42703', `column ${relation}.${clip(column)} does not exist`, null,
    suggestion ? `Perhaps you meant to reference the column "${relation}.${suggestion}".` : null);
}

export function badBody(message: string, details: unknown = null): ApiError {
  return new ApiError(400, 'PGRST102', message, details);
}

export function forbidden(relation: string, resource: string, action: string): ApiError {
  return new ApiError(403, '42501', `permission denied for ${relation}`, `${action} on ${resource} is not granted to your roles`);
}
