import type { z } from 'zod';
import { BadRequestError } from './errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Validates a body with its contract; on failure a 400 whose `error` is the first message and whose `details`
 * maps each field to its message, so a form can show them next to its inputs.
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const r = schema.safeParse(body ?? {});
  if (r.success) return r.data;
  const fields: Record<string, string> = {};
  for (const issue of r.error.issues) {
    const key = issue.path.join('.') || '_';
    fields[key] ??= issue.message;
  }
  throw new BadRequestError(r.error.issues[0]?.message ?? 'invalid request body', fields);
}

/** A path id: a uuid, else 400. */
export function parseId(id: string, what = 'id'): string {
  if (!UUID.test(id)) throw new BadRequestError(`invalid ${what}: ${id.slice(0, 64)}`);
  return id.toLowerCase();
}
