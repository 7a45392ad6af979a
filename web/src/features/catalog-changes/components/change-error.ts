import { ApiError } from '../../../lib/api-client';

/** Spec 001 §8 "Changes errors": the message, or "Something went wrong". */
export function changeErrorMessage(err: unknown): string {
  if (typeof err === 'string' && err) return err;
  if ((err instanceof ApiError || err instanceof Error) && err.message) return err.message;
  return 'Something went wrong';
}
